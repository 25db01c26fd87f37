"""The one writer of the run log in a process: run creations, events and run ends are queued to it, and
it commits everything queued since its last commit in one transaction (group commit, SQLAlchemy Core
``executemany``, no ORM objects).

The queue is bounded (``max_queue`` items): a producer faster than the store waits in ``put`` (back-
pressure). A batch that meets a transient store error (SQLite's write lock, no pooled connection) is
retried as a whole; one that fails for good is split by run, so that only the runs whose writes fail are
*broken*: their queued events are dropped, never written and never delivered, and their owner is told
(``on_failed``) so that it ends them with ``error`` (:meth:`vent_agent.runs.manager.RunManager._finish`).
Only after a batch has committed does ``on_committed`` hand its events to the subscribers.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, bindparam, insert, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import AsyncConnection
from tenacity import AsyncRetrying, retry_if_exception, stop_after_delay, wait_random_exponential

from vent_agent.runs.sqlite_writer import SqliteTransactions
from vent_agent.runs.worker_models import RunWorkerRow
from vent_agent.store.availability import store_unavailable
from vent_agent.store.db import Database
from vent_agent.store.models import EventRow, RunRow, SessionRow, table_of, utcnow

log = logging.getLogger(__name__)

RUNS = table_of(RunRow)
RUN_WORKERS = table_of(RunWorkerRow)
EVENTS = table_of(EventRow)
SESSIONS = table_of(SessionRow)
DEFAULT_MAX_QUEUE = 20_000
DEFAULT_MAX_BATCH = 5_000
FIRST_YIELD = 32
MAX_UNYIELDED = 1024


def yields_after(seq: int) -> bool:
    """Whether ``put`` yields to the loop once it has queued a run's event ``seq``: after its 32nd,
    64th, 128th… event, then every 1,024th. A body making a burst of events without awaiting anything
    else thus lets the writer commit its first 32 at once (and its stream send them) while it makes
    the rest, in batches that double, so that a long burst costs few transactions."""
    return seq >= FIRST_YIELD and (seq & (seq - 1) == 0 or seq % MAX_UNYIELDED == 0)


RETRY_FOR_S = 30.0


class RunLogFailed(Exception):
    """The run's events could not be written to the log: the run cannot go on."""


def transient(exc: BaseException) -> bool:
    """SQLite's write lock not obtained in time, no pooled connection free in time, or the database
    away (a connection found broken, the server restarting or unreachable:
    :func:`~vent_agent.store.availability.store_unavailable`; the writer reconnects)."""
    locked = isinstance(exc, OperationalError | sqlite3.OperationalError) and "locked" in str(exc)
    return locked or isinstance(exc, PoolTimeout) or store_unavailable(exc)


def retrying(stop_after_s: float = RETRY_FOR_S) -> AsyncRetrying:
    """Retry a write that met a transient store error (nothing is committed when one fails)."""
    return AsyncRetrying(
        retry=retry_if_exception(transient),
        stop=stop_after_delay(stop_after_s),
        wait=wait_random_exponential(0.05, 1),
        reraise=True,
    )


@dataclass(slots=True)
class EventItem:
    """One event: ``data`` is its compact JSON (the same string is sent). ``closing``: written even for
    a broken run (the ``error``/``done`` that end it)."""

    run_id: str
    seq: int
    type: str
    data: str
    closing: bool = False


@dataclass(slots=True)
class CreateItem:
    """A new run's row and its worker row; ``done`` resolves once committed."""

    run_id: str
    run: dict[str, Any]
    worker: dict[str, Any]
    done: asyncio.Future[bool]


@dataclass(slots=True)
class FinishItem:
    """A run's end (``status``, ``error``, ``last_seq``), written only while the run is still
    ``running``; ``done`` resolves to True when it was, False when another worker had closed it."""

    run_id: str
    status: str
    error: str | None
    last_seq: int
    done: asyncio.Future[bool]
    closing: bool = False


Item = EventItem | CreateItem | FinishItem


class WriteQueue:
    """The writer's bounded FIFO (an ``asyncio.Queue`` pared down to what the writer needs, at a
    fraction of its cost per item): :meth:`put` waits while ``maxsize`` items are queued (back-pressure);
    :meth:`take` waits for one item at least and returns all those queued, up to ``limit``;
    :meth:`join` waits until every item taken has been :meth:`finished`."""

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self._items: deque[Item] = deque()
        self._taker: asyncio.Future[None] | None = None
        self._putters: deque[asyncio.Future[None]] = deque()
        self._unfinished = 0
        self._all_done = asyncio.Event()
        self._all_done.set()

    def __len__(self) -> int:
        return len(self._items)

    async def put(self, item: Item) -> None:
        """Queue ``item``, first waiting while the queue is full."""
        while len(self._items) >= self.maxsize:
            space: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._putters.append(space)
            try:
                await space
            except asyncio.CancelledError:
                self._wake_putters()  # the room it was woken for goes to the next one
                raise
        self._items.append(item)
        self._unfinished += 1
        self._all_done.clear()
        taker = self._taker
        if taker is not None and not taker.done():
            taker.set_result(None)

    async def take(self, limit: int) -> list[Item]:
        """The items queued, oldest first, at most ``limit``; waits while there is none."""
        while not self._items:
            self._taker = asyncio.get_running_loop().create_future()
            try:
                await self._taker
            finally:
                self._taker = None
        items = self._items
        if len(items) <= limit:
            batch = list(items)
            items.clear()
        else:
            batch = [items.popleft() for _ in range(limit)]
        self._wake_putters()
        return batch

    def finished(self, count: int) -> None:
        """``count`` items taken are dealt with."""
        self._unfinished -= count
        if self._unfinished <= 0:
            self._all_done.set()

    async def join(self) -> None:
        """Wait until every item queued has been taken and dealt with."""
        await self._all_done.wait()

    def _wake_putters(self) -> None:
        room = self.maxsize - len(self._items)
        while room > 0 and self._putters:
            space = self._putters.popleft()
            if not space.done():
                space.set_result(None)
                room -= 1


OnCommitted = Callable[[list[EventItem], list[tuple[FinishItem, bool]]], None]
OnFailed = Callable[[str, BaseException], None]


@dataclass
class LogWriter:
    """Group-committing writer of ``db``'s run log (see the module's doc). Starts on the first ``put``.

    ``on_committed(events, finished)``: after each commit, the events written (in order) and each run
    end with whether it applied; ``on_failed(run_id, exc)``: a run's writes failed for good.
    """

    db: Database
    on_committed: OnCommitted
    on_failed: OnFailed
    max_queue: int = DEFAULT_MAX_QUEUE
    max_batch: int = DEFAULT_MAX_BATCH
    retry_for_s: float = RETRY_FOR_S
    broken: dict[str, int] = field(default_factory=dict)  # run id -> last committed seq
    committed: dict[str, int] = field(default_factory=dict)  # run id -> last committed seq
    _queued: dict[str, int] = field(default_factory=dict)  # run id -> last queued seq
    dropped: set[str] = field(default_factory=set)  # runs deleted: nothing of theirs is written any more
    _writing: bool = False
    _queue: WriteQueue | None = None
    _task: asyncio.Task[None] | None = None
    _batch_done: asyncio.Event = field(default_factory=asyncio.Event)
    _sqlite: SqliteTransactions | None = None
    _conn: AsyncConnection | None = None

    def _ensure_started(self) -> WriteQueue:
        queue, task = self._queue, self._task
        if queue is not None and task is not None and not task.done():
            return queue
        if queue is None:
            queue = self._queue = WriteQueue(self.max_queue)
        if self._sqlite is None and SqliteTransactions.usable(self.db):
            tables = {"runs": RUNS, "run_workers": RUN_WORKERS, "run_events": EVENTS}
            self._sqlite = SqliteTransactions(
                self.db, FINISH, RELEASE, tables, {"b_at": RUNS.c.finished_at.type}
            )
        self._task = asyncio.create_task(self._loop(), name="run-log-writer")
        return queue

    async def put(self, item: Item) -> None:
        """Queue ``item`` (waits while the queue is full). Raises :class:`RunLogFailed` for an event of
        a broken run."""
        if item.run_id in self.dropped or (item.run_id in self.broken and not getattr(item, "closing", True)):
            raise RunLogFailed(item.run_id)
        queue = self._ensure_started()
        await queue.put(item)  # suspends only while the queue is full
        if isinstance(item, EventItem):
            self._queued[item.run_id] = item.seq
            if yields_after(item.seq):
                await asyncio.sleep(0)

    async def create(self, run: dict[str, Any], worker: dict[str, Any]) -> asyncio.Future[bool]:
        """Queue a new run's rows; return the future that resolves once they are committed (or raises
        the store's error)."""
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self.committed[run["id"]] = 0
        await self.put(CreateItem(run["id"], run, worker, done))
        return done

    async def finish(
        self, run_id: str, status: str, error: str | None, last_seq: int, *, closing: bool = False
    ) -> bool:
        """Write a run's end after everything queued before it; True when the run was still running.
        Raises :class:`RunLogFailed` when the run is broken (and this is not its ``closing`` end)."""
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        await self.put(FinishItem(run_id, status, error, last_seq, done, closing))
        return await done

    async def settle(self, run_id: str) -> None:
        """Wait until every event of ``run_id`` queued so far is committed (or the run is broken)."""
        target = self._queued.get(run_id, 0)
        while self.committed.get(run_id, target) < target and not (
            run_id in self.broken or run_id in self.dropped
        ):
            await self._batch_done.wait()

    def track(self, run_id: str) -> None:
        """Follow a run whose rows were committed elsewhere (:meth:`RunManager.reserve`)."""
        self.committed.setdefault(run_id, 0)

    async def drop(self, run_ids: list[str]) -> None:
        """Write nothing more of ``run_ids`` (being deleted), and return once the batch being written,
        if any, is over: after that, nothing of theirs reaches the store."""
        self.dropped.update(run_ids)
        while self._writing:
            await self._batch_done.wait()

    def forget(self, run_id: str) -> None:
        """Drop what is known of a run that has ended in this process."""
        for known in (self.broken, self.committed, self._queued):
            known.pop(run_id, None)
        self.dropped.discard(run_id)

    async def close(self) -> None:
        """Write what is queued, then stop."""
        if self._queue is not None and self._task is not None and not self._task.done():
            await self._queue.join()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._sqlite is not None:
            self._sqlite.close()
            self._sqlite = None
        await self._drop_connection()

    async def _loop(self) -> None:
        queue = self._queue
        assert queue is not None
        while True:
            batch = await queue.take(self.max_batch)
            self._writing = True
            try:
                await self._write(batch)
            except Exception:  # the writer must outlive any batch
                log.exception("run log writer: a batch of %d items was lost", len(batch))
                for item in batch:
                    self._fail_item(item, RunLogFailed(item.run_id))
            finally:
                self._writing = False
                queue.finished(len(batch))
                done, self._batch_done = self._batch_done, asyncio.Event()
                done.set()

    async def _write(self, batch: list[Item]) -> None:
        batch = [i for i in batch if self._writable(i)]
        if not batch:
            return
        try:
            finished = await self._commit(batch)
        except Exception as exc:
            runs = list(dict.fromkeys(i.run_id for i in batch))
            if len(runs) > 1 and not transient(exc):  # find the runs at fault: write each on its own
                for run_id in runs:
                    await self._write([i for i in batch if i.run_id == run_id])
                return
            log.error("run log: writes of run(s) %s failed: %r", ", ".join(runs), exc)
            for run_id in runs:
                self.broken.setdefault(run_id, self.committed.get(run_id, 0))
            for item in batch:
                self._fail_item(item, exc)
            for run_id in runs:
                self.on_failed(run_id, exc)
            return
        events = [i for i in batch if isinstance(i, EventItem)]
        for ev in events:
            self.committed[ev.run_id] = ev.seq
        for item in batch:
            if isinstance(item, CreateItem) and not item.done.done():
                item.done.set_result(True)
        for item, _applied in finished:
            self.committed.pop(item.run_id, None)
            self._queued.pop(item.run_id, None)
            self.broken.pop(item.run_id, None)
        self.on_committed(events, finished)
        for item, applied in finished:
            if not item.done.done():
                item.done.set_result(applied)

    def _writable(self, item: Item) -> bool:
        """False for a deleted run's item, and for a broken run's that is not part of its closing (its
        future fails)."""
        if item.run_id not in self.dropped and (
            item.run_id not in self.broken or getattr(item, "closing", True)
        ):
            return True
        self._fail_item(item, RunLogFailed(item.run_id))
        return False

    @staticmethod
    def _fail_item(item: Item, exc: BaseException) -> None:
        done = getattr(item, "done", None)
        if done is not None and not done.done():
            done.set_exception(exc)

    async def _commit(self, batch: list[Item]) -> list[tuple[FinishItem, bool]]:
        now = utcnow()
        writes = Writes(
            runs=[i.run for i in batch if isinstance(i, CreateItem)],
            workers=[i.worker for i in batch if isinstance(i, CreateItem)],
            events=[
                {"run_id": i.run_id, "seq": i.seq, "type": i.type, "payload": i.data, "created_at": now}
                for i in batch
                if isinstance(i, EventItem)
            ],
            finishes=[
                {
                    "b_id": i.run_id,
                    "b_status": i.status,
                    "b_error": i.error,
                    "b_last": i.last_seq,
                    "b_at": now,
                }
                for i in batch
                if isinstance(i, FinishItem)
            ],
        )
        try:
            applied = await self._write_once(writes)
        except Exception as exc:
            if not transient(exc):
                raise
            # retried as a whole (nothing was committed); the retry machinery only now, off the usual path
            async for attempt in retrying(self.retry_for_s):
                with attempt:
                    applied = await self._write_once(writes)
        return list(zip([i for i in batch if isinstance(i, FinishItem)], applied, strict=True))

    async def _write_once(self, writes: Writes) -> list[bool]:
        """One transaction: on a SQLite file one call to the writer's own thread
        (:mod:`.sqlite_writer`), elsewhere through the async engine."""
        if self._sqlite is not None:
            return await self._sqlite.write(writes)
        if self._conn is None:  # the writer's own connection: no pool check-out (and ping) per batch
            self._conn = await self.db.engine.connect()
        try:
            async with self._conn.begin():
                return await self._conn.run_sync(apply_writes, writes)
        except BaseException:
            await self._drop_connection()
            raise

    async def _drop_connection(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                await conn.close()


@dataclass(slots=True)
class Writes:
    """The rows of one transaction: new runs and their worker rows, events, run ends (``b_*`` keys)."""

    runs: list[dict[str, Any]]
    workers: list[dict[str, Any]]
    events: list[dict[str, Any]]
    finishes: list[dict[str, Any]]


FINISH = (
    update(RUNS)
    .where(RUNS.c.id == bindparam("b_id"), RUNS.c.status == "running")
    .values(status=bindparam("b_status"), error=bindparam("b_error"), last_seq=bindparam("b_last"))
    .values(finished_at=bindparam("b_at"))
)


# an ended run frees the session it held (one turn at a time per session)
RELEASE = update(SESSIONS).where(SESSIONS.c.active_run_id == bindparam("b_id")).values(active_run_id=None)


def apply_writes(conn: Connection, writes: Writes) -> list[bool]:
    """Execute ``writes`` on ``conn`` (inside its transaction): Core ``executemany`` inserts, then one
    guarded UPDATE per run end and the release of the sessions they held; return, per run end, whether
    the run was still running."""
    if writes.runs:
        conn.execute(insert(RUNS), writes.runs)
        conn.execute(insert(RUN_WORKERS), writes.workers)
    if writes.events:
        conn.execute(insert(EVENTS), writes.events)
    applied = [conn.execute(FINISH, f).rowcount == 1 for f in writes.finishes]
    if writes.finishes:
        conn.execute(RELEASE, [{"b_id": f["b_id"]} for f in writes.finishes])
    return applied
