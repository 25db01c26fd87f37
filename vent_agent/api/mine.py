"""``GET /api/mine/network``: the ventilation network for the console's map (an addition to the spec).

Read-only, no token (the same data the click interpretation reads without one): each tunnel with its
ends' coordinates (the layout data, :mod:`vent_agent.upstream.layout`), current wind speed and its 表6
compliance; each device with its spot (:mod:`vent_agent.interpret.network`). 502 when the data source
fails.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import APIRouter

from vent_agent.api.deps import StateDep
from vent_agent.api.errors import ApiError
from vent_agent.api.json_body import ApiRoute
from vent_agent.interpret.network import network_view
from vent_agent.kb.thresholds import ThresholdTable
from vent_agent.upstream.http_source import UpstreamError
from vent_agent.upstream.layout import load_layout

log = logging.getLogger(__name__)
router = APIRouter(prefix="/api/mine", tags=["mine"], route_class=ApiRoute)


@router.get("/network")
async def mine_network(state: StateDep) -> dict[str, Any]:
    """The network view (shape in :func:`~vent_agent.interpret.network.network_view`)."""
    table = ThresholdTable.load(state.settings.regulation_edition)
    try:
        return await network_view(state.source, load_layout(), table)
    except (UpstreamError, OSError) as exc:
        log.warning("network view: data source failed: %s", exc)
        raise ApiError(502, f"通风数据源不可用：{exc}") from exc
