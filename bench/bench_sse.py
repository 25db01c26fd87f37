"""Benchmark of the durable SSE path against a bare sse-starlette endpoint (a plain script, not a test).

Run: ``.venv/bin/python bench/bench_sse.py [--events 300] [--size 256] [--concurrency 1 16]
[--rounds 3] [--clients 1] [--no-postgres | --postgres ADMIN_URL] [--loop uvloop|asyncio]``.

One uvicorn server (httptools, on uvloop by default) on loopback; in one run:

- *bare*: an ``EventSourceResponse`` yielding ``--events`` payloads (same keys and sizes, the spec's
  ``data: <json>\\n\\n`` framing) from a generator: no log, no broker (the baseline);
- *durable, sqlite* / *durable, postgresql*: a run started through
  :class:`vent_agent.runs.manager.RunManager` whose body emits the same events, answered with
  :func:`vent_agent.api.sse.run_stream` as the spec routes are (one write per frame); every event is
  committed to the log before it is sent (SQLite in a temp dir; PostgreSQL in a temporary database);
- *replay*: a finished run of the same events read back from the log (``GET /api/runs/{id}/events``'
  framing: ``id:`` lines, the frames ready at once in one write);
- *join while running*: ``c`` clients joining, from seq 0, a run that emits the same events over ~3 s
  (replay from the log, then the live tail): each must get every event once.

The client (``bench/_rawclient.py``) reads raw sockets in ``--clients`` processes of its own, so it is
not the bottleneck. Rounds are interleaved and the fastest kept (the failures of every round counted).
Printed per level: failed streams (wrong event count, not ending with ``done``, HTTP or client error),
events per second over the wall time, time to first event (p50/p99), a stream's total time (p50), each
path's ratio to bare; then the log writer alone (events queued and committed, no HTTP).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import secrets
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

from _common import (
    LOOPS,
    LoadSummary,
    StreamResult,
    print_table,
    quiet_logs,
    run_on_loop,
    serve,
    summarise,
    temp_postgres,
)
from _rawclient import raw_load
from fastapi import FastAPI
from sse_starlette import EventSourceResponse, ServerSentEvent

from vent_agent.api.sse import SSE_HEADERS, run_stream
from vent_agent.runs.emitter import Emitter
from vent_agent.runs.manager import RunManager
from vent_agent.store.db import Database

PG_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/test"
JOIN_RUN_S = 3.0


def filler(size: int, i: int) -> str:
    """A message of exactly ``size`` ASCII characters, different per event."""
    head = f"event {i} "
    return (head + "x" * size)[:size]


def emitting(events: int, size: int, pause_every: int = 0, pause_s: float = 0.0):  # type: ignore[no-untyped-def]
    """A run body emitting ``events`` events (the last ``done``), pausing ``pause_s`` every
    ``pause_every`` events."""

    async def body(emitter: Emitter) -> None:
        for i in range(events - 1):
            await emitter.emit("progress", message=filler(size, i))
            if pause_every and i % pause_every == pause_every - 1:
                await asyncio.sleep(pause_s)
        await emitter.emit("done", message=filler(size, events - 1))

    return body


def bench_app(managers: dict[str, RunManager]) -> FastAPI:
    """``/bare``, ``/durable/{backend}`` (run + log + tail), ``/replay/{backend}/{run_id}`` and
    ``/join/{backend}/{run_id}``; ``events`` and ``size`` (characters of each message) as queries."""
    app = FastAPI()

    @app.get("/durable/{backend}")
    async def durable(backend: str, events: int, size: int) -> EventSourceResponse:
        manager = managers[backend]
        run_id = await manager.start("bench", emitting(events, size))
        return run_stream(manager, run_id)

    @app.get("/replay/{backend}/{run_id}")
    async def replay(backend: str, run_id: str) -> EventSourceResponse:
        return run_stream(managers[backend], run_id, with_ids=True)

    @app.get("/join/{backend}/{run_id}")
    async def join(backend: str, run_id: str) -> EventSourceResponse:
        return run_stream(managers[backend], run_id)

    @app.get("/bare")
    async def bare(events: int, size: int) -> EventSourceResponse:
        run_id = secrets.token_urlsafe(18)

        async def frames() -> AsyncIterator[ServerSentEvent]:
            for i in range(events):
                kind = "done" if i == events - 1 else "progress"
                payload = {"type": kind, "message": filler(size, i), "seq": i + 1, "run_id": run_id}
                data = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
                yield ServerSentEvent(data=data, sep="\n")

        headers = {**SSE_HEADERS, "X-Run-Id": run_id}
        return EventSourceResponse(frames(), headers=headers, ping=15.0, sep="\n")

    return app


def check(results: list[StreamResult], events: int) -> list[StreamResult]:
    """Mark a stream that did not get exactly ``events`` events as failed."""
    for r in results:
        if r.error is None and r.events != events:
            r.error = f"WrongCount: {r.events} events instead of {events}"
    return results


async def measure(url: str, paths: list[str], concurrency: int, events: int, clients: int) -> LoadSummary:
    host, port = url.removeprefix("http://").split(":")
    wall, results = await raw_load(host, int(port), list(paths), concurrency=concurrency, clients=clients)
    return summarise(wall, check(results, events))


async def writer_rate(manager: RunManager, events: int, size: int) -> float:
    """Events per second through the log writer alone: one run, ``events`` queued, all committed."""
    gate = asyncio.Event()

    async def idle(_em: Emitter) -> None:
        await gate.wait()

    run_id = await manager.start("bench", idle)
    t = time.perf_counter()
    for i in range(events):
        payload = {"type": "progress", "message": filler(size, i), "seq": 10_000 + i, "run_id": run_id}
        await manager.append_event(run_id, 10_000 + i, payload)
    await manager.writer.settle(run_id)
    rate = events / (time.perf_counter() - t)
    gate.set()
    await manager.wait(run_id)
    return rate


@contextlib.asynccontextmanager
async def open_managers(tmp: Path, postgres: str | None) -> AsyncIterator[dict[str, RunManager]]:
    """Run managers on SQLite in ``tmp`` and, when ``postgres`` is an admin URL, on a temporary
    PostgreSQL database (dropped afterwards)."""
    async with contextlib.AsyncExitStack() as stack:
        urls = {"sqlite": f"sqlite+aiosqlite:///{tmp / 'bench.db'}"}
        if postgres:
            urls["postgresql"] = await stack.enter_async_context(temp_postgres(postgres))
        managers = {}
        for name, url in urls.items():
            db = Database(url)
            await db.migrate()
            stack.push_async_callback(db.close)
            managers[name] = RunManager(db)
            stack.push_async_callback(managers[name].shutdown)
        yield managers


async def finished_run(manager: RunManager, events: int, size: int) -> str:
    run_id = await manager.start("bench", emitting(events, size))
    await manager.wait(run_id)
    return run_id


def ratio_row(name: str, s: LoadSummary, bare: LoadSummary, c: int) -> tuple:
    return (
        f"{name} / bare, c={c}",
        "",
        "",
        f"{s.events_per_s / bare.events_per_s:.3f}×",
        f"{s.ttfe_p50_ms / bare.ttfe_p50_ms:.2f}×",
        f"{s.ttfe_p99_ms / bare.ttfe_p99_ms:.2f}×",
        f"{s.total_p50_ms / bare.total_p50_ms:.2f}×",
    )


def figure_row(name: str, s: LoadSummary, failed: int, rounds: int) -> tuple:
    return (
        name,
        f"{s.streams}×{s.events_per_stream:.0f}",
        f"{failed}/{s.streams * rounds}",
        s.events_per_s,
        s.ttfe_p50_ms,
        s.ttfe_p99_ms,
        s.total_p50_ms,
    )


async def main(args: argparse.Namespace) -> None:
    errors = quiet_logs()
    rows, join_rows, writer_rows = [], [], []
    n, query = args.events, f"events={args.events}&size={args.size}"
    with tempfile.TemporaryDirectory() as tmp:
        async with open_managers(Path(tmp), args.postgres) as managers, serve(bench_app(managers)) as url:
            finished = {name: await finished_run(m, n, args.size) for name, m in managers.items()}
            paths = {"bare": f"/bare?{query}"}
            paths |= {f"durable, {name}": f"/durable/{name}?{query}" for name in managers}
            paths |= {f"replay, {name}": f"/replay/{name}/{run_id}" for name, run_id in finished.items()}
            for path in paths.values():  # warm-up: imports, connections, compiled statements
                await measure(url, [path] * 2, 1, n, 1)
            for c in args.concurrency:
                streams = max(args.streams, c)
                figures: dict[str, LoadSummary] = {}
                failed = dict.fromkeys(paths, 0)
                # interleaved rounds, the fastest of each kept (failures of every round counted), so a
                # burst of load elsewhere on the machine hits every path alike
                for _ in range(args.rounds):
                    for name, path in paths.items():
                        s = await measure(url, [path] * streams, c, n, args.clients)
                        failed[name] += s.errors
                        if name not in figures or s.events_per_s > figures[name].events_per_s:
                            figures[name] = s
                for name, s in figures.items():
                    rows.append(figure_row(f"{name}, c={c}", s, failed[name], args.rounds))
                for name, s in figures.items():
                    if name != "bare":
                        rows.append(ratio_row(name, s, figures["bare"], c))
                for name, manager in managers.items():
                    pause_every = max(1, n // 30)
                    run_id = await manager.start(
                        "bench", emitting(n, args.size, pause_every, JOIN_RUN_S / 30)
                    )
                    await asyncio.sleep(JOIN_RUN_S / 6)  # the run is under way when they join
                    s = await measure(url, [f"/join/{name}/{run_id}"] * c, c, n, args.clients)
                    run = await manager.get(run_id)
                    join_rows.append(
                        (
                            f"join while running, {name}, c={c}",
                            f"{s.errors}/{s.streams}",
                            s.events_per_stream,
                            s.ttfe_p50_ms,
                            s.ttfe_p99_ms,
                            run.status if run else "?",
                        )
                    )
            for name, manager in managers.items():
                writer_rows.append((f"log writer, {name}", 3000, await writer_rate(manager, 3000, args.size)))
    load = f"load average {os.getloadavg()[0]:.1f} at the end"
    print_table(
        f"Durable SSE (RunManager + group-committed log + tail + run_stream) vs bare sse-starlette: {n} "
        f"events of {args.size}-char messages per stream, fastest of {args.rounds} rounds, raw-socket "
        f"client in {args.clients} process(es), server loop {args.loop}; {load}",
        [
            "path",
            "streams×events",
            "failed streams",
            "events/s",
            "TTFE p50 ms",
            "TTFE p99 ms",
            "stream p50 ms",
        ],
        rows,
    )
    print_table(
        f"Joining a run that emits {n} events over ~{JOIN_RUN_S:g} s (replay from the log, then live); {load}",
        ["what", "failed", "events/stream", "TTFE p50 ms", "TTFE p99 ms", "run"],
        join_rows,
    )
    print_table(
        "The log writer alone (one run, events queued then committed)",
        ["what", "events", "events/s"],
        writer_rows,
    )
    if errors.count:
        print(f"{errors.count} errors logged by the server:\n{errors.report()}")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--events", type=int, default=300, help="events per stream (the last one is done)")
    parser.add_argument("--size", type=int, default=256, help="characters of each event's message")
    parser.add_argument("--streams", type=int, default=4, help="streams per level (at least c)")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 16], help="open streams at once")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds per level; fastest kept")
    parser.add_argument("--clients", type=int, default=1, help="client processes sharing the streams")
    parser.add_argument("--loop", choices=LOOPS, default="uvloop", help="the server's loop")
    pg = parser.add_mutually_exclusive_group()
    pg.add_argument(
        "--postgres", default=PG_ADMIN_URL, help=f"admin URL of the PostgreSQL server ({PG_ADMIN_URL})"
    )
    pg.add_argument("--no-postgres", dest="postgres", action="store_const", const=None, help="SQLite only")
    args = parser.parse_args()
    if args.events < 2 or args.size < 16:
        parser.error("--events ≥ 2 and --size ≥ 16")
    return args


if __name__ == "__main__":
    arguments = parse_args()
    run_on_loop(arguments.loop, main(arguments))
