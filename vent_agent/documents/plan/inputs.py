"""A parameter sheet (参数表): the calculation inputs written as a table, a row per location and a column
per parameter (``序号 | 用风地点 | 类别 | 瓦斯涌出量q (m³/min) | 不均匀系数k | 最多人数N | 装药量A (kg) |
进风温度 | 风速v | 断面S | k采高 | k面长 | 局扇吸风量Qf (m³/min)×台数 …``), as spreadsheet workbooks print them
beside a method matrix that gives only the results.

Each row's recognised cells become the location's ``inputs`` (glossary keys, as
:func:`~vent_agent.documents.plan.blocks.parse_params` gives them from a 参数 sentence), so that the data
checks (the gas report, the procedures) and the recomputation see them. A column is read only when its
header names one parameter; a flow column whose header states no unit is not read (a figure of unknown
unit must lose findings, never make them); a row whose name does not read as a location is left out.
Inputs already read from the location's own block are kept. Part of
:mod:`vent_agent.documents.plan.parser`.
"""

from __future__ import annotations

import re

from vent_agent.documents.plan.blocks import rock_of
from vent_agent.documents.plan.location_names import is_location_name, strip_enumerator
from vent_agent.documents.plan.model import Figure, Plan
from vent_agent.documents.plan.tables import Cell, LogicalTable, column_unit, header_labels
from vent_agent.documents.plan.text_primitives import match_name
from vent_agent.documents.plan.units import parse_quantity, read_figure

_PARAM_COLUMNS: list[tuple[str, str, bool]] = [
    # (glossary key, header pattern on the label without its unit, is a flow)
    ("gas_emission", r"瓦斯(?:绝对)?涌出量|^q(?:CH4|瓦斯)?$", True),
    ("co2_emission", r"(?:二氧化碳|CO2|CO₂)(?:绝对)?涌出量", True),
    ("k_gas", r"不均匀系数|备用风量系数|^k$|^k瓦斯$", False),
    ("workers", r"最多人数|同时工作.*人数|^人数", False),
    ("explosive_kg", r"装药量|炸药量", False),
    ("intake_temp", r"进风(?:流)?温度", False),
    ("v_climate", r"^风速v?$|适宜风速", False),
    ("area", r"断面|净断面|^S$", False),
    ("k_h", r"^k采高$|采高系数", False),
    ("k_l", r"^k面长$|面长系数|长度系数", False),
    ("fan_intake_q", r"(?:局扇|局部通风机)吸风量|吸风量", True),
    ("face_length", r"^(?:工作面)?长度|^面长$", False),
    ("mining_height", r"^采高$", False),
]
_NAME_HEAD = re.compile(r"用风地点|地点|名称")
_NOT_A_SHEET = re.compile(r"^按|取最大值|配风|分配|需风量")
_TIMES_COUNT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*[×xX*]\s*(\d+)\s*(?:台)?\s*$")


def _bare(label: str) -> str:
    """A header label without its unit in brackets and without spaces: ``瓦斯涌出量q(m³/min)`` → ``瓦斯涌出量q``."""
    text = re.sub(r"[(（][^()（）]*[)）]", "", label)
    text = re.sub(r"×\s*台数$", "", text)
    return re.sub(r"\s+", "", text)


def _columns(labels: list[str]) -> dict[int, tuple[str, bool]]:
    """Column index → (glossary key, is a flow), each key once."""
    out: dict[int, tuple[str, bool]] = {}
    used: set[str] = set()
    for i, label in enumerate(labels):
        bare = _bare(label)
        for key, pattern, flow in _PARAM_COLUMNS:
            if key not in used and re.search(pattern, bare):
                out[i] = (key, flow)
                used.add(key)
                break
    return out


def _sheet_labels(t: LogicalTable) -> tuple[list[str], int]:
    """The sheet's column labels and header rows (one or two), or ``([], 0)`` when ``t`` is no
    parameter sheet: a name column, three parameter columns at least, no method or allocation column."""
    for n_header in (1, 2):
        if len(t.rows) <= n_header:
            break
        labels = header_labels(t.rows[:n_header], t.n_cols)
        if any(_NOT_A_SHEET.search(_bare(x)) for x in labels):
            return [], 0
        if any(_NAME_HEAD.search(x) for x in labels) and len(_columns(labels)) >= 3:
            return labels, n_header
    return [], 0


def is_input_sheet(t: LogicalTable) -> bool:
    """Whether ``t`` is a parameter sheet (see the module docstring)."""
    return bool(_sheet_labels(t)[1])


def _cell_inputs(cell: Cell, label: str, key: str, flow: bool, row_no: int) -> dict[str, Figure]:
    """The inputs one cell gives: ``{key: figure}``, and for ``420×1`` in a fan column the fan count
    too; empty for a dash, text, or a flow whose unit the header does not state."""
    unit = column_unit(label)
    ref = cell.ref(label).model_copy(update={"row": row_no})
    if key == "fan_intake_q" and (m := _TIMES_COUNT.match(cell.text)):
        if unit is None:
            return {}
        return {
            key: read_figure(float(m.group(1)), unit, ref, flow=True),
            "fan_count": Figure(value=float(m.group(2)), unit="台", ref=ref),
        }
    q = parse_quantity(cell.text)
    if q is None or q[1] is not None:
        return {}
    value, _, written = q
    if flow:
        written_unit = written or unit
        return {key: read_figure(value, written_unit, ref, flow=True)} if written_unit else {}
    return {key: read_figure(value, written or unit, ref)}


def sheet_inputs(t: LogicalTable) -> list[tuple[str, dict[str, Figure], str | None]]:
    """The rows of a parameter sheet as ``(location name, inputs by glossary key, rock of a heading
    written anywhere in the row or None)``, flows in m³/min; ``[]`` when ``t`` is not one."""
    labels, n_header = _sheet_labels(t)
    if not n_header:
        return []
    name_col = next(i for i, x in enumerate(labels) if _NAME_HEAD.search(x))
    columns = _columns(labels)
    out: list[tuple[str, dict[str, Figure], str | None]] = []
    for row_no, row in enumerate(t.rows[n_header:], start=1):
        name = strip_enumerator(row[name_col].text) if name_col < len(row) else ""
        if not is_location_name(name):
            continue
        inputs: dict[str, Figure] = {}
        for i, (key, flow) in columns.items():
            if i < len(row):
                inputs.update(_cell_inputs(row[i], labels[i], key, flow, row_no))
        rock = next((r for c in row if (r := rock_of(c.text))), None)
        if inputs or rock:
            out.append((name, inputs, rock))
    return out


def apply_input_sheets(plan: Plan, tables: list[LogicalTable]) -> None:
    """Give each location of ``plan`` the inputs a parameter sheet among ``tables`` states for it (the
    inputs read from its own block win; a row naming none of the plan's locations, or several, gives
    nothing)."""
    names = [loc.name for loc in plan.locations]
    by_name = {loc.name: loc for loc in plan.locations}
    for t in tables:
        for name, inputs, rock in sheet_inputs(t):
            hit = match_name(name, names)
            if hit is None:
                continue
            location = by_name[hit]
            if rock and not location.rock:
                location.rock = rock
                plan.warnings = [w for w in plan.warnings if not w.startswith(f"{hit}: 未注明煤巷")]
            for key, figure in inputs.items():
                location.inputs.setdefault(key, figure)
