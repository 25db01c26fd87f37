"""The plan's own measured and planned figures against the regulation's limits (category
``regulation``, reviewer ``data-checker``), from the allocation table, with thresholds keyed by edition
from :mod:`vent_agent.kb.thresholds`:

- CH₄ reaching 1.0 % (达到 means ≥) or CO₂ 1.5 % in a face or heading return: **critical**, 第192条
  (2016 edition 第173条); at any other location, CH₄ 1.0 % at a work site (第193条) / CO₂ 1.5 % (第194条);
- planned and measured wind speeds inside the 表6 bounds of the location's class (第157条, **major**):
  coal face 0.25–4 m/s (综采/综放 up to 5 with dust suppression: **minor** between 4 and 5), coal and
  half-coal heading 0.25–4, rock heading 0.15–4 (a heading of unstated rock: the rock bounds, said so),
  other roadways by their class from the reference data, else 其他通风人行巷道 (≥ 0.15);
- face temperature above 26 °C (shorter shifts, **major**) or 30 °C (stop, **critical**), 机电硐室 above
  30 / 34 °C (第655条 of the 2016 edition).
"""

from __future__ import annotations

from vent_agent.documents.plan.model import AllocationRow, Figure, LocationPlan, Plan
from vent_agent.documents.plan.text_primitives import match_name
from vent_agent.kb.thresholds import Threshold, ThresholdTable, fmt_number
from vent_agent.review.findings import Finding, Severity
from vent_agent.review.rule_common import clause_evidence, finding, plan_location, threshold_source

REVIEWER = "data-checker"
FACE_KINDS = {"coal_face", "standby_face", "heading"}


def review_limits(
    plan: Plan, table: ThresholdTable, roadway_classes: dict[str, str] | None = None
) -> list[Finding]:
    """Regulation findings from the allocation table's figures. ``roadway_classes`` maps a roadway to
    its 表6 class (from the reference data) where known."""
    out = []
    classes = roadway_classes or {}
    for row in plan.allocation:
        loc = plan_location(plan, row.location)
        kind = loc.kind if loc else "unknown"
        out += _gas_limits(row, kind, table)
        out += _speed_limits(row, loc, kind, table, classes)
        out += _heat_limits(row, kind, table)
    return out


_VERB = {">=": "达到", ">": "超过", "<": "低于", "<=": "不高于"}


def _threshold_breach(
    rule_id: str,
    row: AllocationRow,
    fig: Figure,
    t: Threshold,
    what: str,
    note: str = "",
    severity: Severity | None = None,
) -> Finding:
    """A finding of ``rule_id``: ``row``'s figure ``fig`` (``what`` it is) breaks threshold ``t``; the
    message states the figure, the limit and the threshold's action, the source is the threshold's clause; the severity is the threshold's
    unless ``severity`` is given."""
    return finding(
        rule_id,
        row.location,
        f"{row.location}{what} {fmt_number(fig.value, t.unit)} {t.unit}，{_VERB[t.breach_op]}限值 {fmt_number(t.limit, t.unit)} {t.unit}"
        f"（应 {t.allowed_text()}）：{t.action}{note}",
        severity=severity or t.severity,
        source=threshold_source(t),
        ref=fig.ref,
        unit=t.unit,
        figures={"value": fig.value, "limit": t.limit, "op": t.breach_op},
        evidence=[clause_evidence(t)],
    )


def _gas_limits(row: AllocationRow, kind: str, table: ThresholdTable) -> list[Finding]:
    out = []
    face = kind in FACE_KINDS
    for fig, key_face, key_other, what in (
        (row.ch4, "ch4_return_stop", "ch4_work_site_power", "CH₄浓度"),
        (row.co2, "co2_return_stop", "co2_face_stop", "CO₂浓度"),
    ):
        if fig is None:
            continue
        t = table.get(key_face if face else key_other)
        if t.breached(fig.value):
            out.append(
                _threshold_breach(
                    "limit.gas_concentration", row, fig, t, what + ("（回风流）" if face else "")
                )
            )
    return out


def _speed_class(loc: LocationPlan | None, kind: str, classes: dict[str, str]) -> tuple[str, str]:
    """(表6 class, note on how it was chosen)."""
    if kind in ("coal_face", "standby_face"):
        return "采煤工作面", ""
    if kind == "heading":
        rock = loc.rock if loc else None
        if rock == "rock":
            return "掘进中的岩巷", ""
        if rock in ("coal", "half_coal"):
            return ("掘进中的煤巷" if rock == "coal" else "掘进中的半煤岩巷"), ""
        return "掘进中的岩巷", "（未注明岩性，按岩巷下限核对）"
    key = match_name(loc.name, list(classes)) if loc is not None else None
    cls = classes.get(key) if key else None
    return (cls, "") if cls else ("其他通风人行巷道", "（巷道类别未知，按其他通风人行巷道核对）")


def _speed_limits(
    row: AllocationRow,
    loc: LocationPlan | None,
    kind: str,
    table: ThresholdTable,
    classes: dict[str, str],
) -> list[Finding]:
    out = []
    cls, note = _speed_class(loc, kind, classes)
    try:
        lower, upper = table.wind_speed_limits(cls)
    except KeyError:
        lower, upper = table.wind_speed_limits("其他通风人行巷道")
        note = f"（表6无“{cls}”，按其他通风人行巷道核对）"
    fully_mech = kind == "coal_face" and loc is not None and any(w in loc.name for w in ("综采", "综放"))
    for fig, what in ((row.planned_speed, "计划风速"), (row.measured_speed, "实测风速")):
        if fig is None:
            continue
        for t in (lower, upper):
            if t is None or not t.breached(fig.value):
                continue
            if fully_mech and t.is_upper and fig.value <= 5.0:
                extra = "；综采工作面采取降尘措施后最高可至 5 m/s，请核实降尘措施"
                out.append(
                    _threshold_breach("limit.wind_speed", row, fig, t, what, note + extra, Severity.MINOR)
                )
            else:
                out.append(_threshold_breach("limit.wind_speed", row, fig, t, what, note))
    return out


def _heat_limits(row: AllocationRow, kind: str, table: ThresholdTable) -> list[Finding]:
    if row.temperature is None:
        return []
    if kind in FACE_KINDS:
        keys = ("face_heat_stop", "face_heat_shorten")
    elif kind == "chamber_heat":
        keys = ("chamber_heat_stop", "chamber_heat_shorten")
    else:
        return []
    for key in keys:
        t = table.get(key)
        if t.breached(row.temperature.value):
            return [_threshold_breach("limit.temperature", row, row.temperature, t, "温度")]
    return []
