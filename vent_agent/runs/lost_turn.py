"""The assistant turn of a session's run that its end cut short — cancelled (``POST …/cancel``, a
shutdown), failed (its body raised), or closed as lost (its worker died): the history keeps what the
stream sent, folded as for any turn (:func:`vent_agent.sessions.fold.fold_events`), with the run's
closing error (``运行已取消``, the internal-error message, or the lost-worker message)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sqlmodel import select

from vent_agent.store.db import Database
from vent_agent.store.models import MessageRow, SessionRow

if TYPE_CHECKING:
    from vent_agent.runs.tail import StoredEvent

CHAT_KINDS = frozenset({"chat", "chat_resume"})
REVIEW_KIND = "review"
TURN_KINDS = CHAT_KINDS | {REVIEW_KIND}
"""The kinds of run whose end is an assistant turn of their session (a review only with a session)."""


async def store_lost_turn(
    db: Database, kind: str, session_id: str, run_id: str, events: Sequence[StoredEvent]
) -> bool:
    """Store the folded assistant turn of the run ``run_id`` (``kind`` chat, chat_resume or review) in
    session ``session_id``, unless the run stored one itself or the session is gone; True when stored.
    A review's turn carries what a finished one does beside its text (``thread_id``, ``kind``, and the
    ``download_url``, ``summary`` or ``error``: :func:`vent_agent.sessions.fold.review_turn_extra`)."""
    from vent_agent.sessions.fold import fold_events, review_turn_extra, turn_extra
    from vent_agent.sessions.store import add_message

    if kind not in TURN_KINDS:
        return False
    async with db.session() as s:
        stored = (await s.exec(select(MessageRow.id).where(MessageRow.run_id == run_id).limit(1))).first()
        session = await s.get(SessionRow, session_id)
    if stored is not None or session is None:
        return False
    payloads = [ev.payload for ev in events]
    folded = fold_events(payloads)
    extra = review_turn_extra(payloads, session.thread_id) if kind == REVIEW_KIND else turn_extra(folded)
    await add_message(db, session_id, "assistant", folded["content"], run_id=run_id, extra=extra or None)
    return True
