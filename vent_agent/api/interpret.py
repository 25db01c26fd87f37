"""Click interpretation: ``POST /api/interpret/click/tun`` and ``/device`` (spec: 点选解读).

The routes validate the click, start the run (:mod:`vent_agent.interpret.run`) and tail its log.
"""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field
from sse_starlette import EventSourceResponse

from vent_agent.api.deps import StateDep
from vent_agent.api.ids import IdText
from vent_agent.api.json_body import ApiRoute
from vent_agent.api.sse import run_stream
from vent_agent.interpret.agent import ClickTarget
from vent_agent.interpret.device_network import ClickDeviceType, gather_clicked_device_facts
from vent_agent.interpret.facts import gather_tunnel_facts
from vent_agent.interpret.run import FactsLoader, click_body, click_done_fields
from vent_agent.state import AppState

router = APIRouter(prefix="/api/interpret/click", tags=["interpret"], route_class=ApiRoute)


class _ClickBase(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True, coerce_numbers_to_str=True)
    mode: Literal["plan", "fast"] = Field(default="plan", description="plan（默认）或 fast")


class TunnelClick(_ClickBase):
    """Request body of ``/api/interpret/click/tun``."""

    tun_id: IdText = Field(min_length=1, max_length=128, description="巷道 ID：字符串，或整数（按其数字）")
    tun_name: str = Field(min_length=1, max_length=200)


class DeviceClick(_ClickBase):
    """Request body of ``/api/interpret/click/device``."""

    device_id: IdText = Field(min_length=1, max_length=128, description="设备 ID：字符串，或整数（按其数字）")
    device_name: str = Field(min_length=1, max_length=200)
    device_type: ClickDeviceType = Field(
        description="设备类型编码（设备类型字典 get_device_kind_dict，另可为 door 风门、regulator 调节风窗）；"
        "与设备实际类型不符时按实际类型解读并提示"
    )


async def _stream(
    state: AppState,
    kind: str,
    *,
    mode: str,
    tool: str,
    what: str,
    load_facts: FactsLoader,
    target: ClickTarget,
) -> EventSourceResponse:
    """Start the click-interpretation run and tail it."""

    body = click_body(state, mode=mode, tool=tool, what=what, load_facts=load_facts, target=target)
    run_id = await state.runs.start(kind, body, done_fields=click_done_fields)
    return run_stream(state.runs, run_id, ping_s=state.settings.sse_ping_s)


@router.post("/tun")
async def click_tunnel(req: TunnelClick, state: StateDep) -> EventSourceResponse:
    """Stream the interpretation of one tunnel's live data (spec: 点选巷道解读)."""
    return await _stream(
        state,
        "click_tun",
        mode=req.mode,
        tool="query_tun_data_by_id",
        what="巷道",
        load_facts=lambda: gather_tunnel_facts(
            state.source, req.tun_id, state.settings, cache=state.facts_cache
        ),
        target=ClickTarget("tunnel", req.tun_id, req.tun_name, "click-interpret-tun", "query_tun_data_by_id"),
    )


@router.post("/device")
async def click_device(req: DeviceClick, state: StateDep) -> EventSourceResponse:
    """Stream the interpretation of one device's live data (spec: 点选设备解读); for a fan, local fan,
    door or regulator also what changing it would do to the air (the network solve)."""
    return await _stream(
        state,
        "click_device",
        mode=req.mode,
        tool="query_device_data_by_id",
        what="设备",
        load_facts=lambda: gather_clicked_device_facts(
            state.source, req.device_id, req.device_type, state.settings, cache=state.facts_cache
        ),
        target=ClickTarget(
            "device",
            req.device_id,
            req.device_name,
            "click-interpret-device",
            "query_device_data_by_id",
            device_type=req.device_type,
        ),
    )
