"""A heading's (掘进工作面) measured air volume against its required air volume (docs/DOMAIN.md §2.2), and
the check that it is consistent with what its auxiliary fans deliver.

The requirement is the maximum of every method the data allows (``calc.maxima.calc_tunnel_air_volume_max``:
gas 100·q·k, explosives 25·A, auxiliary-fan intake Q_f·I + 60·v_min·S [R 第183条], people 4·N
[R 第159条], diesel vehicles 4 m³/min per kW), and the plan's stated required air volume when the data
carries one. Methods that could not be computed are named: the maximum is then a lower bound.

With running forcing fans the fan-intake method and the plan's required air volume (which plans compute
for the heading as a place, the fan-intake method included) are the air the intake must carry where the
fans stand, not the air inside the heading: they are stated, never compared with the heading's own flow
(which would ask it to exceed what its fans deliver). The heading's own flow is judged by the other methods.

A heading ventilated by forcing auxiliary fans receives its air through the fans' ducts: its air volume
cannot exceed what the running fans deliver. A measured heading flow above the fans' delivery (with a
measurement margin) is physically inconsistent: it is reported as data to check (sensor position,
cross-section, fan reading), not as a safety verdict.
"""

from __future__ import annotations

from calc.errors import CalcInputError
from calc.maxima import calc_tunnel_air_volume_max
from calc.result import MaxResult
from calc.tables import DEFAULT_TABLES
from vent_agent.interpret.assess import Assessment, Rule, assess
from vent_agent.kb.thresholds import ThresholdTable
from vent_agent.review.findings import Severity
from vent_agent.upstream.models import Device, Reading, Tunnel, reading_text

DATA_CHECK = "数据核查"
"""The ``source`` of a data-consistency check (not a regulation limit nor a device's alarm limit)."""
FLOW_MARGIN = 0.10
"""Allowed excess of the heading's measured flow over the fans' delivery before the two are called
inconsistent: the combined uncertainty of a point wind-speed reading times a nominal section and of the
fan's own flow reading *(practice)*."""

FAN_INTAKE = "calc_tunnel_by_fan_intake"
"""The calculator of the full-pressure air at the auxiliary fans' site, Q_f·I + 60·v_min·S [R 第183条]."""

_HEADING_TYPES = {"煤巷": "coal", "半煤岩巷": "half_coal", "岩巷": "rock"}
_REQUIRED_ACTION = "风量低于需风量：调整局部通风机及风筒（检查风筒漏风、破损），必要时停止作业并撤出人员"


def heading_type(tunnel: Tunnel) -> str | None:
    """``coal``/``half_coal``/``rock`` of a heading: its ``rock`` field, else read from its 表6 class
    (``掘进中的岩巷`` → rock); None when neither says."""
    if tunnel.rock:
        return tunnel.rock
    for word in sorted(_HEADING_TYPES, key=len, reverse=True):
        if word in tunnel.roadway_class:
            return _HEADING_TYPES[word]
    return None


def fan_delivery(fans: list[Device], latest: dict[str, Reading]) -> tuple[float | None, int, str]:
    """The air delivered by the running auxiliary fans of a heading: (total m³/min, number of fans,
    how it was obtained). A running fan's measured ``air_volume``, else its rated air volume; total
    None when a running fan has neither (or no fan runs)."""
    total, n, parts = 0.0, 0, []
    for fan in fans:
        values = latest[fan.device_id].values if fan.device_id in latest else {}
        if values.get("running", 1) < 1:
            continue
        q = values.get("air_volume")
        how = "实测"
        if q is None and fan.rated is not None:
            q, how = fan.rated.air_volume, "额定"
        if q is None:
            return None, 0, ""
        total, n = total + q, n + 1
        parts.append(f"{fan.name} {how} {q:g} m³/min")
    return (total, n, "、".join(parts)) if n else (None, 0, "")


def heading_requirement(
    tunnel: Tunnel, fan_q: float | None, fan_count: int, table: ThresholdTable
) -> MaxResult | None:
    """The heading's required air volume from the methods its data allows (see the module doc);
    None when no method can be computed. The calculators cite the articles of ``table``'s edition."""
    tables = DEFAULT_TABLES.override({"regulation_edition": table.edition})
    kind = heading_type(tunnel)
    try:
        return calc_tunnel_air_volume_max(
            gas_emission=tunnel.gas_emission,
            k_gas=tunnel.k_gas,
            explosive_kg=tunnel.explosive_kg,
            fan_intake_q=fan_q / fan_count if fan_q and fan_count else None,
            fan_count=fan_count or None,
            area=tunnel.area,
            heading_type=kind,
            workers=tunnel.max_workers,
            vehicle_kw=tunnel.diesel_kw,
            tables=tables,
        )
    except CalcInputError:
        return None


def heading_air_volume(
    tunnel: Tunnel, wind_speed: float, fans: list[Device], latest: dict[str, Reading], table: ThresholdTable
) -> list[Assessment]:
    """The air volume q = 60·v·S (m³/min) of heading ``tunnel`` from its measured ``wind_speed`` (m/s)
    against its governing
    requirement (the larger of the computed maximum and the plan's ``required_q``), and, when a running
    auxiliary fan's delivery is known, the consistency of ``q`` with it (a ``warning`` to check the
    data when q exceeds the delivery by more than :data:`FLOW_MARGIN`)."""
    fan_q, fan_count, fan_how = fan_delivery(fans, latest)
    result = heading_requirement(tunnel, fan_q, fan_count, table)
    q = 60.0 * wind_speed * tunnel.area
    basis = [f"Q = 60 × v × S = 60 × {wind_speed:g} × {tunnel.area:g} = {q:.1f} m³/min"]
    candidates: list[tuple[float, str]] = []
    methods = result.methods if result is not None else []
    # the fan-intake method (Q_f·I + 60·v·S) is the full-pressure air the intake must carry where the fans
    # stand: the heading itself receives what the fans deliver, so it is not the heading's own requirement
    site = next((m for m in methods if m.method == FAN_INTAKE), None) if fan_q is not None else None
    own = [m for m in methods if m is not site]
    basis += [f"{m.method_cn}：{m.substituted}" for m in own]
    if own:
        governing = max(own, key=lambda m: m.value)
        candidates.append((governing.value, governing.method_cn))
    missing = [n.split("（", 1)[1].split("）", 1)[0] for n in (result.not_computed if result else [])]
    if result is None:
        missing.append("各计算方法（数据不足）")
    if missing:
        basis.append("未能计算：" + "、".join(missing) + "；需风量为已算方法的最大值（下限）")
    if tunnel.required_q and fan_q is None:
        candidates.append((tunnel.required_q, "配风计划需风量"))
        basis.append(f"配风计划需风量 {tunnel.required_q:g} m³/min")
    elif tunnel.required_q:
        basis.append(
            f"配风计划需风量 {tunnel.required_q:g} m³/min 按用风地点计（含局部通风机安装处的全风压风量），"
            "不与工作面内由局部通风机供给的风量直接比较"
        )
    else:
        basis.append("数据未提供配风计划需风量")
    if site is not None:
        basis.append(
            f"局部通风机安装处的全风压风量应不小于 {site.value:.1f} m³/min（{site.method_cn}：{site.substituted}），"
            "为安装处进风巷的要求，不与工作面内风量比较；数据未提供安装处全风压风量，未核验"
        )
    if tunnel.allocated_q:
        basis.append(f"配风计划 {tunnel.allocated_q:g} m³/min")
    rules: list[Rule] = []
    if candidates:
        required, how = max(candidates)
        basis.append(f"需风量取最大值 {required:.1f} m³/min（{how}）")
        rules.append(
            Rule(
                None,
                required,
                "<",
                "m³/min",
                "breach",
                Severity.MAJOR,
                _REQUIRED_ACTION,
                None,
                f"需风量（{how}）",
            )
        )
    out = [assess("measured_q", "风量", round(q, 1), "m³/min", rules, basis="；".join(basis))]
    if fan_q is not None:
        out.append(_consistency(q, fan_q, fan_how))
    return out


def _consistency(q: float, fan_q: float, fan_how: str) -> Assessment:
    """The heading flow against the forcing fans' delivery (see the module doc)."""
    return flow_within_supply(
        q,
        fan_q,
        quantity="flow_consistency",
        label="风量与局部通风机供风一致性",
        supply=f"局部通风机供风：{fan_how}",
        subject="工作面风量",
        why="压入式通风时工作面风量不超过风机供风量",
        action="数据不一致（非安全判定）：压入式供风的掘进工作面风量不应超过局部通风机供风量，"
        "请核查风速传感器位置与读数、巷道断面及局部通风机风量数据",
    )


def flow_within_supply(
    q: float,
    supply_q: float,
    *,
    quantity: str,
    label: str,
    supply: str,
    subject: str,
    why: str,
    action: str,
    point: str | None = None,
) -> Assessment:
    """A data-consistency check (数据核查, not a safety judgement): the measured air volume ``q`` (m³/min)
    of an airway against ``supply_q`` (m³/min), the fans' air that it cannot exceed; ``ok`` up to
    :data:`FLOW_MARGIN` above it, else a ``warning`` with ``action`` (what to check). ``supply``: the
    fans' figure in words; ``subject``: what ``q`` is (工作面风量, 总回风巷风量); ``why``: the physical
    reason; ``point``: where ``q`` was measured."""
    limit = round(supply_q * (1 + FLOW_MARGIN), 1)
    ok = round(q, 1) <= limit  # to 0.1 m³/min
    ratio = q / supply_q if supply_q else float("inf")
    return Assessment(
        quantity=quantity,
        label=label,
        point=point,
        value=round(q, 1),
        value_text=reading_text(q, "measured_q"),
        unit="m³/min",
        limit=limit,
        breach_op=">",
        limit_text=f"≤ {supply_q:g} m³/min +{FLOW_MARGIN:.0%}",
        status="ok" if ok else "warning",
        source=DATA_CHECK,
        action="" if ok else action,
        basis=f"{supply}；{subject}为其 {ratio:.2f} 倍；{why}（容差 {FLOW_MARGIN:.0%}，即 ≤ {limit:g} m³/min）",
    )
