"""Runs: background execution of a streamed request, its event log, replay and live tail, cancel.

A run's events are appended to the log (``run_events``) *before* subscribers are woken, each with a
dense per-run ``seq``. A subscriber reads the log after the last ``seq`` it has, then waits for the
broker; so the hand-over from replay to live neither loses nor repeats an event. The HTTP connection
only tails the log: a client disconnect does not stop the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from sqlalchemy import delete, update
from sqlmodel import select

from vent_agent.runs.broker import InProcessBroker
from vent_agent.store.db import Database
from vent_agent.store.models import EventRow, RunRow, utcnow

log = logging.getLogger(__name__)

TERMINAL = {"done", "failed", "cancelled"}
TOKEN_MERGE_S = 0.05


@dataclass
class StoredEvent:
    """An event read back from the log."""

    seq: int
    type: str
    payload: dict[str, Any]


class RunCancelled(Exception):
    """Raised inside a run's task when the run was cancelled."""


@dataclass
class Emitter:
    """Appends a run's events to the log. Consecutive ``token`` events of one source are merged for at
    most 50 ms before they are numbered (never after)."""

    manager: RunManager
    run_id: str
    seq: int = 0
    _pending: dict[str, Any] | None = None
    _pending_at: float = 0.0
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    _timer: asyncio.Task[None] | None = None
    saw_done: bool = False
    saw_error: bool = False

    async def emit(self, type_: str, **fields: Any) -> None:
        """Append one event ``{"type": type_, **fields}``."""
        payload = {"type": type_, **fields}
        async with self._lock:
            loop = asyncio.get_running_loop()
            if type_ == "token":
                p = self._pending
                if p is not None and p.get("source") == payload.get("source"):
                    p["content"] += payload.get("content", "")
                    if loop.time() - self._pending_at >= TOKEN_MERGE_S:
                        await self._flush()
                    return
                await self._flush()
                self._pending = payload
                self._pending_at = loop.time()
                self._timer = asyncio.create_task(self._flush_later())
                return
            await self._flush()
            await self._append(payload)
            if type_ == "done":
                self.saw_done = True
            elif type_ == "error":
                self.saw_error = True

    async def _flush_later(self) -> None:
        await asyncio.sleep(TOKEN_MERGE_S)
        async with self._lock:
            await self._flush()

    async def flush(self) -> None:
        """Write a pending merged token event, if any."""
        async with self._lock:
            await self._flush()

    async def _flush(self) -> None:
        if self._pending is not None:
            pending, self._pending = self._pending, None
            await self._append(pending)

    async def _append(self, payload: dict[str, Any]) -> None:
        self.seq += 1
        payload = {**payload, "seq": self.seq, "run_id": self.run_id}
        await self.manager.append_event(self.run_id, self.seq, payload)


RunBody = Callable[[Emitter], Awaitable[None]]


class RunManager:
    """Starts runs as background tasks and serves their events from the log."""

    def __init__(self, db: Database, broker: InProcessBroker | None = None, poll_s: float = 1.0) -> None:
        self.db = db
        self.broker = broker or InProcessBroker()
        self.poll_s = poll_s
        self._tasks: dict[str, asyncio.Task[None]] = {}

    async def start(
        self,
        kind: str,
        body: RunBody,
        *,
        session_id: str | None = None,
        user_name: str | None = None,
        done_fields: Callable[[str], dict[str, Any]] | None = None,
    ) -> str:
        """Record a run and execute ``body(emitter)`` in the background; return the run id.

        If ``body`` raises, an ``error`` event (Chinese message) and a ``done`` event are appended and the
        run is marked failed; if it returns without a ``done`` event, one is appended with
        ``done_fields(run_id)``.
        """
        run_id = secrets.token_urlsafe(18)
        async with self.db.session() as s:
            s.add(RunRow(id=run_id, kind=kind, session_id=session_id, user_name=user_name))
            await s.commit()
        emitter = Emitter(self, run_id)
        task = asyncio.create_task(self._execute(run_id, body, emitter, done_fields), name=f"run-{run_id}")
        self._tasks[run_id] = task
        task.add_done_callback(lambda _t: self._tasks.pop(run_id, None))
        return run_id

    async def _execute(
        self,
        run_id: str,
        body: RunBody,
        emitter: Emitter,
        done_fields: Callable[[str], dict[str, Any]] | None,
    ) -> None:
        status, error = "done", None
        try:
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
            if not emitter.saw_done:
                await emitter.emit("done", **(done_fields(emitter.run_id) if done_fields else {}))
                await emitter.flush()
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
        """Write one event to the log, then wake the run's subscribers."""
        async with self.db.session() as s:
            s.add(
                EventRow(
                    run_id=run_id,
                    seq=seq,
                    type=str(payload.get("type")),
                    payload=json.dumps(payload, ensure_ascii=False),
                )
            )
            await s.exec(update(RunRow).where(RunRow.id == run_id).values(last_seq=seq))
            await s.commit()
        self.broker.publish(run_id)

    async def _finish(self, run_id: str, status: str, error: str | None, last_seq: int) -> None:
        async with self.db.session() as s:
            await s.exec(
                update(RunRow)
                .where(RunRow.id == run_id)
                .values(status=status, error=error, finished_at=utcnow(), last_seq=last_seq)
            )
            await s.commit()
        self.broker.publish(run_id)

    async def get(self, run_id: str) -> RunRow | None:
        """The run's row, or None."""
        async with self.db.session() as s:
            return await s.get(RunRow, run_id)

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
        """Replay the run's events after ``after``, then tail it live until it ends."""
        last = after
        while True:
            waiter = self.broker.listen(run_id)
            try:
                batch = await self.events_after(run_id, last)
                for ev in batch:
                    last = ev.seq
                    yield ev
                if batch:
                    continue
                run = await self.get(run_id)
                if run is None or (run.status in TERMINAL and last >= run.last_seq):
                    return
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(waiter.wait(), self.poll_s)
            finally:
                self.broker.unlisten(run_id, waiter)

    async def cancel(self, run_id: str) -> bool:
        """Cancel a running run of this worker; False when it is not running here."""
        task = self._tasks.get(run_id)
        if task is None or task.done():
            return False
        task.cancel()
        return True

    async def wait(self, run_id: str) -> None:
        """Wait for a run of this worker to finish (tests, CLI)."""
        task = self._tasks.get(run_id)
        if task is not None:
            await asyncio.gather(task, return_exceptions=True)

    async def purge_older_than(self, kinds: set[str], age: timedelta) -> int:
        """Delete finished runs of ``kinds`` (and their events) older than ``age``; return how many."""
        cutoff = utcnow() - age
        async with self.db.session() as s:
            rows = await s.exec(
                select(RunRow.id).where(
                    RunRow.kind.in_(kinds), RunRow.status.in_(TERMINAL), RunRow.created_at < cutoff
                )
            )
            ids = list(rows)
            if ids:
                await s.exec(delete(EventRow).where(EventRow.run_id.in_(ids)))
                await s.exec(delete(RunRow).where(RunRow.id.in_(ids)))
                await s.commit()
        return len(ids)

    async def shutdown(self) -> None:
        """Cancel the runs still executing (they are recorded as cancelled)."""
        tasks = list(self._tasks.values())
        for t in tasks:
            t.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
