"""Calculation processes as tables (any column order, results in m³/s or m³/min) read like prose lines,
and the reading gaps the parser records."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import present
from tests.pdf_factory import Page, build_pdf
from vent_agent.documents.pdf_text import ExtractedPdf, PageText, extract_pdf
from vent_agent.documents.plan.model import Plan
from vent_agent.documents.plan.parser import parse_plan

GAS = ("按瓦斯涌出量", "Q = 100 × q × k", "q = 4.20 m³/min；k = 1.5")
WORKERS = ("按人数", "Q = 4 × N", "N = 38 人")
FAN = ("按局部通风机吸风量", "Q = Qf × I + 60 × 0.25 × S", "Qf = 420 m³/min；I = 1 台；S = 14.2 m²")
HEADER = {"method": "计算方法", "formula": "计算公式", "params": "参数取值"}
ORDERS = [
    ("method", "formula", "params", "result"),
    ("result", "params", "method", "formula"),
    ("formula", "method", "result", "params"),
]


def _table(rows: list[tuple[str, str, str, str]], order: tuple[str, ...], unit: str) -> list[list[str]]:
    header = [HEADER.get(c, f"计算结果({unit})") for c in order]
    body = []
    for method, formula, params, result in rows:
        cells = {"method": method, "formula": formula, "params": params, "result": result}
        body.append([cells[c] for c in order])
    return [header, *body]


def _plan(tmp_path: Path, order: tuple[str, ...], unit: str, prose_face: bool = False) -> Plan:
    f = 60.0 if unit == "m³/s" else 1.0
    p = Page()
    for line in (
        "测试煤矿2026年9月份配风计划",
        "一、用风地点",
        "1 3101综采工作面 采煤工作面",
        "2 3102运输巷掘进工作面 掘进工作面",
    ):
        p.para(line)
    p.para("二、需风量计算")
    p.para("（1）3101综采工作面")
    p.para("基础参数：绝对瓦斯涌出量4.20m³/min，瓦斯涌出不均匀系数1.5，最多作业人数38人。")
    if prose_face:
        p.para("按瓦斯涌出量计算：Q = 100 × q × k = 100 × 4.20 × 1.5 = 630.0 m³/min")
        p.para("按人数计算：Q = 4 × N = 4 × 38 = 152.0 m³/min")
        p.para("取最大值：Q需 = 630.0 m³/min")
    else:
        rows = [
            (*GAS, f"{630 / f:.2f}"),
            (*WORKERS, f"{152 / f:.2f}"),
            ("需风量取值", "取各方法最大值", "—", f"{630 / f:.2f}"),
        ]
        p.table(_table(rows, order, unit), [110, 130, 150, 80])
    p.para("（2）3102运输巷掘进工作面")
    p.para("基础参数：煤巷，断面14.2m²，绝对瓦斯涌出量0.80m³/min，系数1.8。")
    rows = [(*FAN, f"{633 / f:.2f}"), ("需风量取值", "取各方法最大值", "—", f"{633 / f:.2f}")]
    p.table(_table(rows, order, unit), [110, 130, 150, 80])
    p.para(f"风速验算：{213 / f:.2f} ≤ Q需 ≤ {3408 / f:.2f}。")
    path = tmp_path / "calc.pdf"
    path.write_bytes(build_pdf([p]))
    return parse_plan(extract_pdf(path, max_pages=5))


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("unit", ["m³/min", "m³/s"])
def test_calculation_tables_in_any_column_order_and_unit(
    tmp_path: Path, order: tuple[str, ...], unit: str
) -> None:
    plan = _plan(tmp_path, order, unit)
    face, heading = plan.locations
    assert [(m.method, m.operands) for m in face.methods] == [("gas", [100, 4.2, 1.5]), ("workers", [4, 38])]
    stated = face.methods[0].stated
    assert (
        stated is not None and stated.value == pytest.approx(630.0, abs=0.5) and stated.ref.table is not None
    )
    assert stated.unit == "m³/min" and stated.unit_written == (None if unit == "m³/min" else "m³/s")
    assert present(face.stated_required).value == pytest.approx(630.0, abs=0.5)
    # the 100 of Q = 100 × q × k is never read as the gas emission
    assert face.inputs["gas_emission"].value == 4.2 and face.inputs["k_gas"].value == 1.5
    assert face.inputs["workers"].value == 38
    (fan,) = heading.methods
    assert fan.method == "fan_intake" and fan.operands == [420, 1, 60, 0.25, 14.2]
    assert heading.inputs["gas_emission"].value == 0.8 and heading.inputs["area"].value == 14.2
    speed = present(heading.speed_check)
    assert speed.lower == pytest.approx(213.0, abs=0.5) and speed.upper == pytest.approx(3408.0, abs=0.5)
    assert not plan.gaps


def test_prose_and_table_give_the_same_methods(tmp_path: Path) -> None:
    prose = _plan(tmp_path, ORDERS[0], "m³/min", prose_face=True).locations[0]
    table = _plan(tmp_path, ORDERS[1], "m³/s", prose_face=False).locations[0]
    assert [(m.method, m.operands) for m in prose.methods] == [(m.method, m.operands) for m in table.methods]
    assert {k: v.value for k, v in prose.inputs.items()} == {k: v.value for k, v in table.inputs.items()}


def test_calculation_lines_outside_every_location_are_a_reading_gap() -> None:
    text = """X煤矿2026年9月份配风计划
一、需风量计算
按瓦斯涌出量计算：Q = 100 × q × k = 100 × 4.20 × 1.5 = 630.0 m³/min
按人数计算：Q = 4 × N = 4 × 38 = 152.0 m³/min
（1）3101综采工作面
按人数计算：Q = 4 × N = 4 × 38 = 152.0 m³/min
二、审批
批准：总 工 程 师（签字）"""
    plan = parse_plan(ExtractedPdf(page_count=1, pages=[PageText(page=1, text=text)]))
    assert [g.topic for g in plan.gaps] == ["calculation"]
    assert "2 行计算式" in plan.gaps[0].note


def test_approval_lines_without_a_sign_off_read_are_a_reading_gap() -> None:
    text = "X煤矿2026年9月份配风计划\n一、审批\n编制：李明\n批准 见附页审批单\n"
    plan = parse_plan(ExtractedPdf(page_count=1, pages=[PageText(page=1, text=text)]))
    assert not any(s.role == "批准" for s in plan.signoffs)
    assert [g.topic for g in plan.gaps] == ["signoff"]
    # one row per role, read as lines: read, no gap
    text = "X煤矿2026年9月份配风计划\n一、审批\n编制 李明\n批准 总工程师 陈卫东 2026.8.28\n"
    plan = parse_plan(ExtractedPdf(page_count=1, pages=[PageText(page=1, text=text)]))
    assert [(s.role, s.name) for s in plan.signoffs] == [("编制", "李明"), ("批准", "陈卫东")]
    assert plan.gaps == []
    text = "X煤矿2026年9月份配风计划\n一、审批\n编制：李明 2026.8.25\n"
    plan = parse_plan(ExtractedPdf(page_count=1, pages=[PageText(page=1, text=text)]))
    assert plan.gaps == []  # no approval written at all: a real absence, judged by the form rules


def test_a_flow_column_without_a_unit_takes_the_unit_the_plans_own_figures_show() -> None:
    """需风量 / 配风量 with no unit anywhere, written in m³/s: 60 times off the calculated requirement
    of the same locations, so converted (and marked inferred)."""
    text = """X煤矿2026年9月份配风计划
一、需风量计算
（1）3101综采工作面
按人数计算：Q = 4 × N = 4 × 150 = 600.0 m³/min
取最大值：Q需 = 600.0 m³/min
（2）3102运输巷掘进工作面
按人数计算：Q = 4 × N = 4 × 75 = 300.0 m³/min
取最大值：Q需 = 300.0 m³/min
二、风量分配
序号 用风地点 需风量 配风量
1 3101综采工作面 10.00 11.00
2 3102运输巷掘进工作面 5.00 5.50"""
    plan = parse_plan(ExtractedPdf(page_count=1, pages=[PageText(page=1, text=text)]))
    face, heading = plan.allocation
    required_q, allocated_q = present(face.required_q), present(heading.allocated_q)
    assert (required_q.value, required_q.unit_written) == (600.0, "m³/s")
    assert allocated_q.value == 330.0 and allocated_q.ref.confidence == "inferred"
    same = text.replace("10.00 11.00", "600.0 660.0").replace("5.00 5.50", "300.0 330.0")
    plan = parse_plan(ExtractedPdf(page_count=1, pages=[PageText(page=1, text=same)]))
    assert present(plan.allocation[0].required_q).unit_written is None  # already m³/min


def test_one_calculation_table_over_all_locations_with_merged_location_cells(tmp_path: Path) -> None:
    p = Page()
    for line in (
        "测试煤矿2026年9月份配风计划",
        "一、需风量计算",
        "各用风地点需风量计算见下表（单位：m³/min）。",
    ):
        p.para(line)
    header = ["用风地点", "计算方法", "计算公式", "参数取值", "计算结果(m³/min)"]
    rows = [
        ["3101综采工作面", *GAS, "630.0"],
        ["", *WORKERS, "152.0"],
        ["", "需风量取值", "取各方法最大值", "—", "630.0"],
        ["3102运输巷掘进工作面", *FAN, "633.0"],
        ["", "需风量取值", "取各方法最大值", "—", "633.0"],
    ]
    p.table([header, *rows], [90, 80, 110, 130, 60])
    path = tmp_path / "one-table.pdf"
    path.write_bytes(build_pdf([p]))
    plan = parse_plan(extract_pdf(path, max_pages=5))
    by_name = {loc.name: loc for loc in plan.locations}
    face, heading = by_name["3101综采工作面"], by_name["3102运输巷掘进工作面"]
    assert [m.method for m in face.methods] == ["gas", "workers"] and face.kind == "coal_face"
    assert face.inputs["gas_emission"].value == 4.2 and present(face.stated_required).value == 630.0
    assert [m.method for m in heading.methods] == ["fan_intake"] and heading.kind == "heading"
    assert present(heading.stated_required).value == 633.0


def test_a_prose_result_restated_in_another_unit() -> None:
    """``= 630.0 m³/min = 10.50 m³/s``: the first result counts, the operands stay the substitution's,
    and a speed check without a unit is in the unit of the stated maximum."""
    text = """X煤矿2026年9月份配风计划
一、需风量计算
（1）3101综采工作面
基础参数：绝对瓦斯涌出量4.20m³/min，瓦斯涌出不均匀系数1.5。
按瓦斯涌出量计算：Q = 100 × q × k = 100 × 4.20 × 1.5 = 630.0 m³/min = 10.50 m³/s
取最大值：Q需 = 10.50 m³/s
风速验算：3.25 ≤ Q需 ≤ 41.22，符合要求。"""
    plan = parse_plan(ExtractedPdf(page_count=1, pages=[PageText(page=1, text=text)]))
    (face,) = plan.locations
    (gas,) = face.methods
    assert gas.operands == [100, 4.2, 1.5] and present(gas.stated).value == 630.0
    assert gas.symbols == {"q": 4.2, "k": 1.5}
    assert present(face.stated_required).value == 630.0
    speed = present(face.speed_check)
    assert speed.lower == 195.0 and speed.upper == pytest.approx(2473.2)


def test_a_unit_in_the_tables_caption(tmp_path: Path) -> None:
    p = Page()
    for line in ("测试煤矿2026年9月份配风计划", "一、风量分配", "表1 风量分配表（单位：m³/s）"):
        p.para(line)
    p.table(
        [["序号", "用风地点", "需风量", "配风量"], ["1", "3101综采工作面", "10.50", "11.00"]],
        [40, 150, 80, 80],
    )
    path = tmp_path / "caption.pdf"
    path.write_bytes(build_pdf([p]))
    (row,) = parse_plan(extract_pdf(path, max_pages=5)).allocation
    required_q = present(row.required_q)
    assert (required_q.value, required_q.unit_written) == (630.0, "m³/s")
    assert present(row.allocated_q).value == 660.0
