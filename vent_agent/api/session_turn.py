"""One turn at a time per session, whatever starts it: a chat message (``POST /api/chat``), a resume
(``POST /api/chat/resume``) or a review with ``session_id`` (``POST /api/vent/review/pdf``).

The route reserves its run with ``exclusive=True`` (:meth:`vent_agent.runs.manager.RunManager.reserve`)
before any work (nothing saved, no message stored): the store's conditional UPDATE of
``sessions.active_run_id`` decides between claims on any worker sharing the database. Another run holding
the session is 409 :data:`BUSY`. The run's end (done, failed, cancelled, closed as lost) releases it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from vent_agent.api.errors import ApiError
from vent_agent.runs.manager import SessionBusy
from vent_agent.state import AppState

BUSY = "当前会话正在处理上一条消息，请等待其完成（或取消该运行）后再发送"


@asynccontextmanager
async def session_turn(
    state: AppState, kind: str, session_id: str, user_name: str, thread_id: str | None = None
) -> AsyncIterator[str]:
    """Reserve the session's turn for a run of ``kind`` (on ``thread_id``, when the run's ``done``
    names another thread than the run id); yield the run id. 409 :data:`BUSY` when another run holds the
    session; the reservation is dropped if the block raises (the run never starts)."""
    try:
        run_id = await state.runs.reserve(
            kind, session_id=session_id, user_name=user_name, thread_id=thread_id, exclusive=True
        )
    except SessionBusy as exc:
        raise ApiError(409, BUSY) from exc
    try:
        yield run_id
    except BaseException:
        await state.runs.abandon(run_id)
        raise
