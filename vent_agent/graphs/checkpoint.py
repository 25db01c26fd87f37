"""The LangGraph checkpointer: AsyncSqliteSaver beside the SQLite store by default, AsyncPostgresSaver
when the database is PostgreSQL. Pending plan approvals live here, so they survive a restart."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from langgraph.checkpoint.base import BaseCheckpointSaver

from vent_agent.settings import Settings

if TYPE_CHECKING:
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver


def _postgres_dsn(url: str) -> str:
    """A libpq DSN from a SQLAlchemy URL (``postgresql+asyncpg://…`` → ``postgresql://…``)."""
    scheme, rest = url.split("://", 1)
    return "postgresql://" + rest


CHECKPOINT_SETUP_LOCK = 0x7665_6E75
"""Advisory-lock key serialising the checkpointer's schema set-up between workers starting together."""


async def _setup_serialised(saver: AsyncPostgresSaver, dsn: str) -> None:
    """``saver.setup()`` by one worker at a time. It polls ``pg_try_advisory_lock``: a session blocked in
    ``pg_advisory_lock`` would hold a snapshot that setup's ``CREATE INDEX CONCURRENTLY`` waits for."""
    import asyncio

    import psycopg

    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as lock_conn:
        while True:
            row = await (
                await lock_conn.execute("SELECT pg_try_advisory_lock(%s)", (CHECKPOINT_SETUP_LOCK,))
            ).fetchone()
            if row and row[0]:
                break
            await asyncio.sleep(0.2)
        try:
            await saver.setup()
        finally:
            await lock_conn.execute("SELECT pg_advisory_unlock(%s)", (CHECKPOINT_SETUP_LOCK,))


@asynccontextmanager
async def open_checkpointer(settings: Settings) -> AsyncIterator[BaseCheckpointSaver[str]]:
    """Open the checkpointer for the service's database; tables are created on first use."""
    url = settings.resolved_database_url
    if url.startswith("postgresql"):
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

        dsn = _postgres_dsn(url)
        async with AsyncPostgresSaver.from_conn_string(dsn) as saver:
            await _setup_serialised(saver, dsn)
            yield saver
        return
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    path = settings.data_dir / "checkpoints.sqlite"
    path.parent.mkdir(parents=True, exist_ok=True)
    async with AsyncSqliteSaver.from_conn_string(str(path)) as saver:
        await saver.setup()
        yield saver
