"""calc-verifier: every stated method and maximum of a plan recomputed with :mod:`calc` (DOMAIN.md §5).

Per location: the stated arithmetic of each method; each method against calc's value with the rule's
coefficients; the maximum taken; coefficients inside their ranges; the wind-speed bounds; allocated ≥
required; the units of the allocation table. Then the totals: the stated sum, Σ × k_mine, the mine total
against the recomputation and the capacity. Figures in m³/min.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import calc
from calc.errors import CalcInputError
from calc.result import MaxResult
from vent_agent.documents.plan import AllocationRow, Figure, LocationPlan, MethodStatement, Plan, SourceRef
from vent_agent.documents.plan_units import FLOW_UNITS
from vent_agent.review.arith import close, substituted_value
from vent_agent.review.findings import Category, Evidence, Finding, Severity
from vent_agent.review.recompute import Unrecomputable, normalise_name, recompute_location
from vent_agent.review.result import LocationRecalc
from vent_agent.review.rule_common import finding, pdf_evidence

AQ1056 = "AQ 1056-2008《煤矿通风能力核定标准》"
R159 = "《煤矿安全规程》第159条"
R157 = "《煤矿安全规程》第157条（表6）"
AGENT = "calc-verifier"
METHOD_SUFFIX = {
    "gas": "_by_gas",
    "co2": "_by_co2",
    "climate": "_by_climate",
    "workers": "_by_workers",
    "explosives": "_by_explosives",
    "fan_intake": "_by_fan_intake",
    "vehicle": "_by_vehicle",
    "heat": "_by_equipment",
    "standby": "standby_face",
    "h2": "charging",
    "volume": "explosives_store",
}
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


def _calc_ev(method: str, substituted: str) -> Evidence:
    return Evidence(kind="calc", detail={"method": method, "substituted": substituted})


def _finding(
    location: str | None,
    severity: Severity,
    message: str,
    *,
    figures: dict,
    rule: str,
    source: str,
    ref: SourceRef | None,
    category: Category = Category.CALCULATION,
    evidence: list[Evidence] | None = None,
) -> Finding:
    """A calc-verifier finding in m³/min (see :func:`vent_agent.review.rule_common.finding`)."""
    return finding(
        AGENT,
        location,
        category,
        severity,
        message,
        rule=rule,
        source=source,
        figures=figures,
        unit="m³/min",
        ref=ref,
        evidence=list(evidence or []),
    )


def _cells(*refs: tuple[SourceRef | None, str]) -> list[Evidence]:
    """PDF evidence for further cells or lines a finding compares (beside its main figure)."""
    return [ev for ref, what in refs if (ev := pdf_evidence(ref, what)) is not None]


def _stated(fig: Figure | None) -> float | None:
    """A stated air volume in m³/min (a figure written in m³/s is converted)."""
    if fig is None:
        return None
    return calc.m3s_to_m3min(fig.value) if fig.unit and "/s" in fig.unit else fig.value


def _method_checks(loc: LocationPlan, result: MaxResult | None, required: float | None) -> list[Finding]:
    out: list[Finding] = []
    for m in loc.methods:
        stated = _stated(m.stated)
        if stated is None:
            continue
        ref = m.stated.ref if m.stated else None
        evaluated = substituted_value(m.expression)
        if evaluated is not None and not close(evaluated[1], stated):
            value = round(evaluated[1], 1)
            severe = required is not None and value > required and not close(value, required)
            out.append(
                _finding(
                    loc.name,
                    Severity.MAJOR if severe else Severity.MINOR,
                    f"{m.label}算术错误：{evaluated[0]} = {value:.1f}，计划写作 {stated:.1f} m³/min"
                    + ("，且改正后超过所取需风量" if severe else "（非控制值，不改变所取需风量）"),
                    figures={"stated": stated, "recomputed": value},
                    rule="各计算方法的代入计算须正确",
                    source=AQ1056,
                    ref=ref,
                )
            )
            continue
        calc_m = _calc_method(result, m)
        if calc_m is not None and not close(calc_m.value, stated):
            severe = required is not None and calc_m.value > required and not close(calc_m.value, required)
            lowers = calc_m.value > stated
            out.append(
                _finding(
                    loc.name,
                    Severity.MAJOR if severe else Severity.MINOR,
                    f"{m.label}与按规程系数核算不符：计划 {m.expression}；核算 {calc_m.substituted}"
                    + ("（计划取值偏低）" if lowers else "（计划取值偏高，非控制值）" if not severe else ""),
                    figures={"stated": stated, "recomputed": calc_m.value},
                    rule=f"{calc_m.method_cn}的系数取值",
                    source=calc_m.source or AQ1056,
                    ref=ref,
                    evidence=[_calc_ev(calc_m.method, calc_m.substituted)],
                )
            )
    return out


def _calc_method(result: MaxResult | None, m: MethodStatement):  # type: ignore[no-untyped-def]
    if result is None or m.method not in METHOD_SUFFIX:
        return None
    suffix = METHOD_SUFFIX[m.method]
    candidates = result.methods if result.methods else [result]
    return next((r for r in candidates if r.method.endswith(suffix)), None)


def _maximum_checks(
    loc: LocationPlan, result: MaxResult | None, required: float | None, row: AllocationRow | None = None
) -> list[Finding]:
    if required is None:
        return [
            _finding(
                loc.name,
                Severity.MAJOR,
                "未给出该地点的需风量（取最大值）",
                figures={},
                rule="每个用风地点须有完整的需风量计算过程",
                source=AQ1056,
                ref=loc.ref,
                category=Category.FORM,
            )
        ]
    ref = loc.stated_required.ref if loc.stated_required else loc.ref
    stated_methods = [
        (m, _stated(m.stated)) for m in loc.methods if m.stated is not None and m.method != "min_q"
    ]
    out: list[Finding] = []
    if stated_methods:
        top_m, top_v = max(stated_methods, key=lambda mv: mv[1] or 0.0)
        if top_v is not None and top_v > required and not close(top_v, required):
            out.append(
                _finding(
                    loc.name,
                    Severity.MAJOR,
                    f"需风量未取各方法最大值：{top_m.label}得 {top_v:.1f}，计划取 {required:.1f} m³/min",
                    figures={"stated": required, "recomputed": top_v},
                    rule="需风量取各计算方法的最大值",
                    source=f"{R159}；{AQ1056}",
                    ref=ref,
                    evidence=_cells(
                        (top_m.stated.ref if top_m.stated else None, f"{top_m.label}计算结果"),
                        (row.required_q.ref if row and row.required_q else None, "风量分配表中的需风量"),
                    ),
                )
            )
            return out
    if result is not None and result.value > required and not close(result.value, required):
        gov = next((r for r in result.methods if r.method == result.governing), result)
        out.append(
            _finding(
                loc.name,
                Severity.MAJOR,
                f"需风量偏低：核算最大值 {result.value:.1f} m³/min（{gov.method_cn}：{gov.substituted}），计划取 {required:.1f}",
                figures={"stated": required, "recomputed": result.value},
                rule="需风量取各计算方法的最大值",
                source=f"{R159}；{AQ1056}",
                ref=ref,
                evidence=[_calc_ev(gov.method, gov.substituted)],
            )
        )
    return out


def _coefficient_checks(loc: LocationPlan, result: MaxResult | None) -> list[Finding]:
    out: list[Finding] = []
    for r in result.methods if result else []:
        for c in r.coefficients:
            if c.origin != "given" or c.valid_range is None:
                continue
            low, high = c.valid_range
            if low <= c.value <= high:
                continue
            lowers = c.value < low
            out.append(
                _finding(
                    loc.name,
                    Severity.MAJOR if lowers else Severity.MINOR,
                    f"{r.method_cn}系数 {c.symbol} = {c.value} 超出规定范围 {low}–{high}"
                    + ("，降低了需风量" if lowers else ""),
                    figures={"stated": c.value, "low": low, "high": high},
                    rule=f"{c.symbol} 取值范围",
                    source=c.source or r.source or AQ1056,
                    ref=loc.ref,
                )
            )
    return out


def _bound_checks(loc: LocationPlan, result: MaxResult | None, row: AllocationRow | None) -> list[Finding]:
    out: list[Finding] = []
    for chk in result.checks if result else []:
        if not chk.ok:
            out.append(
                _finding(
                    loc.name,
                    Severity.MAJOR,
                    f"需风量 {chk.value:.1f} m³/min 超出风速允许范围 {chk.lower}–{chk.upper} m³/min",
                    figures={"recomputed": chk.value, "lower": chk.lower, "upper": chk.upper},
                    rule="风速验算",
                    source=chk.source or R157,
                    ref=loc.ref,
                    category=Category.REGULATION,
                )
            )
        allocated = _stated(row.allocated_q) if row else None
        if allocated is None:
            continue
        if (chk.lower is not None and allocated < chk.lower) or (
            chk.upper is not None and allocated > chk.upper
        ):
            out.append(
                _finding(
                    loc.name,
                    Severity.MAJOR,
                    f"计划配风量 {allocated:.1f} m³/min 对应风速超出允许范围（{chk.lower}–{chk.upper} m³/min）",
                    figures={"allocated": allocated, "lower": chk.lower, "upper": chk.upper},
                    rule="配风后风速须在允许范围内",
                    source=chk.source or R157,
                    ref=row.allocated_q.ref if row and row.allocated_q else None,
                    category=Category.REGULATION,
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
                    _finding(
                        loc.name,
                        Severity.MINOR,
                        f"风速验算{side}写作 {stated_b}，按表6 应为 {calc_b} m³/min",
                        figures={"stated": stated_b, "recomputed": calc_b},
                        rule="风速验算",
                        source=chk.source or R157,
                        ref=loc.speed_check.ref,
                    )
                )
    return out


def _allocation_checks(
    loc: LocationPlan, row: AllocationRow | None, result: MaxResult | None, required: float | None
) -> list[Finding]:
    if row is None:
        return []
    out: list[Finding] = []
    target = max(v for v in (required, result.value if result else None, 0.0) if v is not None)
    table_req = row.required_q
    if table_req is not None and target > 0:
        written = table_req.value / FLOW_UNITS.get(table_req.unit_written or "", 1.0)  # as in its cell
        column = table_req.unit_written or table_req.unit or "m³/min"
        as_min = _stated(table_req)
        slip = next(
            (u for u, f in FLOW_UNITS.items() if u != column and close(written * f, target, rel=0.01)), None
        )
        if as_min is not None and not close(as_min, target) and slip is not None:
            out.append(
                _finding(
                    loc.name,
                    Severity.MINOR,
                    f"风量分配表需风量写作 {written:g}（按 {slip} 计），所在列单位为 {column}；核算为 {target:.1f} m³/min",
                    figures={"stated": written, "recomputed": target},
                    rule="风量单位须与表头一致（m³/min）",
                    source=AQ1056,
                    ref=table_req.ref,
                    category=Category.UNITS,
                )
            )
        elif as_min is not None and required is not None and not close(as_min, required):
            out.append(
                _finding(
                    loc.name,
                    Severity.MINOR,
                    f"风量分配表需风量 {as_min:.1f} 与计算部分 {required:.1f} m³/min 不一致",
                    figures={"stated": as_min, "recomputed": required},
                    rule="同一地点需风量前后一致",
                    source=AQ1056,
                    ref=table_req.ref,
                )
            )
    allocated = _stated(row.allocated_q)
    if allocated is not None and target > allocated and not close(allocated, target):
        out.append(
            _finding(
                loc.name,
                Severity.MAJOR,
                f"计划配风量 {allocated:.1f} m³/min 小于需风量 {target:.1f} m³/min",
                figures={"allocated": allocated, "required": target},
                rule="配风量不得小于需风量",
                source=f"{R159}；{AQ1056}",
                ref=row.allocated_q.ref if row.allocated_q else row.ref,
            )
        )
    return out


def _total_checks(plan: Plan, required_by_loc: dict[str, float]) -> list[Finding]:
    t = plan.totals
    out: list[Finding] = []
    stated_sum = _stated(t.stated_sum)
    section_sum = round(sum(_stated(loc.stated_required) or 0.0 for loc in plan.locations), 1)
    if stated_sum is not None and plan.locations and not close(stated_sum, section_sum):
        out.append(
            _finding(
                None,
                Severity.MINOR,
                f"各用风地点需风量之和写作 {stated_sum:.1f} m³/min，按计算部分各地点需风量相加为 {section_sum:.1f}",
                figures={"stated": stated_sum, "recomputed": section_sum},
                rule="ΣQ 须等于各地点需风量之和",
                source=AQ1056,
                ref=t.stated_sum.ref if t.stated_sum else None,
            )
        )
    k = t.k_mine.value if t.k_mine else None
    mine_total = _stated(t.mine_total)
    if (
        stated_sum is not None
        and k is not None
        and mine_total is not None
        and not close(stated_sum * k, mine_total)
    ):
        out.append(
            _finding(
                None,
                Severity.MINOR,
                f"矿井总需风量算术错误：{stated_sum:.1f} × {k} = {stated_sum * k:.1f}，计划写作 {mine_total:.1f}",
                figures={"stated": mine_total, "recomputed": round(stated_sum * k, 1)},
                rule="Q矿 = ΣQ × k",
                source=AQ1056,
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
            capacity=_stated(t.capacity),
        )
    except CalcInputError:
        return out
    ref = t.mine_total.ref if t.mine_total else None
    if mine_total is not None and total.value > mine_total and not close(total.value, mine_total):
        out.append(
            _finding(
                None,
                Severity.MAJOR,
                f"矿井总需风量偏低：按核算需风量 {total.substituted}，计划为 {mine_total:.1f} m³/min",
                figures={"stated": mine_total, "recomputed": total.value},
                rule="矿井总需风量 = Σ各地点需风量 × k",
                source=f"{R159}；{AQ1056}",
                ref=ref,
                evidence=[_calc_ev(total.method, total.substituted)],
            )
        )
    capacity = _stated(t.capacity)
    if capacity is not None and total.value > capacity:
        out.append(
            _finding(
                None,
                Severity.MAJOR,
                f"核算矿井总需风量 {total.value:.1f} m³/min 超过矿井通风能力 {capacity:.1f}",
                figures={"recomputed": total.value, "capacity": capacity},
                rule="严禁超通风能力生产",
                source="《煤矿安全规程》第160条",
                ref=t.capacity.ref if t.capacity else ref,
                category=Category.REGULATION,
            )
        )
    for c in total.coefficients:
        if c.origin == "given" and c.valid_range and not (c.valid_range[0] <= c.value <= c.valid_range[1]):
            out.append(
                _finding(
                    None,
                    Severity.MAJOR if c.value < c.valid_range[0] else Severity.MINOR,
                    f"矿井需风系数 {c.symbol} = {c.value} 超出范围 {c.valid_range[0]}–{c.valid_range[1]}",
                    figures={"stated": c.value},
                    rule="k_mine 取值范围",
                    source=c.source or AQ1056,
                    ref=t.k_mine.ref if t.k_mine else ref,
                )
            )
    return out


async def review_calc(
    plan: Plan, on_location: OnLocation | None = None
) -> tuple[list[Finding], list[LocationRecalc]]:
    """Run the calc-verifier on ``plan``: findings and each location's :class:`LocationRecalc`.

    ``on_location(name, tool, done)`` is awaited before and after each location's recomputation (for
    ``agent_executing`` / ``agent_tool_result`` events).
    """
    rows = {normalise_name(r.location): r for r in plan.allocation}
    findings: list[Finding] = []
    recalcs: list[LocationRecalc] = []
    required_by_loc: dict[str, float] = {}
    ordered = sorted(plan.locations, key=lambda loc: loc.kind == "standby_face")  # standby faces last
    for loc in ordered:
        tool = MAX_TOOL.get(loc.kind, "calc_other_by_wind_speed")
        if on_location:
            await on_location(loc.name, tool, False)
        key = normalise_name(loc.name)
        required = _stated(loc.stated_required)
        result: MaxResult | None = None
        note = ""
        try:
            result = recompute_location(loc, required_by_loc)
        except (Unrecomputable, CalcInputError) as exc:
            note = str(exc)
            findings.append(
                _finding(
                    loc.name,
                    Severity.INFO,
                    f"未能核算该地点需风量：{exc}",
                    figures={},
                    rule="逐地点核算需风量",
                    source=AQ1056,
                    ref=loc.ref,
                )
            )
        row = rows.get(key)
        findings += _method_checks(loc, result, required)
        findings += _maximum_checks(loc, result, required, row)
        findings += _coefficient_checks(loc, result)
        findings += _bound_checks(loc, result, row)
        findings += _allocation_checks(loc, row, result, required)
        governing = max(v for v in (required, result.value if result else None, 0.0) if v is not None)
        if governing > 0:
            required_by_loc[key] = governing
        recalcs.append(
            LocationRecalc(
                location=loc.name,
                kind=loc.kind,
                result=result,
                stated_required=required,
                allocated=_stated(row.allocated_q) if row else None,
                page=loc.ref.page if loc.ref else None,
                note=note,
            )
        )
        if on_location:
            await on_location(loc.name, tool, True)
    findings += _total_checks(plan, required_by_loc)
    return findings, recalcs
