"""Calculation processes written as tables: ``计算方法 | 计算公式 | 参数取值 | 计算结果(m³/s)`` in any column
order (an optional 用风地点 column for one table over all locations), one row per method and a
``需风量取值 | 取各方法最大值 | — | 18.87`` row for the stated maximum.

Each row becomes the same :class:`MethodStatement` a prose line gives: the method key from its label,
the formula with the parameters substituted (``Q = 100 × q × k = 100 × 4.20 × 1.5 = 10.50 m³/s``), the
operands of that substitution, the symbols' values (``q`` = 4.20, ``k`` = 1.5), and the stated result
converted to m³/min once, from the unit of the result column or cell. Results are ``exact`` table cells.

A table is tied to a location in one of two ways: by its location column, or by where its rows stand in
the text layer (the location block whose lines hold its first row; :func:`anchor_groups`). The lines a
table occupies are then left out of the block's prose reading, so that ``Q = 100 × q × k`` is never read
as a gas emission of 100.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from vent_agent.documents.plan.blocks import speed_bounds
from vent_agent.documents.plan.methods import method_key
from vent_agent.documents.plan.model import Figure, MethodStatement, SpeedCheckStatement
from vent_agent.documents.plan.tables import Cell, LogicalTable, column_unit, header_labels
from vent_agent.documents.plan.text_primitives import (
    NUM,
    TextDoc,
    name_key,
    numbers,
    operand_value,
    parse_number,
    squeeze,
)
from vent_agent.documents.plan.units import KNOWN_UNITS, canonical_unit, parse_quantity, read_figure, unit_for

CALC_COLUMNS: list[tuple[str, str]] = [
    ("location", r"用风地点|地点|名称"),
    ("formula", r"公式|计算式|表达式"),
    ("params", r"参数|取值|代入|已知|数据"),
    ("result", r"结果|计算值|需风量|风量|^Q"),
    ("method", r"方法|依据|项目|计算$"),
]
MAX_ROW = re.compile(r"取值|最大值|取最大|取大值|最终|确定需风量|^Q\s*需|^需风量$")
SPEED_ROW = re.compile(r"风速验算|风速校核|验算|校核")
_NUMERIC = re.compile(r"[\d.%\s×xX*·/+\-−()（）]+")
"""A substituted expression: numbers and operators only."""
_CONTINUED = re.compile(r"^\s*[×x*·+\-−=/÷)）]")
"""A formula cell that starts with an operator continues the formula of the row above (a row split by a
page break, or a wrapped cell read as a row of its own)."""
_PARAM = re.compile(rf"^\s*([^=:：]{{1,24}}?)\s*[=:：]\s*({NUM}\s*%?)\s*(.*)$")


def calc_columns(labels: list[str]) -> dict[str, int]:
    """Field → column index of a calculation table's header (the first column for each field)."""
    out: dict[str, int] = {}
    for i, label in enumerate(labels):
        bare = re.sub(r"[(（][^()（）]*[)）]", "", label)
        for fld, pattern in CALC_COLUMNS:
            if fld not in out and re.search(pattern, bare):
                out[fld] = i
                break
    return out


def is_calc_table(t: LogicalTable) -> bool:
    """Whether the table's first row is a calculation table's header."""
    if not t.rows:
        return False
    cols = calc_columns([c.text for c in t.rows[0]])
    return "method" in cols and "result" in cols and ("formula" in cols or "params" in cols)


@dataclass
class CalcGroup:
    """The rows of one location's calculation in a table: methods, the stated maximum, the location
    named by a location column (else None), the first and last row's method text (to find the
    table's lines in the text layer), and the result unit as written."""

    methods: list[MethodStatement] = field(default_factory=list)
    stated_required: Figure | None = None
    location: str | None = None
    page: int = 0
    first: tuple[str, str] = ("", "")
    last: tuple[str, str] = ("", "")
    header: tuple[str, str] = ("", "")
    unit: str | None = None
    speed_check: SpeedCheckStatement | None = None
    """The group's wind-speed check row (``风速验算 | 194.9 ≤ Q需 ≤ 2473.0 | 符合``), bounds as written."""


_BOUND_HEAD = re.compile(r"^(?:下限|上限|最小|最大|最低|最高|结论|是否符合)$")
"""The words of a second header row under 风速验算 (``下限 | 上限``) and beside it."""


def _subheader_row(cells: list[str]) -> bool:
    """A second header row: only bound words (``下限``, ``上限``) and blanks."""
    filled = [re.sub(r"\s+", "", c) for c in cells if c.strip()]
    return bool(filled) and all(_BOUND_HEAD.match(c) for c in filled)


def _speed_columns(labels: list[str]) -> dict[str, int]:
    """``lower`` / ``upper`` → the column of a two-row 风速验算 header (``风速验算`` over ``下限 | 上限``)."""
    out: dict[str, int] = {}
    for i, label in enumerate(labels):
        beside = i > 0 and "lower" in out and out["lower"] == i - 1  # 上限 alone, under the same merged cell
        if re.search(r"风速|验算", label) or beside:
            if re.search(r"下限|最小|最低", label):
                out.setdefault("lower", i)
            elif re.search(r"上限|最大|最高", label) and not re.search(r"取最大|最大值", label):
                out.setdefault("upper", i)
    return out


def _units_row(cells: list[str]) -> bool:
    """A header row holding only units (``(m³/s)``, ``m3/min``) and blanks."""
    filled = [c.strip("()（）[] ") for c in cells if c.strip()]
    return bool(filled) and all(canonical_unit(c) in KNOWN_UNITS for c in filled)


def _params(text: str) -> dict[str, float]:
    """``q = 4.20 m³/min；k = 1.5`` → {"q": 4.2, "k": 1.5} (percentages as fractions)."""
    out: dict[str, float] = {}
    for part in re.split(r"[;；,，]\s*", text):
        m = _PARAM.match(part)
        if m:
            out[re.sub(r"\s+", "", m.group(1))] = operand_value(m.group(2))
    return out


def _substitute(formula: str, values: dict[str, float]) -> str:
    """The right-hand side of ``formula`` with each symbol replaced by its value (longest first)."""
    rhs = formula.split("=", 1)[1] if "=" in formula else formula
    for sym in [k for k in values if f"Σ{k}" in rhs and "n" in values]:  # ΣP with n vehicles of P kW
        rhs = rhs.replace(f"Σ{sym}", f"{values['n']:g} × {values[sym]:g}")
    for sym in sorted(values, key=len, reverse=True):
        pattern = rf"(?<![A-Za-z\u4e00-\u9fff_]){re.escape(sym)}(?![A-Za-z0-9\u4e00-\u9fff_])"
        rhs = re.sub(pattern, f"{values[sym]:g}", rhs)
    return squeeze(rhs)


def result_figure(cell: Cell, label: str, fallback_unit: str | None = None) -> Figure | None:
    """The flow a result cell states (m³/min once read), in the unit written in the cell, else in its
    column's header ``label``, else ``fallback_unit`` (a unit stated for the whole table); None for a
    dash or a cell that is not one quantity."""
    q = parse_quantity(cell.text)
    if q is None:
        return None
    value, upper, written = q
    unit = unit_for("flow", canonical_unit(written) if written else column_unit(label) or fallback_unit)
    ref = cell.ref(label)
    if upper is not None:
        ref.confidence = "uncertain"
    return read_figure(value, unit, ref, flow=True, upper=upper)


def calc_groups(t: LogicalTable) -> list[CalcGroup]:
    """A calculation table → one group per location (a group ends after its maximum row, or when the
    location column names another location)."""
    n_header = 1
    while n_header < len(t.rows) and (
        _units_row([c.text for c in t.rows[n_header]]) or _subheader_row([c.text for c in t.rows[n_header]])
    ):
        n_header += 1  # a row of units under the header words ((m³/s) under 计算结果), or 下限 | 上限
    labels = header_labels(t.rows[:n_header], t.n_cols)
    cols = calc_columns(labels)
    bounds = _speed_columns(labels)
    groups: list[CalcGroup] = []
    header = _signature([c.text for c in t.rows[0]])
    cur = CalcGroup(header=header)
    place: str | None = None
    last: tuple[str, str, str, Figure | None, str] | None = None

    def close() -> None:
        nonlocal cur
        if cur.methods or cur.stated_required:
            groups.append(cur)
        cur = CalcGroup(header=header)

    def text(row: list[Cell], fld: str) -> str:
        i = cols.get(fld)
        return row[i].text if i is not None and i < len(row) else ""

    for row in t.rows[n_header:]:
        if [c.text for c in row] == [c.text for c in t.rows[0]]:
            continue  # the header repeated after a page break
        name = text(row, "location")
        if name and name_key(name) != name_key(place or ""):
            close()
            place = name
        cur.location = place
        label = text(row, "method")
        res_i = cols["result"]
        stated = result_figure(row[res_i], labels[res_i]) if res_i < len(row) else None
        formula, params = text(row, "formula"), text(row, "params")
        if not label and cur.methods and last is not None and _CONTINUED.match(formula or params):
            # the formula of the row above goes on here: read the two as one row
            label0, formula0, params0, stated0, written0 = last
            if stated0 is None and stated is not None:
                stated0, written0 = stated, squeeze(row[res_i].text)
            last = (label0, formula0 + formula, params0 + params, stated0, written0)
            cur.methods[-1] = _method(*last)
            continue
        if (
            stated is None
            and not (formula or params)
            and not any(c.text for i, c in enumerate(row) if i in bounds.values())
        ):
            continue  # nothing to read: a label's wrapped rest (``值）``) or an empty row
        if bounds and cur.speed_check is None:
            lower, upper = (
                parse_number(row[bounds[b]].text) if b in bounds and bounds[b] < len(row) else None
                for b in ("lower", "upper")
            )
            if lower is not None or upper is not None:
                ref = row[bounds.get("lower", bounds.get("upper", 0))].ref(labels[bounds.get("lower", 0)])
                cur.speed_check = SpeedCheckStatement(lower=lower, upper=upper, ref=ref)
        if SPEED_ROW.search(label) and not label.startswith("按"):
            lower, upper = speed_bounds(" ".join(c.text for c in row[1:]))
            if lower is not None or upper is not None:
                ref = row[cols.get("formula", res_i)].ref(label)
                cur.speed_check = SpeedCheckStatement(lower=lower, upper=upper, ref=ref)
            continue
        cur.page = cur.page or row[0].page
        cur.first = cur.first if cur.first[0] else _signature([c.text for c in row])
        cur.last = _signature([c.text for c in row])
        if stated is not None and cur.unit is None:
            cur.unit = stated.unit_written or stated.unit
        if MAX_ROW.search(label) and not re.search(r"^按", label):
            cur.stated_required = stated
            close()
            continue
        written = squeeze(row[res_i].text) if res_i < len(row) else ""
        last = (label, formula, params, stated, written)
        cur.methods.append(_method(*last))
    close()
    return groups


def _method(label: str, formula: str, params: str, stated: Figure | None, written: str) -> MethodStatement:
    """One method row as a :class:`MethodStatement`: the formula with its parameters substituted, the
    operands, the symbols' values and the stated result (``written``: the result cell as written)."""
    values = _params(params)
    substituted = _substitute(formula, values) if "=" in formula else ""
    numeric = [x for x in formula.split("=")[1:] if _NUMERIC.fullmatch(squeeze(x))]
    if not values and numeric and formula.count("=") >= 2:
        # formula and substitution in one cell (计算式及代入值): the substitution is its numeric part
        substituted = squeeze(numeric[-1])
        formula = formula[: formula.rindex(numeric[-1])].rstrip(" =")
    unit = f" {stated.unit_written or stated.unit}" if stated and not re.search(r"[a-z/]", written) else ""
    expression = " = ".join(x for x in (squeeze(formula), substituted, written + unit) if x)
    ms = MethodStatement(
        method=method_key(label, expression),
        label=label,
        expression=expression,
        operands=numbers(substituted) if substituted and not re.search(r"[A-Za-z]", substituted) else [],
        stated=stated,
        symbols={k: v for k, v in values.items() if not re.match(r"Q[\d\u4e00-\u9fff]", k)},
    )
    if not ms.operands and substituted:
        ms.operands = numbers(substituted)
    return ms


def _signature(cells: list[str]) -> tuple[str, str]:
    """How a row starts in the text layer: its first non-empty cell and the start of the second."""
    keys = [name_key(c) for c in cells if name_key(c)]
    return (keys[0] if keys else "", keys[1][:4] if len(keys) > 1 else "")


def _at(keys: list[str], i: int, sig: tuple[str, str]) -> bool:
    """Whether line ``i`` starts the row of signature ``sig`` (its first cell may wrap, so only the
    cell's start is compared, and the second cell may follow on the next line)."""
    start, line = sig[0][:10], keys[i]
    if not start or not (line.startswith(start) or (len(line) >= 4 and start.startswith(line))):
        return False  # (a cell wrapped in the text layer: its line holds only the cell's start)
    return sig[1] in keys[i] or (i + 1 < len(keys) and sig[1] in keys[i + 1])


def anchor_groups(doc: TextDoc, groups: list[CalcGroup]) -> list[tuple[CalcGroup, int, int]]:
    """Each group without a location column, with the lines (first, last inclusive) its rows occupy in
    the text layer (found by how each row starts: its first cell and the start of its second, so in
    any column order); groups whose rows cannot be found are left out. Groups are searched in order,
    each after the previous one's lines."""
    out: list[tuple[CalcGroup, int, int]] = []
    pos = 0
    keys = [name_key(line.text) for line in doc.lines]
    for g in groups:
        lines = range(pos, len(keys))
        start = next((i for i in lines if _at(keys, i, g.first) and doc.lines[i].page >= g.page), None)
        if start is None:
            continue
        end = next((i for i in range(start + 1, len(keys)) if _at(keys, i, g.last)), start)
        if start > 0 and _at(keys, start - 1, g.header):
            start -= 1  # the header line belongs to the table
        out.append((g, start, end))
        pos = end + 1
    return out
