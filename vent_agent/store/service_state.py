"""Read and write service-wide state (:class:`ServiceStateRow`): one JSON value per key, shared by
every worker through the store."""

from __future__ import annotations

import json
from typing import Any

from vent_agent.store.db import Database
from vent_agent.store.models import ServiceStateRow, utcnow


async def get_state_value(db: Database, key: str, default: Any = None) -> Any:
    """The JSON value stored under ``key``, or ``default``."""
    async with db.session() as s:
        row = await s.get(ServiceStateRow, key)
        return json.loads(row.value) if row else default


async def set_state_value(db: Database, key: str, value: Any, updated_by: str | None = None) -> None:
    """Store ``value`` (JSON-serialisable) under ``key``, replacing what was there."""
    async with db.session() as s:
        row = await s.get(ServiceStateRow, key)
        text = json.dumps(value, ensure_ascii=False)
        if row is None:
            row = ServiceStateRow(key=key, value=text, updated_by=updated_by)
        else:
            row.value, row.updated_at, row.updated_by = text, utcnow(), updated_by
        s.add(row)
        await s.commit()
