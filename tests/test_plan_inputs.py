"""Calculation inputs written as a parameter sheet (参数表: a row per location, a column per parameter),
calculation tables whose rows run over a page break or carry the speed check, and parameters written in
pairs: each read as the plan means it (issue [A]: judge only what was read)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pdf_factory import Page, build_pdf
from vent_agent.documents.pdf_text import ExtractedPdf, PageText, extract_pdf
from vent_agent.documents.plan.parser import parse_plan
from vent_agent.documents.reading import read_plan

SHEET_HEAD = [
    "序号",
    "用风地点",
    "瓦斯涌出量q(m³/min)",
    "不均匀系数k",
    "最多人数N",
    "断面S(m²)",
    "局扇吸风量Qf(m³/min)×台数",
    "其他参数",
]
MATRIX = [
    ["序号", "用风地点", "按瓦斯(m³/s)", "按人数(m³/s)", "按局扇(m³/s)", "取最大值(m³/s)"],
    ["1", "15216综采工作面", "10.00", "2.53", "—", "10.00"],
    ["2", "二采区轨道下山掘进工作面", "0.75", "0.93", "6.89", "6.89"],
]


def _sheet_pdf(rows: list[list[str]], head: list[str] = SHEET_HEAD) -> bytes:
    page = Page()
    page.para("示范煤矿2026年9月份矿井配风计划", 14)
    page.para("三、需风量计算")
    page.para("表1 各用风地点计算参数")
    page.table([head, *rows], [30, 120, 60, 50, 50, 50, 70, 120][: len(head)])
    page.para("表2 各用风地点需风量计算矩阵")
    page.table(MATRIX, [30, 120, 60, 60, 60, 60])
    return build_pdf([page])


def _read(tmp_path: Path, data: bytes) -> dict[str, dict[str, float | str | None]]:
    path = tmp_path / "sheet.pdf"
    path.write_bytes(data)
    plan = read_plan(extract_pdf(path, max_pages=5))
    return {
        loc.name: {k: v.value for k, v in loc.inputs.items()} | {"rock": loc.rock} for loc in plan.locations
    }


def test_a_parameter_sheet_gives_each_location_its_inputs(tmp_path: Path) -> None:
    got = _read(
        tmp_path,
        _sheet_pdf(
            [
                ["1", "15216综采工作面", "4.00", "1.5", "38", "16.640", "—", "采高3.2m"],
                ["2", "二采区轨道下山掘进工作面", "0.30", "1.5", "14", "12.6", "300×1", "岩巷，FBD-No5.6"],
                ["3", "按人数", "9.99", "2", "99", "1", "—", ""],  # a label, not a place
            ]
        ),
    )
    assert got["15216综采工作面"] == {
        "gas_emission": 4.0,
        "k_gas": 1.5,
        "workers": 38.0,
        "area": 16.64,
        "rock": None,
    }
    assert got["二采区轨道下山掘进工作面"] == {
        "gas_emission": 0.3,
        "k_gas": 1.5,
        "workers": 14.0,
        "area": 12.6,
        "fan_intake_q": 300.0,
        "fan_count": 1.0,
        "rock": "rock",
    }


def test_a_flow_column_of_a_sheet_without_its_unit_is_not_read(tmp_path: Path) -> None:
    head = ["序号", "用风地点", "瓦斯涌出量q", "不均匀系数k", "最多人数N", "断面S(m²)"]
    got = _read(tmp_path, _sheet_pdf([["1", "15216综采工作面", "4.00", "1.5", "38", "16.640"]], head))
    assert "gas_emission" not in got["15216综采工作面"]  # m³/min or m³/s? not guessed
    assert got["15216综采工作面"]["workers"] == 38.0


CALC_PAGE_1 = """示范煤矿2026年9月份矿井配风计划
四、各用风地点需风量计算（风量单位：m³/min）
1. 15216综采工作面
参数：工作面长度220m，采高3.2m，{roof}，断面S=16.640m²
"""


@pytest.mark.parametrize(
    ("roof", "max_min"),
    [
        ("最大/最小控顶距5.8/4.6m", (5.8, 4.6)),
        ("最小/最大控顶距4.6/5.8m", (5.8, 4.6)),
        ("控顶距5.8/4.6m", (5.8, 4.6)),
        ("最大控顶距5.8m，最小控顶距4.6m", (5.8, 4.6)),
    ],
)
def test_roof_control_distances_written_as_a_pair_are_read_in_their_order(
    roof: str, max_min: tuple[float, float]
) -> None:
    plan = parse_plan(
        ExtractedPdf(page_count=1, pages=[PageText(page=1, text=CALC_PAGE_1.format(roof=roof))])
    )
    (face,) = plan.locations
    assert (face.inputs["roof_control_max"].value, face.inputs["roof_control_min"].value) == max_min


def _calc_table_pdf(split: bool) -> bytes:
    """A calculation table whose 按气象条件 formula runs onto the next page (``split``) or stays whole,
    followed by the maximum and the speed-check rows."""
    head = ["计算方法", "计算式及代入值", "结果"]
    climate = "Q=60×70%×v×S×k采高×k面长=60×0.7×1.25"
    rest = "×16.640×1.2×1.35"
    first = Page()
    first.para("示范煤矿2026年9月份矿井配风计划", 14)
    first.para("四、各用风地点需风量计算（风量单位：m³/min）")
    first.para("1. 15216综采工作面")
    rows = [head, ["按瓦斯涌出量", "Q=100×q×k=100×4.80×1.5", "720.0"]]
    tail = [
        ["按人数", "Q=4×N=4×38", "152.0"],
        ["需风量(取最大值)", "Q需=max{...}（按气象条件）", "1415.2"],
        ["风速验算", "194.9≤Q需≤2473.0", "符合"],
    ]
    if not split:
        first.table([*rows, ["按气象条件", climate + rest, "1415.2"], *tail], [120, 260, 80])
        return build_pdf([first])
    first.y = 700  # the table ends at the foot of the page and goes on at the top of the next
    first.table([*rows, ["按气象条件", climate, "1415.2"]], [120, 260, 80])
    second = Page()
    second.table([["", rest, ""], *tail], [120, 260, 80])
    second.para("2. 中央变电所")
    return build_pdf([first, second])


@pytest.mark.parametrize("split", [False, True])
def test_a_calculation_table_row_split_by_a_page_break_is_read_as_one(tmp_path: Path, split: bool) -> None:
    path = tmp_path / "calc.pdf"
    path.write_bytes(_calc_table_pdf(split))
    plan = read_plan(extract_pdf(path, max_pages=5))
    face = next(loc for loc in plan.locations if loc.name == "15216综采工作面")
    climate = next(m for m in face.methods if m.method == "climate")
    assert climate.operands == [60.0, 0.7, 1.25, 16.64, 1.2, 1.35]
    assert climate.stated is not None and climate.stated.value == 1415.2
    assert [m.method for m in face.methods] == ["gas", "climate", "workers"]  # the speed check is no method
    assert face.speed_check is not None
    assert (face.speed_check.lower, face.speed_check.upper) == (194.9, 2473.0)


def _bounds_table_pdf() -> bytes:
    """Two headings, each with a calculation table whose header takes two rows (风速验算 over 下限 | 上限)
    and whose maximum's label wraps in its cell (``需风量（取最大`` / ``值）``)."""
    page = Page()
    page.para("示范煤矿2026年9月份矿井配风计划", 14)
    page.para("四、各用风地点需风量计算（风量单位：m³/min）")
    head = [["计算方法", "计算式及代入值", "结果", "风速验算", "", "结论"], ["", "", "", "下限", "上限", ""]]
    for name, rows in (
        (
            "1. 15220运输顺槽掘进工作面",
            [
                ("按瓦斯涌出量", "Q = 100 × q × k = 100 × 0.80 × 1.8", "144.0", "213.0", "3408.0"),
                ("按人数", "Q = 4 × N = 4 × 18", "72.0", "", ""),
            ],
        ),
        (
            "2. 15220回风顺槽掘进工作面",
            [
                ("按瓦斯涌出量", "Q = 100 × q × k = 100 × 1.60 × 1.8", "288.0", "207.0", "3312.0"),
                ("按人数", "Q = 4 × N = 4 × 16", "64.0", "", ""),
            ],
        ),
    ):
        page.para(name)
        top = max(float(r[2]) for r in rows)
        page.table(
            [
                *head,
                *[[m, f, q, lo, hi, "符合" if lo else ""] for m, f, q, lo, hi in rows],
                ["需风量（取最大\n值）", "Q需 = max{...}", f"{top}", "", "", ""],
            ],
            [90, 200, 50, 50, 50, 30],
        )
    return build_pdf([page])


def test_a_two_row_speed_check_header_and_a_wrapped_maximum_label_keep_each_table_at_its_location(
    tmp_path: Path,
) -> None:
    path = tmp_path / "bounds.pdf"
    path.write_bytes(_bounds_table_pdf())
    plan = read_plan(extract_pdf(path, max_pages=5))
    by_name = {loc.name: loc for loc in plan.locations}
    got = {
        name: (
            [m.stated.value for m in loc.methods if m.stated],
            loc.stated_required.value if loc.stated_required else None,
            (loc.speed_check.lower, loc.speed_check.upper) if loc.speed_check else None,
        )
        for name, loc in by_name.items()
    }
    assert got == {
        "15220运输顺槽掘进工作面": ([144.0, 72.0], 144.0, (213.0, 3408.0)),
        "15220回风顺槽掘进工作面": ([288.0, 64.0], 288.0, (207.0, 3312.0)),
    }
