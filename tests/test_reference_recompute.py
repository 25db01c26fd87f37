"""Recomputation never inherits an input the reference data contradicts (docs/DOMAIN.md §5): a synthetic text
plan whose face takes a gas emission 30 % under the gas-grade report, or a face length shorter than the
operating procedure's, is judged at the reference figure; the standby face and the mine total follow, in
one root finding. Without reference data nothing is replaced."""

from __future__ import annotations

from pathlib import Path

import pytest

from reports.docx_report import render_docx
from tests.helpers import present
from tests.test_report_language import docx_text, english_words
from vent_agent.documents.pdf_text import ExtractedPdf, PageText
from vent_agent.documents.plan.model import Plan
from vent_agent.documents.plan.parser import parse_plan
from vent_agent.mcp.schemas import TOOL_NAMES
from vent_agent.review.checks.calc_rules import review_calc
from vent_agent.review.checks.data_rules import review_data
from vent_agent.review.findings import Severity
from vent_agent.review.reference import FaceProcedure, MonthlyReference, StaticReferenceData
from vent_agent.review.result import ReviewResult
from vent_agent.review.reviewers import run_reviewers
from vent_agent.settings import Settings

MINE, MONTH, FACE, STANDBY = "红旗煤矿", "2026-10", "8101采煤工作面", "8102备用工作面"


def _pages(gas: float, length: int, required: float, gas_q: float, climate_q: float) -> list[str]:
    standby = round(required / 2, 1)
    total = round((required + standby + 300.0) * 1.2, 1)
    return [
        f"""{MINE} 2026 年 10 月份配风计划
版本：V2　　编制日期：2026年9月25日
一、编制依据
1．2026年10月采掘作业计划；2．瓦斯等级鉴定报告；3．9月测风报表；4．《煤矿安全规程》（2025年版）。
二、用风地点
序号 用风地点 类别
1 8101 采煤工作面 采煤工作面
2 8102 备用工作面 备用工作面
3 9201 岩巷掘进工作面 掘进工作面（岩巷）
三、风量计算
（一）8101 采煤工作面
基础参数：工作面长度 {length}m，采高 2.2m，最大控顶距 4.8m，最小控顶距 4.0m，进风温度 23.5 ℃，
绝对瓦斯涌出量 {gas}m³/min，瓦斯涌出不均匀系数 1.5，最多作业人数 25 人。
按瓦斯涌出量计算：Q = 100 × q × k = 100 × {gas} × 1.5 = {gas_q:.1f} m³/min
按气象条件计算：Q = 60 × 70% × v × S × k 采高 × k 面长 = 60 × 0.7 × 1.5 × 9.68 × 1.1 × 1.2
= {climate_q:.1f} m³/min""",
        f"""按人数计算：Q = 4 × N = 4 × 25 = 100 m³/min
取最大值：Q 需 = {required:.1f} m³/min
（二）8102 备用工作面
按备用工作面计算：Q = 50% × Q8101 采煤工作面 = 0.5 × {required:.1f} = {standby:.1f} m³/min
取最大值：Q 需 = {standby:.1f} m³/min
（三）9201 岩巷掘进工作面
基础参数：断面 10.0m²，一次爆破最大炸药量 12kg。
按炸药量计算：Q = 25 × A = 25 × 12 = 300.0 m³/min
取最大值：Q 需 = 300.0 m³/min
风速验算：90.0 ≤ Q 需 ≤ 2400.0
三、风量分配
序号 用风地点 需风量(m³/min) 配风量(m³/min) 实测风速(m/s) CH4(%)
1 8101 采煤工作面 {required:.1f} {required + 50:.0f} 1.20 0.30
2 8102 备用工作面 {standby:.1f} {standby + 30:.0f} — —
3 9201 岩巷掘进工作面 300.0 320 0.50 0.20
四、矿井总风量
矿井总需风量：Q矿 = ({required:.1f} + {standby:.1f} + 300.0) × 1.20 = {total:.1f} m³/min；风量备用系数 K矿=1.20；
五、审批
编制：通风技术员 张三 2026年9月25日
审核：李四 2026年9月26日
批准：总工程师 王五 2026年9月27日""",
    ]


def _plan(pages: list[str]) -> Plan:
    texts = [PageText(page=i + 1, text=t) for i, t in enumerate(pages)]
    return parse_plan(ExtractedPdf(file_name="reference.pdf", page_count=len(texts), pages=texts))


def _reference(gas: float | None = None, length: float | None = None) -> MonthlyReference:
    return MonthlyReference(
        mine=MINE,
        month=MONTH,
        gas_report={FACE: gas} if gas is not None else {},
        face_procedures={FACE: FaceProcedure(face_length_m=length)} if length is not None else {},
    )


@pytest.fixture(scope="module")
def gas_plan() -> Plan:
    # q = 6.0 (report 8.6: 30.2 % under): gas governs, 100 × 6.0 × 1.5 = 900.0 over climate 805.0
    return _plan(_pages(6.0, 160, 900.0, 900.0, 805.0))


@pytest.fixture(scope="module")
def length_plan() -> Plan:
    # L = 160 m (procedure 200 m): climate governs at 805.0 with k_l = 1.2 (150–180 m)
    return _plan(_pages(3.0, 160, 805.0, 450.0, 805.0))


def _root(findings, location):
    serious = [
        f for f in findings if f.location == location and f.severity in (Severity.MAJOR, Severity.CRITICAL)
    ]
    assert len(serious) == 1, [(f.rule_id, f.message) for f in findings]
    return serious[0]


async def test_a_gas_emission_under_the_report_is_recomputed_at_the_report_figure(gas_plan: Plan) -> None:
    face = gas_plan.location(FACE)
    assert face is not None and face.inputs["gas_emission"].value == 6.0
    findings, recalcs = await review_calc(gas_plan, reference=_reference(gas=8.6))
    root = _root(findings, face.name)
    assert root.rule_id == "calc.reference_input"
    # 100 × 8.6 × 1.5 = 1290.0 at the report's figure; the plan's 6.0 gives 900.0
    assert "按瓦斯等级鉴定报告 q = 8.6 m³/min：需风量 ≥ 1290.0 m³/min" in root.message, root.message
    assert "计划按 q = 6 m³/min 计算为 900.0 m³/min" in root.message
    kinds = [c.rule_id for c in root.consequences]
    assert "calc.allocation_short" in kinds and "calc.total_low" in kinds
    standby = [c for c in root.consequences if c.location and "8102" in c.location]
    assert standby and any("645.0" in c.message for c in standby), [c.message for c in root.consequences]
    total = next(c for c in root.consequences if c.rule_id == "calc.total_low")
    assert "2682.0" in total.message  # (1290 + 645 + 300) × 1.2
    assert not [f for f in findings if f.severity == Severity.MAJOR and f.location != face.name]
    rec = next(r for r in recalcs if r.location == face.name)
    assert rec.result is not None and rec.result.value == 1290.0
    assert rec.reference_inputs and rec.reference_inputs[0]["reference"] == 8.6


async def test_within_tolerance_or_above_the_report_nothing_is_replaced(gas_plan: Plan) -> None:
    for report in (6.5, 5.0):  # 7.7 % under: within ±10 %; plan above the report: on the safe side
        findings, recalcs = await review_calc(gas_plan, reference=_reference(gas=report))
        assert not [f for f in findings if f.severity in (Severity.MAJOR, Severity.CRITICAL)]
        assert all(not r.reference_inputs for r in recalcs)


async def test_a_face_length_under_the_procedure_is_recomputed_at_the_procedure(length_plan: Plan) -> None:
    face = length_plan.location(FACE)
    assert face is not None
    findings, _ = await review_calc(length_plan, reference=_reference(length=200))
    root = _root(findings, face.name)
    assert root.rule_id == "calc.reference_input"
    # L = 200 m puts k_l in 1.30–1.40: 60 × 0.7 × 1.5 × 9.68 × 1.1 × 1.3 = 872.1; the plan's 805.0
    assert "按工作面作业规程 L = 200 m" in root.message and "k_l = 1.3" in root.message
    assert "需风量 ≥ 872.1 m³/min" in root.message and "计算为 805.0 m³/min" in root.message
    kinds = [c.rule_id for c in root.consequences]
    assert "calc.allocation_short" in kinds and "calc.total_low" in kinds
    assert any(c.location and "8102" in c.location for c in root.consequences)


async def test_without_reference_data_the_plan_is_judged_on_its_own_figures(gas_plan: Plan) -> None:
    findings, recalcs = await review_calc(gas_plan)
    assert not [f for f in findings if f.severity in (Severity.MAJOR, Severity.CRITICAL)]
    assert all(not r.reference_inputs for r in recalcs)
    data = review_data(gas_plan, None)
    assert [f.rule_id for f in data if f.category.value == "data"] == ["data.reference_unavailable"]


async def test_the_pipeline_hands_the_reference_to_the_calc_verifier(
    gas_plan: Plan, settings: Settings
) -> None:
    events = []

    async def emit(event, **_kw):
        events.append(event)

    reviewed = await run_reviewers(gas_plan, emit, StaticReferenceData([_reference(gas=8.6)]), settings)
    outcomes, recalcs = reviewed.outcomes, reviewed.recalcs
    assert reviewed.reference is not None and reviewed.reference.status.value == "ok"
    assert [c.tool for c in reviewed.reference.calls] == list(TOOL_NAMES)
    by = {o.agent: o for o in outcomes}
    assert not any(o.error for o in outcomes)
    assert any(f.rule_id == "data.gas_emission" for f in by["data-checker"].findings)
    root = next(f for f in by["calc-verifier"].findings if f.rule_id == "calc.reference_input")
    assert "1290.0" in root.message
    assert present(next(r for r in recalcs if r.location == root.location).result).value == 1290.0


async def test_the_report_states_the_recomputation_at_the_reference_figure_in_chinese(
    gas_plan: Plan, tmp_path: Path, settings: Settings
) -> None:
    async def emit(event, **_kw):
        return None

    reviewed = await run_reviewers(gas_plan, emit, StaticReferenceData([_reference(gas=8.6)]), settings)
    outcomes, recalcs = reviewed.outcomes, reviewed.recalcs
    result = ReviewResult(
        file_name="reference.pdf",
        sha256="0" * 64,
        mine=MINE,
        month=MONTH,
        created_at="2026-09-28T09:00:00+08:00",
        page_count=2,
        reviewers=outcomes,
        recalcs=recalcs,
    )
    text = docx_text(render_docx(result, tmp_path / "report.docx"))
    assert "按瓦斯等级鉴定报告 q = 8.6 m³/min：需风量 ≥ 1290.0 m³/min" in text
    assert "计划瓦斯绝对涌出量 q = 6.0 m³/min 与瓦斯等级鉴定报告不符" in text
    plan_text = "\n".join(_pages(6.0, 160, 900.0, 900.0, 805.0)) + result.file_name
    assert english_words(text, plan_text) == set()


async def test_a_contradicted_input_is_one_finding_across_reviewers(
    gas_plan: Plan, settings: Settings
) -> None:
    """The data-checker's mismatch and the calc-verifier's recomputation of the same input are one root
    fault: the mismatch is listed under the recomputation, not a second major."""
    from vent_agent.review.judgement.consequences import fold_reference_mismatches

    async def emit(event, **_kw):
        return None

    outcomes = (
        await run_reviewers(gas_plan, emit, StaticReferenceData([_reference(gas=8.6)]), settings)
    ).outcomes
    folded = [f for fs in fold_reference_mismatches([o.findings for o in outcomes]) for f in fs]
    root = _root(folded, FACE)
    assert root.rule_id == "calc.reference_input"
    assert "data.gas_emission" in [c.rule_id for c in root.consequences]
    assert not [f for f in folded if f.rule_id == "data.gas_emission"]
    # without a recomputation nothing is folded: the mismatch stands on its own
    alone = [[f for f in o.findings if f.rule_id != "calc.reference_input"] for o in outcomes]
    assert any(f.rule_id == "data.gas_emission" for fs in fold_reference_mismatches(alone) for f in fs)


@pytest.mark.parametrize(("operands", "vehicles", "flagged"), [([4, 70], None, True), ([4, 2, 70], 2, False)])
async def test_vehicles_below_the_mines_register_are_recomputed_with_it(
    plan_b: Plan, operands: list[float], vehicles: float | None, flagged: bool
) -> None:
    """第159条: 4 m³/min per kW of the most diesel vehicles running at once. A roadway calculated with one
    70 kW vehicle where the mine's vehicle register runs two (140 kW) is recomputed at 560.0: a major
    with the allocation of 500 short as its consequence. The register is the demo mine's reference data
    (``diesel_kw``, from its plan inputs, served with the air survey)."""
    from vent_agent.review.reference import default_reference

    plan = plan_b.model_copy(deep=True)
    loc = plan.location("15216辅运起坡段")
    assert loc is not None
    method = next(m for m in loc.methods if m.method == "vehicle")
    method.operands = [float(x) for x in operands]
    assert method.stated is not None
    method.stated.value = 4.0 * (operands[1] if len(operands) == 2 else operands[1] * operands[2])
    loc.inputs.pop("vehicle_kw", None)
    loc.inputs.pop("vehicles", None)
    if vehicles is not None:
        loc.inputs["vehicles"] = loc.inputs["area"].model_copy(update={"value": vehicles, "unit": "台"})
    loc.stated_required = method.stated.model_copy()
    row = next(r for r in plan.allocation if r.location == loc.name)
    assert row.allocated_q is not None
    row.allocated_q.value = 500.0
    reference = default_reference().monthly("示范煤矿", "2026-08")
    assert reference is not None and reference.diesel_kw["15216辅运起坡段"] == 140.0
    findings, _ = await review_calc(plan, reference=reference)
    here = [f for f in findings if f.location == loc.name and f.rule_id == "calc.reference_input"]
    assert bool(here) == flagged
    if flagged:
        assert here[0].severity == Severity.MAJOR and "车辆台账为 140 kW" in here[0].message
        assert "560.0" in here[0].message
        assert "calc.allocation_short" in [c.rule_id for c in here[0].consequences]
