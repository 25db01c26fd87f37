"""Retention: click-interpretation runs write no session rows (spec), so their runs and events are
purged once older than the retention period; further sweeps (``also``: the review files outside
sessions, :mod:`vent_agent.review.service.retention`) run with it, at start-up and then periodically."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vent_agent.runs.manager import RunManager

log = logging.getLogger(__name__)

CLICK_KINDS = frozenset({"click_tun", "click_device"})


class RetentionSweep:
    """Every ``every_s`` (s), delete finished runs of ``kinds`` (with their events) older than
    ``retention_hours`` (h) (``event_retention_hours``, ``retention_sweep_s`` in the settings), then run
    each of ``also`` (async callables returning how many things they deleted)."""

    def __init__(
        self,
        manager: RunManager,
        *,
        retention_hours: float,
        every_s: float,
        kinds: frozenset[str] = CLICK_KINDS,
        also: Sequence[Callable[[], Awaitable[int]]] = (),
    ) -> None:
        if every_s <= 0:
            raise ValueError("the retention sweep interval must be positive")
        self.manager = manager
        self.age = timedelta(hours=retention_hours)
        self.every_s = every_s
        self.kinds = kinds
        self.also = list(also)
        self._task: asyncio.Task[None] | None = None

    async def sweep(self) -> int:
        """Purge once; return how many runs were deleted (the ``also`` sweeps log their own counts; one
        failing does not stop the others)."""
        purged = await self.manager.purge_older_than(self.kinds, self.age)
        if purged:
            log.info("retention: purged %d click-interpretation runs older than %s", purged, self.age)
        for job in self.also:
            try:
                await job()
            except Exception:  # a file system or store error: next time
                log.exception("retention sweep %s failed", getattr(job, "__qualname__", job))
        return purged

    def start(self) -> None:
        """Sweep now and then every ``every_s`` in the background."""
        self._task = asyncio.create_task(self._loop(), name="retention-sweep")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _loop(self) -> None:
        while True:
            try:
                await self.sweep()
            except asyncio.CancelledError:
                raise
            except Exception:  # the store may be back next time
                log.exception("retention sweep failed")
            await asyncio.sleep(self.every_s)
