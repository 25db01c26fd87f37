"""Test helpers: the spec frontend's naive SSE parser, a live uvicorn server on loopback, fakes."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import httpx
import uvicorn

from vent_agent.runs.manager import RunManager
from vent_agent.wire import FRAME_CAP

T = TypeVar("T")

RUN_GUARD_S = 20
"""Seconds a test waits for a run's events: a broken wake-up path fails there instead of hanging."""
DATA_FRAME = re.compile(r"^data: \{.*\}$")
_CLOCK = re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2})?|约 \d+ 分钟|\d+ 分钟前")


def present(value: T | None) -> T:
    """``value``, asserting it is there: a test's narrowing of an optional result (a plan's figure, a run's
    row) before it reads the value's fields."""
    assert value is not None, "expected a value, got None"
    return value


def without_clock(text: str) -> str:
    """``text`` with its clock readings (times shown to the minute, ages in minutes) replaced by ``…``:
    two interpretations of the same data made a moment apart may straddle a minute."""
    return _CLOCK.sub("…", text)


def parse_spec_stream(body: str) -> list[dict[str, Any]]:
    """Parse a stream as the spec's frontend does (split on a blank line, JSON after ``data: ``),
    asserting the wire framing of docs/DESIGN.md: each frame is exactly one ``data:`` line or a comment, of
    at most ``FRAME_CAP`` bytes (``data: …\n\n``)."""
    assert "\r" not in body, "frames must use \\n line ends"
    events = []
    for frame in body.split("\n\n"):
        if not frame:
            continue
        if frame.startswith(":"):
            assert "\n" not in frame
            continue
        assert DATA_FRAME.match(frame), f"bad frame: {frame!r}"
        size = len(frame.encode("utf-8")) + 2
        assert size <= FRAME_CAP, f"a frame of {size} bytes: {frame[:200]!r}…"
        events.append(json.loads(frame[len("data: ") :]))
    return events


def parse_standard_stream(body: str) -> list[tuple[int, dict[str, Any]]]:
    """Parse an SSE stream with ``id:`` lines into ``(id, payload)`` pairs."""
    out = []
    for frame in body.replace("\r\n", "\n").split("\n\n"):
        lines = [ln for ln in frame.split("\n") if ln and not ln.startswith(":")]
        if not lines:
            continue
        fields = dict(ln.split(": ", 1) for ln in lines)
        out.append((int(fields["id"]), json.loads(fields["data"])))
    return out


def free_port() -> int:
    """A loopback TCP port free at the time of asking."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def live_server(app: Any) -> Iterator[str]:
    """Serve ``app`` with uvicorn on a free loopback port in a thread; yield its base URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


async def collect_run(mgr: RunManager, run_id: str, after: int = 0) -> list[dict[str, Any]]:
    """Every event payload of run ``run_id`` after seq ``after``, read through ``mgr.subscribe`` to the
    end (replay, then live); fails after :data:`RUN_GUARD_S` seconds."""

    async def read() -> list[dict[str, Any]]:
        return [ev.payload async for ev in mgr.subscribe(run_id, after)]

    return await asyncio.wait_for(read(), RUN_GUARD_S)


async def new_run_id(app: Any, before: set[str]) -> str:
    """The id of the run that starts executing in ``app`` after ``before`` (its local run ids then);
    fails after about 5 s."""
    for _ in range(500):
        fresh = set(app.state.vent.runs.local_run_ids) - before
        if fresh:
            (run_id,) = fresh
            return str(run_id)
        await asyncio.sleep(0.01)
    raise AssertionError("no run started")


def review_in_background(
    client: httpx.AsyncClient,
    pdf: Path,
    session_id: str | None = None,
    headers: dict[str, str] | None = None,
) -> asyncio.Task[httpx.Response]:
    """``POST /api/vent/review/pdf`` of ``pdf`` (in session ``session_id`` when given) as a task, so the
    test can look at the run while it streams."""
    return asyncio.create_task(
        client.post(
            "/api/vent/review/pdf",
            files={"file": (pdf.name, pdf.read_bytes(), "application/pdf")},
            data={"session_id": session_id} if session_id else None,
            headers=headers,
        )
    )


def hang_reviews(monkeypatch: Any) -> None:
    """Make every review wait (60 s) where it would read the plan, so that a test can cancel it, time it
    out or look at its run while it runs (``monkeypatch``: pytest's fixture)."""
    from vent_agent.review.service import run

    async def hangs(*args: object, **kwargs: object) -> None:
        await asyncio.sleep(60)

    monkeypatch.setattr(run, "_review_and_publish", hangs)
