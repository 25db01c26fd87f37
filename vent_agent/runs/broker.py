"""Live notification of new events. The event log is the source of truth; the broker only wakes
subscribers up so that they read the log again, and carries cancel requests to the worker running a run.

:class:`InProcessBroker` serves one process (and, with the subscribers' polling of the log, several
processes on one database). :mod:`.broker_redis` (Redis pub/sub) and :mod:`.broker_pg` (PostgreSQL
LISTEN/NOTIFY) fan out across workers; whichever is used, a lost broker connection only slows the tail
down to the polling interval, it never loses an event.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import defaultdict
from collections.abc import Callable, Iterable

log = logging.getLogger(__name__)

CancelHandler = Callable[[str], object]
SEND_PAUSE_S = 5.0


class InProcessBroker:
    """Wakes the subscribers of a run when it appends events or ends (this process only).

    Subclasses override :meth:`_send` to reach the other workers and call :meth:`_received` with what
    they get; messages are one-line JSON ``{"op": "run"|"cancel", "run": id, "from": origin}``.
    """

    kind = "in-process"
    fans_out = False  # whether _send reaches other workers

    def __init__(self, origin: str = "") -> None:
        self.origin = origin
        self._outbox: set[str] = set()
        self._sender: asyncio.Task[None] | None = None
        self._waiters: dict[str, set[asyncio.Event]] = defaultdict(set)
        self._cancel_handlers: list[CancelHandler] = []
        self._paused_until = 0.0

    @property
    def connected(self) -> bool:
        """True when other workers are reached through this broker (never for the in-process one)."""
        return False

    async def start(self) -> None:
        """Connect (nothing to do in-process)."""

    async def close(self) -> None:
        """Disconnect (nothing to do in-process)."""

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

    def wake(self, run_id: str) -> None:
        """Wake this process' subscribers of ``run_id``."""
        for ev in list(self._waiters.get(run_id, ())):
            ev.set()

    def wake_all(self) -> None:
        """Wake every subscriber of this process (after a reconnect, when wake-ups may have been missed)."""
        for waiters in list(self._waiters.values()):
            for ev in list(waiters):
                ev.set()

    async def publish(self, run_id: str) -> None:
        """Wake every subscriber of ``run_id``, here and in the other workers. Never raises."""
        self.wake(run_id)
        await self._send_safely("run", run_id)

    def publish_soon(self, run_ids: Iterable[str]) -> None:
        """Wake this process' subscribers of ``run_ids`` now and the other workers' from a background
        task (one message per run, however many batches named it meanwhile). Never raises."""
        for run_id in run_ids:
            self.wake(run_id)
            if self.fans_out:
                self._outbox.add(run_id)
        if self._outbox and (self._sender is None or self._sender.done()):
            self._sender = asyncio.create_task(self._send_outbox(), name=f"broker-{self.kind}-outbox")

    async def _send_outbox(self) -> None:
        while self._outbox:
            await self._send_safely("run", self._outbox.pop())

    def on_cancel(self, handler: CancelHandler) -> None:
        """Call ``handler(run_id)`` when any worker asks for a run to be cancelled."""
        self._cancel_handlers.append(handler)

    async def request_cancel(self, run_id: str) -> None:
        """Ask whichever worker runs ``run_id`` to cancel it (this one included). Never raises."""
        self._cancel_here(run_id)
        await self._send_safely("cancel", run_id)

    def _cancel_here(self, run_id: str) -> None:
        for handler in list(self._cancel_handlers):
            try:
                handler(run_id)
            except Exception:  # one bad handler must not stop the others
                log.exception("cancel handler failed for run %s", run_id)

    async def _send_safely(self, op: str, run_id: str) -> None:
        """Send to the other workers; after a failure, sending pauses for ``SEND_PAUSE_S`` so that a hung
        broker never slows the runs down (the other workers poll the log meanwhile)."""
        loop = asyncio.get_running_loop()
        if loop.time() < self._paused_until:
            return
        message = json.dumps({"op": op, "run": run_id, "from": self.origin}, separators=(",", ":"))
        try:
            await self._send(message)
        except Exception as exc:  # the log is the truth: subscribers fall back to polling it
            self._paused_until = loop.time() + SEND_PAUSE_S
            log.warning(
                "broker %s could not publish %s for run %s (%s); other workers poll for %g s",
                self.kind,
                op,
                run_id,
                exc,
                SEND_PAUSE_S,
            )

    async def _send(self, message: str) -> None:
        """Deliver ``message`` to the other workers (nothing to do in-process)."""

    def _received(self, message: str | bytes) -> None:
        """Handle a message from another worker (own messages are ignored: already handled locally)."""
        try:
            data = json.loads(message)
            op, run_id, origin = data["op"], str(data["run"]), data.get("from")
        except (ValueError, KeyError, TypeError):
            log.warning("broker %s ignored a malformed message: %r", self.kind, message)
            return
        if origin == self.origin:
            return
        if op == "run":
            self.wake(run_id)
        elif op == "cancel":
            self._cancel_here(run_id)
