"""calc-verifier: every stated method and maximum of a plan recomputed with :mod:`calc` (docs/DOMAIN.md §5).

Per location: the stated arithmetic of each method; each method against calc's value with the rule's
coefficients; the maximum taken; coefficients inside their ranges; the wind-speed bounds; allocated ≥
required; the units of the allocation table. Then the totals: the stated sum, Σ × k_mine, the mine total
against the recomputation and the capacity. Figures in m³/min.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from calc import formatting as calc_fmt
from calc.errors import CalcInputError
from calc.result import CalcResult, MaxResult
from vent_agent.documents.plan.methods import calculator
from vent_agent.documents.plan.model import AllocationRow, LocationPlan, MethodStatement, Plan, SourceRef
from vent_agent.documents.plan.units import M3MIN
from vent_agent.observability import metrics
from vent_agent.review.checks.allocation_rules import allocation_checks, bound_checks, governing
from vent_agent.review.checks.calc_common import calc_ev, cells, plan_coefficient_stands, stated_q
from vent_agent.review.checks.reference_inputs import ReferenceInput, contradicted_inputs
from vent_agent.review.checks.total_rules import total_checks
from vent_agent.review.findings import Finding, Severity
from vent_agent.review.judgement.arith import close, exceeds, substituted_value
from vent_agent.review.judgement.consequences import FOLLOWS, as_consequence, attach, consolidate
from vent_agent.review.judgement.recompute import (
    COEFFICIENT_INPUTS,
    KEY_LABELS,
    Adjustment,
    Unrecomputable,
    normalise_name,
    recompute_compliant,
)
from vent_agent.review.reference import MonthlyReference
from vent_agent.review.result import LocationRecalc
from vent_agent.review.rule_common import Where, finding, fmt, plan_edition, reference_evidence

MAX_TOOL = {
    "coal_face": "calc_face_air_volume_max",
    "heading": "calc_tunnel_air_volume_max",
    "standby_face": "calc_standby_face",
    "chamber_heat": "calc_chamber_by_equipment",
    "explosives_store": "calc_explosives_store",
    "charging": "calc_charging_chamber",
    "diesel_roadway": "calc_other_by_vehicle",
    "other_roadway": "calc_other_by_wind_speed",
}

OnLocation = Callable[[str, str, bool], Awaitable[None]]


def _method_checks(
    at: Where, loc: LocationPlan, result: MaxResult | None, required: float | None, adjusted: set[str]
) -> list[Finding]:
    """Each method's stated result: its own arithmetic (``calc.arithmetic``), else against calc's value
    with the rule's coefficients (``calc.method_coefficient``; not for the methods in ``adjusted``, whose
    inputs were replaced). Major when the corrected value is above the ``required`` taken."""
    out: list[Finding] = []
    for m in loc.methods:
        stated = stated_q(m.stated)
        if stated is None:
            continue
        evaluated = substituted_value(m.expression)
        calc_m = _calc_method(result, m)
        if evaluated is not None and not close(evaluated[1], stated):
            value = round(evaluated[1], 1)
            severe = exceeds(value, required)
            rule, evidence = "calc.arithmetic", []
            message = f"{m.label}算术错误：{evaluated[0]} = {value:.1f}，计划写作 {stated:.1f} m³/min" + (
                "，且改正后超过所取需风量" if severe else "（非控制值，不改变所取需风量）"
            )
        elif (
            calc_m is not None
            and calc_m.method not in adjusted
            and not close(calc_m.value, stated)
            and not plan_coefficient_stands(calc_m, m, stated)
        ):
            value = calc_m.value
            severe = exceeds(value, required)
            rule, evidence = "calc.method_coefficient", [calc_ev(calc_m.method, calc_m.substituted)]
            written = m.expression or f"{stated:.1f} m³/min"
            message = f"{m.label}与按规程系数核算不符：计划 {written}；核算 {calc_m.substituted}" + (
                "（计划取值偏低）" if value > stated else "（计划取值偏高，非控制值）" if not severe else ""
            )
        else:
            continue
        severity = Severity.MAJOR if severe else Severity.MINOR
        figures = {"stated": stated, "recomputed": value}
        ref = m.stated.ref if m.stated else None
        out.append(
            finding(
                rule, at, message, severity=severity, unit=M3MIN, figures=figures, ref=ref, evidence=evidence
            )
        )
    return out


def _input_ref(loc: LocationPlan, name: str) -> SourceRef | None:
    """Where the plan states input ``name``: its parameter, else the method it is written in (a vehicle
    method's ΣP), else the location."""
    if name in loc.inputs:
        return loc.inputs[name].ref
    if name == "diesel_kw":
        method = next((m for m in loc.methods if m.method == "vehicle" and m.stated), None)
        if method is not None and method.stated is not None:
            return method.stated.ref
    return loc.ref


def _calc_method(result: MaxResult | None, m: MethodStatement) -> CalcResult | None:
    suffix = calculator(m.method)
    if result is None or suffix is None:
        return None
    candidates = result.methods if result.methods else [result]
    return next((r for r in candidates if r.method.endswith(suffix)), None)


def _maximum_checks(
    at: Where,
    loc: LocationPlan,
    result: MaxResult | None,
    required: float | None,
    row: AllocationRow | None = None,
) -> list[Finding]:
    """The required volume taken: stated at all, the largest of the methods stated
    (``calc.max_not_taken``), else not below the recomputed maximum (``calc.required_low``)."""
    if required is None:
        return [
            finding(
                "calc.required_missing",
                at,
                "未给出该地点的需风量（取最大值）",
                unit=M3MIN,
                figures={},
                ref=loc.ref,
            )
        ]
    stated_methods = [
        (m, stated_q(m.stated)) for m in loc.methods if m.stated is not None and m.method != "min_q"
    ]
    top_m, top_v = max(stated_methods, key=lambda mv: mv[1] or 0.0, default=(None, None))
    if top_m is not None and top_v is not None and exceeds(top_v, required):
        rule, larger = "calc.max_not_taken", top_v
        message = f"需风量未取各方法最大值：{top_m.label}得 {top_v:.1f} m³/min，计划取 {required:.1f} m³/min"
        evidence = cells(
            (top_m.stated.ref if top_m.stated else None, f"{top_m.label}计算结果"),
            (row.required_q.ref if row and row.required_q else None, "风量分配表中的需风量"),
        )
    elif result is not None and exceeds(result.value, required):
        gov = next((r for r in result.methods if r.method == result.governing), result)
        rule, larger = "calc.required_low", result.value
        message = f"需风量偏低：核算最大值 {result.value:.1f} m³/min（{gov.method_cn}：{gov.substituted}），计划取 {required:.1f} m³/min"
        evidence = [calc_ev(gov.method, gov.substituted)]
    else:
        return []
    ref = loc.stated_required.ref if loc.stated_required else loc.ref
    figures = {"stated": required, "recomputed": larger}
    return [
        finding(
            rule,
            at,
            message,
            severity=Severity.MAJOR,
            unit=M3MIN,
            figures=figures,
            ref=ref,
            evidence=evidence,
        )
    ]


COEF_UNITS = {"v": " m/s"}
"""Units of coefficients that have one (the climate method's wind speed); the others are unitless."""


def _coef_text(symbol: str, value: float) -> str:
    """``v = 1.0 m/s``, ``k_l = 1.35``: at least one decimal, the unit only where there is one."""
    return f"{symbol} = {calc_fmt.num(value, min_decimals=1)}{COEF_UNITS.get(symbol, '')}"


def _coefficient_checks(at: Where, loc: LocationPlan, adjustments: list[Adjustment]) -> list[Finding]:
    """The plan's coefficients outside their ranges: one finding for those that lower the requirement
    (one root fault: the location recomputed with all of them at the nearest compliant value, the range
    stated: ``≥ 872.1 m³/min（v = 1.5 m/s, k_l = 1.3）；按缺省值 … 996.1``), one minor finding for each
    above its range (on the safe side). docs/DOMAIN.md §5."""
    out: list[Finding] = []
    low = [a for a in adjustments if a.lowers]
    if low:
        first = low[0]
        what = "；".join(_adjustment_text(a) for a in low)
        compliant = "，".join(_coef_text(a.symbol, a.compliant) for a in low)
        default = "，".join(_coef_text(a.symbol, a.default) for a in low)
        out.append(
            finding(
                "calc.coefficient_range",
                at,
                f"{what}，降低了需风量。按最接近的合规值重新核算：需风量 ≥ {first.q_compliant:.1f} m³/min"
                f"（{compliant}）；按缺省值（{default}）为 {first.q_default:.1f} m³/min",
                unit=M3MIN,
                figures={
                    **{f"{a.symbol}_stated": a.given for a in low},
                    **{f"{a.symbol}_compliant": a.compliant for a in low},
                    "required_compliant": first.q_compliant,
                    "required_default": first.q_default,
                },
                ref=_ref_of(loc, first),
                evidence=[calc_ev(a.method, f"{a.symbol}: {fmt(a.given)} → {fmt(a.compliant)}") for a in low],
            )
        )
    for a in adjustments:
        if not a.lowers:
            out.append(
                finding(
                    "calc.coefficient_range",
                    at,
                    f"{_adjustment_text(a)}，高于上限（偏于安全）",
                    severity=Severity.MINOR,
                    unit=M3MIN,
                    figures={"stated": a.given, "low": a.low, "high": a.high},
                    ref=_ref_of(loc, a),
                )
            )
    return out


def _adjustment_text(a: Adjustment) -> str:
    label = KEY_LABELS.get(a.key or "")
    row = f"（{label[0]} {fmt(a.key_value)} {label[1]}）" if label and a.key_value is not None else ""
    unit = COEF_UNITS.get(a.symbol, "")
    return f"{a.method_cn}系数 {_coef_text(a.symbol, a.given)} 超出规定范围 {fmt(a.low)}–{fmt(a.high)}{unit}{row}"


def _ref_of(loc: LocationPlan, a: Adjustment) -> SourceRef | None:
    """Where the plan states the input that sets ``a``'s coefficient (else the location)."""
    name = COEFFICIENT_INPUTS.get((a.method, a.symbol), "")
    return loc.inputs[name].ref if name in loc.inputs else loc.ref


def _reference_checks(
    at: Where,
    loc: LocationPlan,
    stated: MaxResult | None,
    result: MaxResult | None,
    required: float | None,
    replaced: list[ReferenceInput],
    ref: MonthlyReference | None,
    adjustments: list[Adjustment],
) -> list[Finding]:
    """The location recomputed with its inputs contradicted by reference data at the reference figure:
    one root finding stating both requirements (``按瓦斯等级鉴定报告 q = 1.6 m³/min：需风量 ≥ 259.2
    m³/min；计划按 q = 1.1 m³/min 计算为 178.2``) when the reference figure raises the requirement; the
    allocation, standby faces and mine total follow as its consequences (docs/DOMAIN.md §5). Coefficients
    out of their range that lower the requirement are stated in the same finding at their compliant
    value (``adjustments``), the recomputation being one."""
    if not replaced or result is None or stated is None or ref is None:
        return []
    planned = max(v for v in (required, stated.value) if v is not None)
    if not exceeds(result.value, planned):
        return []  # another method governs: the data-checker's finding says the figures differ
    sources = "、".join(dict.fromkeys(r.source.split("（", 1)[0] for r in replaced))
    at_ref = "，".join(
        [f"{r.symbol} = {fmt(r.reference)} {r.unit}" for r in replaced]
        + [f"系数取最接近的合规值 {_coef_text(a.symbol, a.compliant)}" for a in adjustments if a.lowers]
    )
    at_plan = "，".join(f"{r.symbol} = {fmt(r.given)} {r.unit}" for r in replaced)
    what = "；".join(
        f"{r.label}计划取 {fmt(r.given)} {r.unit}，{r.source}为 {fmt(r.reference)} {r.unit}" for r in replaced
    )
    base = required if required is not None else stated.value
    return [
        finding("calc.reference_input", at, f"{what}。按{sources} {at_ref}：需风量 ≥ {result.value:.1f} m³/min；计划按 {at_plan} 计算为 {base:.1f} m³/min", unit=M3MIN, figures={  # the first input replaced; the others are in the message
                "plan": replaced[0].given,
                "reference": replaced[0].reference,
                "stated": base,
                "recomputed": result.value,
            }, ref=_input_ref(loc, replaced[0].name), evidence=[
                *(reference_evidence(r.tool, ref.mine, ref.month, r.key, f"{r.key} {r.label} {fmt(r.reference)} {r.unit}") for r in replaced),
                calc_ev(result.method, result.substituted),
            ])
    ]  # fmt: skip


def _changed_methods(stated: MaxResult | None, result: MaxResult | None) -> set[str]:
    """Methods whose value the replaced inputs changed (their stated arithmetic is not re-judged)."""
    if stated is None or result is None or stated is result:
        return set()
    before = {m.method: m.value for m in stated.methods or [stated]}
    return {m.method for m in result.methods or [result] if not close(before.get(m.method, -1.0), m.value)}


async def review_calc(
    plan: Plan, on_location: OnLocation | None = None, reference: MonthlyReference | None = None
) -> tuple[list[Finding], list[LocationRecalc]]:
    """Run the calc-verifier on ``plan``: findings and each location's :class:`LocationRecalc`.

    A plan coefficient outside its range is never inherited: the location is recomputed at the nearest
    compliant value (:func:`recompute_compliant`) and its allocation, its standby faces and the mine
    total are judged against that. Nor is an input the month's ``reference`` data contradicts (the
    data-checker's :class:`MonthlyReference`; None: no reference data, nothing replaced): the location
    is recomputed with the reference figure (:func:`contradicted_inputs`). A location's root fault carries its consequences (docs/DOMAIN.md §5).
    ``on_location(name, tool, done)`` is awaited before and after each location's recomputation (for
    ``agent_executing`` / ``agent_tool_result`` events).
    """
    edition = plan_edition(plan)
    rows = {normalise_name(r.location): r for r in plan.allocation}
    findings: list[Finding] = []
    recalcs: list[LocationRecalc] = []
    required_by_loc: dict[str, float] = {}
    ordered = sorted(plan.locations, key=lambda loc: loc.kind == "standby_face")  # standby faces last
    for loc in ordered:
        tool = MAX_TOOL.get(loc.kind, "calc_other_by_wind_speed")
        if on_location:
            await on_location(loc.name, tool, False)
        at = Where(loc.name, loc.kind, edition)
        key = normalise_name(loc.name)
        required = stated_q(loc.stated_required)
        results = [q for m in loc.methods if (q := stated_q(m.stated)) is not None]
        if required is None and len(results) == 1:
            required = results[0]  # of one method, its result is the requirement
        result: MaxResult | None = None
        stated_result: MaxResult | None = None
        adjustments: list[Adjustment] = []
        replaced = contradicted_inputs(loc, reference)
        note = ""
        here: list[Finding] = []
        try:
            with metrics.time_tool(tool):
                stated_result, result, adjustments = recompute_compliant(
                    loc, required_by_loc, {r.name: r.reference for r in replaced}
                )
        except (Unrecomputable, CalcInputError) as exc:
            note = exc.describe() if isinstance(exc, CalcInputError) else str(exc)
            here.append(
                finding(
                    "calc.unrecomputable",
                    at,
                    f"未能核算该地点需风量：{note}",
                    unit=M3MIN,
                    figures={},
                    ref=loc.ref,
                )
            )
        row = rows.get(key)
        adjusted = {a.method for a in adjustments} | _changed_methods(stated_result, result)
        by_reference = _reference_checks(
            at, loc, stated_result, result, required, replaced, reference, adjustments
        )
        here += by_reference  # coefficients the reference figure puts out of range belong to its finding
        here += _coefficient_checks(at, loc, [a for a in adjustments if not (by_reference and a.lowers)])
        here += _method_checks(at, loc, result, required, adjusted)
        here += _maximum_checks(at, loc, result, required, row)
        here += bound_checks(at, loc, result, row)
        here += allocation_checks(at, loc, row, result, required)
        here = consolidate(here)
        if loc.kind == "standby_face" and loc.standby_of:
            here = _fold_into_working_face(findings, loc.standby_of, here)
        findings += here
        held_to = governing(required, result)
        if held_to > 0:
            required_by_loc[key] = held_to
        recalcs.append(
            LocationRecalc(
                location=loc.name,
                kind=loc.kind,
                result=result,
                stated_required=required,
                allocated=stated_q(row.allocated_q) if row else None,
                page=loc.ref.page if loc.ref else None,
                note=note,
                adjustments=[a.as_dict() for a in adjustments],
                reference_inputs=[r.as_dict() for r in replaced] if result is not None else [],
            )
        )
        if on_location:
            await on_location(loc.name, tool, True)
    stated_by_loc = {normalise_name(loc.name): stated_q(loc.stated_required) or 0.0 for loc in plan.locations}
    findings = total_checks(plan, required_by_loc, stated_by_loc, findings, edition)
    return findings, recalcs


def _fold_into_working_face(findings: list[Finding], working: str, here: list[Finding]) -> list[Finding]:
    """A standby face's shortfall that follows from its working face's root fault becomes a consequence
    of that fault (the standby face needs 50 % of the working face's corrected requirement)."""
    name = next(
        (
            f.location
            for f in findings
            if f.location and normalise_name(f.location) == normalise_name(working)
        ),
        None,
    )
    keep = []
    for f in here:
        follows = f.rule_id in FOLLOWS or f.rule_id == "calc.method_coefficient"
        if name and follows and attach(findings, name, as_consequence(f)):
            for c in f.consequences:  # what followed at the standby face follows from the same root
                attach(findings, name, c)
            continue
        keep.append(f)
    return keep
