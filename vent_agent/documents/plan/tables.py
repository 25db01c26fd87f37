"""The plan's ruled tables: location list (序号/用风地点/类别), allocation table (风量分配), sign-off block
(编制/审核/批准 × 职务/签字/日期).

Tables are recognised by their header words, not their position. A table that runs over a page break
arrives as two pdfplumber tables; :func:`logical_tables` joins them (same column count, the first at the
foot of its page, the second at the head of the next), drops a repeated header row, and joins a row
split by the break. Cell texts wrapped over lines are joined (``15216综采\\n工作面`` → ``15216综采工作面``).

Source references are human-facing: ``SourceRef.table`` is the 1-based table number on its page and
``SourceRef.row`` the row as the plan numbers it (its 序号) or else the 1-based data row under the header
(header rows are never counted); ``SourceRef.cell_row`` is the 1-based row of the physical table (header
rows counted), for tracing the cell back to the extraction.

Allocation tables are read by their header words in any column order (需风量/需要风量/计算风量,
配风量/计划风量/分配风量, 断面/有效断面, 风速/计划风速, 实测…). Units come from the header
(``需风量(m³/s)``, a unit row under the header, a ``单位：m³/s`` note) or from the cell (``1.33 m³/s``);
flows are converted to m³/min once, here (:mod:`units`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from vent_agent.documents.pdf_text import ExtractedTable
from vent_agent.documents.plan.model import AllocationRow, Figure, LocationKind, SignOff, SourceRef
from vent_agent.documents.plan.text_primitives import DATE_TEXT, normalize, parse_date, parse_number, squeeze
from vent_agent.documents.plan.units import (
    KNOWN_UNITS,
    UNIT_TEXT,
    canonical_unit,
    is_flow,
    parse_quantity,
    read_figure,
    unit_for,
)

KIND_RULES: list[tuple[LocationKind, str]] = [
    ("standby_face", r"备用"),
    ("diesel_roadway", r"胶轮|柴油|无轨"),
    ("heading", r"掘进|迎头"),
    ("coal_face", r"采煤|回采|综采|综放|炮采|普采"),
    ("explosives_store", r"爆炸材料|炸药库|火药库|爆破材料"),
    ("charging", r"充电"),
    ("chamber_heat", r"机电硐室|变电|配电|泵房|水泵|绞车房|压风机|空压机|机电"),
    ("other_roadway", r"巷|段|石门|车场|上山|下山|硐室"),
]

_ROLE_WORDS = [
    ("编制", r"编制|编写|制表|拟制"),
    ("审核", r"审核|审查|复核|校核"),
    ("批准", r"批准|审批|签发|审定"),
]
_ATTR_WORDS = [
    ("title", r"职务|职称|岗位|职位"),
    ("name", r"签字|签名|姓名|签章|签认"),
    ("date", r"日期|时间"),
]
TOTAL_ROW = re.compile(r"^(?:合计|总计|小计|汇总|矿井合计|总需风量)")

ALLOCATION_COLUMNS: list[tuple[str, str]] = [
    ("index", r"^(?:序号|编号|序)$"),
    ("location", r"用风地点|地点|名称|位置|用风场所"),
    ("measured_speed", r"实测风速|实际风速|实测.*风速|测定风速"),
    ("planned_speed", r"计划风速|设计风速|配风风速|分配风速|^风速"),
    ("measured_q", r"实测风量|实际风量|实测.*风量|测定风量"),
    ("required_q", r"需风量|需要风量|计算风量|应需风量|需风"),
    ("allocated_q", r"配风量|分配风量|计划风量|供风量|配风"),
    ("area", r"断面"),
    ("gas_emission", r"涌出量"),
    ("ch4", r"CH\s*[₄4]|CH\b|CH\(|甲烷|瓦斯"),
    ("co2", r"CO\s*[₂2]|二氧化碳"),
    ("temperature", r"温度"),
]
FLOW_FIELDS = {"required_q", "allocated_q", "measured_q"}
FIGURE_FIELDS = {
    "required_q",
    "allocated_q",
    "area",
    "planned_speed",
    "measured_speed",
    "measured_q",
    "ch4",
    "co2",
    "temperature",
}


def classify_kind(label: str, name: str = "") -> LocationKind:
    """The location kind from its category label (类别) and, failing that, its name; ``other_roadway``
    when a label is given but says nothing known, ``unknown`` when there is nothing to go on."""
    for text in (label, name):
        for kind, pattern in KIND_RULES:
            if text and re.search(pattern, text):
                return kind
    return "other_roadway" if label.strip() else "unknown"


@dataclass
class Cell:
    """A cell of a logical table: joined text, raw text, 1-based page/table/row, 0-based column."""

    text: str
    raw: str | None
    page: int
    table: int
    row: int
    col: int

    def ref(self, column: str | None = None) -> SourceRef:
        """Where the cell is; ``row`` is the physical row until the caller numbers it as the plan does."""
        return SourceRef(
            page=self.page,
            table=self.table,
            row=self.row,
            column=column,
            text=squeeze(self.raw or ""),
            cell_row=self.row,
        )


@dataclass
class LogicalTable:
    """One table, possibly joined over a page break."""

    rows: list[list[Cell]] = field(default_factory=list)
    n_cols: int = 0
    kind: str | None = None

    @property
    def page(self) -> int:
        return self.rows[0][0].page if self.rows and self.rows[0] else 0


def _cell_text(raw: str | None) -> str:
    return squeeze(re.sub(r"\s*\n\s*", "", normalize(raw))) if raw else ""


def _to_logical(t: ExtractedTable) -> LogicalTable:
    grid = t.rows()
    rows = [
        [Cell(_cell_text(raw), raw, t.page, t.index + 1, r + 1, c) for c, raw in enumerate(row)]
        for r, row in enumerate(grid)
    ]
    lt = LogicalTable(rows=rows, n_cols=t.n_cols)
    lt.kind = classify_table(lt)
    return lt


def classify_table(t: LogicalTable) -> str | None:
    """``signoff``, ``allocation``, ``locations`` or None, from the header words."""
    if not t.rows:
        return None
    first_row = [c.text for c in t.rows[0]]
    first_col = [r[0].text for r in t.rows if r]
    for cells in (first_row, first_col):
        roles = {r for r in (role_of(text) for text in cells if text) if r}
        if len(roles) >= 2:
            return "signoff"
    head = " ".join(c.text for r in t.rows[:3] for c in r)
    first = " ".join(first_row)
    if re.search(r"方法|依据", first) and re.search(r"结果|计算值", first) and re.search(r"公式|参数", first):
        return "calculation"
    if re.search(r"地点|名称", head) and re.search(r"配风|分配|计划风量|实测", head):
        return "allocation"
    if re.search(r"地点|名称", head) and re.search(r"类别|类型|性质|分类", head):
        return "locations"
    return None


def _is_header_like(row: list[Cell]) -> bool:
    return sum(1 for c in row if parse_quantity(c.text) is not None) < 2


def logical_tables(tables: list[ExtractedTable]) -> list[LogicalTable]:
    """Join tables continued over a page break; classify each."""
    out: list[LogicalTable] = []
    prev_src: ExtractedTable | None = None
    for t in sorted(tables, key=lambda x: (x.page, x.index)):
        lt = _to_logical(t)
        if (
            prev_src is not None
            and out
            and _continues(prev_src, t, tables)
            and lt.kind in (None, out[-1].kind)
        ):
            _append(out[-1], lt)
        else:
            out.append(lt)
        prev_src = t
    return out


def _continues(a: ExtractedTable, b: ExtractedTable, tables: list[ExtractedTable]) -> bool:
    last_on_page = max(x.index for x in tables if x.page == a.page) == a.index
    return (
        b.page == a.page + 1
        and b.index == 0
        and last_on_page
        and a.n_cols == b.n_cols
        and a.bbox[3] > 0.6 * a.page_height
        and b.bbox[1] < 0.35 * b.page_height
    )


def _append(into: LogicalTable, more: LogicalTable) -> None:
    rows = more.rows
    if rows and into.rows and [c.text for c in rows[0]] == [c.text for c in into.rows[0]]:
        rows = rows[1:]  # header repeated on the new page
    if rows and into.rows and into.kind == "allocation" and not rows[0][0].text:
        last = into.rows[-1]  # a row split by the page break
        for c, cell in enumerate(rows[0]):
            if cell.text and c < len(last):
                last[c].text = squeeze(last[c].text + cell.text)
        rows = rows[1:]
    into.rows.extend(rows)


def header_labels(rows: list[list[Cell]], n_cols: int) -> list[str]:
    """Column labels from the header rows. In the first header row a None cell continues the cell to
    its left (a horizontal span); in later rows it continues the cell above (nothing to add)."""
    labels = [""] * n_cols
    for r, row in enumerate(rows):
        carry = ""
        for c in range(n_cols):
            cell = row[c] if c < len(row) else None
            text = cell.text if cell is not None and cell.raw is not None else (carry if r == 0 else "")
            carry = text
            if text and not labels[c].endswith(text):
                labels[c] += text
    return labels


def column_unit(label: str) -> str | None:
    """The unit written in a column header, canonical: ``需风量(m³/s)`` → ``m³/s``, ``配风量m3/min`` →
    ``m³/min``, ``风速（米/秒）`` → ``m/s``; None when the header writes none."""
    text = normalize(label)
    for inner in reversed(re.findall(r"[(（\[]([^()（）\[\]]*)[)）\]]", text)):
        unit = canonical_unit(inner.replace("单位", "").strip(":："))
        if unit in KNOWN_UNITS:
            return unit
    m = re.search(rf"({UNIT_TEXT})\s*$", text)
    return canonical_unit(m.group(1)) if m else None


def table_unit(t: LogicalTable) -> str | None:
    """A unit stated for the whole table in a ``单位：m³/s`` cell (or None)."""
    for row in t.rows[:3]:
        for c in row:
            m = re.search(rf"单位\s*[:：]?\s*({UNIT_TEXT})", c.text)
            if m:
                return canonical_unit(m.group(1))
    return None


def column_fields(labels: list[str]) -> dict[int, str]:
    """Column index → field name (the first column for each field wins)."""
    out: dict[int, str] = {}
    used: set[str] = set()
    for i, label in enumerate(labels):
        bare = re.sub(r"[(（][^()（）]*[)）]", "", normalize(label))
        bare = re.sub(rf"(?:{UNIT_TEXT})\s*$", "", bare).strip()
        for fld, pattern in ALLOCATION_COLUMNS:
            if fld not in used and re.search(pattern, bare):
                out[i] = fld
                used.add(fld)
                break
    return out


def allocation_rows(
    t: LogicalTable, caption_unit: str | None = None
) -> tuple[list[AllocationRow], dict[str, Figure], list[str]]:
    """Allocation table → (rows, figures of a 合计 row by field, warnings). Columns in any order;
    flows converted to m³/min (the unit of the cell, else of the column, else of the table or of its
    caption ``caption_unit``; a flow column without any unit is read as m³/min, ``inferred``)."""
    n_header = 0
    while n_header < min(3, len(t.rows)) and _is_header_like(t.rows[n_header]):
        n_header += 1
    labels = header_labels(t.rows[:n_header], t.n_cols)
    fields = column_fields(labels)
    warnings = []
    if "location" not in fields.values():
        return [], {}, ["风量分配表缺少用风地点列 / allocation table: no location column"]
    for need in ("required_q", "allocated_q"):
        if need not in fields.values():
            warnings.append(f"风量分配表缺少 {need} 列 / allocation table: no {need} column")
    table_wide = table_unit(t) or caption_unit
    units = {i: column_unit(labels[i]) or (table_wide if fields[i] in FLOW_FIELDS else None) for i in fields}
    loc_col = next(i for i, f in fields.items() if f == "location")
    idx_col = next((i for i, f in fields.items() if f == "index"), None)
    rows: list[AllocationRow] = []
    total: dict[str, Figure] = {}
    data_row = 0
    for row in t.rows[n_header:]:
        if [c.text for c in row] == [c.text for c in t.rows[0]]:
            continue  # a header repeated inside the table
        name = row[loc_col].text if loc_col < len(row) else ""
        data_row += 1
        number = parse_number(row[idx_col].text) if idx_col is not None and idx_col < len(row) else None
        row_no = int(number) if number is not None and number == int(number) else data_row
        figures: dict[str, Figure] = {}
        for i, fld in fields.items():
            if fld not in FIGURE_FIELDS or i >= len(row):
                continue
            got = _cell_figure(row[i], labels[i], units[i], fld, row_no)
            if got is not None:
                figures[fld] = got
        if not name and not figures:
            data_row -= 1
            continue
        if TOTAL_ROW.match(name) or (not name and row[0].text and TOTAL_ROW.match(row[0].text)):
            total = figures
            continue
        if not name:
            warnings.append(f"风量分配表第 {row_no} 行没有地点名称 / allocation row {row_no}: no name")
            continue
        ref = row[loc_col].ref(labels[loc_col]).model_copy(update={"row": row_no})
        rows.append(AllocationRow(location=name, ref=ref, **figures))
    return rows, total, warnings


def _cell_figure(cell: Cell, label: str, unit: str | None, fld: str, row_no: int) -> Figure | None:
    """The figure of one allocation cell (None for a blank, a dash or text). The cell's own unit wins
    over the column's; a range ``1.5–1.8`` is kept with its upper end and marked ``uncertain``."""
    q = parse_quantity(cell.text)
    if q is None:
        return None
    value, upper, written = q
    ref = cell.ref(label).model_copy(update={"row": row_no})
    if upper is not None:
        ref.confidence = "uncertain"
    quantity = "flow" if fld in FLOW_FIELDS else fld
    written_unit = unit_for(quantity, canonical_unit(written) if written else unit)
    if fld in FLOW_FIELDS:
        if written_unit is not None and not is_flow(written_unit):
            ref.confidence = "uncertain"  # a flow column holding e.g. m/s
            written_unit = None
        return read_figure(value, written_unit, ref, flow=True, upper=upper)
    return read_figure(value, written_unit, ref, upper=upper)


def location_rows(t: LogicalTable) -> list[tuple[str, str, SourceRef]]:
    """Location-list table → [(name, category label, ref)]."""
    labels = [c.text for c in t.rows[0]]
    name_col = next((i for i, x in enumerate(labels) if re.search(r"地点|名称", x)), 1)
    kind_col = next((i for i, x in enumerate(labels) if re.search(r"类别|类型|性质|分类", x)), None)
    idx_col = next((i for i, x in enumerate(labels) if re.fullmatch(r"序号|编号|序", x)), None)
    out = []
    for n, row in enumerate(t.rows[1:], start=1):
        if name_col >= len(row) or not row[name_col].text:
            continue
        label = row[kind_col].text if kind_col is not None and kind_col < len(row) else ""
        number = parse_number(row[idx_col].text) if idx_col is not None and idx_col < len(row) else None
        row_no = int(number) if number is not None and number == int(number) else n
        ref = row[name_col].ref(labels[name_col]).model_copy(update={"row": row_no})
        out.append((row[name_col].text, label, ref))
    return out


def role_of(text: str) -> str | None:
    """编制 / 审核 / 批准 for a role cell (``编制人``, ``审批`` …)."""
    for role, pattern in _ROLE_WORDS:
        if re.fullmatch(rf"(?:{pattern})(?:人|栏)?:?", text):
            return role
    return None


def _attr_of(text: str) -> str | None:
    for attr, pattern in _ATTR_WORDS:
        if re.search(pattern, text):
            return attr
    return None


def signoffs(t: LogicalTable, plan_month: str | None = None) -> list[SignOff]:
    """Sign-off table (roles across the columns, or down the first column) → one SignOff per role.
    A cell holding a name and a date (``李明 2026.7.25``) gives both; ``7月25日`` takes its year
    from ``plan_month``."""
    grid = t.rows
    across = sum(1 for c in grid[0] if role_of(c.text)) >= 2
    if not across:  # transpose: roles down the first column
        grid = [list(col) for col in zip(*grid, strict=False)]
    out = []
    for c, head in enumerate(grid[0]):
        role = role_of(head.text)
        if not role:
            continue
        so = SignOff(role=role, ref=head.ref("signoff_role"))
        for row in grid[1:]:
            if c >= len(row):
                continue
            attr = _attr_of(row[0].text) or _guess_attr(row[c].text, plan_month)
            cell = row[c]
            value = cell.text or None
            if attr == "title" and value:
                so.title = value
            elif attr == "name":
                date = parse_date(value, plan_month)
                name = squeeze(DATE_TEXT.sub(" ", value)) if value and date else value
                so.name = None if name in (None, "", "/", "—", "-") else name
                so.date = so.date or date
                so.ref = cell.ref("signer")
            elif attr == "date":
                so.date = parse_date(value, plan_month)
                if so.ref is None or so.ref.column == "signoff_role":
                    so.ref = cell.ref("signoff_date")
        out.append(so)
    return out


def _guess_attr(text: str, plan_month: str | None = None) -> str | None:
    if parse_date(text, plan_month) and not re.search(r"[\u4e00-\u9fff]{2}\s", text):
        return "date"
    if re.search(r"工程师|技术员|区长|科长|矿长|主任|总工|副总|队长", text):
        return "title"
    return "name" if text else None
