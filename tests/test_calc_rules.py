"""calc-verifier rules on the sample plans and on variations of them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.helpers import present
from vent_agent.documents.pdf_text import ExtractedPdf, PageText
from vent_agent.documents.plan.model import Plan
from vent_agent.documents.plan.parser import parse_plan
from vent_agent.review.checks.calc_rules import review_calc
from vent_agent.review.findings import Category, Severity
from vent_agent.review.judgement.arith import close, evaluate_numeric, exceeds, substituted_value

DATA = Path(__file__).parent / "data"


def test_arith_evaluates_only_numeric_segments() -> None:
    assert substituted_value("Q = 100 × q × k = 100 × 0.80 × 1.8 = 114.0 m³/min") == (
        "100 × 0.80 × 1.8",
        144.0,
    )
    assert substituted_value("不小于 100 m³/min = 100.0 m³/min") is None
    assert evaluate_numeric("60 × 70% × 2") == pytest.approx(84.0)
    assert evaluate_numeric("1 / 0") is None
    assert evaluate_numeric("__import__('os')") is None
    assert close(1132.1856, 1132.2) and not close(114.0, 144.0)
    assert exceeds(144.0, 114.0) and not exceeds(1132.2, 1132.1856) and not exceeds(114.0, 144.0)
    assert not exceeds(144.0, None)


async def test_plan_a_has_no_calculation_fault(plan_a: Plan) -> None:
    findings, recalcs = await review_calc(plan_a)
    assert findings == []
    by_name = {r.location: r for r in recalcs}
    face = present(by_name["15216综采工作面"].result)
    assert face.value == 1132.2 and face.governing == "calc_face_by_climate"
    assert present(by_name["二采区轨道下山掘进工作面"].result).value == 600.0
    assert present(by_name["15218工作面"].result).value == 566.1


async def test_plan_b_calculation_faults_at_their_locations(plan_b: Plan) -> None:
    findings, _ = await review_calc(plan_b)
    got = {(f.location, f.category, f.severity) for f in findings}
    assert ("15220运输顺槽掘进工作面", Category.CALCULATION, Severity.MINOR) in got
    assert ("15216综采工作面", Category.CALCULATION, Severity.MAJOR) in got
    assert ("二采区轨道下山掘进工作面", Category.CALCULATION, Severity.MINOR) in got
    assert ("中央变电所", Category.CALCULATION, Severity.MAJOR) in got
    assert ("井下爆炸材料库", Category.UNITS, Severity.MINOR) in got
    assert (None, Category.CALCULATION, Severity.MINOR) in got
    gas = next(f for f in findings if f.location == "15220运输顺槽掘进工作面")
    assert gas.figures == {"stated": 114.0, "recomputed": 144.0} and gas.page == 2
    maximum = next(f for f in findings if f.location == "15216综采工作面" and "最大值" in f.message)
    assert maximum.figures["recomputed"] == 1132.2
    total = next(f for f in findings if f.location is None and f.severity == Severity.MINOR)
    assert total.figures == {"stated": 4265.9, "recomputed": 4165.9}
    for f in findings:
        assert f.rule and f.source and f.page is not None and f.evidence
    # every air volume in the messages has its unit (never "计算得 1132.2，计划取 630.0 m³/min")
    assert "得 1132.2 m³/min" in maximum.message and "相加为 4165.9 m³/min" in total.message
    for f in findings:
        bare = re.findall(
            r"(?:得|取|为) (\d+\.\d)(?![\d.]*\s*(?:m³/min|m³|m/s|%|m²|kg|人|℃|°C|ppm|m\b))", f.message
        )
        assert not bare, (f.message, bare)


async def test_table_in_m3_per_second_is_converted_not_flagged(plan_a: Plan) -> None:
    plan = plan_a.model_copy(deep=True)
    row = next(r for r in plan.allocation if r.location == "中央变电所")
    assert row.required_q is not None and row.allocated_q is not None
    row.required_q.value, row.required_q.unit = 2.665, "m³/s"
    row.allocated_q.value, row.allocated_q.unit = 3.0, "m³/s"
    findings, _ = await review_calc(plan)
    assert findings == []


async def test_allocated_below_required_is_major(plan_a: Plan) -> None:
    plan = plan_a.model_copy(deep=True)
    row = next(r for r in plan.allocation if r.location == "主排水泵房")
    assert row.allocated_q is not None
    row.allocated_q.value = 200.0
    findings, _ = await review_calc(plan)
    assert [(f.location, f.severity) for f in findings] == [("主排水泵房", Severity.MAJOR)]


async def test_table_required_differing_from_the_calculation_is_minor(plan_a: Plan) -> None:
    plan = plan_a.model_copy(deep=True)
    row = next(r for r in plan.allocation if r.location == "主排水泵房")
    assert row.required_q is not None and row.required_q.value == 209.9
    row.required_q.value = 229.9  # in no other unit the calculation's 209.9: not a unit slip
    findings, _ = await review_calc(plan)
    assert [(f.rule_id, f.severity, f.figures) for f in findings] == [
        ("calc.required_inconsistent", Severity.MINOR, {"stated": 229.9, "recomputed": 209.9})
    ]
    assert findings[0].page == 4


async def test_a_location_without_its_required_volume_is_major(plan_a: Plan) -> None:
    """Several methods and no maximum taken: major. Of one method (主排水泵房 by heat), its result is the
    requirement: nothing missing."""
    plan = plan_a.model_copy(deep=True)
    heading = next(x for x in plan.locations if len([m for m in x.methods if m.stated]) > 1)
    heading.stated_required = None
    chamber = plan.location("主排水泵房")
    assert chamber is not None and len(chamber.methods) == 1
    chamber.stated_required = None
    findings, _ = await review_calc(plan)
    missing = [(f.rule_id, f.severity) for f in findings if f.location == heading.name]
    assert ("calc.required_missing", Severity.MAJOR) in missing
    assert not [
        f
        for f in findings
        if f.location == "主排水泵房" and f.severity in (Severity.MAJOR, Severity.CRITICAL)
    ]


async def test_coefficient_below_its_range_is_major(plan_a: Plan) -> None:
    plan = plan_a.model_copy(deep=True)
    loc = plan.location("15220运输顺槽掘进工作面")
    assert loc is not None
    loc.inputs["k_gas"].value = 1.2
    findings, _ = await review_calc(plan)
    assert any(f.severity == Severity.MAJOR and "超出规定范围" in f.message for f in findings)


async def test_location_without_inputs_gets_info_not_crash(plan_a: Plan) -> None:
    """No inputs at a location: an info finding naming, in Chinese, the inputs it lacks; no result."""
    plan = plan_a.model_copy(deep=True)
    loc = plan.location("中央变电所")
    assert loc is not None
    loc.inputs.clear()
    findings, recalcs = await review_calc(plan)
    info = next(f for f in findings if f.location == "中央变电所" and f.rule_id == "calc.unrecomputable")
    assert info.severity == Severity.INFO
    assert info.message == (
        "未能核算该地点需风量：缺少核算参数：power_kw（硐室运行设备总功率 ΣW（或各台功率列表））、"
        "delta_t（硐室进、回风温差 Δt）"
    )
    assert next(r for r in recalcs if r.location == "中央变电所").result is None


async def test_an_invalid_input_gives_a_chinese_unrecomputable_finding(plan_a: Plan) -> None:
    plan = plan_a.model_copy(deep=True)
    loc = plan.location("15220运输顺槽掘进工作面")
    assert loc is not None
    loc.inputs["gas_emission"].value = -1.0
    findings, _ = await review_calc(plan)
    info = next(f for f in findings if f.rule_id == "calc.unrecomputable")
    assert info.location == "15220运输顺槽掘进工作面" and info.severity == Severity.INFO
    assert info.message == "未能核算该地点需风量：参数 gas_emission=-1.0 无效：不能小于 0"


async def test_on_location_callback_brackets_each_location(plan_a: Plan) -> None:
    calls: list[tuple[str, bool]] = []

    async def hook(name: str, tool: str, done: bool) -> None:
        calls.append((name, done))

    await review_calc(plan_a, on_location=hook)
    assert len(calls) == 2 * len(plan_a.locations)
    assert calls[0][1] is False and calls[1] == (calls[0][0], True)


async def test_plan_b_root_fault_carries_its_consequences(plan_b: Plan) -> None:
    """The maximum not taken at 15216: one major with the allocation short and the mine total low listed
    as its consequences, not three majors (docs/DOMAIN.md §5)."""
    findings, _ = await review_calc(plan_b)
    at_face = [f for f in findings if f.location == "15216综采工作面"]
    assert [f.rule_id for f in at_face] == ["calc.max_not_taken"]
    root = at_face[0]
    assert root.severity == Severity.MAJOR
    assert [c.rule_id for c in root.consequences] == ["calc.allocation_short", "calc.total_low"]
    assert "502.2 × 1.18" in root.consequences[1].message
    assert not [f for f in findings if f.rule_id == "calc.total_low"]
    # the stated sum is a slip of its own (minor), kept apart
    assert [f.rule_id for f in findings if f.location is None] == ["calc.sum_stated"]
    assert all(f.rule_id for f in findings)


async def test_charging_chamber_maximum_not_taken_is_one_finding(plan_a: Plan) -> None:
    """A chamber's maximum not taken and its allocation short: one finding citing the chamber's clause."""
    plan = plan_a.model_copy(deep=True)
    loc = next(x for x in plan.locations if x.kind == "charging")
    row = next(r for r in plan.allocation if r.location == loc.name)
    assert loc.stated_required is not None and row.allocated_q is not None
    required = loc.stated_required.value
    loc.stated_required.value = required / 2
    row.allocated_q.value = required / 2
    for m in loc.methods:
        if m.stated is not None and m.method == "min_q":
            m.stated.value = required / 2
    findings, _ = await review_calc(plan)
    here = [f for f in findings if f.location == loc.name and f.severity == Severity.MAJOR]
    assert len(here) == 1 and here[0].consequences, [f.message for f in findings]
    assert "第186条" in here[0].source


async def test_wrong_fan_intake_at_a_heading_is_one_finding(plan_a: Plan) -> None:
    """A heading whose fan-intake method is written 150 m³/min low: the method, the lower maximum and
    the allocation short of it are one major with two consequences, not three majors."""
    plan = plan_a.model_copy(deep=True)
    loc = next(
        x for x in plan.locations if x.kind == "heading" and any(m.method == "fan_intake" for m in x.methods)
    )
    method = next(m for m in loc.methods if m.method == "fan_intake")
    assert method.stated is not None and loc.stated_required is not None
    right = method.stated.value
    method.stated.value = loc.stated_required.value = right - 150
    method.expression = f"Q = {right - 150}"
    row = next(r for r in plan.allocation if r.location == loc.name)
    assert row.allocated_q is not None
    row.allocated_q.value = right - 100
    if row.required_q is not None:
        row.required_q.value = right - 150
    findings, _ = await review_calc(plan)
    here = [f for f in findings if f.location == loc.name]
    assert [(f.rule_id, f.severity) for f in here] == [("calc.method_coefficient", Severity.MAJOR)]
    assert [c.rule_id for c in here[0].consequences] == ["calc.required_low", "calc.allocation_short"]


def test_a_coefficient_the_plan_chose_inside_its_range_stands() -> None:
    """docs/DOMAIN.md §5: k = 1.8 for a heading (range 1.5–2.0) is the plan's choice, not an error against the
    midpoint 1.75 that calc takes when it is given no k."""
    from calc.result import CalcResult, Coefficient
    from vent_agent.documents.plan.model import MethodStatement
    from vent_agent.review.checks.calc_common import plan_coefficient_stands

    by_default = CalcResult(
        value=332.5,
        method="calc_heading_by_gas",
        method_cn="按瓦斯涌出量",
        formula="Q = 100 × q × k",
        substituted="Q = 100 × 1.90 × 1.75",
        coefficients=[Coefficient(symbol="k", value=1.75, origin="default", valid_range=(1.5, 2.0))],
    )
    plan_k = MethodStatement(
        method="gas", label="按瓦斯涌出量", expression="100 × 1.90 × 1.8", operands=[100, 1.9, 1.8]
    )
    assert plan_coefficient_stands(by_default, plan_k, 342.0)
    out_of_range = plan_k.model_copy(update={"operands": [100, 1.9, 1.4]})
    assert not plan_coefficient_stands(by_default, out_of_range, 266.0)
    assert not plan_coefficient_stands(by_default, plan_k, 300.0)  # the plan's arithmetic is wrong


@pytest.mark.parametrize(("rock", "fan_intake_v_min"), [(None, 0.15), ("rock", 0.15), ("coal", 0.25)])
async def test_a_heading_of_unstated_rock_is_recomputed_with_the_widest_bounds(
    rock: str | None, fan_intake_v_min: float
) -> None:
    """A heading whose rock the plan does not state is recomputed as rock (v_min 0.15 m/s, the widest
    bounds): its fan-intake figure 300 × 1 + 60 × 0.15 × 12.6 = 413.4 is not called low against an
    assumed coal roadway (489.0)."""
    findings, _ = await review_calc(parse_plan(_heading_plan(rock)))
    coefficient = [
        f for f in findings if f.rule_id == "calc.method_coefficient" and "局部通风机" in f.message
    ]
    expected = 300 * 1 + 60 * fan_intake_v_min * 12.6
    assert bool(coefficient) == (abs(expected - 413.4) > 1), coefficient


async def test_a_method_finding_quotes_the_plans_formula_in_the_calculators_symbols() -> None:
    """The plan writes the fan intake ``Qf`` (a PDF's text layer drops the subscript): the finding quotes
    the formula with ``Q_f``, which the report and the console set as Q with a subscript f."""
    findings, _ = await review_calc(parse_plan(_heading_plan("coal")))
    (coefficient,) = [f for f in findings if f.rule_id == "calc.method_coefficient"]
    assert "计划 Q=Q_f×I+60×v×S" in coefficient.message


def _heading_plan(rock: str | None) -> ExtractedPdf:
    word = {None: "", "rock": "岩巷，", "coal": "煤巷，"}[rock]
    text = (
        "示范煤矿2026年9月份矿井配风计划\n四、需风量计算\n1. 二采区轨道下山掘进工作面\n"
        f"参数：{word}断面12.6m²，局部通风机1台（吸风量300m³/min），最多人数14人。\n"
        "按局部通风机吸风量计算：Q=Qf×I+60×v×S=300×1+60×0.15×12.6=413.4m³/min\n"
        "按人数计算：Q=4×N=4×14=56.0m³/min\n取最大值：Q需=413.4m³/min\n"
    )
    return ExtractedPdf(page_count=1, pages=[PageText(page=1, text=text)])


async def test_the_stated_sum_is_checked_only_against_every_locations_stated_requirement(
    plan_b: Plan,
) -> None:
    """Σ stated against the plan's own per-location values: a location whose calculation states no
    maximum counts with its allocation row's 需风量; one stated nowhere leaves the sum unjudged (the sum
    of what was read says nothing of the plan's)."""
    plan = plan_b.model_copy(deep=True)
    loc = plan.location("主排水泵房")
    assert loc is not None and loc.stated_required is not None
    loc.stated_required = None  # the allocation row still states it
    findings, _ = await review_calc(plan)
    assert "calc.sum_stated" in [f.rule_id for f in findings if f.location is None]
    plan.allocation = [r for r in plan.allocation if r.location != "主排水泵房"]
    findings, _ = await review_calc(plan)
    assert "calc.sum_stated" not in [f.rule_id for f in findings]


async def test_a_wing_returns_gas_check_takes_the_multiplier_133() -> None:
    """AQ 1056-2008: Q = 133·q·k in a main or wing return (CH₄ ≤ 0.75 %); a check written with 100 is a
    major when the corrected value is above what the plan takes, and the return is no part of Σ."""
    from tests.test_plan_narrative import OVERVIEW

    plan = parse_plan(ExtractedPdf(page_count=1, pages=[PageText(page=1, text=OVERVIEW)]))
    findings, _ = await review_calc(plan)
    ret = [f for f in findings if f.location == "西翼回风大巷" and f.rule_id == "calc.method_coefficient"]
    assert (
        len(ret) == 1 and ret[0].severity == Severity.MAJOR and "133 × 7.50 × 1.2 = 1197.0" in ret[0].message
    )
    face = [f for f in findings if f.location == "3102工作面" and f.rule_id == "calc.coefficient_range"]
    assert face and "1.2–1.6" in face[0].message  # 综采, from the list
