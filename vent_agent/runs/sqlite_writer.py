"""The log writer's transactions on a SQLite file: a batch committed in one call, on the event loop's
own thread when it is small, else in a thread of its own.

Through aiosqlite every statement of a transaction is a round trip between the event loop and the
driver's thread (begin, each insert, each update, commit, the pool's reset): on a busy machine each of
those waits for the thread to be scheduled, and a batch took tens of milliseconds. Here the statements
are SQLAlchemy Core's (compiled once for SQLite, values converted by the columns' own bind processors on
the loop's thread), and one call runs the driver's ``executemany`` and the commit.

Where that call runs: a hop to a thread costs far more than a small batch does. The thread needs the
GIL to start, for every row (pysqlite binds each row holding it and releases it only around
``sqlite3_step``) and to hand its result back; while the loop's thread runs Python, each of those waits
for it to give the GIL up, up to the interpreter's switch interval (5 ms). Measured under a burst of 500
clicks: a median of 0.3 ms in the thread, 10–20 ms as the loop saw it. A batch of at most
:data:`INLINE_MAX_ROWS` rows (a few µs each, e.g. 0.36 ms for 64 events) is therefore committed on the
loop's thread, by a connection that never waits for the write lock (``busy_timeout`` 0): when another
connection holds it, the batch goes to the thread, whose connection waits for it as long as any other.
Larger batches go to the thread as well. The loop's connection does not checkpoint the WAL itself (a
checkpoint syncs the file); it asks the thread for a passive checkpoint every
:data:`CHECKPOINT_EVERY_BYTES` of events it commits.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from sqlalchemy import Table, insert
from sqlalchemy.dialects import sqlite
from sqlalchemy.engine import make_url

from vent_agent.store.db import Database, sqlite_pragmas

if TYPE_CHECKING:
    from vent_agent.runs.log_writer import Writes

log = logging.getLogger(__name__)

DIALECT = sqlite.dialect()
INLINE_MAX_ROWS = 512
"""Rows of a batch committed on the loop's thread at most (about 3 ms); a larger one goes to the thread."""
CHECKPOINT_EVERY_BYTES = 4 << 20
"""Event bytes committed on the loop's thread between two passive checkpoints (SQLite's own automatic
checkpoint comes at 1,000 pages, about 4 MiB)."""


@dataclass(frozen=True)
class Compiled:
    """A statement's SQL for SQLite and, per positional parameter, its name and value converter."""

    sql: str
    names: tuple[str, ...]
    convert: tuple[Callable[[Any], Any] | None, ...]

    def rows(
        self, values: list[dict[str, Any]], constants: dict[str, Any] | None = None
    ) -> list[tuple[Any, ...]]:
        """Positional parameter tuples of ``values`` (missing names from ``constants``). Each column's
        value is picked by one ``itemgetter`` call per row, and a converter given the same object as
        for the row before (a batch's one ``created_at``) is not called again. A converted value the
        driver would adapt (a ``datetime``: ``sqlite3``'s adapter writes its ISO text) is adapted here,
        once, instead of once per row by the driver."""
        if not values:
            return []
        if constants:
            values = [{**constants, **row} for row in values]
        pick = itemgetter(*self.names)
        if len(self.names) == 1:
            picked: list[tuple[Any, ...]] = [(pick(row),) for row in values]
        else:
            picked = [pick(row) for row in values]
        converted = [(i, conv) for i, conv in enumerate(self.convert) if conv is not None]
        if not converted:
            return picked
        last: dict[int, tuple[Any, Any]] = {}
        out = []
        for params in picked:
            row = list(params)
            for i, conv in converted:
                v = row[i]
                if v is None:
                    continue
                seen = last.get(i)
                if seen is not None and seen[0] is v:
                    row[i] = seen[1]
                else:
                    row[i] = _adapted(conv(v))
                    last[i] = (v, row[i])
            out.append(tuple(row))
        return out


def _adapted(value: Any) -> Any:
    """``value`` as ``sqlite3`` binds it: through the adapter registered for its type, if any."""
    adapt = sqlite3.adapters.get((type(value), sqlite3.PrepareProtocol))
    return adapt(value) if adapt is not None else value


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


def _busy(exc: sqlite3.Error) -> bool:
    """SQLite's write lock is held by another connection (``SQLITE_BUSY``)."""
    return isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc)


class SqliteTransactions:
    """Commits :class:`~vent_agent.runs.log_writer.Writes` to ``db``'s SQLite file, each in one call
    (``BEGIN IMMEDIATE`` … ``COMMIT``, rolled back on any error, which is raised): on the loop's thread
    or in a thread of its own (see the module's doc)."""

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
        self._conn: sqlite3.Connection | None = None  # the thread's
        self._inline: sqlite3.Connection | None = None  # the loop thread's
        self._unchecked = 0  # event bytes committed on the loop's thread since the last checkpoint
        self.inline_commits = 0
        self.thread_commits = 0

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
        statements = [i for i in inserts if i is not None]
        rows = sum(len(r) for _, r in statements) + len(finishes)
        if rows <= INLINE_MAX_ROWS:
            try:
                applied = self._write(self._inline or self._connect_inline(), statements, finishes, releases)
            except sqlite3.OperationalError as exc:
                if not _busy(exc):
                    raise
            else:
                self.inline_commits += 1
                self._unchecked += sum(len(e["payload"]) for e in writes.events)
                if self._unchecked >= CHECKPOINT_EVERY_BYTES:
                    self._unchecked = 0
                    self._executor.submit(self._checkpoint)
                return applied
        loop = asyncio.get_running_loop()
        applied = await loop.run_in_executor(
            self._executor, self._write, None, statements, finishes, releases
        )
        self.thread_commits += 1
        return applied

    def _write(
        self,
        conn: sqlite3.Connection | None,
        inserts: list[tuple[str, list[tuple[Any, ...]]]],
        finishes: list[tuple[Any, ...]],
        releases: list[tuple[Any, ...]],
    ) -> list[bool]:
        """One transaction on ``conn`` (None: the thread's connection)."""
        conn = conn or self._conn or self._connect()
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

    def _connect_inline(self) -> sqlite3.Connection:
        """The loop thread's connection: it never waits for the write lock and never checkpoints."""
        conn = sqlite3.connect(self.path, timeout=0.0, isolation_level=None)
        sqlite_pragmas(conn, None)
        conn.execute("PRAGMA busy_timeout=0")
        conn.execute("PRAGMA wal_autocheckpoint=0")
        self._inline = conn
        return conn

    def _checkpoint(self) -> None:
        """A passive checkpoint of the WAL, in the thread (it waits for no one; errors are logged)."""
        try:
            (self._conn or self._connect()).execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        except sqlite3.Error as exc:
            log.warning("run log: WAL checkpoint failed: %s", exc)

    def close(self) -> None:
        """Close the connections and the thread."""

        def _close() -> None:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

        if self._inline is not None:
            self._inline.close()
            self._inline = None
        self._executor.submit(_close).result()
        self._executor.shutdown(wait=True)
