"""The facts of an interpretation: a tunnel's or a device's latest data, each value against the limit of
its kind of place or device, the anomalies of the last 24 h, the data time and whether it is stale.

Deterministic: every figure is measured data or derived by a stated formula (Q = 60·v·S), every limit
comes from :class:`~vent_agent.kb.thresholds.ThresholdTable` of the configured edition (articles cited
as ``《煤矿安全规程》（2025版）第157条``) or from the device's own alarm limits.

Which limits apply:

- wind speed: 表6 (第157条) by the tunnel's ``roadway_class``;
- CH₄, CO₂, O₂, CO, temperature: the thresholds of the sensor's ``location_class`` (第156、158、192、
  193、194条; 2016版第172、655条);
- air volume of a tunnel (m³/min): 4 m³/min per person of ``max_workers`` and per kW of ``diesel_kw``
  (第159条); of a heading: its required air volume, the maximum of every method its data allows, and
  its consistency with the auxiliary fans' delivery (:mod:`vent_agent.interpret.heading`); of a return
  airway: its consistency with the main fans' air (:mod:`vent_agent.interpret.returns`);
- fans: the device's alarm limits (``Device.alarm_limits``) while it runs, and its running state
  (主要通风机 第177条, 局部通风机 第184条) unless it is the standby (``state == "备用"``).

The facts are a function of the data read (the target's record, latest readings and alarms, and the
readings of the anomaly window), the regulation edition's thresholds and the knowledge base, plus the
clock for the data-time fields. A :class:`FactsCache` keeps the last facts of each target with the exact
JSON of the data they were computed from: a click whose data reads the same (the same data time, the
same window) gets them again with its own data-time fields, instead of computing them again (a burst of
clicks on one tunnel computes once per data time).
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from typing import Any, Literal, TypeVar
from zoneinfo import ZoneInfo

from pydantic import BaseModel, Field

from vent_agent.interpret.air_volume import air_volume_assessment
from vent_agent.interpret.assess import (
    STATUS_RANK,
    Assessment,
    Rule,
    Status,
    alarm_limit_rule,
    assess,
    evaluate,
    reported_limit,
    threshold_rules,
)
from vent_agent.interpret.cite import kb_label
from vent_agent.interpret.device_notes import device_notes
from vent_agent.interpret.facts_cache import FactsCache, data_json
from vent_agent.interpret.heading import heading_air_volume
from vent_agent.interpret.returns import with_return_check
from vent_agent.kb.numerals import find_article_refs
from vent_agent.kb.search import KnowledgeBase, get_knowledge_base
from vent_agent.kb.thresholds import BreachOp, ThresholdTable
from vent_agent.network.device_effect import NetworkEffects
from vent_agent.settings import Settings
from vent_agent.upstream.base import VentilationSource
from vent_agent.upstream.episodes import find_episodes
from vent_agent.upstream.models import (
    DEVICE_TYPE_LABELS,
    QUANTITY_LABELS,
    QUANTITY_UNITS,
    TUNNEL_KIND_LABELS,
    AlarmRecord,
    Device,
    Reading,
    Tunnel,
)

ANOMALY_WINDOW = timedelta(hours=24)
_Cited = TypeVar("_Cited", Assessment, "Anomaly")
FAN_CLASSES = {"fan": "主要通风机", "aux_fan": "局部通风机"}
STANDBY = "备用"


class Anomaly(BaseModel):
    """A run of hourly readings out of the ok band in the last 24 h: ``start``..``end`` (last hour out),
    the worst value ``value`` at ``time``, its ``status`` and the governing ``limit``/``breach_op`` (for
    a warning: the limit anticipated, ``warn_at`` the warning value crossed), with ``article`` or the
    device-limit ``source``; ``ongoing`` when the latest reading is still out."""

    device_id: str
    device_name: str
    quantity: str
    label: str
    unit: str
    status: Status
    time: datetime
    value: float
    limit: float
    breach_op: BreachOp
    warn_at: float | None = None
    article: str | None = None
    source: str | None = None
    start: datetime
    end: datetime
    ongoing: bool


class Reference(BaseModel):
    """A provision relevant to the target: its article label, what it requires and an excerpt."""

    article: str
    requirement: str
    clause: str = ""


class InterpretationFacts(BaseModel):
    """Everything an interpretation may say, and nothing else.

    ``target`` tunnel/device with ``target_id``, ``name`` and ``kind_label`` (e.g. ``采区进风巷`` or
    ``主要通风机``); ``tunnel``/``device`` the records; ``data_time`` the oldest latest-reading time used
    (aware; shown in ``timezone``), ``age_minutes`` its age at ``now``, ``stale`` when older than
    ``stale_after_minutes`` (or when there is no data); ``edition`` and ``edition_label`` of the
    regulation; ``assessments``, ``anomalies`` (last 24 h, oldest first), ``references`` (provisions cited
    or relevant), ``alarms`` (the monitoring system's own alarm records of the last 24 h), ``notes``
    (section, rated point, standby state) and ``warnings`` (about the request, shown first).
    """

    target: Literal["tunnel", "device"]
    target_id: str
    name: str
    kind_label: str
    tunnel: Tunnel | None = None
    device: Device | None = None
    now: datetime
    timezone: str
    data_time: datetime | None
    age_minutes: float | None
    stale: bool
    stale_after_minutes: int
    monitored: bool = True
    """False for a device without a monitoring point (a door or regulator known only to the network):
    it has no data to be stale and no alarm records to lack, and is said to have no monitoring data."""
    edition: str
    edition_label: str
    assessments: list[Assessment] = Field(default_factory=list)
    anomalies: list[Anomaly] = Field(default_factory=list)
    references: list[Reference] = Field(default_factory=list)
    alarms: list[AlarmRecord] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    """What the reader must see first, beside the data (the click named a device type that is not the
    device's); added by the run for its request, never cached with the facts."""
    network: NetworkEffects | None = None
    """For a clicked fan, local fan, door or regulator: what stopping, opening or closing it would do
    to the air, from the network solve (:mod:`vent_agent.interpret.device_network`); never cached
    with the facts."""

    @property
    def status(self) -> Status:
        """The worst status among the assessments (``ok`` when there are none)."""
        return max((a.status for a in self.assessments), key=STATUS_RANK.__getitem__, default="ok")

    def articles(self) -> list[str]:
        """Every article label (with its 第N条) the facts carry (assessments, anomalies, references), in
        order; a source the knowledge base does not hold (no number, see :mod:`~vent_agent.interpret.cite`)
        is not an article one may cite."""
        labels = [a.article for a in self.assessments] + [a.article for a in self.anomalies]
        labels += [r.article for r in self.references]
        if self.network is not None:
            labels += [str(f["clause"]) for e in self.network.effects for f in e.findings]
        return list(dict.fromkeys(x for x in labels if x and find_article_refs(x)))


# -- rules per device ---------------------------------------------------------------------------------


def device_rules(device: Device, quantity: str, tunnel: Tunnel | None, table: ThresholdTable) -> list[Rule]:
    """The rules judging ``quantity`` of ``device``: see the module docstring."""
    if device.is_fan:
        rules = [
            alarm_limit_rule(lim, QUANTITY_LABELS.get(quantity, quantity))
            for lim in device.alarm_limits
            if lim.quantity == quantity
        ]
        if device.state != STANDBY:
            for t in table.lookup(quantity, FAN_CLASSES[device.device_type]):
                rules += threshold_rules(t)
        return rules
    if quantity == "wind_speed":
        if tunnel is None:
            return []
        return [r for t in table.wind_speed_limits(tunnel.roadway_class) if t for r in threshold_rules(t)]
    if not device.location_class:
        return []
    return [r for t in table.lookup(quantity, device.location_class) for r in threshold_rules(t)]


def _rated_basis(device: Device, quantity: str, value: float | None) -> str:
    rated = getattr(device.rated, quantity, None) if device.rated else None
    if rated is None or value is None or not rated:
        return ""
    unit = QUANTITY_UNITS.get(quantity, "")
    drive = device.rated
    of = ""
    if drive is not None and drive.motors and drive.voltage_kv:  # several motors: per motor, or in all
        each = f"{drive.motors} 台 × {drive.power / drive.motors:g} kW，{drive.voltage_kv:g} kV"
        of = {"motor_current": f"（每台电机，{each}）", "power": f"（{each}）"}.get(quantity, "")
    return f"额定 {rated:g} {unit}{of}，运行值为额定的 {100 * value / rated:.1f}%"


def _point(device: Device) -> str:
    """How a measuring point is shown: the device name, with its position for a sensor."""
    return f"{device.name}（{device.position}）" if device.position and not device.is_fan else device.name


def device_assessments(
    device: Device, reading: Reading | None, tunnel: Tunnel | None, table: ThresholdTable
) -> list[Assessment]:
    """Each value of the device's latest reading against its rules (a missing reading: “无数据”). A fan
    that is not running is shown by its running state only."""
    values = reading.values if reading else {}
    if device.is_fan:
        quantities = [q for q in values if device.judged(q, values)] or ["running"]
    else:
        quantities = [device.quantity] if device.quantity else []
    out: list[Assessment] = []
    for q in quantities:
        v = values.get(q)
        a = assess(
            q,
            QUANTITY_LABELS.get(q, q),
            v,
            QUANTITY_UNITS.get(q, ""),
            device_rules(device, q, tunnel, table),
            device_id=device.device_id,
            point=_point(device),
            basis=_rated_basis(device, q, v),
        )
        if q == "running" and v is not None:
            state = "运行" if v >= 1 else (STANDBY if device.state == STANDBY else "停止")
            limit_text = "应运行" if a.limit is not None else "—"
            a = a.model_copy(update={"value_text": state, "limit_text": limit_text})
        out.append(a)
    return out


def tunnel_kind_label(tunnel: Tunnel) -> str:
    """A tunnel's type in words: its 表6 class and its kind (``掘进中的煤巷（掘进工作面）``), the kind left
    out when the class already says it (``采煤工作面``)."""
    kind = TUNNEL_KIND_LABELS[tunnel.kind]
    return tunnel.roadway_class if kind in tunnel.roadway_class else f"{tunnel.roadway_class}（{kind}）"


# -- anomalies ----------------------------------------------------------------------------------------


def device_anomalies(
    device: Device, readings: list[Reading], tunnel: Tunnel | None, table: ThresholdTable, since: datetime
) -> list[Anomaly]:
    """Runs of readings after ``since`` whose status is not ok, per quantity of the device."""
    window = [r for r in readings if r.time > since]
    quantities = {q for r in window for q in r.values} if device.is_fan else {device.quantity or ""}
    out: list[Anomaly] = []
    for q in sorted(quantities):
        rules = device_rules(device, q, tunnel, table)
        if not rules:
            continue

        def rank(v: float, rules: list[Rule] = rules) -> tuple[int, float]:
            status, rule = evaluate(v, rules)
            return STATUS_RANK[status], rule.excess(v) if rule else 0.0

        def crossed(v: float, rules: list[Rule] = rules) -> bool:
            return STATUS_RANK[evaluate(v, rules)[0]] > 0

        times = [r.time for r in window]
        values = [r.values.get(q) if device.judged(q, r.values) else None for r in window]
        for ep in find_episodes(times, values, crossed, worse=rank):
            status, rule = evaluate(ep.peak, rules)
            assert rule is not None  # a run exists only where a rule holds
            shown = reported_limit(rule, rules)
            out.append(
                Anomaly(
                    device_id=device.device_id,
                    device_name=device.name,
                    quantity=q,
                    label=QUANTITY_LABELS.get(q, q),
                    unit=rule.unit,
                    status=status,
                    time=ep.peak_time,
                    value=ep.peak,
                    limit=shown.limit,
                    breach_op=shown.breach_op,
                    warn_at=rule.limit if status == "warning" else None,
                    article=rule.article,
                    source=rule.source,
                    start=ep.start,
                    end=ep.end,
                    ongoing=ep.ongoing,
                )
            )
    return sorted(out, key=lambda a: a.start)


# -- gathering ----------------------------------------------------------------------------------------


def _now(settings: Settings, now: datetime | None) -> datetime:
    tz = ZoneInfo(settings.timezone)
    if now is None:
        return datetime.now(tz)
    return now.replace(tzinfo=tz) if now.tzinfo is None else now.astimezone(tz)


def _kb_cited(items: list[_Cited], kb: KnowledgeBase) -> list[_Cited]:
    """``items`` with each ``article``/``source`` cited only as far as the knowledge base holds it."""
    return [
        x.model_copy(update={"article": kb_label(x.article, kb), "source": kb_label(x.source, kb)})
        for x in items
    ]


def _references(
    table: ThresholdTable, assessments: list[Assessment], classes: list[str], kb: KnowledgeBase
) -> list[Reference]:
    """The provisions behind the assessments' governing limits, then every threshold of ``classes``
    (e.g. the main fan's standby and reversal requirements), one entry per article (labelled as
    :func:`~vent_agent.interpret.cite.kb_label` says)."""
    keys = [a.threshold_key for a in assessments if a.threshold_key]
    keys += [t.key for cls in classes for t in table.for_class(cls)]
    by_article: dict[str, list[Reference]] = {}
    for key in dict.fromkeys(keys):
        t = table.get(key)
        label = kb_label(t.article_label(), kb) or t.article_label()
        by_article.setdefault(label, []).append(
            Reference(article=label, requirement=t.action, clause=t.clause)
        )
    return [_merge_references(refs) for refs in by_article.values()]


def _merge_references(refs: list[Reference]) -> Reference:
    """One reference per article: the distinct texts of its clauses in order, a text contained in
    another dropped (第177条's standby sentence inside its running-and-standby excerpt)."""
    texts = list(dict.fromkeys(r.clause or r.requirement for r in refs))
    kept = [t for t in texts if not any(t != o and t in o for o in texts)]
    return Reference(article=refs[0].article, requirement=refs[0].requirement, clause="".join(kept))


async def _recent(source: VentilationSource, devices: list[Device]) -> list[list[Reading]]:
    return list(
        await asyncio.gather(*(source.list_ventanaly_monitor_data_days(d.device_id, days=1) for d in devices))
    )


def no_data_timing(settings: Settings, now: datetime | None = None) -> dict[str, Any]:
    """The data-time fields of facts read from no monitoring data (stale, no data time)."""
    return _timing([], _now(settings, now), settings)


def _timing(latest: list[Reading], now: datetime, settings: Settings) -> dict[str, Any]:
    """The data-time fields of the facts: the oldest latest reading, its age and staleness."""
    data_time = min((r.time for r in latest), default=None)
    age = (now - data_time).total_seconds() / 60.0 if data_time else None
    return {
        "now": now,
        "timezone": settings.timezone,
        "data_time": data_time,
        "age_minutes": round(age, 1) if age is not None else None,
        "stale": age is None or age > settings.stale_data_minutes,
        "stale_after_minutes": settings.stale_data_minutes,
    }


async def gather_tunnel_facts(
    source: VentilationSource,
    tun_id: str,
    settings: Settings,
    now: datetime | None = None,
    *,
    table: ThresholdTable | None = None,
    kb: KnowledgeBase | None = None,
    cache: FactsCache | None = None,
    main_fans: list[dict[str, Any]] | None = None,
) -> InterpretationFacts:
    """The facts of tunnel ``tun_id``: each device's latest value against its limits, the tunnel's air
    volume, the anomalies of the 24 h before ``now`` (default: the wall clock in the mine time zone).
    With ``cache``, facts computed from the same data are taken from it (see :class:`FactsCache`);
    ``main_fans``: the main fans already read for a return's check (:func:`~vent_agent.interpret.returns.
    read_main_fans`), else read when the tunnel is a return airway.
    Raises :class:`~vent_agent.upstream.models.NotFoundError` for an unknown tunnel."""
    table = table or ThresholdTable.load(settings.regulation_edition)
    kb = kb or get_knowledge_base(settings.kb_dir, settings.regulation_edition)
    now = _now(settings, now)
    data = await source.query_tun_data_by_id(tun_id)
    histories = await _recent(source, data.devices)
    since = now - ANOMALY_WINDOW
    windows = [[r for r in h if r.time > since] for h in histories]
    timing = _timing(
        [data.latest[d.device_id] for d in data.devices if d.device_id in data.latest], now, settings
    )
    key, read = ("tunnel", tun_id), data_json(data, windows) if cache is not None else b""
    if cache is not None and (hit := cache.get(key, table, kb, read, timing)) is not None:
        return await with_return_check(
            source, hit, main_fans
        )  # the main fans' reading is not in the cache key
    tunnel = data.tunnel
    assessments: list[Assessment] = []
    for d in data.devices:
        assessments += device_assessments(d, data.latest.get(d.device_id), tunnel, table)
    wind = next((a.value for a in assessments if a.quantity == "wind_speed" and a.value is not None), None)
    if wind is not None and tunnel.kind == "heading":
        fans = [d for d in data.devices if d.device_type == "aux_fan"]
        assessments += heading_air_volume(tunnel, wind, fans, data.latest, table)
    elif wind is not None:
        assessments.append(air_volume_assessment(tunnel, wind, table))
    anomalies = [
        a
        for d, h in zip(data.devices, windows, strict=True)
        for a in device_anomalies(d, h, tunnel, table, since)
    ]
    notes = [f"断面 {tunnel.area:g} m²，长度 {tunnel.length:g} m"]
    if tunnel.description:
        notes.append(tunnel.description)
    facts = InterpretationFacts(
        target="tunnel",
        target_id=tunnel.tun_id,
        name=tunnel.name,
        kind_label=tunnel_kind_label(tunnel),
        tunnel=tunnel,
        **timing,
        edition=table.edition,
        edition_label=table.article_label(),
        assessments=_kb_cited(assessments, kb),
        anomalies=_kb_cited(sorted(anomalies, key=lambda a: a.start), kb),
        references=_references(table, assessments, [], kb),
        alarms=data.alarms,
        notes=notes,
    )
    if cache is not None:
        cache.put(key, table, kb, read, facts)
    return await with_return_check(source, facts, main_fans)


async def gather_device_facts(
    source: VentilationSource,
    device_id: str,
    settings: Settings,
    now: datetime | None = None,
    *,
    table: ThresholdTable | None = None,
    kb: KnowledgeBase | None = None,
    cache: FactsCache | None = None,
) -> InterpretationFacts:
    """The facts of device ``device_id``: a fan's operating values against its rated point and alarm
    limits (and its running state against 第177/184条), a sensor's value against the limit of its
    measuring point, the anomalies of the 24 h before ``now``. With ``cache``, facts computed from the
    same data are taken from it (see :class:`FactsCache`). Raises ``NotFoundError`` for an unknown
    device."""
    table = table or ThresholdTable.load(settings.regulation_edition)
    kb = kb or get_knowledge_base(settings.kb_dir, settings.regulation_edition)
    now = _now(settings, now)
    data = await source.query_device_data_by_id(device_id)
    device, tunnel = data.device, data.tunnel
    (history,) = await _recent(source, [device])
    since = now - ANOMALY_WINDOW
    window = [r for r in history if r.time > since]
    timing = _timing([data.latest] if data.latest else [], now, settings)
    key, read = ("device", device_id), data_json(data, [window]) if cache is not None else b""
    if cache is not None and (hit := cache.get(key, table, kb, read, timing)) is not None:
        return hit
    assessments = device_assessments(device, data.latest, tunnel, table)
    anomalies = device_anomalies(device, window, tunnel, table, since)
    notes = device_notes(device, tunnel, table)
    classes = [FAN_CLASSES[device.device_type]] if device.is_fan else []
    facts = InterpretationFacts(
        target="device",
        target_id=device.device_id,
        name=device.name,
        kind_label=DEVICE_TYPE_LABELS[device.device_type],
        tunnel=tunnel,
        device=device,
        **timing,
        edition=table.edition,
        edition_label=table.article_label(),
        assessments=_kb_cited(assessments, kb),
        anomalies=_kb_cited(anomalies, kb),
        references=_references(table, assessments, classes, kb),
        alarms=data.alarms,
        notes=notes,
    )
    if cache is not None:
        cache.put(key, table, kb, read, facts)
    return facts
