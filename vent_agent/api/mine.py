"""``GET /api/mine/network`` and ``GET /api/mine/overview``: the ventilation network for the console's
map and the operator's overview (additions to the spec).

Read-only, no token (the same data the click interpretation reads without one). The network: each tunnel
with its ends' coordinates (the layout data, :mod:`vent_agent.upstream.layout`), current wind speed and its
表6 compliance; each device with its spot (:mod:`vent_agent.interpret.network`); the network's airways
without monitoring, so the map is connected as the network is (:mod:`vent_agent.network.drawing`). The overview: the status
strip, the alarms, each tunnel's values and sparklines, the data's age
(:mod:`vent_agent.monitor.overview`), each alarm with ``acked_at`` when the caller (``x-access-token``,
optional) acknowledged it. 502 when the data source fails.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime
from typing import Any

from fastapi import APIRouter

from vent_agent.api.deps import OptionalUser, StateDep
from vent_agent.api.errors import ApiError
from vent_agent.api.json_body import ApiRoute
from vent_agent.interpret.device_network import demo_network_source
from vent_agent.interpret.network import network_view
from vent_agent.kb.thresholds import ThresholdTable
from vent_agent.monitor.overview import mine_overview
from vent_agent.network.demo import demo_network
from vent_agent.network.drawing import network_facilities, network_links
from vent_agent.network.local_fans import place_local_fans
from vent_agent.network.service import demo_mine_solved
from vent_agent.store.alarm_acks import acks_of
from vent_agent.times import local_time
from vent_agent.upstream.demo_mine import DemoMine
from vent_agent.upstream.http_source import UpstreamError
from vent_agent.upstream.layout import load_layout

log = logging.getLogger(__name__)
router = APIRouter(prefix="/api/mine", tags=["mine"], route_class=ApiRoute)


@router.get("/network")
async def mine_network(state: StateDep) -> dict[str, Any]:
    """The network view (shape in :func:`~vent_agent.interpret.network.network_view`) with the network's
    unmonitored airways and joined nodes the layout draws (``links``, ``joins``:
    :func:`~vent_agent.network.drawing.network_links`), ``bounds`` covering them too, the local fans
    (``aux_fan``) in their headings' intake airways
    (:func:`~vent_agent.network.local_fans.place_local_fans`), and, on the demo mine's data, its doors and
    regulators among the ``devices`` (``device_type`` ``door``/``regulator``:
    :func:`~vent_agent.network.drawing.network_facilities`)."""
    table = ThresholdTable.load(state.settings.regulation_edition)
    layout = load_layout()
    try:
        view = await network_view(state.source, layout, table)
    except (UpstreamError, OSError) as exc:
        log.warning("network view: data source failed: %s", exc)
        raise ApiError(502, f"通风数据源不可用：{exc}") from exc
    network = demo_network()
    view.update(network_links(layout, network, (t["tun_id"] for t in view["tunnels"])))
    place_local_fans(view["devices"], layout, network)  # in the intake airway, outside the heading
    facilities = network_facilities(layout, network) if demo_network_source(state.settings) else []
    view["devices"] += facilities  # the doors and regulators a click can find (interpret.device_network)
    points = [p for link in view["links"] + view["joins"] for p in link["points"]]
    points += [[d["x"], d["y"]] for d in view["devices"]]
    if points and view["bounds"]:
        x0, y0, x1, y1 = view["bounds"]
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        view["bounds"] = [min(x0, *xs), min(y0, *ys), max(x1, *xs), max(y1, *ys)]
    return view


async def overview_of(state: StateDep) -> dict[str, Any]:
    """The overview (:func:`~vent_agent.monitor.overview.mine_overview`) with its data time in the mine's
    local time; :class:`ApiError` 502 when the data source fails. The total intake and return go through
    the shafts of the mine's network when the service holds it: the embedded demo mine's (the network the
    map draws); a mine's own data source has no network here, and its totals come from its roadways."""
    network = await asyncio.to_thread(demo_mine_solved) if isinstance(state.source, DemoMine) else None
    try:
        view = await mine_overview(state.source, state.settings, cache=state.facts_cache, network=network)
    except (UpstreamError, OSError) as exc:
        log.warning("overview: data source failed: %s", exc)
        raise ApiError(502, f"通风数据源不可用：{exc}") from exc
    if view["time"]:
        view["time"] = local_time(datetime.fromisoformat(view["time"]), state.settings.timezone)
    return view


async def mark_acks(state: StateDep, user_name: str | None, alarms: list[dict[str, Any]]) -> None:
    """Set each alarm's ``acked_at`` (the mine's local time) and ``acked_by`` (``user_name``) when
    ``user_name`` acknowledged it, else both None (always None without a user)."""
    acked = await acks_of(state.db, user_name, [a["key"] for a in alarms]) if user_name else {}
    tz = state.settings.timezone
    for a in alarms:
        a["acked_at"] = local_time(acked[a["key"]], tz) if a["key"] in acked else None
        a["acked_by"] = user_name if a["key"] in acked else None


@router.get("/overview")
async def mine_overview_route(state: StateDep, user: OptionalUser) -> dict[str, Any]:
    """The operator's overview: ``{"time", "age_minutes", "stale", "stale_after_minutes", "fans",
    "intake_q", "return_q", "worst", "alarms", "notes", "tunnels", "user_name"}`` (m³/min, m/s, %, ppm, Pa); each
    alarm's ``acked_at`` and ``acked_by`` are the caller's acknowledgement, and ``user_name`` the caller
    (null without a token the user service accepts: the console then offers no acknowledgement)."""
    view = await overview_of(state)
    user_name = user.user_name if user else None
    await mark_acks(state, user_name, view["alarms"])
    return {**view, "user_name": user_name}
