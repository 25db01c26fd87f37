"""The mine total of a plan (docs/DOMAIN.md §2.5) checked by the calc-verifier: the stated sum, Σ × k_mine,
the total against the recomputed locations, the ventilation capacity and k_mine's range. Units m³/min."""

from __future__ import annotations

import calc
from calc.errors import CalcInputError
from vent_agent.documents.plan.model import Plan
from vent_agent.documents.plan.units import M3MIN
from vent_agent.review.checks.calc_common import calc_ev, stated_q
from vent_agent.review.findings import Finding, Severity
from vent_agent.review.judgement.arith import close, exceeds
from vent_agent.review.judgement.consequences import as_consequence, attach
from vent_agent.review.judgement.recompute import MAIN_RETURN_HINTS, hint, normalise_name
from vent_agent.review.rule_common import Where, finding


def _governing_cn(total: calc.MaxResult) -> str:
    """The governing method of a mine total in Chinese, with its figures (no symbols)."""
    gov = next((m for m in total.methods if m.method == total.governing), total)
    k = next((c.value for c in gov.coefficients if c.symbol == "k_mine"), None)
    if gov.method.endswith("by_people"):
        return f"{gov.method_cn}：4 × {gov.inputs.get('max_people_underground')} × {k:g}"
    return f"{gov.method_cn}：{total.inputs.get('sum_q')} × {k:g}" if k is not None else gov.method_cn


def own_total(stated_by_loc: dict[str, float], k: float | None) -> float | None:
    """The total the plan's own per-location figures give (Σ stated × k), or None without k."""
    return None if k is None else sum(stated_by_loc.values()) * k


def _as_consequences(
    findings: list[Finding],
    low: Finding,
    required_by_loc: dict[str, float],
    stated_by_loc: dict[str, float],
    k: float | None,
    own: float | None,
    owners: dict[str, str],
) -> bool:
    """Attach the low total as a consequence to each location whose recomputed requirement exceeds the
    plan's (in place). True when the whole shortfall is so explained: the plan's total agrees with its
    own figures and every contributing location has a root finding."""
    stated_total = low.figures.get("stated")
    if k is None or own is None or not isinstance(stated_total, float):
        return False
    if exceeds(own, stated_total):
        return False  # short by the plan's own figures: a fault of the total itself
    up: dict[str, float] = {}
    for n, q in required_by_loc.items():
        extra = q - stated_by_loc.get(n, 0.0)
        if extra > 0.05:  # a standby face's extra follows from its working face
            owner = owners.get(n, n) if owners.get(n) in required_by_loc else n
            up[owner] = up.get(owner, 0.0) + extra
    if not up:
        return False
    names = {normalise_name(f.location): f.location for f in findings if f.location}
    done = True
    for key, extra in up.items():
        name = names.get(key)
        share = as_consequence(low).model_copy(
            update={
                "location": None,
                "message": f"{low.message}（其中本地点少计 {extra:.1f} × {k:g} = {extra * k:.1f} m³/min）",
            }
        )
        if name is None or not attach(findings, name, share):
            done = False
    return done


def _stated_requirements(plan: Plan) -> list[float | None]:
    """Each location's requirement as the plan states it (m³/min): its calculation's maximum, else the
    allocation table's 需风量 of the same place; None where the plan states neither (or it was not read).
    A main or wing return checked in the plan is left out: its air is the others' return."""
    allocated = {normalise_name(r.location): stated_q(r.required_q) for r in plan.allocation}
    return [
        stated_q(loc.stated_required) or allocated.get(normalise_name(loc.name))
        for loc in plan.locations
        if not hint(loc.name + loc.kind_label, MAIN_RETURN_HINTS)  # its air is the others' return
    ]


def total_checks(
    plan: Plan,
    required_by_loc: dict[str, float],
    stated_by_loc: dict[str, float],
    findings: list[Finding],
    edition: str,
) -> list[Finding]:
    """``findings`` (the locations') with the mine total's checks: the stated sum, Σ × k, the total
    against the recomputation and the capacity, k_mine's range.

    ``required_by_loc``: each location's governing required Q (the larger of stated and recomputed,
    m³/min, normalised names); ``stated_by_loc``: the plan's own. A total short only because locations
    were recomputed higher becomes a consequence of those locations' root findings; a total short by
    the plan's own figures is a finding of its own.
    """
    t = plan.totals
    at = Where(None, None, edition)
    out: list[Finding] = list(findings)
    stated_sum = stated_q(t.stated_sum)
    each = _stated_requirements(plan)
    section_sum = round(sum(q or 0.0 for q in each), 1)
    # every location's stated requirement read, else the sum of what was read says nothing
    complete = bool(plan.locations) and all(q is not None for q in each)
    if stated_sum is not None and complete and not close(stated_sum, section_sum):
        out.append(
            finding(
                "calc.sum_stated",
                at,
                f"各用风地点需风量之和写作 {stated_sum:.1f} m³/min，按计划所写各地点需风量相加为 {section_sum:.1f} m³/min",
                unit=M3MIN,
                figures={"stated": stated_sum, "recomputed": section_sum},
                ref=t.stated_sum.ref if t.stated_sum else None,
            )
        )
    k = t.k_mine.value if t.k_mine else None
    mine_total = stated_q(t.mine_total)
    if (
        stated_sum is not None
        and k is not None
        and mine_total is not None
        and not close(stated_sum * k, mine_total)
    ):
        out.append(
            finding(
                "calc.total_arithmetic",
                at,
                f"矿井总需风量算术错误：{stated_sum:.1f} × {k} = {stated_sum * k:.1f}，计划写作 {mine_total:.1f}",
                unit=M3MIN,
                figures={"stated": mine_total, "recomputed": round(stated_sum * k, 1)},
                ref=t.mine_total.ref if t.mine_total else None,
            )
        )
    if not required_by_loc:
        return out
    try:
        total = calc.calc_total_air_volume(
            location_qs=required_by_loc,
            k_mine=k,
            max_people_underground=int(t.max_people.value) if t.max_people else None,
            capacity=stated_q(t.capacity),
        )
    except CalcInputError:
        return out
    ref = t.mine_total.ref if t.mine_total else None
    if exceeds(total.value, mine_total):
        low = finding(
            "calc.total_low",
            at,
            f"矿井总需风量偏低：核算为 {total.value:.1f} m³/min（{_governing_cn(total)}），计划为 {mine_total:.1f} m³/min",
            unit=M3MIN,
            figures={"stated": mine_total, "recomputed": total.value},
            ref=ref,
            evidence=[calc_ev(total.method, total.substituted)],
        )
        owners = {
            normalise_name(loc.name): normalise_name(loc.standby_of)
            for loc in plan.locations
            if loc.kind == "standby_face" and loc.standby_of
        }
        own = own_total(stated_by_loc, k)
        if not _as_consequences(out, low, required_by_loc, stated_by_loc, k, own, owners):
            out.append(low)
    capacity = stated_q(t.capacity)
    if capacity is not None and total.value > capacity:
        out.append(
            finding(
                "calc.capacity_exceeded",
                at,
                f"核算矿井总需风量 {total.value:.1f} m³/min 超过矿井通风能力 {capacity:.1f}",
                unit=M3MIN,
                figures={"recomputed": total.value, "capacity": capacity},
                ref=t.capacity.ref if t.capacity else ref,
            )
        )
    for c in total.coefficients:
        if c.origin == "given" and c.valid_range and not (c.valid_range[0] <= c.value <= c.valid_range[1]):
            out.append(
                finding(
                    "calc.k_mine_range",
                    at,
                    f"矿井需风系数 {c.symbol} = {c.value} 超出范围 {c.valid_range[0]}–{c.valid_range[1]}",
                    severity=Severity.MAJOR if c.value < c.valid_range[0] else Severity.MINOR,
                    unit=M3MIN,
                    figures={"stated": c.value},
                    ref=t.k_mine.ref if t.k_mine else ref,
                )
            )
    return out
