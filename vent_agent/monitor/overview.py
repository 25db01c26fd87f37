"""The operator's overview of the mine, from the monitoring data against the thresholds: the status strip
(main fans and their duty point, total intake and return air through the shafts, the worst CH₄ and CO now), the alarm list,
each tunnel's current values with their status and 24-hour sparklines, and the data's age.

Every status comes from the interpretation's facts (:func:`~vent_agent.interpret.facts.gather_tunnel_facts`:
each reading against 《煤矿安全规程》 thresholds — 第157条 wind speed (表6), 第192/193条 CH₄, 第156条 CO
(表5) — and the devices' own alarm limits), so the map, the alarm list and a click's interpretation agree.
Units: air volume m³/min, wind speed m/s, CH₄ %, CO ppm, pressure Pa.
"""

from __future__ import annotations

import asyncio
import hashlib
from datetime import datetime
from typing import Any, Literal

from vent_agent.interpret.assess import DEVICE_LIMIT_SOURCE, Assessment, allowed_bounds
from vent_agent.interpret.cite import kb_label
from vent_agent.interpret.facts import InterpretationFacts, device_rules, gather_tunnel_facts
from vent_agent.interpret.facts_cache import FactsCache
from vent_agent.interpret.network import wind_speed_of
from vent_agent.interpret.returns import CHECK_SOURCE, read_main_fans
from vent_agent.kb.search import KnowledgeBase, get_knowledge_base
from vent_agent.kb.thresholds import ThresholdTable, allowed_text, is_upper_limit
from vent_agent.monitor.air_totals import roadway_totals, shaft_totals
from vent_agent.settings import Settings
from vent_agent.upstream.base import VentilationSource
from vent_agent.upstream.models import Device, TunnelData
from ventnet import Network, Solution

StatusWord = Literal["正常", "偏低", "预警", "超限", "无数据"]
INTAKE_CLASS = "总进风巷"
RETURN_CLASS = "总回风巷"
"""表6 classes (第157条) whose air volume stands for the mine's total intake / return air when the service
holds no network of the mine (:func:`~vent_agent.monitor.air_totals.roadway_totals`)."""
SPARK_QUANTITIES = ("wind_speed", "ch4", "co")
"""The quantities drawn as 24-hour sparklines of a tunnel (:func:`_spark_sensor`)."""
SPARK_SENSORS = {"wind_speed": "wind_sensor", "ch4": "ch4_sensor", "co": "co_sensor"}
AIR_FORMULA = "60 × 风速 × 断面"
"""Where a tunnel row's air volume comes from when it has a wind speed (m³/min = 60 · m/s · m²)."""
ROW_QUANTITIES = ("wind_speed", "ch4", "co")
"""The quantities a tunnel's row of the overview shows (its worst reading of each)."""
WORST_QUANTITIES = ("ch4", "co")
"""The gases of the status strip: the highest reading of each, mine-wide."""
ALARM_ORDER: tuple[StatusWord, ...] = ("超限", "偏低", "预警")
"""Alarm statuses, worst first."""
Rulebook = tuple[ThresholdTable, KnowledgeBase]
"""The regulation edition's thresholds and the knowledge base its clauses are cited from."""


def status_word(a: Assessment | None) -> StatusWord:
    """An assessment's status in the operator's words: 正常, 预警, 超限 (an upper limit crossed), 偏低
    (a lower limit crossed, e.g. wind speed below 表6's minimum), 无数据 (no assessment or value)."""
    if a is None or a.value is None:
        return "无数据"
    if a.status == "ok":
        return "正常"
    if a.status == "warning":
        return "预警"
    return "偏低" if a.breach_op is not None and not is_upper_limit(a.breach_op) else "超限"


def alarm_key(tun_id: str, a: Assessment) -> str:
    """A stable id of an alarm (16 hex digits): the tunnel, the measuring point, the quantity and the
    status, so an acknowledgement holds while the same condition lasts."""
    raw = "|".join((tun_id, a.device_id or a.point or "", a.quantity, a.status))
    return hashlib.sha256(raw.encode()).hexdigest()[:16]


def is_alarm(a: Assessment) -> bool:
    """True for a reading beyond a regulation threshold or a device's alarm limit (not a data-consistency
    note: those are for the interpretation, not the alarm list)."""
    return a.status != "ok" and (a.threshold_key is not None or a.source == DEVICE_LIMIT_SOURCE)


def _air_volume(data: TunnelData) -> float | None:
    """A tunnel's air volume Q = 60 · v · S (m³/min) from its wind speed (m/s) and area (m²)."""
    wind = wind_speed_of(data)
    return None if wind is None else round(60 * wind * data.tunnel.area, 1)


def _first(devices: list[Device], device_type: str) -> Device | None:
    return next((d for d in devices if d.device_type == device_type), None)


def _worst_reading(facts: InterpretationFacts, quantity: str) -> Assessment | None:
    """The worst assessment of ``quantity`` in a tunnel (breach, then warning, then the highest value)."""
    rank = {"breach": 2, "warning": 1, "ok": 0}
    found = [a for a in facts.assessments if a.quantity == quantity and a.value is not None]
    return max(found, key=lambda a: (rank[a.status], a.value or 0.0), default=None)


def _spark_sensor(facts: InterpretationFacts, devices: list[Device], quantity: str) -> Device | None:
    """The sensor a tunnel's sparkline of ``quantity`` follows: the one whose reading its row shows
    (:func:`_worst_reading`), else its first sensor of the quantity."""
    worst = _worst_reading(facts, quantity)
    shown = next((d for d in devices if worst is not None and d.device_id == worst.device_id), None)
    return shown or _first(devices, SPARK_SENSORS[quantity])


def _spark_limits(
    sensor: Device, data: TunnelData, quantity: str, rulebook: Rulebook
) -> list[dict[str, Any]]:
    """The limits bounding the allowed range of a sparkline's sensor (the rules its reading is judged
    by, :func:`~vent_agent.interpret.facts.device_rules`; the row's ``limit_text``): each ``{"value",
    "op", "text", "source"}``, the value in the quantity's unit, ``op`` the breach comparison, ``text``
    the allowed side (``< 1.0 %``), ``source`` the clause as the interpretation cites it (e.g. 第157条
    for 表6's wind speeds; :func:`~vent_agent.interpret.cite.kb_label`)."""
    table, kb = rulebook
    rules = device_rules(sensor, quantity, data.tunnel, table)
    return [
        {
            "value": r.limit,
            "op": r.breach_op,
            "text": allowed_text(r.breach_op, r.limit, r.unit),
            "source": kb_label(r.source, kb),
        }
        for r in allowed_bounds(rules)
        if r is not None
    ]


async def _sparks(
    source: VentilationSource, facts: InterpretationFacts, data: TunnelData, rulebook: Rulebook
) -> tuple[dict[str, list[float | None]], dict[str, list[dict[str, Any]]]]:
    """The last 24 hourly values of each :data:`SPARK_QUANTITIES` of a tunnel (:func:`_spark_sensor`),
    and the limits of each (:func:`_spark_limits`)."""
    values: dict[str, list[float | None]] = {}
    limits: dict[str, list[dict[str, Any]]] = {}
    for quantity in SPARK_QUANTITIES:
        sensor = _spark_sensor(facts, data.devices, quantity)
        if sensor is not None:
            history = await source.list_ventanaly_monitor_data_days(sensor.device_id, days=1)
            values[quantity] = [r.value(quantity) for r in history[-24:]]
            limits[quantity] = _spark_limits(sensor, data, quantity, rulebook)
    return values, limits


def _value(facts: InterpretationFacts, quantity: str) -> dict[str, Any] | None:
    """A row's value of ``quantity``: its worst reading (:func:`_worst_reading`) with its status word."""
    worst = _worst_reading(facts, quantity)
    if worst is None:
        return None
    return {
        "value": worst.value,
        "unit": worst.unit,
        "status": status_word(worst),
        "point": worst.point,
        "limit_text": worst.limit_text,
    }


def _tunnel_row(
    facts: InterpretationFacts,
    data: TunnelData,
    sparks: tuple[dict[str, Any], dict[str, Any]],
    fans: list[dict[str, Any]],
) -> dict[str, Any]:
    """A tunnel's row: its :data:`ROW_QUANTITIES` values, its air volume ``q`` (m³/min) with where it
    comes from (``q_source``), its worst status, sparklines and their limits (:func:`_sparks`).

    ``q`` is Q = 60·v·S from the tunnel's wind speed; a tunnel without one that carries running main
    fans (their drift) has their measured air volume (the strip's figure, :func:`~vent_agent.interpret.returns.read_main_fans`). The status is an
    alarm's when one stands (a device limit included, the fans' too), else 正常 when the row shows a value
    or the fans' figure, and 无数据 when it shows none."""
    alarms = [a for a in facts.assessments if is_alarm(a)]
    words = {status_word(a) for a in alarms}
    values = {q: v for q in ROW_QUANTITIES if (v := _value(facts, q)) is not None}
    q, q_source = _air_volume(data), AIR_FORMULA
    carried = [f for f in fans if f["tun_id"] == data.tunnel.tun_id and f["running"]]
    if q is None and carried and all(f["air_volume"] is not None for f in carried):
        q = round(sum(f["air_volume"] for f in carried), 1)
        q_source = "、".join(f["name"] for f in carried) + "（主要通风机监测）"
    shown = bool(values) or q_source != AIR_FORMULA  # a row showing the fans' figure is judged by them
    worst: StatusWord = next((w for w in ALARM_ORDER if w in words), "正常" if shown else "无数据")
    return {
        "tun_id": data.tunnel.tun_id,
        "name": data.tunnel.name,
        "roadway_class": data.tunnel.roadway_class,
        "q": q,
        "q_source": q_source if q is not None else None,
        "values": values,
        "status": worst,
        "sparks": sparks[0],
        "spark_limits": sparks[1],
    }


def _alarm(facts: InterpretationFacts, a: Assessment) -> dict[str, Any]:
    return {
        "key": alarm_key(facts.target_id, a),
        "tun_id": facts.target_id,
        "tunnel": facts.name,
        "device_id": a.device_id,
        "point": a.point,
        "quantity": a.quantity,
        "label": a.label,
        "value_text": a.value_text,
        "limit_text": a.limit_text,
        "status": status_word(a),
        "severity": a.severity.value if a.severity else None,
        "source": a.article or a.source,
        "action": a.action,
    }


def is_data_note(a: Assessment) -> bool:
    """True for a data-consistency check that does not hold (a heading's flow above its local fans', a
    return's above the main fans': :mod:`vent_agent.interpret.heading`, :mod:`vent_agent.interpret.returns`):
    a figure to check, listed apart from the alarms."""
    return a.source == CHECK_SOURCE and a.status != "ok"


def _note(facts: InterpretationFacts, a: Assessment) -> dict[str, Any]:
    return {
        "tun_id": facts.target_id,
        "tunnel": facts.name,
        "label": a.label,
        "value_text": a.value_text,
        "limit_text": a.limit_text,
        "action": a.action,
        "basis": a.basis,
    }


def _worst(facts: list[InterpretationFacts], quantity: str) -> dict[str, Any] | None:
    """The highest current reading of ``quantity`` in the mine, with where and its status."""
    found = [(f, a) for f in facts for a in f.assessments if a.quantity == quantity and a.value is not None]
    if not found:
        return None
    f, a = max(found, key=lambda fa: fa[1].value or 0.0)
    return {"value": a.value, "unit": a.unit, "tunnel": f.name, "point": a.point, "status": status_word(a)}


def _air_totals(
    rows: list[dict[str, Any]], fans: list[dict[str, Any]], network: tuple[Network, Solution] | None
) -> dict[str, dict[str, Any]]:
    """Total intake and return (:mod:`vent_agent.monitor.air_totals`): through the shafts of the network
    when there is one, else the 总进风巷 / 总回风巷 roadways."""
    if network is None:
        return roadway_totals(rows, INTAKE_CLASS, RETURN_CLASS)
    measured = {r["tun_id"]: r["q"] for r in rows if r["q"] is not None}
    fan_q: dict[str, float] = {}
    for f in fans:
        if f["running"] and f["air_volume"] is not None and f["tun_id"]:
            fan_q[f["tun_id"]] = fan_q.get(f["tun_id"], 0.0) + f["air_volume"]
    return shaft_totals(*network, measured, fan_q)


async def mine_overview(
    source: VentilationSource,
    settings: Settings,
    *,
    cache: FactsCache | None = None,
    now: datetime | None = None,
    network: tuple[Network, Solution] | None = None,
) -> dict[str, Any]:
    """The overview: ``{"time", "age_minutes", "stale", "stale_after_minutes", "fans", "intake_q",
    "return_q", "air_totals", "worst": {"ch4", "co"}, "alarms", "notes", "tunnels"}``. ``time`` is the newest data
    time (ISO, the mine's time zone) and ``age_minutes`` its age; ``intake_q``/``return_q`` (m³/min) the
    mine's total intake and return air, ``air_totals`` where they come from (``{"intake", "return"}``, each
    ``{"q", "source", "parts"}``: :func:`~vent_agent.monitor.air_totals.shaft_totals` over the mine's
    ``network`` and its solve when given, else the :data:`INTAKE_CLASS`/:data:`RETURN_CLASS` roadways;
    None without a reading); ``alarms`` the
    readings beyond a threshold (:func:`is_alarm`), worst first; ``notes`` the data-consistency checks
    that do not hold (:func:`is_data_note`: ``{"tun_id", "tunnel", "label", "value_text", "limit_text",
    "action", "basis"}``), not alarms; each tunnel row has ``q`` and
    ``q_source`` (:func:`_tunnel_row`), its worst
    ``values`` of wind speed, CH₄ and CO with their status word, ``status``, ``sparks`` (24 hourly
    values by quantity, oldest first) and ``spark_limits`` (the limits of each, :func:`_spark_limits`). Source errors propagate."""
    tunnels = await source.query_tunnels_by_model()
    datas = await asyncio.gather(*(source.query_tun_data_by_id(t.tun_id) for t in tunnels))
    fans = await read_main_fans(source)  # once: the strip, the drift's row and every return's check
    facts = await asyncio.gather(
        *(gather_tunnel_facts(source, t.tun_id, settings, now, cache=cache, main_fans=fans) for t in tunnels)
    )
    rulebook = (
        ThresholdTable.load(settings.regulation_edition),
        get_knowledge_base(settings.kb_dir, settings.regulation_edition),
    )
    sparks = await asyncio.gather(
        *(_sparks(source, f, d, rulebook) for f, d in zip(facts, datas, strict=True))
    )
    rows = [_tunnel_row(f, d, s, fans) for f, d, s in zip(facts, datas, sparks, strict=True)]
    alarms = sorted(
        (_alarm(f, a) for f in facts for a in f.assessments if is_alarm(a)),
        key=lambda x: (ALARM_ORDER.index(x["status"]), x["tunnel"]),
    )
    timed = [f for f in facts if f.data_time is not None]
    newest = max(timed, key=lambda f: f.data_time or datetime.min) if timed else None
    totals = _air_totals(rows, fans, network)
    return {
        "time": newest.data_time.isoformat() if newest and newest.data_time else None,
        "age_minutes": round(newest.age_minutes, 1) if newest and newest.age_minutes is not None else None,
        "stale": newest.stale if newest else True,
        "stale_after_minutes": settings.stale_data_minutes,
        "fans": fans,
        "intake_q": totals["intake"]["q"],
        "return_q": totals["return"]["q"],
        "air_totals": totals,
        "worst": {q: _worst(list(facts), q) for q in WORST_QUANTITIES},
        "alarms": alarms,
        "notes": [_note(f, a) for f in facts for a in f.assessments if is_data_note(a)],
        "tunnels": rows,
    }
