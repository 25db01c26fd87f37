"""Limits on work running at once, for the plan reviews (``VENT_REVIEW_CONCURRENCY``) and their OCR
(``VENT_OCR_CONCURRENCY``), kept apart so that a text-layer review never waits behind an OCR job:

- :class:`FairSlots` — the OCR slots: at most ``total`` jobs at once and at most ``per_owner`` of one
  owner (a user, or a client address for a review outside sessions); owners waiting are served in
  turn (round-robin), so one user's queue of scans cannot hold every slot nor keep another user's
  scan waiting behind all of it.
- :class:`HeldSlot` — a review slot held by one review, which steps *aside* (gives the slot back)
  while it waits for and runs its OCR, and takes a slot again for the review itself; a text-layer
  review thus finds the review slots free while scans are being OCR'd.
"""

from __future__ import annotations

import asyncio
from collections import Counter, OrderedDict, deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import TracebackType


class FairSlots:
    """At most ``total`` holders at once, at most ``per_owner`` of one owner; waiting owners are served
    round-robin, each owner's own waiters first come first served. Cancelling a waiter is safe."""

    def __init__(self, total: int, per_owner: int | None = None) -> None:
        self.total = max(1, total)
        self.per_owner = max(1, min(per_owner or self.total, self.total))
        self._running: Counter[str] = Counter()
        self._waiting: OrderedDict[str, deque[asyncio.Future[None]]] = OrderedDict()

    @property
    def busy(self) -> int:
        """Slots held now."""
        return sum(self._running.values())

    def would_wait(self, owner: str) -> bool:
        """Whether a new job of ``owner`` would wait now (every slot busy, ``owner`` at its share, or
        ``owner``'s earlier jobs still waiting)."""
        return self.busy >= self.total or self._running[owner] >= self.per_owner or owner in self._waiting

    def locked(self) -> bool:
        """Whether every slot is held."""
        return self.busy >= self.total

    @asynccontextmanager
    async def slot(self, owner: str) -> AsyncIterator[None]:
        """Hold a slot for ``owner`` for the block (waiting for one first)."""
        if not self.would_wait(owner):
            self._running[owner] += 1
        else:
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiting.setdefault(owner, deque()).append(waiter)
            try:
                await waiter
            except asyncio.CancelledError:
                if waiter.done() and not waiter.cancelled():  # granted as it was cancelled: give it back
                    self._release(owner)
                else:
                    self._forget(owner, waiter)
                raise
        try:
            yield
        finally:
            self._release(owner)

    def _forget(self, owner: str, waiter: asyncio.Future[None]) -> None:
        queue = self._waiting.get(owner)
        if queue is not None and waiter in queue:
            queue.remove(waiter)
            if not queue:
                del self._waiting[owner]

    def _release(self, owner: str) -> None:
        self._running[owner] -= 1
        if self._running[owner] <= 0:
            del self._running[owner]
        self._grant()

    def _grant(self) -> None:
        """Give free slots to the waiting owners in turn (an owner served goes to the back)."""
        while self.busy < self.total:
            owner = next((o for o in self._waiting if self._running[o] < self.per_owner), None)
            if owner is None:
                return
            queue = self._waiting[owner]
            waiter = queue.popleft()
            if queue:
                self._waiting.move_to_end(owner)
            else:
                del self._waiting[owner]
            if waiter.done():  # cancelled meanwhile (its task removes nothing more)
                continue
            self._running[owner] += 1
            waiter.set_result(None)


class HeldSlot:
    """One slot of ``slots`` held by one task (``async with``), which it can give back for a while
    (:meth:`aside`) and take again. Never releases a slot it does not hold, even when cancelled while
    taking it back."""

    def __init__(self, slots: asyncio.Semaphore) -> None:
        self.slots = slots
        self.held = False

    async def __aenter__(self) -> HeldSlot:
        await self.slots.acquire()
        self.held = True
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self.held:
            self.held = False
            self.slots.release()

    @asynccontextmanager
    async def aside(self) -> AsyncIterator[None]:
        """Give the slot back for the block, then wait for one again."""
        if self.held:
            self.held = False
            self.slots.release()
        try:
            yield
        finally:
            await self.slots.acquire()
            self.held = True
