"""How the data tools show the ventilation system's records to a model: compact JSON-able dicts with the
Chinese label and unit of each value, long lists capped, long histories summarised.

Units: wind speed m/s, air volume m³/min, area m², length m, CH₄/CO₂/O₂ %, CO ppm, temperature °C,
negative pressure Pa (as :mod:`vent_agent.upstream.models`). Times are ISO 8601 in the mine time zone.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from statistics import fmean
from typing import Any
from zoneinfo import ZoneInfo

from vent_agent.upstream.models import (
    DEVICE_TYPE_LABELS,
    QUANTITY_LABELS,
    QUANTITY_UNITS,
    TUNNEL_KIND_LABELS,
    AlarmRecord,
    Device,
    DeviceData,
    Reading,
    Tunnel,
    TunnelData,
)

MAX_LIST_ITEMS = 100
"""At most this many tunnels or devices in one tool result (the rest is counted, not shown)."""
MAX_SERIES_POINTS = 72
"""A history is averaged into buckets of 1–24 h so that each quantity has at most this many points."""
BUCKET_HOURS = (1, 2, 3, 4, 6, 8, 12, 24)


def _iso(t: datetime, tz: ZoneInfo | None) -> str:
    return (t.astimezone(tz) if tz and t.tzinfo else t).isoformat()


def tunnel_dict(t: Tunnel) -> dict[str, Any]:
    """A tunnel: every known field (area m², length m, allocated_q m³/min …) and ``kind_cn``."""
    out = t.model_dump(mode="json", exclude_none=True, exclude_defaults=True)
    out.update(tun_id=t.tun_id, name=t.name, kind=t.kind, model_id=t.model_id)
    out["kind_cn"] = TUNNEL_KIND_LABELS.get(t.kind, t.kind)
    return out


def device_brief(d: Device) -> dict[str, Any]:
    """A device in a list: id, name, type (code and Chinese), tunnel, measured quantity, position,
    state and model where known."""
    out: dict[str, Any] = {
        "device_id": d.device_id,
        "name": d.name,
        "device_type": d.device_type,
        "type_cn": DEVICE_TYPE_LABELS.get(d.device_type, d.device_type),
        "tun_id": d.tun_id,
    }
    if d.quantity:
        out["quantity"] = d.quantity
        out["quantity_cn"] = QUANTITY_LABELS.get(d.quantity, d.quantity)
        out["unit"] = QUANTITY_UNITS.get(d.quantity, "")
    for key in ("position", "state", "model", "location_class"):
        value = getattr(d, key)
        if value:
            out[key] = value
    return out


def device_full(d: Device) -> dict[str, Any]:
    """A device with its rated point (fans) and the alarm limits configured on it."""
    out = device_brief(d)
    if d.rated:
        out["rated"] = d.rated.model_dump(mode="json", exclude_none=True)
    if d.alarm_limits:
        out["alarm_limits"] = [
            {**lim.model_dump(mode="json"), "quantity_cn": QUANTITY_LABELS.get(lim.quantity, lim.quantity)}
            for lim in d.alarm_limits
        ]
    return out


def reading_dict(r: Reading, tz: ZoneInfo | None = None) -> dict[str, Any]:
    """A reading: its time and each value with label and unit."""
    return {
        "time": _iso(r.time, tz),
        "values": [
            {
                "quantity": q,
                "label": QUANTITY_LABELS.get(q, q),
                "value": v,
                "unit": r.units.get(q) or QUANTITY_UNITS.get(q, ""),
            }
            for q, v in r.values.items()
        ],
    }


def alarm_dict(a: AlarmRecord, tz: ZoneInfo | None = None) -> dict[str, Any]:
    """An alarm episode (times in the mine time zone)."""
    out = a.model_dump(mode="json")
    for key in ("peak_time", "start", "end"):
        out[key] = _iso(getattr(a, key), tz)
    out["quantity_cn"] = QUANTITY_LABELS.get(a.quantity, a.quantity)
    return out


def capped(items: Sequence[dict[str, Any]], key: str, note_more: str) -> dict[str, Any]:
    """``{"count": n, key: items[:MAX_LIST_ITEMS]}`` plus ``truncated``/``note`` when there are more."""
    out: dict[str, Any] = {"count": len(items), key: list(items[:MAX_LIST_ITEMS])}
    if len(items) > MAX_LIST_ITEMS:
        out["truncated"] = True
        out["note"] = f"共 {len(items)} 条，仅列出前 {MAX_LIST_ITEMS} 条；{note_more}"
    return out


def tunnel_data_dict(data: TunnelData, tz: ZoneInfo | None = None) -> dict[str, Any]:
    """A tunnel's monitoring data: the tunnel, each device with its latest reading, the alarms."""
    devices = []
    for d in data.devices[:MAX_LIST_ITEMS]:
        item = device_brief(d)
        latest = data.latest.get(d.device_id)
        item["latest"] = reading_dict(latest, tz) if latest else None
        devices.append(item)
    out: dict[str, Any] = {
        "tunnel": tunnel_dict(data.tunnel),
        "device_count": len(data.devices),
        "devices": devices,
        "alarms_24h": [alarm_dict(a, tz) for a in data.alarms[:MAX_LIST_ITEMS]],
    }
    if len(data.devices) > MAX_LIST_ITEMS:
        out["note"] = f"设备共 {len(data.devices)} 台，仅列出前 {MAX_LIST_ITEMS} 台"
    return out


def device_data_dict(data: DeviceData, tz: ZoneInfo | None = None) -> dict[str, Any]:
    """A device's data: the device (rated point, alarm limits), its tunnel, latest reading, alarms."""
    return {
        "device": device_full(data.device),
        "tunnel": tunnel_dict(data.tunnel) if data.tunnel else None,
        "latest": reading_dict(data.latest, tz) if data.latest else None,
        "alarms_24h": [alarm_dict(a, tz) for a in data.alarms[:MAX_LIST_ITEMS]],
    }


def _bucket_hours(span_hours: float) -> int:
    """The smallest bucket (hours) that keeps a span within MAX_SERIES_POINTS points."""
    for h in BUCKET_HOURS:
        if math.ceil(span_hours / h) <= MAX_SERIES_POINTS:
            return h
    return BUCKET_HOURS[-1]


def _round(v: float) -> float:
    return round(v, 4)


def history_dict(
    device_id: str,
    readings: Sequence[Reading],
    *,
    days: int,
    tz: ZoneInfo,
    quantities: Sequence[str] | None = None,
    interval_hours: int | None = None,
) -> dict[str, Any]:
    """A device's monitoring history for a model: per quantity the extremes of the raw readings (min and
    max with their times), the mean and the last value; and the series as means over buckets of
    ``interval_hours`` (rounded up to one of 1, 2, 3, 4, 6, 8, 12, 24 h; default: the smallest of them giving
    ≤ 72 points),
    buckets aligned to the mine-time clock (``tz``). ``quantities`` restricts the quantities shown.
    """
    rows = sorted(readings, key=lambda r: r.time)
    present = list(dict.fromkeys(q for r in rows for q in r.values))
    wanted = [q for q in present if not quantities or q in quantities]
    out: dict[str, Any] = {"device_id": device_id, "days": days, "count": len(rows)}
    if quantities:
        missing = [q for q in quantities if q not in present]
        if missing:
            out["missing_quantities"] = missing
    if not rows or not wanted:
        out["note"] = "该时段没有监测数据" if not rows else "该时段没有所选量的监测数据"
        out["available_quantities"] = present
        return out
    local = [r.time.astimezone(tz) for r in rows]
    span = (local[-1] - local[0]).total_seconds() / 3600 + 1
    step = (
        next((h for h in BUCKET_HOURS if h >= interval_hours), 24) if interval_hours else _bucket_hours(span)
    )
    out.update(start=local[0].isoformat(), end=local[-1].isoformat(), interval_hours=step)
    out["aggregation"] = (
        "series 为逐小时平均值" if step == 1 else f"series 为每 {step} 小时的平均值（极值见 stats）"
    )
    keys = [t.replace(minute=0, second=0, microsecond=0, hour=t.hour - t.hour % step) for t in local]
    buckets = list(dict.fromkeys(keys))
    index = {k: i for i, k in enumerate(buckets)}
    out["times"] = [b.isoformat() for b in buckets]
    stats: dict[str, Any] = {}
    series: dict[str, list[float | None]] = {}
    for q in wanted:
        points = [(t, r.values[q]) for t, r in zip(local, rows, strict=True) if q in r.values]
        unit = next((r.units.get(q) for r in rows if r.units.get(q)), None) or QUANTITY_UNITS.get(q, "")
        lo = min(points, key=lambda p: p[1])
        hi = max(points, key=lambda p: p[1])
        stats[q] = {
            "label": QUANTITY_LABELS.get(q, q),
            "unit": unit,
            "min": lo[1],
            "min_time": lo[0].isoformat(),
            "max": hi[1],
            "max_time": hi[0].isoformat(),
            "mean": _round(fmean(v for _, v in points)),
            "last": points[-1][1],
            "last_time": points[-1][0].isoformat(),
        }
        sums: list[list[float]] = [[] for _ in buckets]
        for key, r in zip(keys, rows, strict=True):
            if q in r.values:
                sums[index[key]].append(r.values[q])
        series[q] = [_round(fmean(s)) if s else None for s in sums]
    out["stats"] = stats
    out["series"] = series
    return out
