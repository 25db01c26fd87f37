"""SSE encoding of a run's events.

The spec's streaming routes send exactly ``data: <one-line JSON>\\n\\n`` per event (DESIGN.md §Streams on
the wire), the sequence number inside the JSON; keep-alive pings are comment frames, which the spec's
naive frontend parser skips. ``GET /api/runs/{id}/events`` adds ``id: <seq>`` lines for standard clients.

The JSON is the string the emitter made once and the log holds (:attr:`StoredEvent.data`); it is framed
here, never serialised again. Writes: on the spec's routes each frame is its own write (the frontend's
parser keeps no buffer between reads, and a frame is capped at 1 KiB so that it is not split); on the
standard route every frame ready at once goes out in one write of at most :data:`JOIN_BYTES` (standard
clients buffer, so joining only saves work).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from sse_starlette import EventSourceResponse, ServerSentEvent

from vent_agent.runs.manager import RunManager
from vent_agent.runs.tail import StoredEvent

SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
JOIN_BYTES = 64 * 1024


def _ping() -> ServerSentEvent:
    return ServerSentEvent(comment="ping", sep="\n")


def spec_frame(ev: StoredEvent) -> bytes:
    """``data: <json>\\n\\n``: the spec's frame of one event."""
    return f"data: {ev.data}\n\n".encode()


def standard_frame(ev: StoredEvent) -> bytes:
    """``id: <seq>\\ndata: <json>\\n\\n``: the standard SSE frame of one event."""
    return f"id: {ev.seq}\ndata: {ev.data}\n\n".encode()


async def spec_frames(manager: RunManager, run_id: str, after: int) -> AsyncIterator[bytes]:
    """One write per frame, in order."""
    async for batch in manager.subscribe_batches(run_id, after):
        for ev in batch:
            yield spec_frame(ev)


async def standard_frames(manager: RunManager, run_id: str, after: int) -> AsyncIterator[bytes]:
    """The frames ready at once joined into writes of at most :data:`JOIN_BYTES` (a longer frame alone)."""
    async for batch in manager.subscribe_batches(run_id, after):
        chunk: list[bytes] = []
        size = 0
        for ev in batch:
            frame = standard_frame(ev)
            if chunk and size + len(frame) > JOIN_BYTES:
                yield b"".join(chunk)
                chunk, size = [], 0
            chunk.append(frame)
            size += len(frame)
        if chunk:
            yield b"".join(chunk)


def run_stream(
    manager: RunManager,
    run_id: str,
    *,
    after: int = 0,
    with_ids: bool = False,
    session_id: str | None = None,
    ping_s: float = 15.0,
) -> EventSourceResponse:
    """An SSE response tailing ``run_id`` from ``after``; ``X-Run-Id``/``X-Session-Id`` headers set.
    ``with_ids``: the standard route's framing (``id:`` lines, joined writes); else the spec's."""
    frames = (standard_frames if with_ids else spec_frames)(manager, run_id, after)
    headers = {**SSE_HEADERS, "X-Run-Id": run_id}
    if session_id:
        headers["X-Session-Id"] = session_id
    return EventSourceResponse(frames, headers=headers, ping=ping_s, sep="\n", ping_message_factory=_ping)
