"""Acknowledgements of the overview's alarms (:class:`AlarmAckRow`), per user, kept in the store so every
worker and every reload agrees."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select

from vent_agent.store.db import Database
from vent_agent.store.models import AlarmAckRow


async def acks_of(db: Database, user_name: str, keys: list[str]) -> dict[str, datetime]:
    """``alarm_key → acked_at`` (UTC) of the alarms among ``keys`` that ``user_name`` acknowledged."""
    if not keys:
        return {}
    async with db.session() as s:
        rows = await s.exec(
            select(AlarmAckRow).where(
                AlarmAckRow.user_name == user_name, col(AlarmAckRow.alarm_key).in_(keys)
            )
        )
        return {r.alarm_key: r.acked_at for r in rows}


async def acknowledge(db: Database, user_name: str, key: str) -> datetime:
    """Record that ``user_name`` acknowledged alarm ``key``; returns when (the first time, when it was
    acknowledged before: a second acknowledgement, from another tab or worker, changes nothing)."""
    async with db.session() as s:
        s.add(AlarmAckRow(alarm_key=key, user_name=user_name))
        try:
            await s.commit()
        except IntegrityError:
            await s.rollback()
    acked = await acks_of(db, user_name, [key])
    return acked[key]
