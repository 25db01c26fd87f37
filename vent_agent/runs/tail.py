"""The in-memory tail of a run executing in this process: its newest *committed* events, bounded in
bytes, from which the subscribers of this process are fed without reading the log.

The tail is filled by the log writer after each commit (never before), so nothing in it can be missing
from the log; it holds a contiguous range of seqs, and a subscriber that fell behind its start reads the
gap from the log (:meth:`RunTail.after` says when) and then comes back to it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

DEFAULT_TAIL_BYTES = 256 * 1024


@dataclass
class StoredEvent:
    """A logged event: its ``seq``, ``type`` and ``data``, the compact one-line JSON written to the log
    and sent as the frame's ``data:`` (made once, by the emitter's side)."""

    seq: int
    type: str
    data: str

    @cached_property
    def payload(self) -> dict[str, Any]:
        """The event as a dict (parsed from ``data`` on first use)."""
        payload: dict[str, Any] = json.loads(self.data)
        return payload


@dataclass
class RunTail:
    """Committed events of one local run, at most ``max_bytes`` of JSON (the newest are kept; one
    event at least). ``last_seq``: the last committed seq; ``ended``: the run's end is committed (or it
    ended without one being written) and nothing more will come."""

    run_id: str
    max_bytes: int = DEFAULT_TAIL_BYTES
    last_seq: int = 0
    ended: bool = False
    deleted: bool = False  # the run was deleted (its session deleted) before it ended
    _events: list[StoredEvent] = field(default_factory=list)
    _size: int = 0
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    def add(self, events: list[StoredEvent]) -> None:
        """Append committed events (in seq order, following ``last_seq``), trim to the byte bound and
        wake the waiting subscribers."""
        if not events:
            return
        self._events.extend(events)
        self._size += sum(len(e.data) for e in events)
        self.last_seq = events[-1].seq
        if self._size > self.max_bytes:
            cut, size = 0, self._size
            while size > self.max_bytes and cut < len(self._events) - 1:
                size -= len(self._events[cut].data)
                cut += 1
            del self._events[:cut]
            self._size = size
        self._wake()

    def end(self) -> None:
        """Mark the run ended and wake the subscribers (idempotent)."""
        if not self.ended:
            self.ended = True
            self._wake()

    def after(self, seq: int) -> list[StoredEvent] | None:
        """The events with seqs above ``seq`` (possibly none), or None when some of them are no longer in
        the tail (read those from the log first)."""
        if seq >= self.last_seq:
            return []
        first = self._events[0].seq if self._events else self.last_seq + 1
        if seq + 1 < first:
            return None
        return self._events[seq + 1 - first :]

    async def wait(self, timeout_s: float) -> None:
        """Wait until events are added or the run ends, at most ``timeout_s`` (s)."""
        changed = self._changed
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout_s):
                await changed.wait()

    def _wake(self) -> None:
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()
