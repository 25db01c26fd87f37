"""Worker heartbeats: each service process records itself in ``workers`` and refreshes its heartbeat;
a worker that stops (kill -9, a lost host) has its running runs closed as failed — an ``error`` event
then ``done`` after the last event it logged — by a surviving worker or by the next one to start.

A worker is dead when its heartbeat is older than ``dead_after_s``, or at once when it ran on this
host and its process is gone. Only the dead worker's runs are touched. The same loop polls the cancel
requests other workers recorded for this worker's runs (for when no broker carries them).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from sqlalchemy import delete, or_, update
from sqlmodel import col, select

from vent_agent.runs.worker_models import RunWorkerRow, WorkerRow
from vent_agent.store.models import RunRow, utcnow

if TYPE_CHECKING:
    from vent_agent.runs.manager import RunManager

log = logging.getLogger(__name__)

DEFAULT_HEARTBEAT_S = 5.0
DEFAULT_DEAD_AFTER_S = 20.0


def new_worker_id() -> str:
    """A worker id unique across hosts and restarts: ``<host>-<pid>-<random>``."""
    return f"{socket.gethostname()[:64]}-{os.getpid()}-{secrets.token_hex(4)}"


def pid_alive(pid: int) -> bool:
    """True when a process ``pid`` exists on this host (it may belong to another user)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class WorkerHeartbeat:
    """Registers ``manager``'s worker, refreshes its heartbeat every ``interval_s`` (s), and on each beat
    closes the runs of workers dead for ``dead_after_s`` (s) and honours cancel requests for its runs."""

    def __init__(
        self,
        manager: RunManager,
        *,
        interval_s: float = DEFAULT_HEARTBEAT_S,
        dead_after_s: float = DEFAULT_DEAD_AFTER_S,
    ) -> None:
        if dead_after_s <= interval_s:
            raise ValueError("dead_after_s must be longer than the heartbeat interval")
        self.manager = manager
        self.db = manager.db
        self.worker_id = manager.worker_id
        self.interval_s = interval_s
        self.dead_after_s = dead_after_s
        self.host = socket.gethostname()[:255]
        self.pid = os.getpid()
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Register this worker, close the runs of workers already dead, then beat in the background."""
        await self._register()
        await self.sweep()
        self._task = asyncio.create_task(self._loop(), name=f"heartbeat-{self.worker_id}")

    async def stop(self) -> None:
        """Stop beating and remove this worker's row (call after the manager's shutdown recorded its
        runs' ends)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        async with self.db.session() as s:
            await s.exec(delete(WorkerRow).where(col(WorkerRow.id) == self.worker_id))
            await s.commit()

    async def _register(self) -> None:
        async with self.db.session() as s:
            s.add(WorkerRow(id=self.worker_id, host=self.host, pid=self.pid))
            await s.commit()

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(self.interval_s)
            try:
                await self.beat()
                await self.manager.cancel_requested_here()
                await self.sweep()
            except asyncio.CancelledError:
                raise
            except Exception:  # a failed beat is retried next time; the store may be back by then
                log.exception("worker heartbeat failed")

    async def beat(self) -> None:
        """Refresh this worker's heartbeat. If another worker took it for dead (its row is gone, its runs
        closed), its local runs are cancelled and it registers again."""
        async with self.db.session() as s:
            result = await s.exec(
                update(WorkerRow).where(col(WorkerRow.id) == self.worker_id).values(heartbeat_at=utcnow())
            )
            await s.commit()
        if result.rowcount == 0:
            log.error("this worker was taken for dead (heartbeat too late); cancelling its runs")
            for run_id in self.manager.local_run_ids:
                await self.manager.cancel(run_id)
            await self._register()

    def _is_dead(self, worker: WorkerRow, cutoff: datetime) -> bool:
        if worker.id == self.worker_id:
            return False
        if _aware(worker.heartbeat_at) < cutoff:
            return True
        # On this host a vanished process is dead at once (a reused pid leaves it to the heartbeat).
        return worker.host == self.host and not pid_alive(worker.pid)

    async def sweep(self) -> int:
        """Close the running runs of dead workers, and of running runs whose worker is unknown; forget
        the dead workers. Return how many runs were closed."""
        cutoff = utcnow() - timedelta(seconds=self.dead_after_s)
        async with self.db.session() as s:
            dead = [w.id for w in await s.exec(select(WorkerRow)) if self._is_dead(w, cutoff)]
            known = select(WorkerRow.id).where(WorkerRow.id == RunWorkerRow.worker_id).exists()
            rows = await s.exec(
                select(RunRow.id)
                .join(RunWorkerRow, col(RunWorkerRow.run_id) == RunRow.id, isouter=True)
                .where(
                    RunRow.status == "running",
                    or_(col(RunWorkerRow.worker_id).is_(None), col(RunWorkerRow.worker_id).in_(dead), ~known),
                )
            )
            lost = list(rows)
        closed = 0
        for run_id in lost:
            if run_id in self.manager.local_run_ids:
                continue  # ours after all (registered again after being taken for dead)
            try:
                closed += await self.manager.fail_lost_run(run_id)
            except Exception:  # e.g. two survivors racing: the other one closed it
                log.exception("could not close lost run %s", run_id)
        if dead:
            async with self.db.session() as s:
                await s.exec(delete(WorkerRow).where(col(WorkerRow.id).in_(dead)))
                await s.commit()
            log.warning("workers gone: %s; %d of their runs closed as failed", ", ".join(dead), closed)
        return closed


def _aware(value: datetime) -> datetime:
    """SQLite gives back naive UTC datetimes, PostgreSQL aware ones."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
