"""The assistant turn of a chat run closed as lost (its worker died): the history keeps what the stream
sent, folded as for any turn (:func:`vent_agent.sessions.fold.fold_events`), with the closing error."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sqlmodel import select

from vent_agent.store.db import Database
from vent_agent.store.models import MessageRow

if TYPE_CHECKING:
    from vent_agent.runs.tail import StoredEvent

CHAT_KINDS = frozenset({"chat", "chat_resume"})


async def store_lost_turn(
    db: Database, kind: str, session_id: str, run_id: str, events: Sequence[StoredEvent]
) -> bool:
    """Store the folded turn of the chat run ``run_id`` (``kind`` chat or chat_resume) in session
    ``session_id``, unless the run stored one before its worker died; True when stored."""
    from vent_agent.sessions.fold import fold_events, turn_extra
    from vent_agent.sessions.store import add_message

    if kind not in CHAT_KINDS:
        return False
    async with db.session() as s:
        stored = (await s.exec(select(MessageRow.id).where(MessageRow.run_id == run_id).limit(1))).first()
    if stored is not None:
        return False
    folded = fold_events(ev.payload for ev in events)
    await add_message(
        db, session_id, "assistant", folded["content"], run_id=run_id, extra=turn_extra(folded) or None
    )
    return True
