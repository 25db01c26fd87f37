"""A run's emitter: the one way a run body appends events to its run's log.

Front (typed events, merging, frame size): run bodies call :meth:`Emitter.send` with a model of the
event catalogue (:mod:`vent_agent.events`); undeclared fields are refused. Consecutive ``token`` events
of one source are merged for at most :data:`TOKEN_MERGE_S` before they are numbered, up to the frame cap
(a token with ``replace: true`` starts a new event: it is never merged into the text it replaces);
every payload is cut or bounded to :data:`vent_agent.wire.FRAME_CAP` bytes
(:func:`vent_agent.runs.frames.fit_frames`), each piece numbered on its own.

Back (from :meth:`Emitter._append`): each payload gets the next dense ``seq`` and the ``run_id`` and goes
to :meth:`vent_agent.runs.manager.RunManager.append_event`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vent_agent.events import EventModel, check_declared, make_event
from vent_agent.runs.frames import fit_frames, fits_as_is, text_cost
from vent_agent.wire import FRAME_CAP, SEQ_WIDTH, frame_bytes, wire_json

if TYPE_CHECKING:
    from vent_agent.runs.manager import RunManager

TOKEN_MERGE_S = 0.05


@dataclass
class Emitter:
    """Appends a run's events to the log. Consecutive ``token`` events of one source are merged for at
    most 50 ms before they are numbered (never after), and never beyond the frame cap."""

    manager: RunManager
    run_id: str
    seq: int = 0
    frame_cap: int = FRAME_CAP
    _pending: dict[str, Any] | None = None
    _pending_at: float = 0.0
    _pending_size: int = 0  # the pending token's frame size, as fit_frames measures it
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    _timer: asyncio.Task[None] | None = None
    saw_done: bool = False
    saw_error: bool = False

    async def send(self, event: EventModel) -> None:
        """Append one event of the catalogue. Raises ``ValueError`` for an undeclared field."""
        check_declared(event)
        await self._send(event)

    async def _send(self, event: EventModel) -> None:
        """:meth:`send` of an event whose fields are checked already."""
        payload = event.wire()
        payload.pop("seq", None)
        payload.pop("run_id", None)
        type_ = payload["type"]
        async with self._lock:
            loop = asyncio.get_running_loop()
            if type_ == "token":
                p = self._pending
                if p is not None and p.get("source") == payload.get("source") and not payload.get("replace"):
                    more = payload.get("content", "")
                    p["content"] += more
                    self._pending_size += text_cost(more)
                    if self._pending_size > self.frame_cap:  # full frames go now, the rest keeps merging
                        pieces = fit_frames(p, self.run_id, self.frame_cap)
                        for piece in pieces[:-1]:
                            await self._append(piece)
                        self._pending = pieces[-1]
                        self._pending_size = self._frame_size(pieces[-1])
                    if loop.time() - self._pending_at >= TOKEN_MERGE_S:
                        await self._flush()
                    return
                if p is not None:
                    await self._flush()
                self._pending = payload
                self._pending_size = self._frame_size(payload)
                self._pending_at = loop.time()
                self._timer = asyncio.create_task(self._flush_later())
                return
            if self._pending is not None:
                await self._flush()
            await self._append_fitted(payload)
            if type_ == "done":
                self.saw_done = True
            elif type_ == "error":
                self.saw_error = True

    def _frame_size(self, token: dict[str, Any]) -> int:
        """The size :func:`fit_frames` measures for a ``token`` payload (its widest seq), as the size
        without the text plus the text's escaped bytes, so that merging a token adds only the latter."""
        empty = frame_bytes({**token, "content": "", "seq": SEQ_WIDTH, "run_id": self.run_id})
        return empty + text_cost(token.get("content", ""))

    async def emit(self, type_: str, **fields: Any) -> None:
        """Append ``{"type": type_, **fields}``, validated against the catalogue like :meth:`send`
        (for callers that build events from data; run bodies send models)."""
        await self._send(make_event(type_, **fields))  # checked by make_event

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
            await self._append_fitted(pending)

    async def _append_fitted(self, payload: dict[str, Any]) -> None:
        """Append ``payload`` cut to the frame cap (:func:`fit_frames`). The usual event fits whole: its
        JSON is then made once, measured and logged."""
        seq = self.seq + 1
        numbered = {**payload, "seq": seq, "run_id": self.run_id}
        data = wire_json(numbered)
        if fits_as_is(data, seq, self.frame_cap):
            await self.manager.append_event(self.run_id, seq, numbered, data)
            self.seq = seq  # as in _log
            return
        for piece in fit_frames(payload, self.run_id, self.frame_cap):
            await self._append(piece)

    async def _append(self, payload: dict[str, Any]) -> None:
        seq = self.seq + 1
        numbered = {**payload, "seq": seq, "run_id": self.run_id}
        await self._log(seq, numbered, wire_json(numbered))

    async def _log(self, seq: int, payload: dict[str, Any], data: str) -> None:
        await self.manager.append_event(self.run_id, seq, payload, data)
        self.seq = seq  # advanced once logged: last_seq never names an event missing from the log
