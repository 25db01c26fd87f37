"""Live notification of new events. The event log is the source of truth; the broker only wakes
subscribers up so that they read the log again (in-process here; Redis or NOTIFY for several workers)."""

from __future__ import annotations

import asyncio
from collections import defaultdict


class InProcessBroker:
    """Wakes the subscribers of a run when it appends events or ends."""

    def __init__(self) -> None:
        self._waiters: dict[str, set[asyncio.Event]] = defaultdict(set)

    def publish(self, run_id: str) -> None:
        """Wake every subscriber of ``run_id``."""
        for ev in list(self._waiters.get(run_id, ())):
            ev.set()

    def listen(self, run_id: str) -> asyncio.Event:
        """Register a waiter before reading the log, so that nothing published in between is missed."""
        ev = asyncio.Event()
        self._waiters[run_id].add(ev)
        return ev

    def unlisten(self, run_id: str, ev: asyncio.Event) -> None:
        waiters = self._waiters.get(run_id)
        if waiters is not None:
            waiters.discard(ev)
            if not waiters:
                self._waiters.pop(run_id, None)
