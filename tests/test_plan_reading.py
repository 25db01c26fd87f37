"""Layout-independent reading, kind by kind: units in any spelling converted once, numbers in any
writing, dates in any form, sign-offs as text lines, allocation tables in any column order."""

from __future__ import annotations

import pytest

from tests.helpers import present
from vent_agent.documents.plan.model import SourceRef
from vent_agent.documents.plan.tables import Cell as TCell
from vent_agent.documents.plan.tables import LogicalTable, allocation_rows, column_fields, column_unit
from vent_agent.documents.plan.text_primitives import Line, all_dates, join_thousands
from vent_agent.documents.plan.units import canonical_unit, flow_figure, parse_quantity
from vent_agent.documents.plan.unruled_tables import signoff_lines


@pytest.mark.parametrize(
    ("written", "unit"),
    [
        ("m³/min", "m³/min"),
        ("m3/min", "m³/min"),
        ("m^3/min", "m³/min"),
        ("立方米/分", "m³/min"),
        ("立方米/分钟", "m³/min"),
        ("m³/s", "m³/s"),
        ("m3/s", "m³/s"),
        ("m^3/s", "m³/s"),
        ("立方米/秒", "m³/s"),
        ("m³/h", "m³/h"),
        ("m3/h", "m³/h"),
        ("立方米/小时", "m³/h"),
        ("m/s", "m/s"),
        ("m2", "m²"),
        ("°C", "℃"),
    ],
)
def test_unit_spellings(written: str, unit: str) -> None:
    assert canonical_unit(written) == unit


@pytest.mark.parametrize(
    ("written", "value"), [("m³/min", 630.0), ("m3/s", 630.0 * 60), ("立方米/小时", 10.5), (None, 630.0)]
)
def test_flows_are_converted_once_and_keep_the_unit_written(written: str | None, value: float) -> None:
    raw = 630.0
    fig = flow_figure(raw, written, SourceRef(page=1))
    assert fig.unit == "m³/min" and fig.value == pytest.approx(value)
    assert fig.unit_written == (None if written in (None, "m³/min") else canonical_unit(written))
    assert fig.ref.confidence == ("inferred" if written is None else "exact")  # no unit: assumed


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        ("1,200", (1200.0, None, None)),
        ("1 200", (1200.0, None, None)),
        ("１２００", (1200.0, None, None)),
        ("1.5–1.8", (1.5, 1.8, None)),
        ("1.5~1.8", (1.5, 1.8, None)),
        ("1.5～1.8", (1.5, 1.8, None)),
        ("18.9 m³/s", (18.9, None, "m³/s")),
        ("0.37%", (0.37, None, "%")),
        ("—", None),
        ("15216综采", None),
        ("2026-07-25", None),
    ],
)
def test_numbers_in_any_writing(cell: str, expected: tuple[float, float | None, str | None] | None) -> None:
    assert parse_quantity(cell) == expected


@pytest.mark.parametrize(
    "text",
    [
        "2026年7月25日",
        "2026 年 7 月 25 日",
        "2026.7.25",
        "2026-07-25",
        "2026/7/25",
        "7月25日",
        "二〇二六年七月二十五日",
    ],
)
def test_date_forms(text: str) -> None:
    assert all_dates(text, "2026-08") == ["2026-07-25"]


def test_a_short_date_before_a_january_plan_is_in_the_year_before() -> None:
    assert all_dates("12月28日", "2027-01") == ["2026-12-28"]


def _signoffs(text: str) -> list[tuple[str, str, str | None, str | None]]:
    got, _ = signoff_lines([Line(x, 5) for x in text.splitlines()], "2026-08")
    return [(s.role, s.title, s.name, s.date) for s in got]


@pytest.mark.parametrize("date", ["2026年7月25日", "2026.7.25", "2026-07-25", "2026/7/25", "7月25日"])
def test_signoffs_as_text_lines_with_each_date_form(date: str) -> None:
    text = f"编制：李明 {date}\n审核：通风区长 王五 {date} 通风副总 赵六 {date}  批准：总工程师 孙七 {date}"
    assert _signoffs(text) == [
        ("编制", "", "李明", "2026-07-25"),
        ("审核", "通风区长", "王五", "2026-07-25"),
        ("审核", "通风副总", "赵六", "2026-07-25"),
        ("批准", "总工程师", "孙七", "2026-07-25"),
    ]


def test_role_words_spaced_out_on_a_stamp_line() -> None:
    assert _signoffs("编 制：李明 2026年7月25日   【批 准】总工程师 孙七\n日期：2026.7.28") == [
        ("编制", "", "李明", "2026-07-25"),
        ("批准", "总工程师", "孙七", "2026-07-28"),
    ]


def test_text_line_signoff_with_an_empty_approval_is_read_as_unsigned() -> None:
    got = _signoffs("编制人: 技术员 张三 2026-07-25   审核: 李 四 日期：2026/7/26   批准：（签字）  日期：")
    assert got == [
        ("编制", "技术员", "张三", "2026-07-25"),
        ("审核", "", "李四", "2026-07-26"),
        ("批准", "", None, None),
    ]


def _table(rows: list[list[str]]) -> LogicalTable:
    cells = [[TCell(t, t, 4, 1, r + 1, c) for c, t in enumerate(row)] for r, row in enumerate(rows)]
    return LogicalTable(rows=cells, n_cols=len(rows[0]), kind="allocation")


@pytest.mark.parametrize(
    "header",
    [
        ["序号", "用风地点", "需风量(m³/min)", "配风量(m³/min)", "断面(m²)", "风速(m/s)"],
        ["用风地点", "计划风量(m³/min)", "序号", "计算风量(m³/min)", "计划风速(m/s)", "有效断面(m²)"],
        [
            "计划风速（米/秒）",
            "分配风量（立方米/分）",
            "需要风量（立方米/分）",
            "有效断面(m2)",
            "地点",
            "编号",
        ],
    ],
)
def test_allocation_columns_in_any_order_and_wording(header: list[str]) -> None:
    values = {"序号": "3", "编号": "3", "用风地点": "15216综采工作面", "地点": "15216综采工作面"}
    row = []
    for h in header:
        if h in values:
            row.append(values[h])
        elif "风速" in h:
            row.append("1.72")
        elif "断面" in h:
            row.append("11.6")
        elif "需" in h or "计算" in h:
            row.append("1,132.2")
        else:
            row.append("1200")
    rows, _, warnings = allocation_rows(_table([header, row]))
    assert not warnings
    (r,) = rows
    assert r.location == "15216综采工作面" and r.ref.row == 3  # the plan's 序号
    required_q, allocated_q = present(r.required_q), present(r.allocated_q)
    assert (required_q.value, allocated_q.value) == (1132.2, 1200.0)
    assert (present(r.area).value, present(r.planned_speed).value) == (11.6, 1.72)
    assert required_q.ref.cell_row == 2 and required_q.ref.confidence == "exact"


@pytest.mark.parametrize(
    ("req_header", "cell", "value", "written"),
    [
        ("需风量(m³/s)", "18.87", 1132.2, "m³/s"),
        ("需风量(m3/s)", "18.87", 1132.2, "m³/s"),
        ("需风量(m³/h)", "67932", 1132.2, "m³/h"),
        ("需风量(m³/min)", "18.87 m³/s", 1132.2, "m³/s"),  # the cell's own unit wins
        ("需风量", "1132.2", 1132.2, None),
    ],
)
def test_allocation_units_from_header_or_cell(
    req_header: str, cell: str, value: float, written: str | None
) -> None:
    rows, _, _ = allocation_rows(_table([["序号", "用风地点", req_header], ["1", "15216综采工作面", cell]]))
    fig = rows[0].required_q
    assert fig is not None and fig.value == pytest.approx(value, rel=1e-4)
    assert (fig.unit, fig.unit_written) == ("m³/min", written)


def test_a_unit_row_under_the_header_and_a_table_unit_note() -> None:
    rows, _, _ = allocation_rows(
        _table(
            [
                ["序号", "用风地点", "需风量", "配风量"],
                ["", "", "m³/s", "m³/s"],
                ["1", "15216综采工作面", "18.87", "20"],
            ]
        )
    )
    assert present(rows[0].allocated_q).value == 1200.0 and rows[0].ref.row == 1
    rows, _, _ = allocation_rows(
        _table([["序号", "用风地点", "需风量", "配风量 单位：m³/s"], ["1", "15216综采工作面", "18.87", "20"]])
    )
    assert present(rows[0].required_q).value == pytest.approx(1132.2)


def test_header_units_and_synonyms() -> None:
    assert column_unit("需风量（立方米/秒）") == "m³/s"
    assert column_unit("配风量m3/min") == "m³/min"
    assert column_fields(["实测风量(m³/s)", "实测风速(m/s)", "计算风量", "供风量"]) == {
        0: "measured_q",
        1: "measured_speed",
        2: "required_q",
        3: "allocated_q",
    }


def test_a_superscript_lost_in_extraction_is_repaired_by_the_column_kind() -> None:
    """Table cells extracted without their superscripts: ``m/s`` in a flow column is m³/s, ``m/min``
    m³/min, ``m`` in an area column m²; a speed column keeps m/s."""
    rows, _, _ = allocation_rows(
        _table(
            [
                ["用风地点", "需风量", "分配风量(m/s)", "断面(m)", "风速(m/s)"],
                ["15216综采工作面", "1,132.2m/min", "20.00", "11.6", "1.72"],
            ]
        )
    )
    r = rows[0]
    required_q, allocated_q = present(r.required_q), present(r.allocated_q)
    assert (required_q.value, required_q.unit_written) == (1132.2, None)
    assert (allocated_q.value, allocated_q.unit_written) == (1200.0, "m³/s")
    assert (present(r.area).unit, present(r.planned_speed).unit) == ("m²", "m/s")
    assert r.ref.row == 1  # no 序号 column: the first data row


def test_thousands_separators_in_prose() -> None:
    assert join_thousands("Q = 1,132.2 m³/min，能力7,600") == "Q = 1132.2 m³/min，能力7600"
    assert join_thousands("max(630,152)") == "max(630,152)"
