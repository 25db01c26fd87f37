"""Degraded model endpoints on the loopback interface, for the ``degraded`` cases: a port that refuses
connections (a model that is down) and an OpenAI-compatible endpoint that starts streaming an answer and
closes the connection before its end (a model cut off: no ``finish_reason``, no ``[DONE]``)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator

CUT_TEXT = "根据监测数据，15216 辅运起坡段当前"
"""What the cut-off endpoint streams before it closes the connection."""


def refusing_url() -> str:
    """The base URL of a loopback port nobody listens on (bound, then closed): connections are refused."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def _frame(delta: dict[str, object]) -> bytes:
    body = {
        "id": "chatcmpl-eval-cut",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "eval-cut",
        "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
    }
    return f"data: {json.dumps(body, ensure_ascii=False)}\n\n".encode()


async def _answer_cut(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Read one HTTP request, stream the first chunks of an answer, close without ending the stream."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
        length = 0
        for line in head.decode("latin-1").split("\r\n"):
            name, _, value = line.partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        await reader.readexactly(length)
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"
            + _frame({"role": "assistant", "content": ""})
            + b"".join(_frame({"content": CUT_TEXT[i : i + 6]}) for i in range(0, len(CUT_TEXT), 6))
        )
        await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, ValueError):
        pass
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()


@contextlib.asynccontextmanager
async def cut_off_endpoint() -> AsyncIterator[str]:
    """Serve the cut-off endpoint on a loopback port while the context is open; yields its base URL."""
    server = await asyncio.start_server(_answer_cut, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.close()
        await server.wait_closed()
