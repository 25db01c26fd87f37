"""``GET /api/runs/{run_id}/events``: replay then tail a run over standard SSE; and cancel. Either works
on any worker of the deployment, whichever worker executes the run.

A run started in a session belongs to that session's user, whatever its kind (a chat turn, a review with
``session_id``): its events and cancel need that user's ``x-access-token`` (401 without one, 404 for
any other user). The owner is the run's ``user_name``, else its session's user (a run recorded without
one); a run whose session is gone is no one's. Runs outside sessions (click interpretations, reviews
without a session) are addressed by their unguessable id alone.
"""

from __future__ import annotations

import re
from typing import Any

from fastapi import APIRouter, Header, Query, Request, Response
from fastapi.responses import JSONResponse
from sse_starlette import EventSourceResponse

from vent_agent.api.deps import StateDep, require_user
from vent_agent.api.errors import ApiError
from vent_agent.api.json_body import ApiRoute
from vent_agent.api.sse import run_stream
from vent_agent.sessions.store import session_owner
from vent_agent.state import AppState
from vent_agent.store.models import RunRow

router = APIRouter(prefix="/api/runs", tags=["runs"], route_class=ApiRoute)

MAX_SEQ = 10**18
CANCEL_WAIT_S = 10.0


RUN_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


async def _visible_run(request: Request, state: AppState, run_id: str) -> RunRow:
    """The run, if the caller may see it; :class:`ApiError` 404 (or the auth error) otherwise."""
    if not RUN_ID.fullmatch(run_id):  # run ids are URL-safe tokens: anything else is no run
        raise ApiError(404, "运行不存在")
    run = await state.runs.get(run_id)
    if run is None:
        raise ApiError(404, "运行不存在")
    if run.user_name is not None or run.session_id is not None:
        user = await require_user(state, request.headers.get("x-access-token"))  # 401 before any lookup
        owner = await _owner(state, run)
        if owner is None or user.user_name != owner:
            raise ApiError(404, "运行不存在")
    return run


async def _owner(state: AppState, run: RunRow) -> str | None:
    """The user a run belongs to: its ``user_name``, else the user of its session (None when the
    session is gone)."""
    if run.user_name is not None or run.session_id is None:
        return run.user_name
    return await session_owner(state.db, run.session_id)


@router.get("/{run_id}/events", response_model=None)
async def run_events(
    run_id: str,
    request: Request,
    state: StateDep,
    after: int | None = Query(default=None, ge=0, le=MAX_SEQ, description="replay events with seq > after"),
    last_event_id: str | None = Header(default=None, alias="Last-Event-ID"),
) -> EventSourceResponse | Response:
    """Events of the run with ``id: <seq>`` lines, from ``Last-Event-ID`` or ``?after=N`` (0 default)."""
    run = await _visible_run(request, state, run_id)
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


@router.post("/{run_id}/cancel", response_model=None)
async def cancel_run(run_id: str, request: Request, state: StateDep) -> dict[str, Any] | JSONResponse:
    """Cancel a running run on whichever worker executes it; the cancellation is recorded as an ``error``
    event then ``done``. Waits up to 10 s for it: 200 ``cancelled``, or 202 ``cancelling`` when the run
    has not stopped yet; 409 when it had already ended."""
    run = await _visible_run(request, state, run_id)
    if run.status != "running":
        raise ApiError(409, f"运行已结束（{run.status}），无法取消")
    await state.runs.request_cancel(run_id)
    ended = await state.runs.wait_ended(run_id, CANCEL_WAIT_S)
    if ended is None:
        raise ApiError(404, "运行不存在")
    if ended.status == "running":
        return JSONResponse(
            {"run_id": run_id, "status": "cancelling", "message": "已请求取消，运行即将结束"}, status_code=202
        )
    if ended.status != "cancelled":
        raise ApiError(409, f"运行已结束（{ended.status}），无法取消")
    return {"run_id": run_id, "status": "cancelled", "message": "运行已取消"}
