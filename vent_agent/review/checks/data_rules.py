"""Data-consistency review (数据一致性审查): the plan against the mine's reference data, and the plan's
own measured figures against the regulation's limits.

``review_data(plan, reference)`` (reviewer ``data-checker``):

- with reference data for the plan's mine and month (category ``data``):
  every working face/heading of the monthly mining plan is in the plan (**major** when missing), none
  the mining plan says has finished (**major**); gas emission within ±10 % of the gas-grade report
  (**major** beyond); face parameters equal to the operating procedure (**major** when the plan's value
  is lower, which lowers the requirement; **minor** otherwise); the allocation table's measured speed,
  section and CH₄ as in the air survey (**minor**); the intake temperature and the climate method's
  speed consistent with the survey temperature (AQ 1056); the emission back-calculated from the survey,
  q = 60·v·S·(C_return − C_intake)/100 m³/min, within ±15 % of the report (**major** when the survey
  shows more gas than the report, **minor** when less);
- without it (no source, unknown mine, month not available, the source answers for another mine, or
  the source is unreachable, timed out or broken — an :class:`UnavailableReference` with its reason):
  exactly one **info** finding saying so, and no data findings — never another mine's data. An
  unreachable source is *info*, not major: severities grade the plan (docs/DOMAIN.md §5), and a server
  being down says nothing about the plan; the finding says plainly that the data check was not done;
- with the month but some parts missing (``MonthlyReference.gaps``: the source had no gas report, say):
  one **info** finding per missing part, and the checks of that part are skipped;
- always, whether or not reference data is available: the allocation table's own CH₄/CO₂,
  wind speeds and temperatures against the regulation's limits (category ``regulation``; see
  :mod:`vent_agent.review.checks.limit_rules`; CH₄ reaching 1.0 % in a face or heading return is **critical**).
"""

from __future__ import annotations

from calc.tables import DEFAULT_TABLES
from vent_agent.documents.plan.model import LocationPlan, Plan
from vent_agent.documents.plan.text_primitives import match_name
from vent_agent.kb.thresholds import ThresholdTable
from vent_agent.review.checks.limit_rules import review_limits
from vent_agent.review.findings import Evidence, Finding, Severity
from vent_agent.review.reference import MonthlyReference, ReferenceData, UnavailableReference, same_mine
from vent_agent.review.rule_common import (
    finding,
    fmt,
    plan_edition,
    plan_location,
    plan_names,
    reference_evidence,
)
from vent_agent.review.rules import (
    BACKCALC_TOLERANCE,
    FIGURE_TOLERANCE,
    GAS_TOLERANCE,
    INTAKE_TEMPERATURE_TOLERANCE,
    SURVEY_CH4_POINTS,
    SURVEY_TOLERANCE,
)

REVIEWER = "data-checker"
AQ1056 = "AQ 1056-2008"
TOOLS = {
    "mining_plan": "query_monthly_mining_plan",
    "gas": "query_gas_identification_report",
    "procedure": "query_working_face_procedure",
    "survey": "query_ventilation_report",
}
PROCEDURE_FIELDS = [  # (plan input, FaceProcedure attribute, label, unit)
    ("face_length", "face_length_m", "工作面长度", "m"),
    ("mining_height", "mining_height_m", "采高", "m"),
    ("roof_control_max", "roof_control_max_m", "最大控顶距", "m"),
    ("roof_control_min", "roof_control_min_m", "最小控顶距", "m"),
    ("workers", "max_workers", "最多作业人数", "人"),
]


def climate_min_v(temp: float) -> float:
    """AQ 1056-2008: the least wind speed of the climate method at an intake temperature (°C → m/s),
    from the calculators' table and its band-edge rule (< 20 → 1.0; 20–23 → 1.0–1.5; 23–26 → 1.5–1.8);
    above the table, 1.8 (the top of the last band)."""
    band = DEFAULT_TABLES.v_climate.lookup(temp)
    return band.coef.low if band is not None else DEFAULT_TABLES.v_climate.bands[-1].coef.high


def review_data(plan: Plan, reference: ReferenceData | None, *, edition: str | None = None) -> list[Finding]:
    """Data findings of ``plan`` (see the module docstring). ``edition`` of the 规程 to cite (default:
    the one the plan cites, else 2025)."""
    table = ThresholdTable.load(edition or plan_edition(plan))
    ref, why = reference_for(plan, reference)
    if ref is None:
        out = [
            finding(
                "data.reference_unavailable",
                None,
                f"参考数据不可用：{why}，未进行数据一致性核对",
                figures={"mine": plan.mine, "month": plan.month},
            )
        ]
    else:
        out = [
            *_gaps(ref),
            *_mining_plan(plan, ref),
            *_gas(plan, ref),
            *_procedures(plan, ref),
            *_survey(plan, ref),
            *_backcalc(plan, ref),
        ]
    return out + review_limits(plan, table, ref.roadway_classes if ref else {})


def reference_for(plan: Plan, reference: ReferenceData | None) -> tuple[MonthlyReference | None, str]:
    """The month of reference data that belongs to ``plan`` (its mine and month), or None and the
    reason in Chinese (no source, source unavailable, mine or month not stated or not held)."""
    if reference is None:
        return None, "未配置参考数据源"
    if isinstance(reference, UnavailableReference):
        return None, reference.reason
    if not plan.mine or not plan.month:
        return None, "计划未写明矿井名称或月份"
    ref = reference.monthly(plan.mine, plan.month)
    if ref is None:
        return None, f"参考数据中没有{plan.mine} {plan.month} 的数据"
    if not same_mine(ref.mine, plan.mine):
        return None, f"参考数据属于{ref.mine}，与计划的{plan.mine}不符"
    return ref, ""


_GAP_LABELS = {
    TOOLS["mining_plan"]: "月度采掘计划",
    TOOLS["gas"]: "瓦斯等级鉴定报告",
    TOOLS["procedure"]: "工作面作业规程",
    TOOLS["survey"]: "测风报表",
}


def _gaps(ref: MonthlyReference) -> list[Finding]:
    """One info finding per part of the month the source had no data for."""
    return [
        finding(
            "data.reference_gap",
            None,
            f"参考数据缺少{_GAP_LABELS.get(tool, tool)}（{reason}），相关数据一致性核对未进行",
            figures={"mine": ref.mine, "month": ref.month, "tool": tool},
            evidence=[reference_evidence(tool, ref.mine, ref.month, None, reason)],
        )
        for tool, reason in ref.gaps.items()
    ]


def _ev(ref: MonthlyReference, kind: str, key: str | None, text: str) -> Evidence:
    return reference_evidence(TOOLS[kind], ref.mine, ref.month, key, text)


def _mining_plan(plan: Plan, ref: MonthlyReference) -> list[Finding]:
    if TOOLS["mining_plan"] in ref.gaps:
        return []
    out = []
    names = plan_names(plan)
    page = plan.section_pages.get("locations") or plan.section_pages.get("allocation")
    for e in ref.mining_plan:
        hit = match_name(e.location, names)
        if not e.finished and hit is None:
            out.append(
                finding(
                    "data.location_missing",
                    e.location,
                    f"月度采掘计划中的{e.location}（{e.state}）未列入配风计划，没有需风量计算和配风",
                    page=page,
                    figures={"mining_plan_state": e.state, "in_plan": "否"},
                    evidence=[_ev(ref, "mining_plan", e.location, f"{e.location}：{e.state}")],
                )
            )
    for e in [*ref.completed, *(x for x in ref.mining_plan if x.finished)]:
        hit = match_name(e.location, names)
        if hit is not None:
            loc = plan_location(plan, hit)
            out.append(
                finding(
                    "data.location_stale",
                    hit,
                    f"{hit}在月度采掘计划中已{e.state}，配风计划仍按作业地点配风",
                    ref=loc.ref if loc else None,
                    page=None if loc else page,
                    figures={"mining_plan_state": e.state},
                    evidence=[_ev(ref, "mining_plan", e.location, f"{e.location}：{e.state}")],
                )
            )
    listed = [e.location for e in ref.mining_plan]
    for loc in plan.locations:
        if (
            loc.kind in ("coal_face", "heading")
            and match_name(loc.name, listed) is None
            and not any(match_name(loc.name, [c.location]) for c in ref.completed)
        ):
            out.append(
                finding(
                    "data.location_unplanned",
                    loc.name,
                    f"{loc.name}不在 {ref.month} 月度采掘计划中，请核实是否仍在作业",
                    ref=loc.ref,
                    evidence=[_ev(ref, "mining_plan", None, "月度采掘计划未列该地点")],
                )
            )
    return out


def _gas(plan: Plan, ref: MonthlyReference) -> list[Finding]:
    out = []
    for loc in plan.locations:
        fig = loc.inputs.get("gas_emission")
        key = match_name(loc.name, list(ref.gas_report))
        if fig is None or key is None:
            continue
        report = ref.gas_report[key]
        if within(fig.value, report, GAS_TOLERANCE):
            continue
        dev = (fig.value - report) / report * 100 if report else float("inf")
        lower = "低于" if fig.value < report else "高于"
        out.append(
            finding(
                "data.gas_emission",
                loc.name,
                f"{loc.name}计划采用瓦斯绝对涌出量 {fmt(fig.value)} m³/min，瓦斯等级鉴定报告为 {fmt(report)} m³/min，"
                f"{lower}报告 {abs(dev):.1f}%，超出 ±10% 容差",
                ref=fig.ref,
                unit="m³/min",
                figures={"plan": fig.value, "report": report, "deviation_pct": round(dev, 1)},
                evidence=[_ev(ref, "gas", key, f"{key} 绝对瓦斯涌出量 {fmt(report)} m³/min")],
            )
        )
    return out


def within(value: float, reference: float, tol: float) -> bool:
    """True when ``value`` is within the relative tolerance ``tol`` of ``reference`` (exact at 0)."""
    if reference == 0:
        return abs(value) < 1e-9
    return abs(value - reference) <= tol * abs(reference) + 1e-9


def _procedures(plan: Plan, ref: MonthlyReference) -> list[Finding]:
    out = []
    for loc in plan.locations:
        key = match_name(loc.name, list(ref.face_procedures))
        if key is None:
            continue
        proc = ref.face_procedures[key]
        for inp, attr, label, unit in PROCEDURE_FIELDS:
            fig, want = loc.inputs.get(inp), getattr(proc, attr)
            if fig is None or want is None or within(fig.value, want, FIGURE_TOLERANCE):
                continue
            lowers = fig.value < want
            effect = "取值偏小，使需风量计算偏低" if lowers else "与作业规程不符"
            out.append(
                finding(
                    "data.procedure_parameter",
                    loc.name,
                    f"{loc.name}{label}计划取 {fmt(fig.value)} {unit}，作业规程为 {fmt(want)} {unit}，{effect}",
                    severity=Severity.MAJOR if lowers else Severity.MINOR,
                    ref=fig.ref,
                    unit=unit,
                    figures={"plan": fig.value, "procedure": want},
                    evidence=[_ev(ref, "procedure", key, f"{key} {label} {fmt(want)} {unit}")],
                )
            )
    return out


def _survey(plan: Plan, ref: MonthlyReference) -> list[Finding]:
    out = []
    for row in plan.allocation:
        key = match_name(row.location, list(ref.air_survey))
        if key is None:
            continue
        s = ref.air_survey[key]
        checks = [
            ("实测风速", row.measured_speed, s.wind_speed, "m/s", SURVEY_TOLERANCE, True),
            ("断面", row.area, s.area, "m²", SURVEY_TOLERANCE, True),
            ("CH₄浓度", row.ch4, s.ch4_return, "%", SURVEY_CH4_POINTS, False),
        ]
        for label, fig, want, unit, tol, relative in checks:
            if fig is None or want is None:
                continue
            ok = within(fig.value, want, tol) if relative else abs(fig.value - want) <= tol + 1e-9
            if not ok:
                out.append(
                    finding(
                        "data.survey_mismatch",
                        row.location,
                        f"{row.location}风量分配表{label} {fmt(fig.value)} {unit}，测风报表为 {fmt(want)} {unit}，两者不符",
                        ref=fig.ref,
                        unit=unit,
                        figures={"plan": fig.value, "survey": want},
                        evidence=[_ev(ref, "survey", key, f"{key} {label} {fmt(want)} {unit}")],
                    )
                )
        loc = plan_location(plan, row.location)
        if loc is not None and s.temp is not None:
            out += _climate(loc, s.temp, ref, key)
    return out


def _climate(loc: LocationPlan, temp: float, ref: MonthlyReference, key: str) -> list[Finding]:
    """Intake temperature stated vs surveyed, and the climate method's v vs the AQ 1056 band."""
    out = []
    stated = loc.inputs.get("intake_temp")
    ev = [_ev(ref, "survey", key, f"{key} 温度 {fmt(temp)} ℃")]
    if stated is not None and abs(stated.value - temp) > INTAKE_TEMPERATURE_TOLERANCE:
        out.append(
            finding(
                "data.intake_temperature",
                loc.name,
                f"{loc.name}进风流温度取 {fmt(stated.value)} ℃，测风报表为 {fmt(temp)} ℃",
                ref=stated.ref,
                unit="℃",
                figures={"plan": stated.value, "survey": temp},
                evidence=ev,
            )
        )
    v = loc.inputs.get("v_climate")
    if v is None or not any(m.method == "climate" for m in loc.methods):
        return out
    need = climate_min_v(temp)
    if v.value + 1e-9 < need:
        out.append(
            finding(
                "data.climate_speed",
                loc.name,
                f"{loc.name}测风温度 {fmt(temp)} ℃ 时按气象条件计算的风速应不小于 {fmt(need)} m/s，计划取 {fmt(v.value)} m/s",
                ref=v.ref,
                unit="m/s",
                figures={"plan_v": v.value, "required_v": need, "temperature": temp},
                evidence=ev,
            )
        )
    return out


def _backcalc(plan: Plan, ref: MonthlyReference) -> list[Finding]:
    out = []
    for key, s in ref.air_survey.items():
        if s.wind_speed is None or s.area is None or s.ch4_return is None or s.ch4_intake is None:
            continue
        name = match_name(key, plan_names(plan))
        if name is None:
            continue
        q = 60.0 * s.wind_speed * s.area * (s.ch4_return - s.ch4_intake) / 100.0
        rkey = match_name(key, list(ref.gas_report))
        loc = plan_location(plan, name)
        fig = loc.inputs.get("gas_emission") if loc else None
        if rkey is not None:
            report, against = ref.gas_report[rkey], "瓦斯等级鉴定报告"
        elif fig is not None:
            report, against = fig.value, "计划采用值"
        else:
            continue
        if within(q, report, BACKCALC_TOLERANCE):
            continue
        more = q > report
        out.append(
            finding(
                "data.backcalc_emission",
                name,
                f"{name}按测风报表反算瓦斯绝对涌出量 q = 60×{fmt(s.wind_speed)}×{fmt(s.area)}×({fmt(s.ch4_return)}−"
                f"{fmt(s.ch4_intake)})/100 = {q:.2f} m³/min，{against}为 {fmt(report)} m³/min，"
                f"{'高于' if more else '低于'}超过 ±15%",
                severity=Severity.MAJOR if more else Severity.MINOR,
                ref=fig.ref if fig else None,
                unit="m³/min",
                figures={
                    "back_calculated": round(q, 3),
                    "reference": report,
                    "deviation_pct": round((q - report) / report * 100, 1) if report else None,
                },
                evidence=[
                    _ev(
                        ref,
                        "survey",
                        key,
                        f"{key} v={fmt(s.wind_speed)} m/s S={fmt(s.area)} m² "
                        f"CH₄ 回风 {fmt(s.ch4_return)}% 进风 {fmt(s.ch4_intake)}%",
                    )
                ],
            )
        )
    return out
