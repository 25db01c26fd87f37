"""Live notification of new events: the broker interface. The event log is the source of truth; a broker
only wakes subscribers up so that they read the log again, and carries cancel requests to the worker
running a run.

:class:`Broker` is the interface the run layer uses, with the behaviour every broker shares (the local
waiters, the cancel handlers, the wire format, the pause after a failed send). Three implementations
stand beside it:

- :class:`~vent_agent.runs.broker_inprocess.InProcessBroker`: one process (and, with the subscribers'
  polling of the log, several processes on one database);
- :class:`~vent_agent.runs.broker_pg.PgNotifyBroker`: PostgreSQL LISTEN/NOTIFY, across the workers of
  one database;
- :class:`~vent_agent.runs.broker_redis.RedisBroker`: Redis pub/sub, across workers.

The two that fan out (:class:`FanOutBroker`) keep one background task that connects and reconnects;
whichever is used, a lost broker connection only slows the tail down to the polling interval, it never
loses an event. :func:`vent_agent.runs.lifecycle.make_broker` picks one by the settings.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import json
import logging
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import ClassVar

log = logging.getLogger(__name__)

CancelHandler = Callable[[str], object]
SEND_PAUSE_S = 5.0
BACKOFF_FIRST_S = 0.2
"""The first wait before reconnecting a lost broker connection (s); it doubles on each failure."""
BACKOFF_MAX_S = 10.0
"""The longest wait between reconnection attempts (s)."""


class Broker(abc.ABC):
    """Wakes the subscribers of a run when it appends events or ends, and carries cancel requests, in
    this process and (for the brokers that fan out) in the other workers.

    Subclasses implement :meth:`start`, :meth:`close`, :attr:`connected` and :meth:`_send` (deliver a
    message to the other workers), and call :meth:`_received` with each message from another worker.
    Messages are one-line JSON ``{"op": "run"|"cancel", "run": id, "from": origin}``; ``origin`` is this
    worker's id (its own messages coming back are ignored).
    """

    kind: ClassVar[str]
    """The broker's name in ``/health/ready`` (``in-process``, ``postgres-notify``, ``redis``)."""
    fans_out: ClassVar[bool]
    """Whether :meth:`_send` reaches other workers."""

    def __init__(self, origin: str = "") -> None:
        self.origin = origin
        self._outbox: set[str] = set()
        self._sender: asyncio.Task[None] | None = None
        self._waiters: dict[str, set[asyncio.Event]] = defaultdict(set)
        self._cancel_handlers: list[CancelHandler] = []
        self._paused_until = 0.0

    @property
    @abc.abstractmethod
    def connected(self) -> bool:
        """True while other workers are reached through this broker."""

    @abc.abstractmethod
    async def start(self) -> None:
        """Connect. Never fails for want of the service: the broker keeps trying in the background and
        the subscribers poll the log meanwhile."""

    @abc.abstractmethod
    async def close(self) -> None:
        """Disconnect and stop any background task."""

    @abc.abstractmethod
    async def _send(self, message: str) -> None:
        """Deliver ``message`` to the other workers (may raise: :meth:`_send_safely` handles it)."""

    def listen(self, run_id: str) -> asyncio.Event:
        """Register a waiter before reading the log, so that nothing published in between is missed."""
        ev = asyncio.Event()
        self._waiters[run_id].add(ev)
        return ev

    def unlisten(self, run_id: str, ev: asyncio.Event) -> None:
        """Remove a waiter :meth:`listen` gave."""
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


class FanOutBroker(Broker):
    """A broker that reaches the other workers through a service, kept by one background task
    (:attr:`_task`, started by :meth:`start`) that connects and reconnects with back-off
    (:func:`next_backoff`)."""

    fans_out = True

    def __init__(self, origin: str) -> None:
        super().__init__(origin)
        self._task: asyncio.Task[None] | None = None

    async def _stop_task(self) -> None:
        """Cancel the background task and wait for it to end (the first step of :meth:`close`)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task


def next_backoff(backoff_s: float) -> float:
    """The wait before the next reconnection attempt after one more failure (s): doubled, at most
    ``BACKOFF_MAX_S``."""
    return min(backoff_s * 2, BACKOFF_MAX_S)
