"""A standalone plan review (``POST /api/vent/review/pdf`` with the caller's ``session_id``) joins that
session's history like a chat turn with an attachment: the user turn (the message, or a default one,
with ``attachment`` = the file name) when the review starts, the assistant turn (the review's one-paragraph
summary, with ``download_url``, ``summary`` counts or ``error``) when it ends."""

from __future__ import annotations

from typing import Any

from vent_agent.runs.emitter import Emitter
from vent_agent.sessions import store
from vent_agent.sessions.fold import fold_events, review_turn_extra
from vent_agent.state import AppState
from vent_agent.store.models import SessionRow


def request_text(message: str | None, file_name: str) -> str:
    """The user turn's text: the client's message, else ``请审查配风计划《<file_name>》``."""
    return message.strip() if message and message.strip() else f"请审查配风计划《{file_name}》"


async def record_review_request(
    state: AppState, session: SessionRow, message: str | None, file_name: str
) -> None:
    """Store the user turn of a review in ``session`` (``extra``: thread_id, attachment)."""
    extra = {"thread_id": session.thread_id, "attachment": file_name, "kind": "review"}
    await store.add_message(state.db, session.id, "user", request_text(message, file_name), extra=extra)


async def record_review_answer(state: AppState, emitter: Emitter, session: SessionRow, summary: str) -> None:
    """Store the assistant turn of a review in ``session``: ``summary`` as its text, and from the run's
    log the report's ``download_url``, the findings' counts (``summary``) or the ``error``."""
    await emitter.flush()
    events = [ev.payload for ev in await state.runs.events_after(emitter.run_id, 0, limit=100_000)]
    extra = review_turn_extra(events, session.thread_id)
    await store.add_message(state.db, session.id, "assistant", summary, run_id=emitter.run_id, extra=extra)


async def review_done_fields(state: AppState, emitter: Emitter, session_id: str) -> dict[str, Any]:
    """The ``done`` event's fields of a review run in a session: session and thread, and from the run's
    log the ``download_url``, the findings' ``summary``, the ``verdict``, the ``month_note`` (when the
    plan's month is out of date) and the ``coverage``, or the failure."""
    await emitter.flush()
    events = [ev.payload for ev in await state.runs.events_after(emitter.run_id, 0, limit=100_000)]
    folded = fold_events(events)
    fields: dict[str, Any] = {"session_id": session_id, "thread_id": emitter.run_id}
    if folded.get("download_url"):
        fields.update(download_url=folded["download_url"], message="审查完成")
        shapes = {"summary": dict, "coverage": dict, "verdict": str, "month_note": str}
        for key, shape in shapes.items():  # from the "审查完成" progress
            value = next((ev[key] for ev in events if isinstance(ev.get(key), shape)), None)
            if value is not None:
                fields[key] = value
    else:
        fields["message"] = "审查失败"
    return fields
