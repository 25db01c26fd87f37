"""The database: an async SQLAlchemy engine (SQLite by default, PostgreSQL through asyncpg when the URL
says so), its session factory, and the schema migrations (Alembic, run programmatically at start-up)."""

from __future__ import annotations

import logging
import sqlite3
from functools import cache
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlalchemy.pool import ConnectionPoolEntry, NullPool
from sqlmodel.ext.asyncio.session import AsyncSession

from vent_agent.graph import tables as _graph_tables  # noqa: F401  (registers the graph tables)
from vent_agent.runs import worker_models as _worker_models  # noqa: F401  (registers the workers tables)
from vent_agent.store import models  # noqa: F401  (registers the tables)

log = logging.getLogger(__name__)

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
# Key of the PostgreSQL advisory lock that serialises migrations of workers starting together.
MIGRATION_LOCK_KEY = 0x7665_6E74  # "vent"
CONNECT_TIMEOUT_S = 5
"""How long a new PostgreSQL connection may take (s) before the database counts as unreachable."""


def async_url(url: str) -> str:
    """The SQLAlchemy URL with an async driver: ``postgres://``/``postgresql://`` → ``postgresql+asyncpg://``,
    ``sqlite://`` → ``sqlite+aiosqlite://``; URLs naming a driver are returned unchanged."""
    parsed = make_url(url)
    driver = {
        "postgres": "postgresql+asyncpg",
        "postgresql": "postgresql+asyncpg",
        "sqlite": "sqlite+aiosqlite",
    }
    if parsed.drivername in driver:
        parsed = parsed.set(drivername=driver[parsed.drivername])
    return parsed.render_as_string(hide_password=False)


def alembic_config() -> Config:
    """Alembic's configuration for the package's own migrations (no alembic.ini needed, so an installed
    wheel can migrate)."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    return cfg


@cache
def migrations_head() -> str | None:
    """The newest revision shipped with the package (read once per process)."""
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


class Database:
    """Owns the engine; ``session()`` gives an :class:`AsyncSession`. Created by the app's lifespan.

    ``url``: any SQLAlchemy URL; SQLite files get WAL mode, PostgreSQL uses asyncpg with a checked pool
    (``pool_pre_ping``: a connection is tested when checked out and replaced when the server killed it
    or restarted; new connections time out after :data:`CONNECT_TIMEOUT_S`). While the server is away
    queries raise the driver's errors (:func:`vent_agent.store.availability.store_unavailable`).
    """

    def __init__(self, url: str) -> None:
        self.url = async_url(url)
        self.dialect = make_url(self.url).get_backend_name()  # "sqlite" | "postgresql"
        if self.is_sqlite:
            path = self.url.split("///", 1)[-1]
            if path and path != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            self.engine: AsyncEngine = create_async_engine(self.url)
            event.listen(self.engine.sync_engine, "connect", sqlite_pragmas)
        else:
            self.engine = create_async_engine(
                self.url,
                pool_pre_ping=True,  # a connection killed or left by a restarted server is replaced
                pool_size=10,
                max_overflow=20,
                connect_args={"timeout": CONNECT_TIMEOUT_S},  # an unreachable server fails fast
            )
        self.session = async_sessionmaker(self.engine, class_=AsyncSession, expire_on_commit=False)

    @property
    def is_sqlite(self) -> bool:
        return self.dialect == "sqlite"

    @property
    def is_postgres(self) -> bool:
        return self.dialect == "postgresql"

    @property
    def raw_dsn(self) -> str:
        """The URL without the SQLAlchemy driver part (``postgresql://…``), for asyncpg's own connections."""
        return make_url(self.url).set(drivername=self.dialect).render_as_string(hide_password=False)

    def safe_url(self) -> str:
        """The URL with its password hidden, for logs."""
        return make_url(self.url).render_as_string(hide_password=True)

    async def migrate(self) -> None:
        """Bring the schema to the newest migration (``alembic upgrade head``). Workers starting together
        on PostgreSQL take turns through an advisory lock; a database created before migrations existed
        gets only its missing tables (the first migration creates what is absent)."""
        if self.is_sqlite:
            engine = _sqlite_migration_engine(self.url)
            try:
                async with engine.begin() as conn:
                    await conn.run_sync(_upgrade_head)
            finally:
                await engine.dispose()
            return
        async with self.engine.begin() as conn:
            await conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": MIGRATION_LOCK_KEY})
            await conn.run_sync(_upgrade_head)

    async def create_all(self) -> None:
        """Kept for existing callers: the same as :meth:`migrate`."""
        await self.migrate()

    async def current_revision(self) -> str | None:
        """The migration the database is at (None before the first)."""
        async with self.engine.connect() as conn:
            return await conn.run_sync(lambda c: MigrationContext.configure(c).get_current_revision())

    async def ping(self) -> bool:
        """True when a trivial query succeeds; raises the driver's error otherwise."""
        async with self.engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
        return True

    async def close(self) -> None:
        await self.engine.dispose()


class SchemaTooNew(RuntimeError):
    """The database is at a migration this release does not ship: a newer vent-agent wrote it, and
    migrating it back or running on it could lose data. ``current``: its revision; ``head``: ours."""

    def __init__(self, current: str, head: str | None) -> None:
        self.current, self.head = current, head
        super().__init__(
            f"数据库的结构版本 {current} 比本程序的最新迁移 {head} 更新（由更新版本的 vent-agent 写入）："
            "请升级 vent-agent 后再启动，或用 VENT_DATABASE_URL 换一个数据库"
        )


def _upgrade_head(conn: Connection) -> None:
    """``alembic upgrade head`` on ``conn``; raises :class:`SchemaTooNew` when the database is at a
    revision the package does not know (Alembic's own error is an English "Can't locate revision")."""
    cfg = alembic_config()
    current = MigrationContext.configure(conn).get_current_revision()
    if current is not None and not _known_revision(current):
        raise SchemaTooNew(current, migrations_head())
    cfg.attributes["connection"] = conn
    command.upgrade(cfg, "head")


def _known_revision(revision: str) -> bool:
    """Whether ``revision`` is one of the package's migrations."""
    try:
        return ScriptDirectory.from_config(alembic_config()).get_revision(revision) is not None
    except Exception:  # alembic's ResolutionError / CommandError: a revision it cannot locate
        return False


def _sqlite_migration_engine(url: str) -> AsyncEngine:
    """A one-connection engine whose transactions start with ``BEGIN IMMEDIATE``: SQLite's write lock is
    taken first, so processes starting together migrate one after the other, and the DDL is transactional
    (SQLAlchemy's documented recipe for pysqlite/aiosqlite)."""
    engine = create_async_engine(url, poolclass=NullPool)

    @event.listens_for(engine.sync_engine, "connect")
    def _connect(dbapi_conn: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
        sqlite_pragmas(dbapi_conn, _record)
        dbapi_conn.isolation_level = None

    @event.listens_for(engine.sync_engine, "begin")
    def _begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def sqlite_pragmas(
    dbapi_conn: DBAPIConnection | sqlite3.Connection, _record: ConnectionPoolEntry | None
) -> None:
    """WAL journal, normal sync and a 5 s busy time-out on a new SQLite connection (a ``connect`` event
    listener; ``_record`` unused)."""
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA busy_timeout=5000")
    cur.close()
