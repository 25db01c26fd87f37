"""The store on SQLite and PostgreSQL: Alembic migrations reach the models exactly (a table or column
changed without a migration fails here), an old create_all database is adopted, concurrent start-ups
migrate once, and rows round-trip (time zones, JSON text, service state)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Connection, inspect, text
from sqlmodel import SQLModel

from tests.pg import pg_database
from vent_agent.runs.worker_models import RunWorkerRow
from vent_agent.store.db import Database, async_url, migrations_head
from vent_agent.store.models import EventRow, RunRow, row_values
from vent_agent.store.service_state import get_state_value, set_state_value


@pytest.fixture(params=["sqlite", "postgres"])
def empty_url(request: pytest.FixtureRequest, tmp_path: Path):
    """A database with no tables at all."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'empty.db'}"
        return
    with pg_database(migrated=False) as url:
        yield url


def _diff(conn: Connection) -> list[Any]:
    diffs: list[Any] = compare_metadata(
        MigrationContext.configure(conn, opts={"compare_type": True}), SQLModel.metadata
    )
    return diffs


async def test_migrations_match_the_models_exactly(empty_url: str) -> None:
    database = Database(empty_url)
    try:
        await database.migrate()
        assert await database.current_revision() == migrations_head()
        async with database.engine.connect() as conn:
            diff = await conn.run_sync(_diff)
        assert diff == [], (
            "the tables differ from the migrations: add one with "
            "`python -m vent_agent.store.migrations revision -m '…'`\n" + "\n".join(map(str, diff))
        )
    finally:
        await database.close()


async def test_migrate_twice_and_concurrently_is_harmless(empty_url: str) -> None:
    first, second = Database(empty_url), Database(empty_url)
    try:
        await asyncio.gather(first.migrate(), second.migrate())
        await first.migrate()
        assert await second.current_revision() == migrations_head()
    finally:
        await first.close()
        await second.close()


async def test_database_made_by_create_all_is_adopted(empty_url: str) -> None:
    """A store created before migrations existed keeps its rows and reaches the newest migration."""
    database = Database(empty_url)
    try:
        old_tables = [SQLModel.metadata.tables[n] for n in ("runs", "run_events", "reports")]
        async with database.engine.begin() as conn:
            await conn.run_sync(lambda c: SQLModel.metadata.create_all(c, tables=old_tables))
        async with database.session() as s:
            s.add(RunRow(id="old-run", kind="click_tun", status="done", last_seq=0))
            await s.commit()
        await database.migrate()
        assert await database.current_revision() == migrations_head()
        async with database.engine.connect() as conn:
            names = await conn.run_sync(lambda c: set(inspect(c).get_table_names()))
            assert {"sessions", "workers", "run_workers", "alembic_version"} <= names
            assert await conn.run_sync(_diff) == []
        run = await _get_run(database, "old-run")
        assert run is not None and run.kind == "click_tun"
    finally:
        await database.close()


async def _get_run(database: Database, run_id: str) -> RunRow | None:
    async with database.session() as s:
        return await s.get(RunRow, run_id)


async def test_rows_round_trip_with_time_zone_and_unicode(db: Database) -> None:
    async with db.session() as s:
        run = RunRow(id="r1", kind="review", session_id="s-1", user_name="张三")
        s.add(run)
        s.add(EventRow(run_id="r1", seq=1, type="token", payload='{"content":"风量 1200 m³/min"}'))
        await s.commit()
    got = await _get_run(db, "r1")
    assert got is not None and got.user_name == "张三"
    assert (
        got.created_at.utcoffset() is not None
        and abs((got.created_at - run.created_at).total_seconds()) < 1e-3
    )
    async with db.session() as s:
        dup = EventRow(run_id="r1", seq=1, type="token", payload="{}")
        s.add(dup)
        with pytest.raises(Exception, match="(?i)unique|duplicate"):
            await s.commit()


async def test_service_state_shared_through_the_store(db: Database, store_url: str) -> None:
    await set_state_value(db, "current_model", {"name": "深度求索"}, updated_by="zhangsan")
    other = Database(store_url)  # a second worker's connection pool
    try:
        assert await get_state_value(other, "current_model") == {"name": "深度求索"}
        await set_state_value(other, "current_model", {"name": "qwen"})
    finally:
        await other.close()
    assert await get_state_value(db, "current_model") == {"name": "qwen"}
    assert await get_state_value(db, "missing", default=3) == 3


async def test_ping_and_dialect(db: Database, store_url: str) -> None:
    assert await db.ping()
    assert db.dialect == ("sqlite" if store_url.startswith("sqlite") else "postgresql")
    async with db.engine.connect() as conn:
        assert (await conn.execute(text("SELECT 1"))).scalar() == 1


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("postgresql://u:p@h:5432/d", "postgresql+asyncpg://u:p@h:5432/d"),
        ("postgres://u@h/d", "postgresql+asyncpg://u@h/d"),
        ("postgresql+asyncpg://u@h/d", "postgresql+asyncpg://u@h/d"),
        ("sqlite:////tmp/x.db", "sqlite+aiosqlite:////tmp/x.db"),
        ("sqlite+aiosqlite:////tmp/x.db", "sqlite+aiosqlite:////tmp/x.db"),
    ],
)
def test_urls_get_an_async_driver(given: str, expected: str) -> None:
    assert async_url(given) == expected


def test_raw_dsn_and_safe_url_for_postgres() -> None:
    database = Database("postgresql://vent:s3cret@127.0.0.1:5432/mine")
    assert database.is_postgres and not database.is_sqlite
    assert database.raw_dsn == "postgresql://vent:s3cret@127.0.0.1:5432/mine"
    assert "s3cret" not in database.safe_url()


@pytest.mark.parametrize(
    ("model", "values"),
    [
        (RunRow, {"id": "r1", "kind": "click_tun", "session_id": "s1"}),
        (RunWorkerRow, {"run_id": "r1", "worker_id": "w1"}),
        (EventRow, {"run_id": "r1", "seq": 1, "type": "done", "payload": "{}"}),
    ],
)
def test_row_values_are_the_models_dump_without_the_instance(
    model: type[SQLModel], values: dict[str, Any]
) -> None:
    made = row_values(model, **values)
    dumped = model(**values).model_dump()
    assert set(made) == set(dumped)
    for name, value in dumped.items():
        if name == "created_at":  # a default factory: the clock, read twice
            assert abs((made[name] - value).total_seconds()) < 5 and made[name].tzinfo is not None
        else:
            assert made[name] == value, name
    with pytest.raises(ValueError, match="kind is required"):
        row_values(RunRow, id="r2")
