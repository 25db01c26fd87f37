"""What the service writes when it closes a run itself (its log failed, its session was deleted under a
subscriber, its worker was lost) rather than the run's body: the ``done``'s ``thread_id`` and
``session_id``, and an ``agent_done`` (中断) for each agent span the run's log left open. Used by
:class:`vent_agent.runs.manager.RunManager`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from sqlalchemy import func, update
from sqlmodel import col, select

from vent_agent.runs.agent_span import SPAN_EVENTS, interrupted_spans
from vent_agent.store.models import EventRow, RunRow, SessionRow, utcnow
from vent_agent.wire import wire_json


def _done_ids(run_id: str, session_id: str | None, thread_id: str | None) -> dict[str, Any]:
    return {"thread_id": thread_id or run_id, "session_id": session_id}


def closing_done_fields(run: RunRow) -> dict[str, Any]:
    """The ``thread_id`` and ``session_id`` of the ``done`` the service writes for a run it closes
    itself, as the run's own ``done`` would carry them: the turn's thread where the run recorded one (a
    chat turn), else the run id (click interpretations and reviews are their own thread)."""
    return _done_ids(run.id, run.session_id, run.thread_id)


def closing_fields(
    run_id: str,
    session_id: str | None,
    thread_id: str | None,
    done_fields: Callable[[str], dict[str, Any]] | None,
) -> dict[str, Any]:
    """:func:`closing_done_fields` for a run of this process, whose own ``done`` (``done_fields``) says
    them where it names them (its log failed, or its session was deleted under a subscriber)."""
    fields = done_fields(run_id) if done_fields is not None else {}
    return {key: fields.get(key, value) for key, value in _done_ids(run_id, session_id, thread_id).items()}


async def interrupted_spans_of(s: Any, run_id: str, upto: int | None = None) -> list[dict[str, Any]]:
    """The ``agent_done`` (中断) payloads closing the agent spans left open in run ``run_id``'s log (up to
    ``seq`` ``upto`` when given), read in the store session ``s``; durations end at the last logged
    event's time (:func:`~vent_agent.runs.agent_span.interrupted_spans`)."""
    bound = [EventRow.run_id == run_id] + ([EventRow.seq <= upto] if upto is not None else [])
    rows = await s.exec(
        select(EventRow.payload, EventRow.created_at)
        .where(*bound, col(EventRow.type).in_(SPAN_EVENTS))
        .order_by(col(EventRow.seq))
    )
    spans = [(json.loads(payload), at) for payload, at in rows]
    if not spans:
        return []
    ended = (await s.exec(select(func.max(EventRow.created_at)).where(*bound))).one()
    return interrupted_spans(spans, ended)


def release_sessions(run_ids: list[str]) -> Any:
    """The UPDATE that frees the sessions held by ``run_ids`` (``sessions.active_run_id``)."""
    return update(SessionRow).where(col(SessionRow.active_run_id).in_(run_ids)).values(active_run_id=None)


async def close_lost_run(s: Any, run_id: str, message: str) -> tuple[RunRow, list[dict[str, Any]]] | None:
    """In the store session ``s`` (the caller commits): mark the running run ``run_id``, whose worker
    died, failed; append after its last logged event an ``agent_done`` (中断) for each span left open,
    ``error`` (``worker_lost``) and ``done`` (:func:`closing_done_fields`), with ``message``; set its
    ``last_seq`` and free its session. Returns the run's row and the appended events' fields, or None
    when it is no longer running (another worker closed it first: roll back)."""
    result = await s.exec(
        update(RunRow)
        .where(col(RunRow.id) == run_id, col(RunRow.status) == "running")
        .values(status="failed", error="worker lost", finished_at=utcnow())
    )
    if result.rowcount != 1:
        return None
    run = (await s.exec(select(RunRow).where(RunRow.id == run_id))).one()
    last = (await s.exec(select(func.max(EventRow.seq)).where(EventRow.run_id == run_id))).one() or 0
    appended = [
        *await interrupted_spans_of(s, run_id),
        {"type": "error", "message": message, "worker_lost": True},
        {"type": "done", **closing_done_fields(run), "message": message},
    ]
    for seq, fields in enumerate(appended, start=last + 1):
        payload = wire_json({**fields, "seq": seq, "run_id": run_id})
        s.add(EventRow(run_id=run_id, seq=seq, type=fields["type"], payload=payload))
    await s.exec(update(RunRow).where(col(RunRow.id) == run_id).values(last_seq=last + len(appended)))
    await s.exec(release_sessions([run_id]))
    return run, appended
