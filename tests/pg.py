"""Fixtures for the persistence and scale-out tests: the store on SQLite and on PostgreSQL
(parametrised), Redis, and service workers as real processes.

PostgreSQL: ``TEST_POSTGRES_URL`` (default ``postgresql://postgres@127.0.0.1:5432/test``) is used
only to create a uniquely named database per test module (``vent_t_<epoch>_<hex>``), dropped after it;
databases of earlier runs older than six hours are dropped too. Redis: ``TEST_REDIS_URL`` (default
``redis://127.0.0.1:6379/0``), with a channel of its own per test. Without them the tests that need
them skip, saying why; with ``CI=true`` they fail instead.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import os
import re
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Coroutine, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any, TypeVar

import asyncpg
import httpx
import pytest
from sqlalchemy.engine import make_url
from sqlmodel import SQLModel

from tests.helpers import free_port
from vent_agent.store.db import Database

PG_ADMIN_URL = os.environ.get("TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
DB_PREFIX = "vent_t_"
STALE_AFTER_S = 6 * 3600
ROOT = Path(__file__).resolve().parents[1]


def in_ci() -> bool:
    """True when the environment says CI (``CI=true``): missing services are then failures."""
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def need(service: str, problem: str) -> None:
    """Skip the test (fail it under CI) because ``service`` is unavailable."""
    message = f"{service} not reachable ({problem}); set TEST_POSTGRES_URL / TEST_REDIS_URL"
    if in_ci():
        pytest.fail(f"CI=true requires {service}: {message}")
    pytest.skip(message)


T = TypeVar("T")


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion on a fresh event loop in another thread (usable from sync fixtures and
    from inside a running loop alike)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def _plain(url: str) -> str:
    """A libpq-style URL for asyncpg (no SQLAlchemy driver suffix)."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


@functools.cache
def postgres_problem() -> str | None:
    """None when PostgreSQL answers at ``PG_ADMIN_URL``, else what went wrong (checked once)."""

    async def probe() -> None:
        conn = await asyncpg.connect(_plain(PG_ADMIN_URL), timeout=3)
        await conn.close()

    try:
        run_sync(probe())
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


@functools.cache
def redis_problem() -> str | None:
    """None when Redis answers PING at ``REDIS_URL``, else what went wrong (checked once)."""
    import redis

    try:
        client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2, socket_timeout=2)
        client.ping()
        client.close()
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def require_postgres() -> None:
    problem = postgres_problem()
    if problem:
        need("PostgreSQL", problem)


def require_redis() -> None:
    problem = redis_problem()
    if problem:
        need("Redis", problem)


async def _admin(*statements: str) -> list[Any]:
    conn = await asyncpg.connect(_plain(PG_ADMIN_URL), timeout=5)
    try:
        return [await conn.fetch(sql) for sql in statements]
    finally:
        await conn.close()


def drop_stale_databases() -> None:
    """Drop test databases left by runs that died more than six hours ago."""
    (rows,) = run_sync(_admin(f"SELECT datname FROM pg_database WHERE datname LIKE '{DB_PREFIX}%'"))
    now = time.time()
    for row in rows:
        m = re.fullmatch(rf"{DB_PREFIX}(\d+)_[0-9a-f]+", row["datname"])
        if m and now - int(m.group(1)) > STALE_AFTER_S:
            run_sync(_admin(f'DROP DATABASE IF EXISTS "{row["datname"]}" WITH (FORCE)'))


def create_database() -> str:
    """Create an empty, uniquely named database; return its ``postgresql+asyncpg://`` URL."""
    name = f"{DB_PREFIX}{int(time.time())}_{secrets.token_hex(4)}"
    run_sync(_admin(f'CREATE DATABASE "{name}"'))
    return (
        make_url(PG_ADMIN_URL)
        .set(drivername="postgresql+asyncpg", database=name)
        .render_as_string(hide_password=False)
    )


def drop_database(url: str) -> None:
    """Drop the database of ``url`` (its connections are closed by force)."""
    name = make_url(url).database
    assert name and name.startswith(DB_PREFIX)
    run_sync(_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@contextmanager
def pg_database(migrated: bool = True) -> Iterator[str]:
    """A fresh PostgreSQL database for the block (skips, or fails under CI, without PostgreSQL)."""
    require_postgres()
    drop_stale_databases()
    url = create_database()
    try:
        if migrated:
            run_sync(_migrate(url))
        yield url
    finally:
        drop_database(url)


async def _migrate(url: str) -> None:
    db = Database(url)
    try:
        await db.migrate()
    finally:
        await db.close()


async def _empty(url: str) -> None:
    """Delete every row (DELETE is much quicker than TRUNCATE on tables this small)."""
    conn = await asyncpg.connect(_plain(url), timeout=5)
    try:
        async with conn.transaction():
            for table in reversed(SQLModel.metadata.sorted_tables):
                await conn.execute(f'DELETE FROM "{table.name}"')
    finally:
        await conn.close()


@pytest.fixture(scope="module")
def pg_module_url() -> Iterator[str]:
    """One migrated PostgreSQL database for the test module."""
    with pg_database() as url:
        yield url


def store_url_for(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A migrated, empty store of ``kind``: ``sqlite`` (a new file under ``tmp_path``) or ``postgres``
    (the module's database, emptied; through the ``pg_module_url`` fixture)."""
    if kind == "sqlite":
        url: str = f"sqlite+aiosqlite:///{tmp_path / 'store.db'}"
        run_sync(_migrate(url))
        return url
    url = request.getfixturevalue("pg_module_url")
    run_sync(_empty(url))
    return url


@pytest.fixture(params=["sqlite", "postgres"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A migrated, empty store: a SQLite file, or the module's PostgreSQL database emptied."""
    return store_url_for(request.param, request, tmp_path)


@pytest.fixture
async def db(store_url: str) -> AsyncIterator[Database]:
    """A :class:`Database` on ``store_url`` (SQLite and PostgreSQL)."""
    database = Database(store_url)
    yield database
    await database.close()


@pytest.fixture
def redis_url() -> str:
    """The Redis URL (skips, or fails under CI, when Redis does not answer)."""
    require_redis()
    return REDIS_URL


def unique_channel() -> str:
    """A broker channel of this test alone (so parallel runs on one Redis or database don't mix)."""
    return f"vent_test_{secrets.token_hex(6)}"


# ---- service workers as processes ------------------------------------------------------------------


def scaleout_app(settings: Any, **open_runs_kwargs: Any) -> Any:
    """``create_app(settings)`` whose run layer is the scale-out one (:func:`open_runs`: broker by the
    settings, heartbeats, retention), whether or not ``app.py`` wires it itself yet."""
    from vent_agent.app import create_app
    from vent_agent.runs.lifecycle import open_runs

    app = create_app(settings)
    inner = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(a: Any) -> AsyncIterator[None]:
        async with inner(a):
            state = a.state.vent
            if state.runs.heartbeat is not None:  # app.py opens the scale-out run layer already
                yield
                return
            async with open_runs(settings, state.db, **open_runs_kwargs) as runs:
                state.runs = runs
                yield

    app.router.lifespan_context = lifespan
    return app


def serve_worker_main() -> None:
    """Entry point of a worker process (``python -c "from tests.pg import serve_worker_main; …"``):
    settings from ``VENT_*``, port from ``VENT_TEST_PORT``, heartbeat from ``VENT_TEST_HEARTBEAT_S``."""
    import uvicorn

    from vent_agent.settings import Settings

    heartbeat_s = float(os.environ.get("VENT_TEST_HEARTBEAT_S", "0.5"))
    settings = Settings(_env_file=None)
    app = scaleout_app(
        settings,
        heartbeat_s=heartbeat_s,
        dead_after_s=heartbeat_s * 6,
        poll_s=float(os.environ.get("VENT_TEST_POLL_S", "0.5")),
        broker_channel=os.environ.get("VENT_TEST_CHANNEL") or None,
    )
    uvicorn.run(app, host="127.0.0.1", port=int(os.environ["VENT_TEST_PORT"]), log_level="warning")


class Worker:
    """A service worker running as its own process on a loopback port."""

    def __init__(self, env: dict[str, str], log_path: Path) -> None:
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        full_env = {k: v for k, v in os.environ.items() if not k.startswith("VENT_")}
        full_env["VENT_WARM_UP"] = "false"  # no OCR worker per service worker at start-up (tests/conftest.py)
        full_env.update(env)
        full_env["VENT_TEST_PORT"] = str(self.port)
        full_env["PYTHONPATH"] = str(ROOT)
        self._log = open(log_path, "ab")  # noqa: SIM115  (closed in stop())
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from tests.pg import serve_worker_main; serve_worker_main()"],
            cwd=ROOT,
            env=full_env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )

    @property
    def pid(self) -> int:
        return self.proc.pid

    def wait_ready(self, timeout_s: float = 120.0) -> None:
        """Wait until ``/healthz`` answers 200 (the process may take a while to import on a busy host)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"worker exited with {self.proc.returncode}: {self.log_tail()}")
            try:
                if httpx.get(f"{self.base_url}/healthz", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"worker did not become ready: {self.log_tail()}")

    def kill9(self) -> None:
        """SIGKILL: no shutdown code runs."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it does not exit within 15 s."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill9()
        self._log.close()

    def log_tail(self, n: int = 4000) -> str:
        self._log.flush()
        return self.log_path.read_bytes()[-n:].decode("utf-8", "replace")


def start_workers(count: int, env: dict[str, str], tmp_path: Path, *, together: bool = True) -> list[Worker]:
    """Start ``count`` workers with ``env``, one after the other (``together``: all at once, then wait).

    One after the other by default: LangGraph's ``AsyncPostgresSaver.setup()`` (graphs/checkpoint.py)
    is not safe against two workers starting at the same instant on a new database."""
    workers: list[Worker] = []
    try:
        for _ in range(count):
            workers.append(Worker(env, tmp_path / f"worker-{secrets.token_hex(3)}.log"))
            if not together:
                workers[-1].wait_ready()
        for w in workers:
            w.wait_ready()
    except BaseException:
        for w in workers:
            w.stop()
        raise
    return workers
