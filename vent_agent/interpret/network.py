"""The ventilation network as the console's map draws it: each tunnel with its ends' coordinates, its
current wind speed and that speed's compliance with 表6 (第157条) for the tunnel's ``roadway_class``; each
device with its spot on the map.

Compliance of a tunnel (``compliance``): ``ok`` within its class's bounds, ``low`` below the minimum,
``high`` above the maximum, ``no_data`` no wind-speed reading (no wind sensor, or its latest reading lacks
the quantity), ``no_limit`` a class 表6 does not list. The wind speed (m/s) is the first wind sensor's
latest reading, as in the click interpretation.
"""

from __future__ import annotations

import asyncio
from typing import Any, Literal

from vent_agent.kb.thresholds import ThresholdTable
from vent_agent.upstream.base import VentilationSource
from vent_agent.upstream.layout import Layout
from vent_agent.upstream.models import DEVICE_TYPE_LABELS, TunnelData

Compliance = Literal["ok", "low", "high", "no_data", "no_limit"]
WIND = "wind_speed"


def wind_speed_of(data: TunnelData) -> float | None:
    """The latest wind speed (m/s) of a tunnel's first wind sensor that has one, or None."""
    for device in data.devices:
        if device.device_type == "wind_sensor" and device.device_id in data.latest:
            value = data.latest[device.device_id].value(WIND)
            if value is not None:
                return value
    return None


def compliance_of(roadway_class: str, wind: float | None, table: ThresholdTable) -> dict[str, Any]:
    """``{"compliance", "wind_min", "wind_max", "article"}`` of a wind speed (m/s) for a 表6 class."""
    try:
        low, high = table.wind_speed_limits(roadway_class)
    except KeyError:
        return {"compliance": "no_limit", "wind_min": None, "wind_max": None, "article": None}
    state: Compliance
    if wind is None:
        state = "no_data"
    elif low is not None and low.breached(wind):
        state = "low"
    elif high is not None and high.breached(wind):
        state = "high"
    else:
        state = "ok"
    some = low or high
    return {
        "compliance": state,
        "wind_min": low.limit if low else None,
        "wind_max": high.limit if high else None,
        "article": some.article_label() if some else None,
    }


async def network_view(source: VentilationSource, layout: Layout, table: ThresholdTable) -> dict[str, Any]:
    """The map's data: ``{"units", "bounds": [min_x, min_y, max_x, max_y] | None, "tunnels": [...],
    "devices": [...]}``. A tunnel: ``tun_id, name, roadway_class, kind, state, points`` (``[[x, y], [x, y]]``
    m, or None when the layout does not draw it), ``from_node``/``to_node`` (names), ``wind_speed``
    (m/s or None) and the fields of :func:`compliance_of`. A device: ``device_id, name, device_type,
    type_label, tun_id, state, position, x, y`` (m). Source errors propagate (``NotFoundError``…)."""
    tunnels = await source.query_tunnels_by_model()
    datas = await asyncio.gather(*(source.query_tun_data_by_id(t.tun_id) for t in tunnels))
    out_tunnels: list[dict[str, Any]] = []
    out_devices: list[dict[str, Any]] = []
    xs: list[float] = []
    ys: list[float] = []
    for tunnel, data in zip(tunnels, datas, strict=True):
        ends = layout.ends(tunnel.tun_id)
        wind = wind_speed_of(data)
        out_tunnels.append(
            {
                "tun_id": tunnel.tun_id,
                "name": tunnel.name,
                "roadway_class": tunnel.roadway_class,
                "kind": tunnel.kind,
                "state": tunnel.state,
                "points": [[ends[0].x, ends[0].y], [ends[1].x, ends[1].y]] if ends else None,
                "from_node": ends[0].name if ends else None,
                "to_node": ends[1].name if ends else None,
                "wind_speed": wind,
                **compliance_of(tunnel.roadway_class, wind, table),
            }
        )
        for device_id, (x, y) in layout.device_spots(tunnel.tun_id, data.devices).items():
            device = next(d for d in data.devices if d.device_id == device_id)
            xs.append(x)
            ys.append(y)
            out_devices.append(
                {
                    "device_id": device.device_id,
                    "name": device.name,
                    "device_type": device.device_type,
                    "type_label": DEVICE_TYPE_LABELS.get(device.device_type, device.device_type),
                    "tun_id": device.tun_id,
                    "state": device.state,
                    "position": device.position,
                    "x": round(x, 1),
                    "y": round(y, 1),
                }
            )
        if ends:
            xs += [ends[0].x, ends[1].x]
            ys += [ends[0].y, ends[1].y]
    bounds = [min(xs), min(ys), max(xs), max(ys)] if xs else None
    return {"units": layout.units, "bounds": bounds, "tunnels": out_tunnels, "devices": out_devices}
