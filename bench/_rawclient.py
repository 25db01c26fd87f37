"""A raw-socket SSE load client: HTTP/1.1 over asyncio streams, no HTTP library, no JSON parsing, so
that the client is never what a benchmark measures (httpx saturates a core long before a bare
sse-starlette endpoint does).

Run as a script it reads a JSON spec on stdin (``{"host", "port", "requests": [...],
"concurrency", "timeout_s"}``, each request a path or ``{"method", "path", "json"?}``) and prints ``{"wall_s", "results": [StreamResult…]}`` (see ``_common.StreamResult``);
:func:`raw_load` runs it in ``clients`` separate processes and merges what they print.

Per stream: the status line, the time to the first ``data:`` (TTFE) and to the end of the body, the
number of ``data:`` frames, of ``error`` events and of events flagged ``notice`` (counted in the bytes,
across reads), and the type of the last event.
Requests send ``Connection: close``, so the body ends when the server closes the connection.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

MARK = b"data: "
ERROR = b'data: {"type":"error"'
NOTICE = b'"notice":"'  # progress.notice is a string naming why (no_model, rule_fallback, …)
CARRY = max(len(MARK), len(ERROR), len(NOTICE)) - 1
LAST_TYPE = re.compile(rb'data: \{"type":"(\w+)"')


def request_bytes(host: str, request: str | dict[str, Any]) -> bytes:
    """The HTTP/1.1 request: a path (GET) or ``{"method", "path", "json"?}`` (a JSON body)."""
    if isinstance(request, str):
        request = {"path": request}
    body = json.dumps(request["json"], ensure_ascii=False).encode() if "json" in request else b""
    head = (
        f"{request.get('method', 'GET')} {request['path']} HTTP/1.1\r\nHost: {host}\r\n"
        "Accept: text/event-stream\r\nConnection: close\r\n"
    )
    if body:
        head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
    return (head + "\r\n").encode() + body


def _count(window: bytes, pattern: bytes, carried: int) -> int:
    """Occurrences of ``pattern`` in ``window`` that end after its first ``carried`` bytes (those
    within the carried bytes were counted with the previous read)."""
    return window.count(pattern, max(0, carried - len(pattern) + 1))


async def read_raw(host: str, port: int, request: str | dict[str, Any], deadline_s: float) -> dict[str, Any]:
    """Send ``request`` (see :func:`request_bytes`) and read the SSE body to its end; a result dict of
    ``_common.StreamResult``'s fields."""
    out: dict[str, Any] = {"status": 0, "events": 0, "ttfe_s": None, "total_s": 0.0, "error": None}
    start = time.perf_counter()
    writer = None
    try:
        async with asyncio.timeout(deadline_s):
            reader, writer = await asyncio.open_connection(host, port)
            writer.write(request_bytes(host, request))
            head = await reader.readuntil(b"\r\n\r\n")
            out["status"] = int(head.split(b" ", 2)[1])
            carry = b""
            last_frame = b""
            out["error_events"] = out["notices"] = 0
            while chunk := await reader.read(1 << 16):
                window = carry + chunk
                found = _count(window, MARK, len(carry))
                if found:
                    if out["ttfe_s"] is None:
                        out["ttfe_s"] = time.perf_counter() - start
                    out["events"] += found
                    last_frame = window[window.rfind(MARK) :][:64]
                out["error_events"] += _count(window, ERROR, len(carry))
                out["notices"] += _count(window, NOTICE, len(carry))
                carry = window[-CARRY:]
            if m := LAST_TYPE.match(last_frame):
                out["last_type"] = m.group(1).decode()
    except TimeoutError:
        out["error"] = f"TimeoutError: still open after {deadline_s:g} s"
    except Exception as exc:  # a client failure is a result to count
        out["error"] = f"{type(exc).__name__}: {exc}"[:200]
    finally:
        if writer is not None:
            writer.close()
    out["total_s"] = time.perf_counter() - start
    return out


async def run_raw(spec: dict[str, Any]) -> dict[str, Any]:
    gate = asyncio.Semaphore(spec["concurrency"])

    async def one(request: str | dict[str, Any]) -> dict[str, Any]:
        async with gate:
            return await read_raw(spec["host"], spec["port"], request, spec["timeout_s"])

    start = time.perf_counter()
    results = await asyncio.gather(*(one(r) for r in spec["requests"]))
    return {"wall_s": time.perf_counter() - start, "results": results}


async def raw_load(
    host: str,
    port: int,
    requests: list[str | dict[str, Any]],
    *,
    concurrency: int,
    clients: int = 1,
    timeout_s: float = 120.0,
) -> tuple[float, list[Any]]:
    """Read ``requests`` (see :func:`request_bytes`) with at most ``concurrency`` streams open at once, split over ``clients`` client
    processes; return the longest wall time (s) and the results as ``_common.StreamResult``s."""
    from _common import StreamResult, run_json_script

    clients = max(1, min(clients, len(requests)))
    shares = [requests[i::clients] for i in range(clients)]
    per_client = max(1, concurrency // clients)

    async def client(share: list[str | dict[str, Any]]) -> dict[str, Any]:
        spec = {
            "host": host,
            "port": port,
            "requests": share,
            "concurrency": per_client,
            "timeout_s": timeout_s,
        }
        return await run_json_script(Path(__file__), spec, "raw client")

    answers = await asyncio.gather(*(client(s) for s in shares))
    results = [StreamResult(**r) for a in answers for r in a["results"]]
    return max(a["wall_s"] for a in answers), results


def _main() -> None:
    spec = json.loads(sys.stdin.read())
    try:
        import uvloop

        answer = uvloop.run(run_raw(spec))
    except ImportError:
        answer = asyncio.run(run_raw(spec))
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    _main()
