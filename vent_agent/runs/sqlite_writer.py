"""The log writer's transactions on a SQLite file: one pysqlite connection in a thread of its own, and a
whole batch committed in one call to that thread.

Through aiosqlite every statement of a transaction is a round trip between the event loop and the
driver's thread (begin, each insert, each update, commit, the pool's reset): on a busy machine each of
those waits for the thread to be scheduled, and a batch took tens of milliseconds. Here the statements
are SQLAlchemy Core's (compiled once for SQLite, values converted by the columns' own bind processors on
the loop's thread), and the thread only runs the driver's ``executemany`` — C code that releases the GIL,
so it does not compete with the event loop (a thread running SQLAlchemy's Python did, and was slower).
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import Table, insert
from sqlalchemy.dialects import sqlite
from sqlalchemy.engine import make_url

from vent_agent.store.db import Database, sqlite_pragmas

if TYPE_CHECKING:
    from vent_agent.runs.log_writer import Writes

DIALECT = sqlite.dialect()


@dataclass(frozen=True)
class Compiled:
    """A statement's SQL for SQLite and, per positional parameter, its name and value converter."""

    sql: str
    names: tuple[str, ...]
    convert: tuple[Callable[[Any], Any] | None, ...]

    def rows(
        self, values: list[dict[str, Any]], constants: dict[str, Any] | None = None
    ) -> list[tuple[Any, ...]]:
        """Positional parameter tuples of ``values`` (missing names from ``constants``)."""
        constants = constants or {}
        out = []
        for row in values:
            params = []
            for name, conv in zip(self.names, self.convert, strict=True):
                v = row[name] if name in row else constants[name]
                params.append(conv(v) if conv is not None and v is not None else v)
            out.append(tuple(params))
        return out


def compile_insert(table: Table, columns: tuple[str, ...]) -> Compiled:
    """``INSERT INTO table (columns) VALUES (?, …)`` with each column's bind processor, parameters in
    the compiled statement's order."""
    compiled = insert(table).compile(dialect=DIALECT, column_keys=list(columns))
    if compiled.positiontup is None:  # set by every dialect with positional parameters, as SQLite's
        raise TypeError(f"{DIALECT.name} compiled {table.name} without positional parameters")
    names = tuple(compiled.positiontup)
    convert = tuple(table.c[name].type.bind_processor(DIALECT) for name in names)
    return Compiled(str(compiled), names, convert)


def compile_statement(statement: Any, types: dict[str, Any]) -> tuple[Compiled, dict[str, Any]]:
    """Any Core statement with bind parameters; ``types``: the SQL type of each named parameter whose
    value needs converting. Returns it and its literal parameters (e.g. ``status_1``)."""
    compiled = statement.compile(dialect=DIALECT)
    names = tuple(compiled.positiontup)
    convert = tuple(types[n].bind_processor(DIALECT) if n in types else None for n in names)
    return Compiled(str(compiled), names, convert), dict(compiled.params)


class SqliteTransactions:
    """Commits :class:`~vent_agent.runs.log_writer.Writes` to ``db``'s SQLite file, each in one call to a
    thread of its own (``BEGIN IMMEDIATE`` … ``COMMIT``, rolled back on any error, which is raised)."""

    def __init__(
        self, db: Database, finish: Any, release: Any, tables: dict[str, Table], finish_types: dict[str, Any]
    ) -> None:
        """``finish``/``release``: the run-end UPDATE and the session release (``b_id`` each), see
        :func:`vent_agent.runs.log_writer.apply_writes`."""
        self.path = make_url(db.url).database or ""
        self.tables = tables
        self._inserts: dict[tuple[str, tuple[str, ...]], Compiled] = {}
        self._finish, self._finish_constants = compile_statement(finish, finish_types)
        self._release, self._release_constants = compile_statement(release, {})
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="run-log-sqlite")
        self._conn: sqlite3.Connection | None = None

    @staticmethod
    def usable(db: Database) -> bool:
        """True for a SQLite file (an in-memory database is per connection: the async engine serves it)."""
        if not db.is_sqlite:
            return False
        path = make_url(db.url).database
        return bool(path) and path != ":memory:" and "mode=memory" not in db.url

    def _insert(self, table: str, rows: list[dict[str, Any]]) -> tuple[str, list[tuple[Any, ...]]] | None:
        if not rows:
            return None
        key = (table, tuple(rows[0]))
        compiled = self._inserts.get(key)
        if compiled is None:
            compiled = self._inserts[key] = compile_insert(self.tables[table], key[1])
        return compiled.sql, compiled.rows(rows)

    async def write(self, writes: Writes) -> list[bool]:
        """Commit ``writes``; per run end, whether it applied (the run was still running)."""
        inserts = [
            self._insert("runs", writes.runs),
            self._insert("run_workers", writes.workers),
            self._insert("run_events", writes.events),
        ]
        finishes = self._finish.rows(writes.finishes, self._finish_constants)
        releases = self._release.rows(writes.finishes, self._release_constants)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self._executor, self._write, [i for i in inserts if i is not None], finishes, releases
        )

    def _write(
        self,
        inserts: list[tuple[str, list[tuple[Any, ...]]]],
        finishes: list[tuple[Any, ...]],
        releases: list[tuple[Any, ...]],
    ) -> list[bool]:
        conn = self._conn or self._connect()
        conn.execute("BEGIN IMMEDIATE")
        try:
            for sql, rows in inserts:
                conn.executemany(sql, rows)
            applied = [conn.execute(self._finish.sql, f).rowcount == 1 for f in finishes]
            if releases:
                conn.executemany(self._release.sql, releases)
            conn.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise
        return applied

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=5.0, isolation_level=None, check_same_thread=False)
        sqlite_pragmas(conn, None)
        self._conn = conn
        return conn

    def close(self) -> None:
        """Close the connection and the thread."""

        def _close() -> None:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

        self._executor.submit(_close).result()
        self._executor.shutdown(wait=True)
