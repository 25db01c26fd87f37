"""calc-verifier, a location against its allocation row and the wind-speed bounds (docs/DOMAIN.md §5):
the required volume recomputed and the volume allocated within 表6's bounds, the bounds the plan's speed
check states, the allocation table's required volume (its unit, its agreement with the calculation part)
and the volume allocated not below the requirement the location is held to. Figures in m³/min. Part of
:mod:`vent_agent.review.checks.calc_rules`.
"""

from __future__ import annotations

from calc.result import MaxResult
from vent_agent.documents.plan.model import AllocationRow, LocationPlan
from vent_agent.documents.plan.units import FLOW_UNITS, M3MIN
from vent_agent.review.checks.calc_common import stated_q
from vent_agent.review.findings import Finding, Severity
from vent_agent.review.judgement.arith import close, exceeds
from vent_agent.review.rule_common import Where, finding
from vent_agent.review.rules import UNIT_TOLERANCE


def governing(required: float | None, result: MaxResult | None) -> float:
    """The requirement a location is held to (m³/min): the larger of the plan's ``required`` and the
    recomputed one, 0 when there is neither."""
    return max(v for v in (required, result.value if result else None, 0.0) if v is not None)


def bound_checks(
    at: Where, loc: LocationPlan, result: MaxResult | None, row: AllocationRow | None
) -> list[Finding]:
    """The wind-speed bounds (表6) of the required volume recomputed and of the volume allocated, and the
    bounds the plan's own speed check states."""
    out: list[Finding] = []
    for chk in result.checks if result else []:
        if not chk.ok:
            out.append(
                finding(
                    "calc.speed_bounds",
                    at,
                    f"需风量 {chk.value:.1f} m³/min 超出风速允许范围 {chk.lower}–{chk.upper} m³/min",
                    unit=M3MIN,
                    figures={"recomputed": chk.value, "lower": chk.lower, "upper": chk.upper},
                    ref=loc.ref,
                )
            )
        allocated = stated_q(row.allocated_q) if row else None
        if allocated is None:
            continue
        if (chk.lower is not None and allocated < chk.lower) or (
            chk.upper is not None and allocated > chk.upper
        ):
            out.append(
                finding(
                    "calc.allocated_speed",
                    at,
                    f"计划配风量 {allocated:.1f} m³/min 对应风速超出允许范围（{chk.lower}–{chk.upper} m³/min）",
                    unit=M3MIN,
                    figures={"allocated": allocated, "lower": chk.lower, "upper": chk.upper},
                    ref=row.allocated_q.ref if row and row.allocated_q else None,
                )
            )
    if loc.speed_check and result and result.checks:
        chk = result.checks[0]
        for side, stated_b, calc_b in (
            ("下限", loc.speed_check.lower, chk.lower),
            ("上限", loc.speed_check.upper, chk.upper),
        ):
            if stated_b is not None and calc_b is not None and not close(stated_b, calc_b):
                out.append(
                    finding(
                        "calc.speed_check_stated",
                        at,
                        f"风速验算{side}写作 {stated_b}，按表6 应为 {calc_b} m³/min",
                        unit=M3MIN,
                        figures={"stated": stated_b, "recomputed": calc_b},
                        ref=loc.speed_check.ref,
                    )
                )
    return out


def allocation_checks(
    at: Where, loc: LocationPlan, row: AllocationRow | None, result: MaxResult | None, required: float | None
) -> list[Finding]:
    """The allocation table's row: its required volume (:func:`table_required_checks`) and the volume
    allocated, not below the requirement."""
    if row is None:
        return []
    target = governing(required, result)
    # the table's figure against what the calculation part states, never against a maximum taken for it
    out = table_required_checks(
        at, row, stated_q(loc.stated_required) if loc.stated_required else None, target
    )
    allocated = stated_q(row.allocated_q)
    if allocated is not None and exceeds(target, allocated):
        out.append(
            finding(
                "calc.allocation_short",
                at,
                f"计划配风量 {allocated:.1f} m³/min 小于需风量 {target:.1f} m³/min",
                unit=M3MIN,
                figures={"allocated": allocated, "required": target},
                ref=row.allocated_q.ref if row.allocated_q else row.ref,
            )
        )
    return out


def table_required_checks(
    at: Where, row: AllocationRow, required: float | None, target: float
) -> list[Finding]:
    """The allocation table's required volume against the requirement ``target`` (m³/min): a figure
    right in another unit than its column's (``calc.unit_mismatch``), else one that differs from the
    calculation part's ``required`` (``calc.required_inconsistent``)."""
    table_req = row.required_q
    as_min = stated_q(table_req)
    if table_req is None or as_min is None or target <= 0:
        return []
    written = table_req.value / FLOW_UNITS.get(table_req.unit_written or "", 1.0)  # as in its cell
    column = table_req.unit_written or table_req.unit or "m³/min"
    slip = next(
        (u for u, f in FLOW_UNITS.items() if u != column and close(written * f, target, rel=UNIT_TOLERANCE)),
        None,
    )
    if not close(as_min, target) and slip is not None:
        rule, stated, recomputed = "calc.unit_mismatch", written, target
        message = f"风量分配表需风量写作 {written:g}（按 {slip} 计），所在列单位为 {column}；核算为 {target:.1f} m³/min"
    elif required is not None and not close(as_min, required):
        rule, stated, recomputed = "calc.required_inconsistent", as_min, required
        message = f"风量分配表需风量 {as_min:.1f} 与计算部分 {required:.1f} m³/min 不一致"
    else:
        return []
    figures = {"stated": stated, "recomputed": recomputed}
    return [
        finding(rule, at, message, severity=Severity.MINOR, unit=M3MIN, figures=figures, ref=table_req.ref)
    ]
