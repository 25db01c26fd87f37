"""Shared pieces of the service benchmarks (bench_sse, bench_clicks, bench_rss): the machine line, SSE
stream timing, a load client that runs in its own process, a uvicorn server in the caller's event loop,
percentiles and rich tables.

The load client is this file run as a script: ``python bench/_common.py`` reads a JSON spec on stdin
(``{"url", "requests": [{"method", "path", "json"?, "file"?}], "concurrency", "timeout_s"}``) and prints
one JSON object ``{"wall_s", "results": [StreamResult…]}`` on stdout. Running it in a separate process
keeps the client's CPU out of the server's event loop (the machine has two cores: one each).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import platform
import re
import resource
import socket
import statistics
import sys
import time
from collections.abc import AsyncIterator, Coroutine, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "tests" / "data"


# -- machine and output ------------------------------------------------------------------------------

LOOPS = ("uvloop", "asyncio")
"""The event loops a benchmark's server can run on (``--loop``); uvloop is what ``vent-agent serve`` uses."""


def run_on_loop(loop: str, main: Coroutine[Any, Any, None]) -> None:
    """Run ``main`` to its end on ``loop`` (one of :data:`LOOPS`)."""
    if loop == "uvloop":
        import uvloop

        uvloop.run(main)
    else:
        asyncio.run(main)


def machine_line() -> str:
    """One line naming the machine: cores, CPU model, Python, OS and the 1-minute load average."""
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return (
        f"{os.cpu_count()} cores ({cpu}), Python {platform.python_version()}, {platform.system()} "
        f"{platform.release()}, load average {os.getloadavg()[0]:.1f} at start"
    )


def print_table(title: str, columns: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    """Print a table with rich (numbers right-aligned); the machine line goes in the caption."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, caption=machine_line(), title_justify="left", caption_justify="left")
    for i, name in enumerate(columns):
        table.add_column(name, justify="left" if i == 0 else "right", no_wrap=i == 0)
    for row in rows:
        table.add_row(*(_cell(v) for v in row))
    Console(width=140).print(table)


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f"{value:,.1f}" if abs(value) >= 100 else f"{value:.2f}"
    return str(value)


def raise_fd_limit(wanted: int = 8192) -> int:
    """Raise this process' soft limit of open files towards ``wanted`` (at most the hard limit);
    return the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = min(max(soft, wanted), hard) if hard != resource.RLIM_INFINITY else max(soft, wanted)
    if target != soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return target


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0–100) of ``values`` with linear interpolation; NaN when empty."""
    if not values:
        return float("nan")
    if len(values) == 1:
        return float(values[0])
    return statistics.quantiles(values, n=1000, method="inclusive")[max(0, min(998, round(q * 10) - 1))]


_IDS = re.compile(r"\b[A-Za-z0-9_-]{24}\b|Task-\d+|vm-\d+-[0-9a-f]+")


def _gist(text: str) -> str:
    """The first line of a message, and its first later line naming an error (SQLAlchemy puts the
    driver's error on a line of its own)."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not lines:
        return text
    error = next((ln for ln in lines[1:] if "Error" in ln and not ln.startswith("(Background")), None)
    return f"{lines[0]} … {error}" if error else lines[0]


class ErrorCounter(logging.Handler):
    """Counts log records at ``level`` or above (e.g. failed runs, agent fallbacks), grouped by message
    and exception with run and task ids masked, so a benchmark reports them instead of flooding the
    terminal."""

    def __init__(self, level: int = logging.ERROR) -> None:
        super().__init__(level)
        self.count = 0
        self.kinds: dict[str, int] = {}

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1
        text = f"{record.levelname} {record.name}: {_gist(record.getMessage())}"
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None:
            text += f" [{type(exc).__name__}: {_gist(str(exc.__cause__ or exc))}]"
        key = _IDS.sub("<id>", text)[:240]
        self.kinds[key] = self.kinds.get(key, 0) + 1

    def report(self) -> str:
        """One line per kind of message, most frequent first ('' when nothing was logged)."""
        kinds = sorted(self.kinds.items(), key=lambda kv: -kv[1])
        return "\n".join(f"  {n}× {text}" for text, n in kinds[:8])

    def reset(self) -> None:
        self.count = 0
        self.kinds.clear()


def quiet_logs(level: int = logging.ERROR) -> ErrorCounter:
    """Route the root logger to an :class:`ErrorCounter` of ``level`` only (lower levels are dropped)."""
    counter = ErrorCounter(level)
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    root.addHandler(counter)
    root.setLevel(level)
    return counter


# -- streams -----------------------------------------------------------------------------------------


@dataclass
class StreamResult:
    """One SSE request as the client saw it: HTTP status, events read, seconds from sending the request to
    the first ``data:`` frame (``ttfe_s``) and to the end of the body (``total_s``), the event types
    seen first/last, ``error`` events, events flagged ``notice`` (e.g. a fallback to the rules) and the
    client-side error, if any."""

    status: int = 0
    events: int = 0
    ttfe_s: float | None = None
    total_s: float = 0.0
    first_type: str | None = None
    last_type: str | None = None
    error_events: int = 0
    notices: int = 0
    error: str | None = None

    @property
    def ok(self) -> bool:
        """HTTP 200, ended with ``done``, no ``error`` event and no client error."""
        return (
            self.status == 200 and self.error is None and self.last_type == "done" and not self.error_events
        )


async def read_stream(client: httpx.AsyncClient, request: dict[str, Any], deadline_s: float) -> StreamResult:
    """Send ``request`` (``method``, ``path``, optional ``json`` body or ``file`` path uploaded as
    ``file``) and read its SSE body to the end, timing the first ``data:`` frame. A stream still open
    after ``deadline_s`` (s) is abandoned with a ``TimeoutError`` (keep-alive pings would otherwise keep a
    stalled stream open for ever)."""
    out = StreamResult()
    start = time.perf_counter()
    kwargs: dict[str, Any] = {}
    if "json" in request:
        kwargs["json"] = request["json"]
    handle = None
    if "file" in request:
        path = Path(request["file"])
        handle = path.open("rb")
        kwargs["files"] = {"file": (path.name, handle, "application/pdf")}
        kwargs["data"] = request.get("form", {})
    try:
        async with (
            asyncio.timeout(deadline_s),
            client.stream(request.get("method", "GET"), request["path"], **kwargs) as resp,
        ):
            out.status = resp.status_code
            async for line in resp.aiter_lines():
                if not line.startswith("data:"):
                    continue
                if out.ttfe_s is None:
                    out.ttfe_s = time.perf_counter() - start
                out.events += 1
                with contextlib.suppress(ValueError, AttributeError):
                    event = json.loads(line[5:])
                    kind = event.get("type")
                    out.first_type = out.first_type or kind
                    out.last_type = kind
                    out.error_events += kind == "error"
                    out.notices += bool(event.get("notice"))
    except TimeoutError:
        out.error = f"TimeoutError: still open after {deadline_s:g} s"
    except Exception as exc:  # a client-side failure is a result to count, not a crash
        out.error = f"{type(exc).__name__}: {exc}"[:200]
    finally:
        if handle is not None:
            handle.close()
    out.total_s = time.perf_counter() - start
    return out


async def run_load(
    url: str, requests: list[dict[str, Any]], concurrency: int, timeout_s: float
) -> tuple[float, list[StreamResult]]:
    """Send ``requests`` with at most ``concurrency`` open at once, each given ``timeout_s`` (s) to end;
    return the wall time (s) and the results in request order."""
    raise_fd_limit(2 * concurrency + 256)
    limits = httpx.Limits(max_connections=concurrency + 8, max_keepalive_connections=concurrency + 8)
    gate = asyncio.Semaphore(concurrency)
    async with httpx.AsyncClient(base_url=url, timeout=timeout_s, limits=limits) as client:

        async def one(req: dict[str, Any]) -> StreamResult:
            async with gate:
                return await read_stream(client, req, timeout_s)

        start = time.perf_counter()
        results = await asyncio.gather(*(one(r) for r in requests))
        return time.perf_counter() - start, list(results)


async def load_in_process(
    url: str, requests: list[dict[str, Any]], *, concurrency: int, timeout_s: float = 120.0
) -> tuple[float, list[StreamResult]]:
    """Run :func:`run_load` in a separate Python process (this file as a script); return its wall time (s)
    and results. Raises RuntimeError when the client process fails."""
    spec = {"url": url, "requests": requests, "concurrency": concurrency, "timeout_s": timeout_s}
    answer = await run_json_script(Path(__file__), spec, "load client")
    return answer["wall_s"], [StreamResult(**r) for r in answer["results"]]


async def run_json_script(script: Path, spec: dict[str, Any], what: str) -> dict[str, Any]:
    """Run ``script`` in a Python process of its own with ``spec`` as JSON on stdin; return the JSON it
    prints. Raises RuntimeError (naming ``what``) when the process fails."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(script.resolve()),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    stdout, stderr = await proc.communicate(json.dumps(spec).encode())
    if proc.returncode != 0:
        raise RuntimeError(f"{what} failed ({proc.returncode}): {stderr.decode()[-2000:]}")
    return json.loads(stdout)


@dataclass
class LoadSummary:
    """Figures of one load: streams, failed streams, time to first event and total time per stream
    (p50/p99, ms), streams per second and events per second over the wall time, streams with a
    ``notice`` event."""

    streams: int
    errors: int
    ttfe_p50_ms: float
    ttfe_p99_ms: float
    total_p50_ms: float
    total_p99_ms: float
    streams_per_s: float
    events_per_s: float
    events_per_stream: float
    wall_s: float
    notices: int = 0
    error_kinds: dict[str, int] = field(default_factory=dict)


def summarise(wall_s: float, results: Sequence[StreamResult]) -> LoadSummary:
    """Reduce a load's results to a :class:`LoadSummary`; failures are grouped by their kind (HTTP status,
    client exception, ``error`` event, stream not ending with ``done``)."""
    ttfe = [r.ttfe_s * 1000 for r in results if r.ttfe_s is not None]
    total = [r.total_s * 1000 for r in results]
    kinds: dict[str, int] = {}
    for r in results:
        if r.ok:
            continue
        if r.error:
            kind = r.error.split(":", 1)[0]
        elif r.status != 200:
            kind = f"HTTP {r.status}"
        elif r.error_events:
            kind = "error event"
        else:
            kind = f"ended with {r.last_type}"
        kinds[kind] = kinds.get(kind, 0) + 1
    events = sum(r.events for r in results)
    return LoadSummary(
        streams=len(results),
        errors=sum(kinds.values()),
        ttfe_p50_ms=percentile(ttfe, 50),
        ttfe_p99_ms=percentile(ttfe, 99),
        total_p50_ms=percentile(total, 50),
        total_p99_ms=percentile(total, 99),
        streams_per_s=len(results) / wall_s if wall_s else float("nan"),
        events_per_s=events / wall_s if wall_s else float("nan"),
        events_per_stream=events / len(results) if results else 0.0,
        wall_s=wall_s,
        notices=sum(r.notices > 0 for r in results),
        error_kinds=kinds,
    )


@contextlib.asynccontextmanager
async def temp_postgres(admin_url: str) -> AsyncIterator[str]:
    """A new, uniquely named PostgreSQL database (``vent_bench_<hex>``) created through ``admin_url``
    and dropped afterwards; yields its URL. Raises asyncpg's errors when the server is unreachable."""
    import secrets

    import asyncpg
    from sqlalchemy.engine import make_url

    name = f"vent_bench_{secrets.token_hex(4)}"
    admin = make_url(admin_url)
    dsn = admin.set(drivername="postgresql").render_as_string(hide_password=False)
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
        try:
            yield admin.set(database=name).render_as_string(hide_password=False)
        finally:
            await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


# -- server ------------------------------------------------------------------------------------------


def free_port() -> int:
    """A free TCP port on loopback."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.asynccontextmanager
async def serve(app: Any, *, backlog: int = 4096) -> AsyncIterator[str]:
    """Serve ``app`` with uvicorn on a free loopback port in the running event loop (its lifespan
    included); yield the base URL. Raises RuntimeError when it does not start within 60 s."""
    import uvicorn

    port = free_port()
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_level="error",
        log_config=None,  # uvicorn's records go to the root logger (see quiet_logs)
        backlog=backlog,
        timeout_graceful_shutdown=5,
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    deadline = time.monotonic() + 60
    while not server.started:
        if task.done() or time.monotonic() > deadline:
            raise RuntimeError("the benchmark server did not start")
        await asyncio.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


def _client_main() -> None:
    spec = json.loads(sys.stdin.read())
    wall, results = asyncio.run(
        run_load(spec["url"], spec["requests"], spec["concurrency"], spec["timeout_s"])
    )
    json.dump({"wall_s": wall, "results": [asdict(r) for r in results]}, sys.stdout)


if __name__ == "__main__":
    _client_main()
