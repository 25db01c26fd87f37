"""Plausibility before judgement: figures outside the range of their kind or against the plan's own
arithmetic are not judged; the review says what it could not read and how much it did read."""

from __future__ import annotations

from tests.helpers import present
from vent_agent.documents.plan.model import (
    AllocationRow,
    Figure,
    LocationPlan,
    MethodStatement,
    Plan,
    SourceRef,
)
from vent_agent.documents.plan.units import flow_figure
from vent_agent.review.findings import Category, Finding, Severity
from vent_agent.review.judgement.plausibility import (
    RANGES,
    audit_plan,
    coverage_paragraph,
    gate_findings,
)
from vent_agent.review.rule_common import pdf_evidence


def _fig(value: float, page: int = 2, text: str = "", unit: str | None = "m³/min", **ref) -> Figure:
    return Figure(value=value, unit=unit, ref=SourceRef(page=page, text=text or f"{value}", **ref))


def _face(gas: float, *, k: float = 1.5) -> LocationPlan:
    expr = f"Q = 100 × q × k = 100 × 4.2 × {k} = {420 * k:.1f}"
    return LocationPlan(
        name="15216综采工作面",
        kind="coal_face",
        inputs={"gas_emission": _fig(gas, text="瓦斯涌出量"), "k_gas": _fig(k, text="系数")},
        methods=[
            MethodStatement(
                method="gas",
                label="按瓦斯涌出量计算",
                expression=expr,
                operands=[100, 4.2, k],
                stated=_fig(420 * k, text=expr),
            )
        ],
        stated_required=_fig(1132.2, text="取最大值"),
    )


def _row(name: str, required: float, allocated: float, *, v: float = 1.7, s: float = 11.6) -> AllocationRow:
    def cell(value: float, col: str, row: int = 1) -> Figure:
        return _fig(value, page=4, table=1, row=row, column=col, text=f"{value:g}")

    return AllocationRow(
        location=name,
        required_q=cell(required, "需风量"),
        allocated_q=cell(allocated, "配风量"),
        planned_speed=cell(v, "风速"),
        area=cell(s, "断面"),
        ref=SourceRef(page=4, table=1, row=1),
    )


def _major(location: str | None, ref: SourceRef | None, **figures: float) -> Finding:
    return Finding(
        location=location,
        category=Category.CALCULATION,
        severity=Severity.MAJOR,
        message="计划配风量小于需风量",
        figures=dict(figures),
        unit="m³/min",
        rule="r",
        source="s",
        evidence=[e for e in [pdf_evidence(ref)] if e],
    )


def test_a_multiplier_read_as_the_gas_emission_is_not_judged() -> None:
    """``Q = 100·q·k`` in a calculation table: the 100 read as q (100 m³/min at a face)."""
    plan = Plan(locations=[_face(100.0)], allocation=[_row("15216综采工作面", 1132.2, 1200)])
    checks, coverage = audit_plan(plan)
    (gas,) = [c for c in checks if c.quantity == "gas_emission"]
    assert gas.status == "implausible" and "0–60" in gas.reason
    assert coverage.figures_not_read == 1 and coverage.locations_found == 1
    wrong = _major("15216综采工作面", None, recomputed=15000.0, allocated=1200.0)
    kept = Finding(**{**wrong.model_dump(), "severity": Severity.MINOR})
    (info, minor) = gate_findings([wrong, kept], plan, checks)
    assert (info.severity, info.category) == (Severity.INFO, Category.FORM)
    assert info.message.startswith("未能可靠识别") and "瓦斯绝对涌出量 100 m³/min" in info.message
    assert minor is kept  # minor findings are never gated


def test_an_input_that_its_own_method_does_not_substitute_is_inconsistent() -> None:
    plan = Plan(locations=[_face(5.9)])  # plausible, but the method substitutes 4.2
    checks, _ = audit_plan(plan)
    (gas,) = [c for c in checks if c.quantity == "gas_emission"]
    assert gas.status == "inconsistent" and "4.2" in gas.reason
    plan = Plan(locations=[_face(4.2)])
    assert all(c.status == "ok" for c in audit_plan(plan)[0])


def test_a_figure_read_sixty_times_too_large_is_caught_by_its_own_row() -> None:
    plan = Plan(allocation=[_row("中央变电所", 159.9, 150 * 60, v=0.5, s=5.0)])
    checks, _ = audit_plan(plan)
    alloc = next(c for c in checks if c.column == "配风量")
    assert alloc.status != "ok"  # implausible for a chamber, and 60 × 60·v·S
    f = _major("中央变电所", present(plan.allocation[0].allocated_q).ref)
    (info,) = gate_findings([f], plan, checks)
    assert info.severity == Severity.INFO and info.evidence[0].table == 1


def test_plausible_figures_keep_their_findings() -> None:
    plan = Plan(locations=[_face(4.2)], allocation=[_row("15216综采工作面", 1132.2, 700)])
    checks, coverage = audit_plan(plan)
    f = _major(
        "15216综采工作面", present(plan.allocation[0].allocated_q).ref, recomputed=1132.2, allocated=700
    )
    assert gate_findings([f], plan, checks) == [f]
    assert coverage.figures_not_read == 0 and not coverage.unreadable
    assert "全部通过" in coverage_paragraph(coverage)


def test_a_compared_air_volume_beyond_any_face_is_not_judged() -> None:
    plan = Plan(locations=[_face(4.2)], allocation=[_row("15216综采工作面", 1132.2, 1200)])
    checks, _ = audit_plan(plan)
    f = _major("15216综采工作面", None, recomputed=40000.0, allocated=1200.0)
    (info,) = gate_findings([f], plan, checks)
    assert info.severity == Severity.INFO and "40000" in info.message


def test_uncertain_readings_are_not_read_and_a_mostly_unreadable_plan_is_unreadable() -> None:
    rows = [
        AllocationRow(
            location=f"地点{i}",
            required_q=flow_figure(15.0, None, SourceRef(page=4, table=1, row=i, confidence="uncertain")),
            allocated_q=_fig(99999.0, page=4, table=1, row=i, column="配风量"),
            measured_q=_fig(99999.0, page=4, table=1, row=i, column="实测风量"),
            ref=SourceRef(page=4),
        )
        for i in range(1, 5)
    ]
    _, coverage = audit_plan(Plan(allocation=rows))
    assert coverage.figures_not_read == 12 and coverage.unreadable  # eight of them implausible
    assert "未能可靠识别" in coverage_paragraph(coverage)


def test_every_range_is_ordered_and_labelled() -> None:
    for key, r in RANGES.items():
        assert r.low < r.high and r.label and r.note, key


def test_a_number_broken_by_ocr_in_a_calculation_is_not_judged() -> None:
    """OCR reads θ 0.01 as 0:01: the method's figure is uncertain, so the recomputation at that
    location (which fell back on a default θ) raises no major."""
    expr = "Q = 3600 × ΣW × θ / (ρ × Cp × 60 × Δt) = 3600 × 1260 × 0:01 / (1.2 × 1.0006 × 60 × 3) = 209.9"
    pump = LocationPlan(
        name="主排水泵房",
        kind="chamber_heat",
        methods=[
            MethodStatement(
                method="heat", label="按发热量计算", expression=expr, stated=_fig(209.9, text=expr)
            )
        ],
        stated_required=_fig(209.9, text="取最大值"),
    )
    plan = Plan(locations=[pump], allocation=[_row("主排水泵房", 209.9, 220, v=0.5, s=7.0)])
    checks, _ = audit_plan(plan)
    (heat,) = [c for c in checks if c.quantity == "q_method"]
    assert heat.status == "uncertain" and "0:01" in heat.reason
    local = _major("主排水泵房", present(plan.allocation[0].allocated_q).ref, recomputed=419.7, allocated=220)
    mine = _major(None, None, recomputed=6322.3, stated=6075.0)
    assert [f.severity for f in gate_findings([local, mine], plan, checks)] == [Severity.INFO, Severity.INFO]


def test_a_data_finding_rests_on_its_own_figures_only() -> None:
    """An input off elsewhere at the location holds back the recomputation (calculation), not a data
    finding on a figure read with confidence."""
    plan = Plan(locations=[_face(5.9)])  # gas emission inconsistent with its method
    plan.locations[0].inputs["workers"] = _fig(38, text="最多作业人数38人", unit="人")
    checks, _ = audit_plan(plan)
    data = Finding(
        **{
            **_major("15216综采工作面", plan.locations[0].inputs["workers"].ref).model_dump(),
            "category": Category.DATA,
        }
    )
    calc = _major("15216综采工作面", None, recomputed=1132.2, allocated=700)
    got = gate_findings([data, calc], plan, checks)
    assert [f.severity for f in got] == [Severity.MAJOR, Severity.INFO]
