"""The LangGraph checkpointer: AsyncSqliteSaver beside the SQLite store by default, AsyncPostgresSaver
when the database is PostgreSQL. Pending plan approvals live here, so they survive a restart."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from langgraph.checkpoint.base import BaseCheckpointSaver

from vent_agent.settings import Settings


def _postgres_dsn(url: str) -> str:
    """A libpq DSN from a SQLAlchemy URL (``postgresql+asyncpg://…`` → ``postgresql://…``)."""
    scheme, rest = url.split("://", 1)
    return "postgresql://" + rest


@asynccontextmanager
async def open_checkpointer(settings: Settings) -> AsyncIterator[BaseCheckpointSaver]:
    """Open the checkpointer for the service's database; tables are created on first use."""
    url = settings.resolved_database_url
    if url.startswith("postgresql"):
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

        async with AsyncPostgresSaver.from_conn_string(_postgres_dsn(url)) as saver:
            await saver.setup()
            yield saver
        return
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    path = settings.data_dir / "checkpoints.sqlite"
    path.parent.mkdir(parents=True, exist_ok=True)
    async with AsyncSqliteSaver.from_conn_string(str(path)) as saver:
        await saver.setup()
        yield saver
