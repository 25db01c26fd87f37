"""The reading side of the run layer: a run's row, its logged events, their replay then live tail, and
waiting for a run's end, whichever worker executes it.

A subscriber reads the log after the last ``seq`` it has, then follows the run's in-memory tail (a run of
this process, :mod:`.tail`) or waits for the broker and reads the log again (a run of another worker,
or one that ended); so the hand-over from replay to live neither loses nor repeats an event.
:class:`RunReader` is the base of :class:`~vent_agent.runs.manager.RunManager`, which executes the runs
and fills the tails read here.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from sqlmodel import col, select

from vent_agent.runs.broker import Broker
from vent_agent.runs.closing import closing_done_fields
from vent_agent.runs.tail import RunTail, StoredEvent
from vent_agent.runs.worker_models import RunWorkerRow
from vent_agent.store.db import Database
from vent_agent.store.models import EventRow, RunRow
from vent_agent.wire import wire_json

TERMINAL = {"done", "failed", "cancelled"}
DELETED_MESSAGE = "该运行所属的会话已被删除，运行已终止"


def dumps(payload: dict[str, Any]) -> str:
    """An event's one-line JSON, as logged and sent: compact, non-ASCII kept (the frame is
    ``data: <this>\\n\\n``; :func:`vent_agent.wire.wire_json`)."""
    return wire_json(payload)


def _deleted_end(run_id: str, closing: dict[str, Any], last: int, last_type: str) -> list[StoredEvent]:
    """The end a subscriber gives a run deleted before it read the logged one: ``error`` (unless the
    last event read was one) then ``done`` with the run's ``closing`` fields (its thread and session),
    numbered on after ``last``."""
    types = (["error"] if last_type != "error" else []) + ["done"]
    out = []
    for i, type_ in enumerate(types, start=1):
        fields: dict[str, Any] = {"message": DELETED_MESSAGE}
        if type_ == "done":
            fields = {**closing, **fields}
        out.append(
            StoredEvent(last + i, type_, dumps({"type": type_, **fields, "seq": last + i, "run_id": run_id}))
        )
    return out


class RunReader:
    """Serves the rows and events of runs from the log, and from the in-memory tails of this process' runs.

    ``broker``: wakes the subscribers of a run when it appends events or ends (and carries cancel
    requests, which :class:`~vent_agent.runs.manager.RunManager` handles); ``poll_s``: how often a
    subscriber of another worker's run re-reads the log when no wake-up comes (s).
    """

    def __init__(self, db: Database, broker: Broker, poll_s: float) -> None:
        self.db = db
        self.broker = broker
        self.poll_s = poll_s
        self._tails: dict[str, RunTail] = {}  # this process' runs (and those ended a moment ago)
        # the thread and session that the done of each run of this process carries (closing_done_fields)
        self._closing: dict[str, dict[str, Any]] = {}

    async def get(self, run_id: str) -> RunRow | None:
        """The run's row, or None."""
        async with self.db.session() as s:
            return await s.get(RunRow, run_id)

    async def worker_of(self, run_id: str) -> str | None:
        """The id of the worker executing (or that executed) the run, or None."""
        async with self.db.session() as s:
            row = await s.get(RunWorkerRow, run_id)
            return row.worker_id if row else None

    async def _read_log(self, run_id: str, after: int, limit: int = 500) -> list[StoredEvent]:
        async with self.db.session() as s:
            rows = await s.exec(
                select(EventRow.seq, EventRow.type, EventRow.payload)
                .where(EventRow.run_id == run_id, EventRow.seq > after)
                .order_by(col(EventRow.seq))
                .limit(limit)
            )
            return [StoredEvent(seq, type_, payload) for seq, type_, payload in rows]

    async def subscribe(self, run_id: str, after: int = 0) -> AsyncIterator[StoredEvent]:
        """Replay the run's events after ``after``, then tail it live until it ends (whichever worker
        executes it). Yields each committed event once, in seq order."""
        async for batch in self.subscribe_batches(run_id, after):
            for ev in batch:
                yield ev

    async def subscribe_batches(self, run_id: str, after: int = 0) -> AsyncIterator[list[StoredEvent]]:
        """As :meth:`subscribe`, the events ready at each step together (non-empty lists)."""
        tail = self._tails.get(run_id)
        if tail is None:
            async for batch in self._subscribe_log(run_id, after):
                yield batch
            return
        last, last_type, closing = after, "", self._closing.get(run_id, {})
        while True:
            ready = tail.after(last)
            if ready is None and not tail.deleted:  # behind the tail's window: catch up from the log
                ready = await self._read_log(run_id, last)
            if ready:
                yield ready
                last, last_type = ready[-1].seq, ready[-1].type
                continue
            if tail.ended:  # nothing after ``last`` and nothing more to come
                if tail.deleted and last_type != "done":
                    yield _deleted_end(run_id, closing, last, last_type)
                return
            await tail.wait(self.poll_s)

    async def _subscribe_log(self, run_id: str, after: int) -> AsyncIterator[list[StoredEvent]]:
        """The tail of a run executing elsewhere (or ended): read the log, wait for the broker, again. A
        run deleted under the subscriber (its session deleted) before it read the end still ends with
        ``error`` then ``done`` (not logged: the log is gone)."""
        last, last_type, seen = after, "", await self.get(run_id)
        while True:
            waiter = self.broker.listen(run_id)
            try:
                batch = await self._read_log(run_id, last)
                if batch:
                    last, last_type = batch[-1].seq, batch[-1].type
                    yield batch
                    continue
                run = await self.get(run_id)
                if run is None and seen is not None and last_type != "done":
                    yield _deleted_end(run_id, closing_done_fields(seen), last, last_type)
                    return
                if run is None or (run.status in TERMINAL and last >= run.last_seq):
                    return
                seen = run
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self.poll_s):
                        await waiter.wait()
            finally:
                self.broker.unlisten(run_id, waiter)

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
