"""SSE encoding of a run's events.

The spec's streaming routes send exactly ``data: <one-line JSON>\\n\\n`` per event (DESIGN.md §Streams on
the wire), the sequence number inside the JSON; keep-alive pings are comment frames, which the spec's
naive frontend parser skips. ``GET /api/runs/{id}/events`` adds ``id: <seq>`` lines for standard clients.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

from sse_starlette import EventSourceResponse, ServerSentEvent

from vent_agent.runs.manager import RunManager

SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def _ping() -> ServerSentEvent:
    return ServerSentEvent(comment="ping", sep="\n")


def run_stream(
    manager: RunManager,
    run_id: str,
    *,
    after: int = 0,
    with_ids: bool = False,
    session_id: str | None = None,
    ping_s: float = 15.0,
) -> EventSourceResponse:
    """An SSE response tailing ``run_id`` from ``after``; ``X-Run-Id``/``X-Session-Id`` headers set."""

    async def frames() -> AsyncIterator[ServerSentEvent]:
        async for ev in manager.subscribe(run_id, after):
            data = json.dumps(ev.payload, ensure_ascii=False, separators=(",", ":"))
            yield ServerSentEvent(data=data, id=str(ev.seq) if with_ids else None, sep="\n")

    headers = {**SSE_HEADERS, "X-Run-Id": run_id}
    if session_id:
        headers["X-Session-Id"] = session_id
    return EventSourceResponse(frames(), headers=headers, ping=ping_s, sep="\n", ping_message_factory=_ping)
