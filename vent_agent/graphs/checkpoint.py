"""The LangGraph checkpointer: AsyncSqliteSaver beside the SQLite store by default, AsyncPostgresSaver
when the database is PostgreSQL. Pending plan approvals live here, so they survive a restart.

On PostgreSQL the saver works through a psycopg connection pool, never one connection: each connection
is checked when it is taken (``check_connection``: a killed or restarted server's connection is dropped
and replaced), the pool reconnects in the background with exponential back-off while the server is away,
and a caller waits at most :data:`POOL_WAIT_S` for a connection (``psycopg_pool.PoolTimeout``, answered
as a 503 by :mod:`vent_agent.api.store_errors`)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from langgraph.checkpoint.base import BaseCheckpointSaver

from vent_agent.settings import Settings

if TYPE_CHECKING:
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from psycopg import AsyncConnection
    from psycopg.rows import DictRow
    from psycopg_pool import AsyncConnectionPool

POOL_MAX_SIZE = 10
"""Connections of one worker's checkpointer at most (one per graph step or approval look-up at a time)."""
POOL_WAIT_S = 5.0
"""How long a caller waits for a checkpointer connection (s) before the store counts as unavailable."""
CONNECT_TIMEOUT_S = 5
"""libpq's ``connect_timeout`` of a new connection (s)."""


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
async def checked_pool(dsn: str) -> AsyncIterator[AsyncConnectionPool[AsyncConnection[DictRow]]]:
    """A psycopg pool for the saver (autocommit, no prepared statements, dict rows, as LangGraph's own
    ``from_conn_string``): connections checked on checkout, at most :data:`POOL_MAX_SIZE`, waits of
    :data:`POOL_WAIT_S`; reconnection with back-off is psycopg_pool's own. Opened (one connection made)
    before it is yielded; raises ``psycopg_pool.PoolTimeout`` when the server does not answer then."""
    from psycopg import AsyncConnection
    from psycopg.rows import DictRow, dict_row
    from psycopg_pool import AsyncConnectionPool

    pool: AsyncConnectionPool[AsyncConnection[DictRow]] = AsyncConnectionPool(
        dsn,
        connection_class=AsyncConnection[DictRow],
        kwargs={
            "autocommit": True,
            "prepare_threshold": 0,
            "row_factory": dict_row,
            "connect_timeout": CONNECT_TIMEOUT_S,
        },
        min_size=1,
        max_size=POOL_MAX_SIZE,
        timeout=POOL_WAIT_S,
        check=AsyncConnectionPool.check_connection,
        open=False,
        name="checkpointer",
    )
    await pool.open(wait=True, timeout=POOL_WAIT_S * 6)
    try:
        yield pool
    finally:
        await pool.close()


@asynccontextmanager
async def open_checkpointer(settings: Settings) -> AsyncIterator[BaseCheckpointSaver[str]]:
    """Open the checkpointer for the service's database; tables are created on first use."""
    url = settings.resolved_database_url
    if url.startswith("postgresql"):
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

        dsn = _postgres_dsn(url)
        async with checked_pool(dsn) as pool:
            pg_saver = AsyncPostgresSaver(conn=pool)
            await _setup_serialised(pg_saver, dsn)
            yield pg_saver
        return
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    path = settings.data_dir / "checkpoints.sqlite"
    path.parent.mkdir(parents=True, exist_ok=True)
    async with AsyncSqliteSaver.from_conn_string(str(path)) as saver:
        await saver.setup()
        yield saver
