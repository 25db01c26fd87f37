"""Text-layer fallbacks for tables that pdfplumber does not see as ruled tables (borderless tables,
OCR text): the location list, the allocation table and the sign-off block, read from the lines of
their sections.

These are less certain than ruled tables: a blank cell written as nothing (not ``—``) shifts the
values of a text row, and sign-off names missing in the middle of a row cannot be told apart from
missing ones at its end. The parser records a warning whenever it relies on them.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from vent_agent.documents.plan.model import AllocationRow, Confidence, Figure, SignOff, SourceRef
from vent_agent.documents.plan.tables import (
    FIGURE_FIELDS,
    FLOW_FIELDS,
    TOTAL_ROW,
    column_fields,
    column_unit,
    role_of,
)
from vent_agent.documents.plan.text_primitives import (
    DASHES,
    DATE_TEXT,
    Line,
    all_dates,
    name_key,
    normalize,
    parse_date,
    parse_number,
    squeeze,
)
from vent_agent.documents.plan.units import canonical_unit, parse_quantity, read_figure, unit_for

KIND_LABEL = (
    r"(?:采煤|回采|综采|综放|炮采|备用|掘进)工作面(?:\([^)]*\))?|机电硐室|爆炸材料库|炸药库|充电硐室"
    r"|其他用风巷道(?:\([^)]*\))?|用风巷道(?:\([^)]*\))?|硐室|巷道"
)
_LIST_LINE = re.compile(rf"^\s*(\d{{1,2}})\s*[.、)]?\s*(.+?)(?:\s+({KIND_LABEL}))?\s*$")
_HEADER_WORDS = (
    r"序号|编号|用风地点|地点名称|地点|名称|需风量|计划配风量|配风量|计划风量|分配风量|断面|计划风速|设计风速"
    r"|实测风速|实测风量|风速|CH\s*[₄4]?|甲烷|瓦斯浓度|CO\s*[₂2]|二氧化碳|温度|备注"
)
_HEADER_RE = re.compile(rf"({_HEADER_WORDS})\s*((?:\([^)]*\)\s*)?)")
_ROW_START = re.compile(r"^\s*(\d{1,3})\s+(\S.*)$")
_TITLE_WORDS = re.compile(r"工程师|技术员|区长|科长|矿长|主任|总工|队长")


def location_lines(lines: list[Line]) -> list[tuple[str, str, SourceRef]]:
    """Lines of the location-list section → [(name, category label, ref)]: ``1 15216 综采工作面
    采煤工作面`` rows, or one ``…：A、B、C`` enumeration."""
    out = []
    for line in lines:
        m = _LIST_LINE.match(line.text)
        if not m or re.search(r"序号|地点|类别", line.text):
            continue
        name = name_key(m.group(2))
        if name and not re.fullmatch(r"[\d.\s]+", name):
            out.append((name, m.group(3) or "", SourceRef(page=line.page, text=line.text)))
    if out:
        return out
    for line in lines:
        if "、" in line.text and re.search(r"[:：]", line.text):
            items = re.split(r"、", re.split(r"[:：]", line.text, maxsplit=1)[1])
            for item in items:
                name = name_key(item.strip("。.;；"))
                if name:
                    out.append((name, "", SourceRef(page=line.page, text=line.text)))
    return out


def allocation_lines(lines: list[Line]) -> tuple[list[AllocationRow], dict[str, Figure], list[str]]:
    """Lines of the allocation section (heading excluded) → (rows, 合计 figures, warnings)."""
    starts = [i for i, line in enumerate(lines) if _row_start(line.text)]
    if not starts:
        return [], {}, []
    header = " ".join(line.text for line in lines[: starts[0]])
    labels = [squeeze(m.group(1) + m.group(2)) for m in _HEADER_RE.finditer(header)]
    fields = column_fields(labels)
    if "location" not in fields.values():
        return [], {}, ["风量分配表（文本）未识别到表头 / allocation text: no header found"]
    loc_col = next(i for i, f in fields.items() if f == "location")
    value_cols = [i for i in range(loc_col + 1, len(labels))]
    warnings = ["风量分配表按文本行读取（非框线表格）/ allocation table read from text lines"]
    rows: list[AllocationRow] = []
    total: dict[str, Figure] = {}
    for n, first in enumerate(starts):
        stop = starts[n + 1] if n + 1 < len(starts) else len(lines)
        group = lines[first:stop]
        m = _ROW_START.match(group[0].text)
        index = int(m.group(1)) if m else None
        tokens = _tokens(group, skip_index=m is not None)
        values = [t for t in tokens if _value_like(t[0])]
        extra = max(0, len(values) - len(value_cols))
        name_tokens = [t for t in tokens if not _value_like(t[0])]
        name_tokens = values[:extra] + name_tokens if extra else name_tokens
        values = values[extra:]
        name = name_key("".join(t[0] for t in sorted(name_tokens, key=lambda t: t[2])))
        if len(values) < len(value_cols):
            warnings.append(f"风量分配表 {name}: 数值 {len(values)} 个，少于列数 {len(value_cols)}")
        figures = {}
        short = len(values) < len(value_cols)
        for (text, page, _), col in zip(values, value_cols, strict=False):
            fld = fields.get(col)
            q = parse_quantity(text)
            if fld in FIGURE_FIELDS and q is not None:
                value, upper, written = q
                # read by position: inferred; a row with fewer values than columns: uncertain
                sure: Confidence = "uncertain" if short or upper is not None else "inferred"
                ref = SourceRef(page=page, row=index or n + 1, column=labels[col], text=text, confidence=sure)
                unit = canonical_unit(written) if written else column_unit(labels[col])
                unit = unit_for("flow" if fld in FLOW_FIELDS else str(fld), unit)
                figures[fld] = read_figure(value, unit, ref, flow=fld in FLOW_FIELDS, upper=upper)
        if TOTAL_ROW.match(name):
            total = figures
            continue
        ref = SourceRef(
            page=group[0].page,
            row=index or n + 1,
            column=labels[loc_col],
            text=squeeze(group[0].text),
            confidence="inferred",
        )
        rows.append(AllocationRow(location=name, ref=ref, **figures))
    return rows, total, warnings


def _row_start(text: str) -> bool:
    m = _ROW_START.match(text)
    if m:
        return bool(re.search(r"[\u4e00-\u9fffA-Za-z]", m.group(2)))
    return bool(TOTAL_ROW.match(text.strip()))


def _value_like(token: str) -> bool:
    return token in DASHES or parse_number(token) is not None or parse_quantity(token) is not None


def _tokens(group: list[Line], skip_index: bool) -> list[tuple[str, int, int]]:
    """(token, page, order) over the lines of one text row; the leading row number dropped."""
    out = []
    order = 0
    for k, line in enumerate(group):
        parts = line.text.split()
        if k == 0 and skip_index:
            parts = parts[1:]
        for p in parts:
            out.append((p, line.page, order))
            order += 1
    return out


_ROLES = "|".join(
    r"\s*".join(word)
    for word in [
        "编制",
        "编写",
        "制表",
        "拟制",
        "审核",
        "审查",
        "复核",
        "校核",
        "批准",
        "审批",
        "签发",
        "审定",
    ]
)
ROLE_INLINE = re.compile(
    rf"(?<![\u4e00-\u9fff])({_ROLES})\s*(?:人|者)?\s*[:：]"
    rf"|[【\[〔(（]\s*({_ROLES})\s*(?:人|者)?\s*[】\]〕)）]\s*[:：]?"
)
"""A role label followed by a colon, or in brackets as on a stamp, anywhere in a line
(``编制：李明 2026年7月25日  审核：…``, ``【批准】总工程师 陈卫东``)."""


def signoff_lines(lines: list[Line], plan_month: str | None = None) -> tuple[list[SignOff], list[str]]:
    """Lines of the sign-off section → (sign-offs, warnings). Reads role lines such as
    ``编制：李明 2026年7月25日`` (several roles on one line, titles, several people per role, any date
    form; ``7月25日`` takes its year from ``plan_month``), or a grid written as lines
    (``编制 审核 批准`` / ``职务 …`` / ``签字 …`` / ``日期 …``)."""
    inline: list[SignOff] = []
    for line in lines:
        marks = list(ROLE_INLINE.finditer(line.text))
        if not marks and inline:  # a stamp's second line: 日期：… or 签字：… of the role above
            _continue_signoff(inline, line, plan_month)
        for n, m in enumerate(marks):
            stop = marks[n + 1].start() if n + 1 < len(marks) else len(line.text)
            word = re.sub(r"\s+", "", m.group(1) or m.group(2))
            inline += _inline_signoffs(role_of(word) or word, line.text[m.end() : stop], line, plan_month)
    if inline:
        return inline, []
    rows = _role_rows(lines, plan_month)
    if rows:
        return rows, []
    head = next(
        (i for i, line in enumerate(lines) if sum(1 for t in line.text.split() if role_of(t)) >= 2), None
    )
    if head is None:
        return [], []
    roles = [(role_of(t), lines[head]) for t in lines[head].text.split() if role_of(t)]
    attrs: dict[str, list[Line]] = {}
    current = None
    for line in lines[head + 1 :]:
        row_head = re.match(r"^\s*(职务|职称|岗位|签字|签名|姓名|日期|时间)\s*(.*)$", line.text)
        if row_head:
            current = {"职务": "title", "职称": "title", "岗位": "title", "日期": "date", "时间": "date"}.get(
                row_head.group(1), "name"
            )
            attrs.setdefault(current, []).append(Line(row_head.group(2), line.page))
        elif current:
            attrs[current].append(line)
    out = [SignOff(role=r or "", ref=SourceRef(page=line.page, text=line.text)) for r, line in roles]
    warnings = []
    for attr, attr_lines in attrs.items():
        text = " ".join(x.text for x in attr_lines)
        values = all_dates(text, plan_month) if attr == "date" else text.split()
        if len(values) < len(out):
            label = {"title": "职务", "name": "签字", "date": "日期"}[attr]
            warnings.append(
                f"审批栏{label}只有 {len(values)} 项，少于 {len(out)} 个签字栏，按顺序对应 / "
                f"sign-off {attr}: fewer entries than roles, matched in order"
            )
        for so, value in zip(out, values, strict=False):
            setattr(so, attr, value)
            if attr == "name":
                so.ref = SourceRef(page=attr_lines[0].page, text=squeeze(text))
    return out, warnings


ROLE_ROW = re.compile(rf"^\s*({_ROLES})\s*(?:人|者)?\s+(\S.*)$")
"""A sign-off table's row written as a line: the role first, then title, name and date
(``编制 通风技术员 李明 2026年8月27日``, ``审  核   王建国   2026.8.28``)."""


def _role_rows(lines: list[Line], plan_month: str | None) -> list[SignOff]:
    """Sign-offs from lines that each start with a role and go on with a person (a title, a name or a
    date): a sign-off table read as text lines, one row per role. Two such rows at least, so that a
    sentence starting with 审核 is not taken for a sign-off."""
    out: list[SignOff] = []
    for line in lines:
        m = ROLE_ROW.match(line.text)
        if not m:
            continue
        role = role_of(re.sub(r"\s+", "", m.group(1)))
        people = [p for p in _inline_signoffs(role or "", m.group(2), line, plan_month) if p.name or p.date]
        out += people
    return out if len({s.role for s in out}) >= 2 else []


def _inline_signoffs(role: str, rest: str, line: Line, plan_month: str | None) -> list[SignOff]:
    """One role's text (``通风区长 王五 2026.7.26 通风副总 赵六 2026.7.27``) → one SignOff per person:
    a title or a name after a completed person starts the next one; a date closes a person. Names
    spaced out (``李 明``) are joined; labels (签字、日期、职务) are dropped."""
    ref = SourceRef(page=line.page, text=squeeze(line.text), confidence="inferred")
    text = DATE_TEXT.sub(lambda m: f" @{parse_date(m.group(0), plan_month) or ''} ", normalize(rest))
    text = re.sub(r"[(（]?(?:签字|签名|签章|盖章|日期|时间|职务|职称|姓名)[)）]?\s*[:：]?", " ", text)
    text = re.sub(r"(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])", "", text)
    out: list[SignOff] = [SignOff(role=role, ref=ref)]

    def person(field: str, value: str) -> None:
        cur = out[-1]
        done = (cur.date is not None) if field == "date" else bool(cur.title or cur.name or cur.date)
        if field == "name":
            done = bool(cur.name or cur.date)
        if done:
            out.append(cur := SignOff(role=role, ref=ref))
        setattr(cur, field, value)

    for tok in (t for t in re.split(r"[\s,，、;；:：]+", text) if t and t not in DASHES):
        if tok.startswith("@"):
            if len(tok) > 1:
                person("date", tok[1:])
            continue
        pos = 0
        for m in _TITLE_RE.finditer(tok):
            if m.start() > pos:
                _name(tok[pos : m.start()], person)
            person("title", m.group(0))
            pos = m.end()
        _name(tok[pos:], person)
    return out


def _continue_signoff(inline: list[SignOff], line: Line, plan_month: str | None) -> None:
    """Fill the last sign-off's missing date or name from a following ``日期：…`` / ``签字：…`` line."""
    last = inline[-1]
    m = re.match(r"^\s*(日期|时间|签字|签名|姓名)\s*[:：]?\s*(.*)$", line.text)
    if not m:
        return
    more = _inline_signoffs(last.role, m.group(2), line, plan_month)[0]
    if m.group(1) in ("日期", "时间"):
        last.date = last.date or more.date
    else:
        last.name = last.name or more.name


_TITLE_RE = re.compile(
    r"[\u4e00-\u9fff]{0,4}?(?:副总工程师|总工程师|工程师|技术员|区长|科长|矿长|主任|副总|总工|队长|经理|书记|负责人)"
)


def _name(text: str, person: Callable[[str, str], None]) -> None:
    if re.fullmatch(r"[\u4e00-\u9fff·]{2,4}|[A-Za-z][A-Za-z .]{1,30}", text):
        person("name", text)
