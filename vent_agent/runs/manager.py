"""Runs: background execution of a streamed request, its event log, cancel and deletion. The reading
side (replay, live tail, waiting for a run's end) is :mod:`.reader`, the base of :class:`RunManager`.

A run's events go to the process' one log writer (:mod:`.log_writer`), which commits whatever is queued
in one transaction; each event carries a dense per-run ``seq`` and is delivered only after its batch
committed: to this process' subscribers from the run's in-memory tail (:mod:`.tail`), to the others and
to replays from the log. The HTTP connection only tails the run: a client disconnect does not stop it.

Several workers may share one database: each run records the worker executing it (``run_workers``), a
subscriber on any worker tails any run (the broker wakes it across workers, or it polls), and a cancel
asked on any worker reaches the run's own (:meth:`RunManager.request_cancel`). A dead worker's runs are
closed by :meth:`RunManager.fail_lost_run` (called by :mod:`vent_agent.runs.workers`). A run of a session
cut short (cancelled, failed or lost) leaves its assistant turn, streamed so far, in the session's
history (:mod:`.lost_turn`).

One turn at a time per session: a chat, resume or session review run is reserved with ``exclusive=True``
(:meth:`RunManager.reserve`), which records the run and claims ``sessions.active_run_id`` in one
transaction, by a conditional UPDATE that matches only when no other run holds the session (or the one
named has ended). The row lock of that UPDATE decides between concurrent claims on any worker. The run's
end (done, failed, cancelled, or closed as lost) releases the session in the transaction that records it.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections import Counter
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, or_, update
from sqlmodel import col, select

from vent_agent.observability import metrics
from vent_agent.observability.context import bind_run
from vent_agent.runs.broker import Broker
from vent_agent.runs.broker_inprocess import InProcessBroker
from vent_agent.runs.closing import (
    close_lost_run,
    closing_fields,
    interrupted_spans_of,
    release_sessions,
)
from vent_agent.runs.emitter import Emitter
from vent_agent.runs.log_writer import EventItem, FinishItem, LogWriter, RunLogFailed, retrying
from vent_agent.runs.lost_turn import store_lost_turn
from vent_agent.runs.reader import TERMINAL, RunReader, dumps
from vent_agent.runs.tail import DEFAULT_TAIL_BYTES, RunTail, StoredEvent
from vent_agent.runs.worker_models import RunWorkerRow
from vent_agent.runs.workers import new_worker_id
from vent_agent.store.db import Database
from vent_agent.store.models import EventRow, RunRow, SessionRow, row_values, utcnow

if TYPE_CHECKING:
    from vent_agent.runs.retention import RetentionSweep
    from vent_agent.runs.workers import WorkerHeartbeat

log = logging.getLogger(__name__)

LOST_MESSAGE = "处理该请求的服务实例异常退出，运行已中断，请重试"
CANCELLED_MESSAGE = "运行已取消"
FAILED_MESSAGE = "处理过程中发生内部错误，请稍后重试"
TAIL_LINGER_S = 10.0
LOG_FAILED_MESSAGE = "运行事件无法写入日志，运行已中断，请重试"


class SessionBusy(Exception):
    """The session already has a turn in progress (a chat, resume or review run still running on it)."""


class RunCancelled(Exception):
    """Raised inside a run's task when the run was cancelled."""


RunBody = Callable[[Emitter], Awaitable[None]]


class RunManager(RunReader):
    """Starts runs as background tasks, logs their events, cancels and deletes them; serves their events
    as a :class:`~vent_agent.runs.reader.RunReader`.

    ``broker``: wakes subscribers (in-process by default; Redis or NOTIFY across workers); ``poll_s``:
    how often a subscriber of another worker's run re-reads the log when no wake-up comes (s);
    ``worker_id``: this process' id in ``workers``/``run_workers`` (a new one by default);
    ``tail_bytes``: the bound of each local run's in-memory tail (bytes of JSON); ``max_queue``: events
    queued to the log writer before emitters wait.
    """

    def __init__(
        self,
        db: Database,
        broker: Broker | None = None,
        poll_s: float = 1.0,
        *,
        worker_id: str | None = None,
        tail_bytes: int = DEFAULT_TAIL_BYTES,
        max_queue: int | None = None,
    ) -> None:
        worker_id = worker_id or (broker.origin if broker is not None and broker.origin else new_worker_id())
        super().__init__(db, broker or InProcessBroker(worker_id), poll_s)
        self.worker_id = worker_id
        self.broker.on_cancel(self._cancel_task)
        self.tail_bytes = tail_bytes
        self.writer = LogWriter(db, on_committed=self._committed, on_failed=self._log_failed)
        if max_queue:
            self.writer.max_queue = max_queue
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._kinds: dict[str, str] = {}
        self._started: set[str] = set()
        self._cancel_before_start: set[str] = set()
        self.heartbeat: WorkerHeartbeat | None = None  # set by runs.lifecycle.open_runs
        self.retention: RetentionSweep | None = None
        self.finish_listeners: list[Callable[[str], None]] = []
        """Called with a run's id once its end is recorded (the provenance graph's recorder); they must
        return at once and never raise (an exception is logged)."""

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
        thread_id: str | None = None,
        exclusive: bool = False,
    ) -> str:
        """Record a run (and this worker as its executor) before it starts; return its id. Start it with
        ``start(..., run_id=…)`` or drop it with :meth:`abandon`. ``thread_id``: the turn's LangGraph
        thread, for a run whose ``done`` carries another thread than the run id (a chat turn).

        ``exclusive``: the run is the session's turn; it claims ``sessions.active_run_id`` in the same
        transaction, where the session holds no run or only one that has ended. Raises
        :class:`SessionBusy` (nothing recorded) when another run holds the session.
        """
        run_id = secrets.token_urlsafe(18)
        async for attempt in retrying():
            with attempt:
                async with self.db.session() as s:
                    s.add(
                        RunRow(
                            id=run_id,
                            kind=kind,
                            session_id=session_id,
                            user_name=user_name,
                            thread_id=thread_id,
                        )
                    )
                    s.add(RunWorkerRow(run_id=run_id, worker_id=self.worker_id))
                    await s.flush()
                    if exclusive and session_id is not None:
                        ended = select(RunRow.id).where(col(RunRow.status).in_(TERMINAL))
                        claimed = await s.exec(
                            update(SessionRow)
                            .where(
                                col(SessionRow.id) == session_id,
                                or_(
                                    col(SessionRow.active_run_id).is_(None),
                                    col(SessionRow.active_run_id).in_(ended),
                                ),
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
        thread_id: str | None = None,
        done_fields: Callable[[str], dict[str, Any]] | None = None,
        run_id: str | None = None,
    ) -> str:
        """Record a run (and this worker as its executor), unless ``run_id`` names one :meth:`reserve`
        recorded, and execute ``body(emitter)`` in the background; return the run id once the run's rows
        are committed (raises the store's error when they cannot be). ``thread_id`` as for
        :meth:`reserve`.

        If ``body`` raises, an ``error`` event (Chinese message) and a ``done`` event are appended and the
        run is marked failed; if it returns without a ``done`` event, one is appended with
        ``done_fields(run_id)``.
        """
        reserved = run_id is not None
        run_id = run_id or secrets.token_urlsafe(18)
        run = row_values(
            RunRow, id=run_id, kind=kind, session_id=session_id, user_name=user_name, thread_id=thread_id
        )
        worker = row_values(RunWorkerRow, run_id=run_id, worker_id=self.worker_id)
        self._tails[run_id] = RunTail(run_id, self.tail_bytes)
        emitter = Emitter(self, run_id)
        self._kinds[run_id] = kind
        self._closing[run_id] = closing_fields(run_id, session_id, thread_id, done_fields)
        # The body's task is made first, the run's rows then queued: the body runs before the writer
        # wakes, so its first events join the run's rows in one transaction.
        task = asyncio.create_task(
            self._execute(run_id, body, emitter, done_fields, session_id), name=f"run-{run_id}"
        )
        self._tasks[run_id] = task
        task.add_done_callback(lambda _t: self._forget(run_id))
        if reserved:  # its rows are committed already
            self.writer.track(run_id)
            metrics.run_started(kind)
            return run_id
        created = await self.writer.create(run, worker)
        try:
            await created
        except BaseException:  # nothing of the run was written: it never existed
            task.cancel()
            raise
        metrics.run_started(kind)
        return run_id

    def _forget(self, run_id: str) -> None:
        self._tasks.pop(run_id, None)
        self._started.discard(run_id)
        self._cancel_before_start.discard(run_id)
        self._kinds.pop(run_id, None)
        self._closing.pop(run_id, None)
        self.writer.forget(run_id)
        tail = self._tails.get(run_id)
        if tail is not None and not tail.ended:  # its end was not logged by this worker: the log says
            tail.end()
            del self._tails[run_id]

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
            status, error = "cancelled", CANCELLED_MESSAGE
            await self._close_with_error(emitter, error, done_fields, cancelled=True)
            await self._keep_cut_turn(run_id, session_id)
        except Exception as exc:  # a run must end with error + done, whatever failed
            log.exception("run %s failed", run_id)
            status, error = "failed", f"处理失败：{type(exc).__name__}: {exc}"
            await self._close_with_error(emitter, FAILED_MESSAGE, done_fields)
            await self._keep_cut_turn(run_id, session_id)
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
        except RunLogFailed:  # the log refused the run: _finish closes it
            pass
        except Exception:  # the log itself failed: nothing more can be recorded
            log.exception("could not record the end of run %s", emitter.run_id)

    async def _keep_cut_turn(self, run_id: str, session_id: str | None) -> None:
        """A session's run cut short by a cancel or a failure: its session's history gets the assistant
        turn streamed so far, with the closing error, unless the run stored its turn itself
        (:func:`~vent_agent.runs.lost_turn.store_lost_turn`). Before the run's end is recorded, so that
        whoever waits for that end (the cancel route) finds the turn. Never raises."""
        if session_id is None or run_id in self.writer.dropped or run_id in self.writer.broken:
            return  # no session; being deleted with it; or its log failed (its end is not logged)
        try:
            events = await self.events_after(run_id, 0, 100_000)
            await store_lost_turn(self.db, self._kinds.get(run_id, ""), session_id, run_id, events)
        except Exception:  # the run must still end; its history turn is a convenience
            log.exception("could not store the assistant turn of cut run %s", run_id)

    async def append_event(
        self, run_id: str, seq: int, payload: dict[str, Any], data: str | None = None
    ) -> None:
        """Queue one event for the log and return (waiting only while the writer's queue is full). It
        reaches subscribers, here and in every worker, once its batch has committed.

        ``payload``: the event including ``seq`` and ``run_id``; ``data``: its JSON as made by
        :func:`dumps`, when the caller has it already (it is then logged and sent as it is). Raises
        :class:`RunLogFailed` when the run's earlier writes failed for good.
        """
        await self.writer.put(
            EventItem(run_id, seq, str(payload.get("type")), data if data is not None else dumps(payload))
        )

    def _committed(self, events: list[EventItem], finished: list[tuple[FinishItem, bool]]) -> None:
        """After a commit: feed the local tails, count, wake subscribers here and in other workers."""
        runs: dict[str, list[StoredEvent]] = {}
        for ev in events:
            runs.setdefault(ev.run_id, []).append(StoredEvent(ev.seq, ev.type, ev.data))
        for run_id, stored in runs.items():
            tail = self._tails.get(run_id)
            if tail is not None:
                tail.add(stored)
        for type_, count in Counter(ev.type for ev in events).items():
            metrics.event_appended(type_, count)
        for item, applied in finished:
            tail = self._tails.get(item.run_id)
            if tail is None:
                continue
            tail.end()
            if applied:  # kept a while for subscribers arriving just after the end
                asyncio.get_running_loop().call_later(TAIL_LINGER_S, self._drop_tail, item.run_id, tail)
            else:  # another worker closed the run (taken for dead): the log has its end, not the tail
                del self._tails[item.run_id]
        self.broker.publish_soon([*runs, *(item.run_id for item, _ in finished if item.run_id not in runs)])

    def _drop_tail(self, run_id: str, tail: RunTail) -> None:
        if self._tails.get(run_id) is tail:
            del self._tails[run_id]

    def _log_failed(self, run_id: str, exc: BaseException) -> None:
        """A run's writes failed for good: stop its body (its end is then written by :meth:`_finish`)."""
        log.error("run %s: its events could not be logged (%s); it is ended", run_id, exc)
        task = self._tasks.get(run_id)
        if task is not None and run_id in self._started and task.cancelling() == 0:
            task.cancel()

    async def _finish(self, run_id: str, status: str, error: str | None, last_seq: int) -> None:
        """Write the run's end after its last event; a broken run (its log writes failed) gets an
        ``error`` and a ``done`` after its last committed event and ends failed. Never raises."""
        kind = self._kinds.get(run_id, "unknown")
        try:
            try:
                applied = await self.writer.finish(run_id, status, error, last_seq)
            except RunLogFailed:
                if run_id in self.writer.dropped:  # deleted with its session: nothing to record
                    metrics.run_ended(kind, None)
                    return
                status, error = "failed", LOG_FAILED_MESSAGE
                applied = await self._close_broken(run_id)
        except Exception:  # the store is gone: local subscribers end at what was logged (_forget)
            log.exception("could not record the end of run %s", run_id)
            metrics.run_ended(kind, None)
            return
        # not applied: the run was already closed as lost (this worker was taken for dead)
        metrics.run_ended(kind, status if applied else None)
        if applied:
            self._ended(run_id)

    def _ended(self, run_id: str) -> None:
        """Tell the :attr:`finish_listeners` that ``run_id``'s end is recorded."""
        for listener in self.finish_listeners:
            try:
                listener(run_id)
            except Exception:  # a listener never stops a run's end
                log.exception("run %s: end listener failed", run_id)

    async def _close_broken(self, run_id: str) -> bool:
        """Close a run whose log writes failed: after its last committed event, an ``agent_done`` (中断)
        for each agent span left open there, ``error`` and ``done``; it ends failed."""
        last = self.writer.broken.get(run_id, 0)
        try:
            async with self.db.session() as s:
                spans = await interrupted_spans_of(s, run_id, last)
        except Exception:  # the store cannot be read: the run still gets its error and done
            log.exception("could not read the agent spans of run %s", run_id)
            spans = []
        fields: list[dict[str, Any]] = [
            *spans,
            {"type": "error", "message": LOG_FAILED_MESSAGE},
            {"type": "done", **self._closing.get(run_id, {}), "message": LOG_FAILED_MESSAGE},
        ]
        for i, f in enumerate(fields, start=1):
            data = dumps({**f, "seq": last + i, "run_id": run_id})
            await self.writer.put(EventItem(run_id, last + i, f["type"], data, closing=True))
        return await self.writer.finish(
            run_id, "failed", LOG_FAILED_MESSAGE, last + len(fields), closing=True
        )

    async def fail_lost_run(self, run_id: str, message: str = LOST_MESSAGE) -> bool:
        """Close a running run whose worker died: append an ``agent_done`` (中断) for each agent span its
        log left open (:func:`~vent_agent.runs.agent_span.interrupted_spans`), ``error`` then ``done``
        (with the fields of its kind's ``done``: :func:`~vent_agent.runs.closing.closing_done_fields`)
        after the last logged event and mark it failed, in one transaction; a run of a session then gets its assistant turn
        (what was streamed, with the error) in the session's history. False when it is no longer running
        (another worker closed it first)."""
        async with self.db.session() as s:
            closed = await close_lost_run(s, run_id, message)
            if closed is None:
                await s.rollback()
                return False
            run, fields_list = closed
            kind, session_id = run.kind, run.session_id
            await s.commit()
        for fields in fields_list:
            metrics.event_appended(fields["type"])
        metrics.run_ended(kind, "lost", local=False)
        log.warning("run %s closed as failed: its worker is gone", run_id)
        await self.broker.publish(run_id)
        if session_id is not None:
            try:
                events = await self._read_log(run_id, 0, 100_000)
                await store_lost_turn(self.db, kind, session_id, run_id, events)
            except Exception:  # the run is closed; its history turn is a convenience
                log.exception("could not store the assistant turn of lost run %s", run_id)
        self._ended(run_id)
        return True

    async def events_after(self, run_id: str, after: int, limit: int = 500) -> list[StoredEvent]:
        """Logged events of ``run_id`` with ``seq > after``, in order. For a run of this process, what
        it has queued so far is committed first (a run body reading its own events back sees them all)."""
        await self.writer.settle(run_id)
        return await self._read_log(run_id, after, limit)

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
                update(RunWorkerRow).where(col(RunWorkerRow.run_id) == run_id).values(cancel_requested=True)
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

    async def delete_runs(self, run_ids: list[str]) -> None:
        """Delete runs with their events and worker records (session deletion, retention), freeing the
        sessions they held."""
        if not run_ids:
            return
        for run_id in run_ids:
            tail = self._tails.pop(run_id, None)
            if tail is not None:
                tail.deleted = True
                tail.end()
        await self.writer.drop([r for r in run_ids if r in self._tasks])
        async with self.db.session() as s:
            await s.exec(release_sessions(run_ids))
            await s.exec(delete(EventRow).where(col(EventRow.run_id).in_(run_ids)))
            await s.exec(delete(RunWorkerRow).where(col(RunWorkerRow.run_id).in_(run_ids)))
            await s.exec(delete(RunRow).where(col(RunRow.id).in_(run_ids)))
            await s.commit()

    async def purge_older_than(self, kinds: set[str] | frozenset[str], age: timedelta) -> int:
        """Delete finished runs of ``kinds`` (and their events) created more than ``age`` ago; return
        how many."""
        cutoff = utcnow() - age
        async with self.db.session() as s:
            rows = await s.exec(
                select(RunRow.id).where(
                    col(RunRow.kind).in_(kinds), col(RunRow.status).in_(TERMINAL), RunRow.created_at < cutoff
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
        await self.writer.close()
