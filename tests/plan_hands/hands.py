"""Hands: how a plan is written, as data. A :class:`Hand` is a set of choices the writer
(:mod:`tests.plan_hands.render`) follows; :data:`HANDS` is the corpus. The reader must never know them.

Units: ``"m3min"`` m³/min, ``"m3s"`` m³/s, ``"m3h"`` m³/h.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Unit = Literal["m3min", "m3s", "m3h"]
UNIT_TEXT = {"m3min": "m³/min", "m3s": "m³/s", "m3h": "m³/h"}
UNIT_FACTOR = {"m3min": 1.0, "m3s": 1 / 60, "m3h": 60.0}  # from m³/min
UNIT_DECIMALS = {"m3min": 1, "m3s": 2, "m3h": 0}

ALLOCATION_COLUMNS = (
    "no",
    "name",
    "required",
    "allocated",
    "area",
    "planned_speed",
    "measured_speed",
    "ch4",
    "temp",
)
HEADERS = {
    "no": "序号",
    "name": "用风地点",
    "required": "需风量",
    "allocated": "计划配风量",
    "area": "断面",
    "planned_speed": "计划风速",
    "measured_speed": "实测风速",
    "ch4": "CH₄",
    "temp": "温度",
}
SECTIONS = ("basis", "overview", "list", "calc", "allocation", "total", "measures", "signoff")
TITLES = {
    "basis": "编制依据",
    "overview": "矿井通风概况",
    "list": "用风地点",
    "calc": "需风量计算",
    "allocation": "风量分配",
    "total": "矿井总需风量",
    "measures": "调风措施",
    "signoff": "审批",
}


@dataclass(frozen=True)
class Hand:
    """How one plan is written.

    - ``calc``: calculation processes as ``prose`` lines or as a ``table`` per location (method |
      formula | inputs | result); ``calc_unit`` the unit the results are written in.
    - ``units``: the allocation table's unit per air-volume column; ``unit_in_cells`` writes the unit
      beside each figure instead of in the header.
    - ``columns`` / ``headers``: allocation-table column order and header wording.
    - ``numbering``: section numbering ``cn`` 一、, ``arabic`` 1., ``chapter`` 第一章, ``paren`` （一）,
      ``none``; ``titles`` the section titles; ``loc_numbering`` location headings ``paren`` （1）,
      ``dotted`` 4.1, ``cn_paren`` （一）, ``circled`` ①.
    - ``signoff``: ``table`` (roles across), ``transposed`` (a row per role), ``lines`` (编制：李明
      2026年7月25日), ``stamp`` (boxed blocks); ``date_form``: ``cn`` 2026年7月25日, ``dot`` 2026.7.25,
      ``iso`` 2026-07-25, ``md`` 7月25日.
    - ``unit_row``: the allocation header as two rows, the words over their units.
    - ``landscape``: the allocation table on a landscape page; ``split_rows``: break the allocation
      table after that many rows, repeating its header on the next page.
    - ``thousands``: 1,132.2; ``fullwidth``: figures in full-width digits (１１３２．２).
    - ``radicals``: 工/风/面/长 as CJK radical code points (U+2F2F ⼯, U+2EDB ⻛ …) in the text layer;
      ``controls``: control characters strewn in the text layer.
    - ``location_list``: the list of locations (用风地点 table) before the calculations.
    - ``scanned``: printed and scanned: page images only, no text layer.
    """

    name: str
    calc: Literal["prose", "table"] = "prose"
    calc_unit: Unit = "m3min"
    units: dict[str, Unit] = field(default_factory=lambda: {"required": "m3min", "allocated": "m3min"})
    unit_in_cells: bool = False
    unit_row: bool = False
    columns: tuple[str, ...] = ALLOCATION_COLUMNS
    headers: dict[str, str] = field(default_factory=dict)
    numbering: Literal["cn", "arabic", "chapter", "paren", "none"] = "cn"
    titles: dict[str, str] = field(default_factory=dict)
    loc_numbering: Literal["paren", "dotted", "cn_paren", "circled"] = "paren"
    signoff: Literal["table", "transposed", "lines", "stamp"] = "table"
    date_form: Literal["cn", "dot", "iso", "md"] = "cn"
    landscape: bool = False
    split_rows: int | None = None
    thousands: bool = False
    fullwidth: bool = False
    radicals: bool = False
    controls: bool = False
    location_list: bool = True
    scanned: bool = False

    def header(self, key: str) -> str:
        """The allocation-table header word for column ``key``."""
        return self.headers.get(key, HEADERS[key])

    def title(self, key: str) -> str:
        """The title of section ``key``."""
        return self.titles.get(key, TITLES[key])


HANDS: list[Hand] = [
    # The sample plans' own hand: the control (the reader was built on it).
    Hand("word-processor"),
    # The first example: calculations as tables, every air volume in m³/s, columns in another
    # order, sign-offs as text lines.
    Hand(
        "tabular-m3s",
        calc="table",
        calc_unit="m3s",
        units={"required": "m3s", "allocated": "m3s"},
        columns=(
            "no",
            "name",
            "area",
            "allocated",
            "required",
            "planned_speed",
            "ch4",
            "measured_speed",
            "temp",
        ),
        headers={"allocated": "配风量", "required": "需要风量", "area": "有效断面", "ch4": "瓦斯浓度"},
        numbering="arabic",
        loc_numbering="dotted",
        signoff="lines",
    ),
    # Chapters, mixed units (required m³/min, allocated m³/s), other header words, dotted dates,
    # a row per role in the sign-off table.
    Hand(
        "chapters-mixed",
        units={"required": "m3min", "allocated": "m3s"},
        headers={
            "required": "计算风量",
            "allocated": "分配风量",
            "planned_speed": "风速",
            "name": "地点名称",
        },
        numbering="chapter",
        titles={"calc": "各用风地点需风量计算", "allocation": "风量分配计划", "signoff": "编审签字"},
        signoff="transposed",
        date_form="dot",
        location_list=False,
    ),
    # Units in the cells, thousands separators, ISO dates, stamp-like sign-offs.
    Hand(
        "units-in-cells",
        unit_in_cells=True,
        thousands=True,
        columns=("name", "required", "allocated", "measured_speed", "planned_speed", "area", "temp", "ch4"),
        headers={"allocated": "计划风量", "area": "有效断面"},
        numbering="paren",
        loc_numbering="circled",
        signoff="stamp",
        date_form="iso",
    ),
    # A landscape allocation table broken over two pages with its header repeated; dates without year.
    Hand(
        "landscape-split",
        landscape=True,
        split_rows=6,
        headers={"required": "需要风量", "allocated": "计划风量"},
        loc_numbering="cn_paren",
        date_form="md",
        signoff="lines",
    ),
    # Full-width digits, m³/h in the table, unnumbered sections with other words.
    Hand(
        "fullwidth-m3h",
        fullwidth=True,
        thousands=True,
        units={"required": "m3h", "allocated": "m3h"},
        numbering="none",
        titles={"basis": "编制说明及依据", "calc": "风量计算", "allocation": "配风计划表", "signoff": "会签"},
        signoff="transposed",
        date_form="iso",
    ),
    # A Chinese office suite's text layer: radicals for 工/风/面/长 and control characters; otherwise the
    # sample hand, so that the quirks alone are tested.
    Hand("office-radicals", radicals=True, controls=True),
    # Tabular calculations in m³/min but the allocation in m³/s with units in the cells; a split
    # portrait table; chapter numbers.
    Hand(
        "tabular-split-cells",
        calc="table",
        units={"required": "m3s", "allocated": "m3s"},
        unit_in_cells=True,
        split_rows=5,
        headers={"required": "需风量", "allocated": "分配风量", "area": "断面积"},
        numbering="chapter",
        loc_numbering="dotted",
        date_form="dot",
        signoff="stamp",
    ),
    # A two-row allocation header (words over units), split over pages with both rows repeated,
    # thousands separators, tabular calculations, the roles down the sign-off table's first column.
    Hand(
        "two-row-header",
        calc="table",
        unit_row=True,
        split_rows=7,
        thousands=True,
        headers={"required": "需风量", "allocated": "计划风量", "measured_speed": "实测风速", "ch4": "瓦斯"},
        columns=(
            "no",
            "name",
            "required",
            "allocated",
            "planned_speed",
            "area",
            "measured_speed",
            "ch4",
            "temp",
        ),
        numbering="cn",
        loc_numbering="dotted",
        signoff="transposed",
        date_form="iso",
    ),
    # The sample hand, printed and scanned.
    Hand("scanned", scanned=True, signoff="transposed"),
]
"""The corpus: ten hands (one scanned)."""
