"""``GET /api/runs/{run_id}/events``: replay then tail a run over standard SSE; and cancel."""

from __future__ import annotations

import re

from fastapi import APIRouter, Header, Query, Response
from sse_starlette import EventSourceResponse

from vent_agent.api.deps import StateDep
from vent_agent.api.errors import ApiError
from vent_agent.api.sse import run_stream

router = APIRouter(prefix="/api/runs", tags=["runs"])

MAX_SEQ = 10**18


@router.get("/{run_id}/events", response_model=None)
async def run_events(
    run_id: str,
    state: StateDep,
    after: int | None = Query(default=None, ge=0, le=MAX_SEQ, description="replay events with seq > after"),
    last_event_id: str | None = Header(default=None, alias="Last-Event-ID"),
) -> EventSourceResponse | Response:
    """Events of the run with ``id: <seq>`` lines, from ``Last-Event-ID`` or ``?after=N`` (0 default)."""
    run = await state.runs.get(run_id)
    if run is None:
        raise ApiError(404, "运行不存在")
    start = after or 0
    if last_event_id is not None:
        if not re.fullmatch(r"[0-9]{1,18}", last_event_id.strip()):
            raise ApiError(400, "Last-Event-ID 必须是事件序号（非负整数）")
        start = max(start, int(last_event_id.strip()))
    if run.status != "running" and start >= run.last_seq:
        return Response(status_code=204)  # nothing left: a standard EventSource stops reconnecting
    return run_stream(
        state.runs,
        run_id,
        after=start,
        with_ids=True,
        session_id=run.session_id,
        ping_s=state.settings.sse_ping_s,
    )


@router.post("/{run_id}/cancel")
async def cancel_run(run_id: str, state: StateDep) -> dict:
    """Cancel a running run; the cancellation is recorded as an ``error`` event then ``done``."""
    run = await state.runs.get(run_id)
    if run is None:
        raise ApiError(404, "运行不存在")
    if run.status != "running":
        raise ApiError(409, f"运行已结束（{run.status}），无法取消")
    cancelled = await state.runs.cancel(run_id)
    if not cancelled:
        raise ApiError(409, "该运行不在本实例上执行，无法取消")
    await state.runs.wait(run_id)
    return {"run_id": run_id, "status": "cancelled", "message": "运行已取消"}
