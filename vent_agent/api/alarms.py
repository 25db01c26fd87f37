"""The overview's alarms with each user's acknowledgement (an addition to the spec), ``x-access-token``
required:

- ``GET /api/alarms``: the current alarms (readings beyond a threshold, :mod:`vent_agent.monitor.overview`),
  each with ``acked_at`` (the mine's local time) when the caller acknowledged it, else null.
- ``POST /api/alarms/{key}/ack``: acknowledge one current alarm for the caller (kept in the store,
  :mod:`vent_agent.store.alarm_acks`); 404 when no current alarm has that key.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path

from vent_agent.api.deps import CurrentUser, StateDep
from vent_agent.api.errors import ApiError
from vent_agent.api.json_body import ApiRoute
from vent_agent.api.mine import mark_acks, overview_of
from vent_agent.store.alarm_acks import acknowledge
from vent_agent.times import local_time

router = APIRouter(prefix="/api/alarms", tags=["alarms"], route_class=ApiRoute)
AlarmKey = Annotated[str, Path(pattern=r"^[0-9a-f]{16}$", description="the alarm's key (16 hex digits)")]


@router.get("")
async def list_alarms(state: StateDep, user: CurrentUser) -> dict[str, Any]:
    """``{"time", "age_minutes", "stale", "alarms": [{…, "acked_at"}]}``: the current alarms, worst first,
    each acknowledged or not by the caller."""
    view = await overview_of(state)
    alarms = view["alarms"]
    await mark_acks(state, user.user_name, alarms)
    return {
        "time": view["time"],
        "age_minutes": view["age_minutes"],
        "stale": view["stale"],
        "alarms": alarms,
    }


@router.post("/{key}/ack")
async def ack_alarm(key: AlarmKey, state: StateDep, user: CurrentUser) -> dict[str, Any]:
    """``{"key", "user_name", "acked_at"}``; 404 ``{"error"}`` when no current alarm has ``key``."""
    view = await overview_of(state)
    if not any(a["key"] == key for a in view["alarms"]):
        raise ApiError(404, f"当前没有该报警：{key}（可能已恢复）")
    acked_at = await acknowledge(state.db, user.user_name, key)
    return {
        "key": key,
        "user_name": user.user_name,
        "acked_at": local_time(acked_at, state.settings.timezone),
    }
