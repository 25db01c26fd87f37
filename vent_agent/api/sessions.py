"""Session routes (spec: 会话列表 / 删除会话 / 权限模式 / 置顶 / 标题 / 上下文用量) and the chat history.

All need ``x-access-token``. A session belongs to the user who created it: for any other user every
route answers 404, exactly as for a session that does not exist.
"""

from __future__ import annotations

import json
import logging
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, Field, field_validator

from vent_agent.api.deps import CurrentUser, StateDep
from vent_agent.api.errors import ApiError
from vent_agent.api.json_body import ApiRoute
from vent_agent.sessions import store
from vent_agent.sessions.threads import checkpoint_thread
from vent_agent.state import AppState
from vent_agent.store.models import SessionRow
from vent_agent.times import stored_local_time

log = logging.getLogger(__name__)

router = APIRouter(tags=["sessions"], route_class=ApiRoute)

SessionIdPath = Annotated[str, Path(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9._:-]+$")]


async def session_of(state: AppState, user_name: str, session_id: str) -> SessionRow:
    """The caller's session, else :class:`ApiError` 404 (also for another user's session)."""
    try:
        return await store.owned_session(state.db, user_name, session_id)
    except store.SessionNotFound as exc:
        raise ApiError(404, f"会话 {session_id} 不存在") from exc


class ModeBody(BaseModel):
    mode: Literal["plan", "full"]


class TitleBody(BaseModel):
    title: str = Field(min_length=1, max_length=store.TITLE_MAX)

    @field_validator("title")
    @classmethod
    def _clean(cls, v: str) -> str:
        v = " ".join(v.split())
        if not v:
            raise ValueError("标题不能为空")
        if not v.isprintable():
            raise ValueError("标题含有不可打印字符")
        return v


@router.get("/api/sessions")
async def list_sessions(
    state: StateDep,
    user: CurrentUser,
    limit: Annotated[int, Query(ge=1, le=200)] = 20,
    offset: Annotated[int, Query(ge=0, le=10**9)] = 0,
) -> dict[str, Any]:
    """The caller's sessions, pinned first (``sort_order`` 1), then the most recently active."""
    items, total = await store.list_sessions(state.db, user.user_name, limit, offset, state.settings.timezone)
    return {"sessions": items, "total": total}


@router.delete("/api/sessions/{session_id}")
async def delete_session(session_id: SessionIdPath, state: StateDep, user: CurrentUser) -> dict[str, Any]:
    """Delete the session with its messages, runs, events, approvals, checkpoints, uploads and reports."""
    row = await session_of(state, user.user_name, session_id)
    for rid in await store.running_run_ids(state.db, row.id):
        await state.runs.request_cancel(rid)  # on whichever worker runs it
        await state.runs.wait_ended(rid, 10)
    await state.runs.delete_runs(await store.run_ids(state.db, row.id))
    for thread in await store.thread_ids(state.db, row):
        await state.checkpointer.adelete_thread(checkpoint_thread(row.id, thread))
    gone = await store.delete_session(
        state.db, row, data_dirs=[state.settings.uploads_dir, state.settings.reports_dir]
    )
    log.info("session %s deleted by %s: %s", row.id, user.user_name, gone)
    return {"status": "ok", "message": f"会话 {session_id} 已删除"}


@router.get("/api/sessions/{session_id}/mode")
async def get_mode(session_id: SessionIdPath, state: StateDep, user: CurrentUser) -> dict[str, Any]:
    row = await session_of(state, user.user_name, session_id)
    return {"session_id": row.id, "mode": row.mode}


@router.put("/api/sessions/{session_id}/mode")
async def set_mode(
    session_id: SessionIdPath, body: ModeBody, state: StateDep, user: CurrentUser
) -> dict[str, Any]:
    """``plan``: the agent asks for approval of its plan before acting; ``full``: it acts directly."""
    row = await session_of(state, user.user_name, session_id)
    await store.update_session(state.db, row.id, mode=body.mode)
    return {"session_id": row.id, "mode": body.mode, "message": f"已切换为「{body.mode}」模式"}


@router.put("/api/sessions/{session_id}/pin")
async def toggle_pin(session_id: SessionIdPath, state: StateDep, user: CurrentUser) -> dict[str, Any]:
    row = await session_of(state, user.user_name, session_id)
    pinned = not row.pinned
    await store.update_session(state.db, row.id, pinned=pinned)
    return {"session_id": row.id, "pinned": pinned, "message": "已置顶" if pinned else "已取消置顶"}


@router.put("/api/sessions/{session_id}/title")
async def set_title(
    session_id: SessionIdPath, body: TitleBody, state: StateDep, user: CurrentUser
) -> dict[str, Any]:
    """Title: 1–100 characters, printable, whitespace collapsed."""
    row = await session_of(state, user.user_name, session_id)
    await store.update_session(state.db, row.id, title=body.title)
    return {"session_id": row.id, "title": body.title, "message": "标题已更新"}


_BREAKDOWN = ("messages", "mcp", "skills", "system_prompt", "other")


@router.get("/api/sessions/{session_id}/context")
async def context_usage(session_id: SessionIdPath, state: StateDep, user: CurrentUser) -> dict[str, Any]:
    """Token usage of the session's last model request; every figure null when none is recorded.
    ``updated_at`` in the mine's local time, written like every time the service answers."""
    row = await session_of(state, user.user_name, session_id)
    usage = json.loads(row.context_usage) if row.context_usage else {}
    breakdown = usage.get("breakdown") or {}
    return {
        "session_id": row.id,
        "total_limit": usage.get("total_limit"),
        "current_usage": usage.get("current_usage"),
        "usage_pct": usage.get("usage_pct"),
        "breakdown": {k: breakdown.get(k) for k in _BREAKDOWN},
        "updated_at": stored_local_time(usage.get("updated_at"), state.settings.timezone),
    }


@router.get("/api/chat/history/{session_id}")
async def chat_history(
    session_id: SessionIdPath,
    state: StateDep,
    user: CurrentUser,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    offset: Annotated[int, Query(ge=0, le=10**9)] = 0,
) -> dict[str, Any]:
    """The conversation as the streams produced it, folded per turn (``role``, ``content``, and where
    present ``tool_calls``, ``todos``, ``references``, ``suggestions``, ``interrupt``, ``error``)."""
    row = await session_of(state, user.user_name, session_id)
    messages, total = await store.history(state.db, row.id, limit, offset, state.settings.timezone)
    return {"session_id": row.id, "messages": messages, "total": total}
