"""Runs: background execution of a streamed request, its event log, replay and live tail, cancel.

A run's events are appended to the log (``run_events``) *before* subscribers are woken, each with a
dense per-run ``seq``. A subscriber reads the log after the last ``seq`` it has, then waits for the
broker; so the hand-over from replay to live neither loses nor repeats an event. The HTTP connection
only tails the log: a client disconnect does not stop the run.

Several workers may share one database: each run records the worker executing it (``run_workers``), a
subscriber on any worker tails any run (the broker wakes it across workers, or it polls), and a cancel
asked on any worker reaches the run's own (:meth:`RunManager.request_cancel`). A dead worker's runs are
closed by :meth:`RunManager.fail_lost_run` (called by :mod:`vent_agent.runs.workers`).

One turn at a time per session: a chat or resume run is reserved with ``exclusive=True``
(:meth:`RunManager.reserve`), which records the run and claims ``sessions.active_run_id`` in one
transaction, by a conditional UPDATE that matches only when no other run holds the session (or the one
named has ended). The row lock of that UPDATE decides between concurrent claims on any worker. The run's
end (done, failed, cancelled, or closed as lost) releases the session in the transaction that records it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, func, or_, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlmodel import select
from tenacity import AsyncRetrying, retry_if_exception, stop_after_delay, wait_random_exponential

from vent_agent.observability import metrics
from vent_agent.observability.context import bind_run
from vent_agent.runs.broker import InProcessBroker
from vent_agent.runs.emitter import Emitter
from vent_agent.runs.tables import RunWorkerRow
from vent_agent.runs.workers import new_worker_id
from vent_agent.store.db import Database
from vent_agent.store.models import EventRow, RunRow, SessionRow, utcnow

if TYPE_CHECKING:
    from vent_agent.runs.retention import RetentionSweep
    from vent_agent.runs.workers import WorkerHeartbeat

log = logging.getLogger(__name__)

TERMINAL = {"done", "failed", "cancelled"}
LOST_MESSAGE = "处理该请求的服务实例异常退出，运行已中断，请重试"
DELETED_MESSAGE = "该运行所属的会话已被删除，运行已终止"


@dataclass
class StoredEvent:
    """An event read back from the log."""

    seq: int
    type: str
    payload: dict[str, Any]


class SessionBusy(Exception):
    """The session already has a turn in progress (a chat or resume run still running on it)."""


def _release(run_ids: list[str]) -> Any:
    """The UPDATE that frees the sessions held by ``run_ids``."""
    return update(SessionRow).where(SessionRow.active_run_id.in_(run_ids)).values(active_run_id=None)


def _deleted_end(run_id: str, run: RunRow | None, last: int, last_type: str) -> list[StoredEvent]:
    """The end a subscriber gives a run deleted before it read the logged one: ``error`` (unless the
    last event read was one) then ``done``, numbered on after ``last``."""
    types = (["error"] if last_type != "error" else []) + ["done"]
    out = []
    for i, type_ in enumerate(types, start=1):
        fields: dict[str, Any] = {"message": DELETED_MESSAGE}
        if type_ == "done":
            fields["session_id"] = run.session_id if run is not None else None
        out.append(StoredEvent(last + i, type_, {"type": type_, **fields, "seq": last + i, "run_id": run_id}))
    return out


class RunCancelled(Exception):
    """Raised inside a run's task when the run was cancelled."""


RunBody = Callable[[Emitter], Awaitable[None]]


def _transient(exc: BaseException) -> bool:
    """SQLite's write lock not obtained in time, or no pooled connection free in time."""
    return isinstance(exc, PoolTimeout) or (isinstance(exc, OperationalError) and "locked" in str(exc))


def _retrying() -> AsyncRetrying:
    """Retry a log write that met a transient store error (nothing is committed when one fails)."""
    return AsyncRetrying(
        retry=retry_if_exception(_transient),
        stop=stop_after_delay(30),
        wait=wait_random_exponential(0.05, 1),
        reraise=True,
    )


class RunManager:
    """Starts runs as background tasks and serves their events from the log.

    ``broker``: wakes subscribers (in-process by default; Redis or NOTIFY across workers); ``poll_s``:
    how often a subscriber re-reads the log when no wake-up comes (s); ``worker_id``: this process'
    id in ``workers``/``run_workers`` (a new one by default).
    """

    def __init__(
        self,
        db: Database,
        broker: InProcessBroker | None = None,
        poll_s: float = 1.0,
        *,
        worker_id: str | None = None,
    ) -> None:
        self.db = db
        self.worker_id = worker_id or (
            broker.origin if broker is not None and broker.origin else new_worker_id()
        )
        self.broker = broker or InProcessBroker(self.worker_id)
        self.broker.on_cancel(self._cancel_task)
        self.poll_s = poll_s
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._kinds: dict[str, str] = {}
        self._started: set[str] = set()
        self._cancel_before_start: set[str] = set()
        self.heartbeat: WorkerHeartbeat | None = None  # set by runs.lifecycle.open_runs
        self.retention: RetentionSweep | None = None

    @property
    def local_run_ids(self) -> list[str]:
        """Ids of the runs executing in this worker."""
        return list(self._tasks)

    async def reserve(
        self,
        kind: str,
        *,
        session_id: str | None = None,
        user_name: str | None = None,
        exclusive: bool = False,
    ) -> str:
        """Record a run (and this worker as its executor) before it starts; return its id. Start it with
        ``start(..., run_id=…)`` or drop it with :meth:`abandon`.

        ``exclusive``: the run is the session's turn; it claims ``sessions.active_run_id`` in the same
        transaction, where the session holds no run or only one that has ended. Raises
        :class:`SessionBusy` (nothing recorded) when another run holds the session.
        """
        run_id = secrets.token_urlsafe(18)
        async for attempt in _retrying():
            with attempt:
                async with self.db.session() as s:
                    s.add(RunRow(id=run_id, kind=kind, session_id=session_id, user_name=user_name))
                    s.add(RunWorkerRow(run_id=run_id, worker_id=self.worker_id))
                    await s.flush()
                    if exclusive and session_id is not None:
                        ended = select(RunRow.id).where(RunRow.status.in_(TERMINAL))
                        claimed = await s.exec(
                            update(SessionRow)
                            .where(
                                SessionRow.id == session_id,
                                or_(SessionRow.active_run_id.is_(None), SessionRow.active_run_id.in_(ended)),
                            )
                            .values(active_run_id=run_id)
                        )
                        if claimed.rowcount != 1:
                            await s.rollback()
                            raise SessionBusy(session_id)
                    await s.commit()
        return run_id

    async def abandon(self, run_id: str) -> None:
        """Drop a reserved run that will not start (the request failed before it), freeing its session."""
        await self.delete_runs([run_id])

    async def start(
        self,
        kind: str,
        body: RunBody,
        *,
        session_id: str | None = None,
        user_name: str | None = None,
        done_fields: Callable[[str], dict[str, Any]] | None = None,
        run_id: str | None = None,
    ) -> str:
        """Record a run (unless ``run_id`` names one :meth:`reserve` recorded) and execute
        ``body(emitter)`` in the background; return the run id.

        If ``body`` raises, an ``error`` event (Chinese message) and a ``done`` event are appended and the
        run is marked failed; if it returns without a ``done`` event, one is appended with
        ``done_fields(run_id)``.
        """
        if run_id is None:
            run_id = await self.reserve(kind, session_id=session_id, user_name=user_name)
        emitter = Emitter(self, run_id)
        self._kinds[run_id] = kind
        metrics.run_started(kind)
        task = asyncio.create_task(
            self._execute(run_id, body, emitter, done_fields, session_id), name=f"run-{run_id}"
        )
        self._tasks[run_id] = task
        task.add_done_callback(lambda _t: self._forget(run_id))
        return run_id

    def _forget(self, run_id: str) -> None:
        self._tasks.pop(run_id, None)
        self._started.discard(run_id)
        self._cancel_before_start.discard(run_id)
        self._kinds.pop(run_id, None)

    async def _execute(
        self,
        run_id: str,
        body: RunBody,
        emitter: Emitter,
        done_fields: Callable[[str], dict[str, Any]] | None,
        session_id: str | None = None,
    ) -> None:
        bind_run(run_id, session_id)
        self._started.add(run_id)
        status, error = "done", None
        try:
            if run_id in self._cancel_before_start:
                raise asyncio.CancelledError
            await body(emitter)
            await emitter.flush()
        except asyncio.CancelledError:
            status, error = "cancelled", "运行已取消"
            await self._close_with_error(emitter, error, done_fields, cancelled=True)
        except Exception as exc:  # a run must end with error + done, whatever failed
            log.exception("run %s failed", run_id)
            status, error = "failed", f"处理失败：{type(exc).__name__}: {exc}"
            await self._close_with_error(emitter, "处理过程中发生内部错误，请稍后重试", done_fields)
        else:
            try:
                if not emitter.saw_done:
                    await emitter.emit("done", **(done_fields(emitter.run_id) if done_fields else {}))
                    await emitter.flush()
            except Exception:  # the closing done could not be logged: the run must still end
                log.exception("could not record the end of run %s", run_id)
                status, error = "failed", "无法记录运行结束事件"
            if emitter.saw_error:
                status = "failed"
        await self._finish(run_id, status, error, emitter.seq)

    async def _close_with_error(
        self,
        emitter: Emitter,
        message: str,
        done_fields: Callable[[str], dict[str, Any]] | None,
        cancelled: bool = False,
    ) -> None:
        try:
            await emitter.flush()
            if not emitter.saw_done:
                await emitter.emit("error", message=message, **({"cancelled": True} if cancelled else {}))
                fields = done_fields(emitter.run_id) if done_fields else {}
                await emitter.emit("done", **{**fields, "message": message})
                await emitter.flush()
        except Exception:  # the log itself failed: nothing more can be recorded
            log.exception("could not record the end of run %s", emitter.run_id)

    async def append_event(self, run_id: str, seq: int, payload: dict[str, Any]) -> None:
        """Write one event to the log, then wake the run's subscribers (in every worker)."""
        type_ = str(payload.get("type"))
        async for attempt in _retrying():
            with attempt:
                async with self.db.session() as s:
                    s.add(
                        EventRow(
                            run_id=run_id,
                            seq=seq,
                            type=type_,
                            payload=json.dumps(payload, ensure_ascii=False),
                        )
                    )
                    await s.exec(update(RunRow).where(RunRow.id == run_id).values(last_seq=seq))
                    await s.commit()
        metrics.event_appended(type_)
        await self.broker.publish(run_id)

    async def _finish(self, run_id: str, status: str, error: str | None, last_seq: int) -> None:
        async for attempt in _retrying():
            with attempt:
                async with self.db.session() as s:
                    result = await s.exec(
                        update(RunRow)
                        .where(RunRow.id == run_id, RunRow.status == "running")
                        .values(status=status, error=error, finished_at=utcnow(), last_seq=last_seq)
                    )
                    await s.exec(_release([run_id]))
                    await s.commit()
        # rowcount 0: the run was already closed as lost (this worker was taken for dead)
        metrics.run_ended(self._kinds.get(run_id, "unknown"), status if result.rowcount else None)
        await self.broker.publish(run_id)

    async def fail_lost_run(self, run_id: str, message: str = LOST_MESSAGE) -> bool:
        """Close a running run whose worker died: append ``error`` then ``done`` after the last logged
        event and mark it failed, in one transaction. False when it is no longer running (another
        worker closed it first)."""
        async with self.db.session() as s:
            result = await s.exec(
                update(RunRow)
                .where(RunRow.id == run_id, RunRow.status == "running")
                .values(status="failed", error="worker lost", finished_at=utcnow())
            )
            if result.rowcount != 1:
                await s.rollback()
                return False
            run = (await s.exec(select(RunRow).where(RunRow.id == run_id))).one()
            last = (await s.exec(select(func.max(EventRow.seq)).where(EventRow.run_id == run_id))).one() or 0
            for seq, fields in (
                (last + 1, {"type": "error", "message": message, "worker_lost": True}),
                (last + 2, {"type": "done", "session_id": run.session_id, "message": message}),
            ):
                payload = {**fields, "seq": seq, "run_id": run_id}
                s.add(
                    EventRow(
                        run_id=run_id,
                        seq=seq,
                        type=fields["type"],
                        payload=json.dumps(payload, ensure_ascii=False),
                    )
                )
            await s.exec(update(RunRow).where(RunRow.id == run_id).values(last_seq=last + 2))
            await s.exec(_release([run_id]))
            kind = run.kind
            await s.commit()
        metrics.event_appended("error")
        metrics.event_appended("done")
        metrics.run_ended(kind, "lost", local=False)
        log.warning("run %s closed as failed: its worker is gone", run_id)
        await self.broker.publish(run_id)
        return True

    async def get(self, run_id: str) -> RunRow | None:
        """The run's row, or None."""
        async with self.db.session() as s:
            return await s.get(RunRow, run_id)

    async def worker_of(self, run_id: str) -> str | None:
        """The id of the worker executing (or that executed) the run, or None."""
        async with self.db.session() as s:
            row = await s.get(RunWorkerRow, run_id)
            return row.worker_id if row else None

    async def events_after(self, run_id: str, after: int, limit: int = 500) -> list[StoredEvent]:
        """Logged events of ``run_id`` with ``seq > after``, in order."""
        async with self.db.session() as s:
            rows = await s.exec(
                select(EventRow)
                .where(EventRow.run_id == run_id, EventRow.seq > after)
                .order_by(EventRow.seq)
                .limit(limit)
            )
            return [StoredEvent(r.seq, r.type, json.loads(r.payload)) for r in rows]

    async def subscribe(self, run_id: str, after: int = 0) -> AsyncIterator[StoredEvent]:
        """Replay the run's events after ``after``, then tail it live until it ends (whichever worker
        executes it). A run deleted under the subscriber (its session deleted) before it read the end
        still ends with ``error`` then ``done`` (not logged: the log is gone)."""
        last, last_type, seen = after, "", await self.get(run_id)
        while True:
            waiter = self.broker.listen(run_id)
            try:
                batch = await self.events_after(run_id, last)
                for ev in batch:
                    last, last_type = ev.seq, ev.type
                    yield ev
                if batch:
                    continue
                run = await self.get(run_id)
                if run is None and seen is not None and last_type != "done":
                    for ev in _deleted_end(run_id, seen, last, last_type):
                        yield ev
                    return
                if run is None or (run.status in TERMINAL and last >= run.last_seq):
                    return
                seen = run
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(waiter.wait(), self.poll_s)
            finally:
                self.broker.unlisten(run_id, waiter)

    def _cancel_task(self, run_id: str) -> bool:
        task = self._tasks.get(run_id)
        if task is None or task.done():
            return False
        if run_id in self._started:
            # once only: a second cancel (the broker's message, then the flag poll) landing while the
            # run records its cancellation would abort that and leave the run "running" for ever
            if task.cancelling() == 0:
                task.cancel()
        else:  # a task cancelled before its first step would never record the cancellation
            self._cancel_before_start.add(run_id)
        return True

    async def cancel(self, run_id: str) -> bool:
        """Cancel a running run of this worker; False when it is not running here."""
        return self._cancel_task(run_id)

    async def request_cancel(self, run_id: str) -> None:
        """Cancel a run wherever it executes: here at once, otherwise through the broker and a flag the
        executing worker also polls (``run_workers.cancel_requested``)."""
        if self._cancel_task(run_id):
            return
        async with self.db.session() as s:
            await s.exec(
                update(RunWorkerRow).where(RunWorkerRow.run_id == run_id).values(cancel_requested=True)
            )
            await s.commit()
        await self.broker.request_cancel(run_id)

    async def cancel_requested_here(self) -> int:
        """Cancel this worker's runs that another worker flagged for cancelling; return how many."""
        if not self._tasks:
            return 0
        async with self.db.session() as s:
            rows = await s.exec(
                select(RunWorkerRow.run_id).where(
                    RunWorkerRow.worker_id == self.worker_id,
                    RunWorkerRow.cancel_requested == True,  # noqa: E712
                )
            )
            ids = list(rows)
        return sum(self._cancel_task(run_id) for run_id in ids)

    async def wait(self, run_id: str) -> None:
        """Wait for a run of this worker to finish (tests, CLI)."""
        task = self._tasks.get(run_id)
        if task is not None:
            await asyncio.gather(task, return_exceptions=True)

    async def wait_ended(self, run_id: str, timeout_s: float) -> RunRow | None:
        """Wait until the run (on any worker) is no longer running, at most ``timeout_s`` (s); return its
        row as it then is (None when unknown)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while True:
            waiter = self.broker.listen(run_id)
            try:
                run = await self.get(run_id)
                remaining = deadline - loop.time()
                if run is None or run.status in TERMINAL or remaining <= 0:
                    return run
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(waiter.wait(), min(self.poll_s, remaining))
            finally:
                self.broker.unlisten(run_id, waiter)

    async def delete_runs(self, run_ids: list[str]) -> None:
        """Delete runs with their events and worker records (session deletion, retention), freeing the
        sessions they held."""
        if not run_ids:
            return
        async with self.db.session() as s:
            await s.exec(_release(run_ids))
            await s.exec(delete(EventRow).where(EventRow.run_id.in_(run_ids)))
            await s.exec(delete(RunWorkerRow).where(RunWorkerRow.run_id.in_(run_ids)))
            await s.exec(delete(RunRow).where(RunRow.id.in_(run_ids)))
            await s.commit()

    async def purge_older_than(self, kinds: set[str] | frozenset[str], age: timedelta) -> int:
        """Delete finished runs of ``kinds`` (and their events) created more than ``age`` ago; return
        how many."""
        cutoff = utcnow() - age
        async with self.db.session() as s:
            rows = await s.exec(
                select(RunRow.id).where(
                    RunRow.kind.in_(kinds), RunRow.status.in_(TERMINAL), RunRow.created_at < cutoff
                )
            )
            ids = list(rows)
        await self.delete_runs(ids)
        return len(ids)

    async def shutdown(self) -> None:
        """Cancel the runs still executing (they are recorded as cancelled)."""
        tasks = list(self._tasks.values())
        for run_id in list(self._tasks):
            self._cancel_task(run_id)
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
