"""The shipped browser client (``GET /static/vent-client.js``) and the spec's naive parser, in Node,
against the real app on loopback.

- Through a proxy that forwards the server's bytes in 7-byte (and 1,400-byte) pieces with small delays,
  the shipped client reads exactly the events of the run's log (parts joined), the same text as a
  direct read: frames split across reads and Chinese characters split across reads survive.
- The spec's example parser (no buffer, split each read on a blank line), directly on loopback, reads
  every event of a click, a chat (scripted model) and a review.

Needs ``node`` (skipped with the reason when absent; a failure under ``CI=true``).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.chat_helpers import TOKEN, use_model
from tests.helpers import live_server, parse_standard_stream, without_clock
from tests.scripted_model import ScriptedChatModel, says
from vent_agent.app import create_app
from vent_agent.event_parts import merge_parts
from vent_agent.settings import Settings
from vent_agent.wire import FRAME_CAP

NODE = shutil.which("node")
DRIVER = Path(__file__).parent / "js" / "stream.mjs"
DATA = Path(__file__).parent / "data"
ANSWER = "根据监测数据，15216 辅运起坡段风速 1.8 m/s、风量 620 m³/min，均在规定范围内；“回风”侧无异常。" * 30

if NODE is None:
    if os.environ.get("CI") == "true":
        pytest.fail("node is required under CI=true (tests/test_browser_client.py)", pytrace=False)
    pytest.skip("node is not installed: the browser client is tested in Node", allow_module_level=True)


class SplittingProxy:
    """A loopback TCP proxy: requests pass as they are; the server's bytes go to the client in pieces
    of ``piece`` bytes, each written and drained on its own with ``delay_s`` between them."""

    def __init__(self, upstream_port: int, piece: int, delay_s: float = 0.001) -> None:
        self.upstream_port, self.piece, self.delay_s = upstream_port, piece, delay_s
        self.loop = asyncio.new_event_loop()
        self.port = 0
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        server = self.loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", 0))
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        self.loop.run_forever()
        server.close()

    async def _pipe(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, piece: int | None
    ) -> None:
        try:
            while data := await reader.read(65536):
                for i in range(0, len(data), piece or len(data)):
                    writer.write(data[i : i + (piece or len(data))])
                    await writer.drain()
                    if piece:
                        await asyncio.sleep(self.delay_s)
        except ConnectionError:
            pass
        finally:
            writer.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        await asyncio.gather(self._pipe(reader, up_writer, None), self._pipe(up_reader, writer, self.piece))

    def __enter__(self) -> SplittingProxy:
        self._thread.start()
        self._ready.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=5)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, str, Path]]:
    """The app on loopback with a scripted chat model, and the client module as served."""
    tmp = tmp_path_factory.mktemp("browser")
    app = create_app(Settings(_env_file=None, data_dir=tmp / "data"))
    with live_server(app) as url:
        use_model(app, ScriptedChatModel(script=[], fallback=says(ANSWER), chunk_size=7))
        resp = httpx.get(f"{url}/static/vent-client.js")
        assert resp.status_code == 200 and resp.headers["content-type"].startswith("text/javascript")
        module = tmp / "vent-client.mjs"
        module.write_text(resp.text, encoding="utf-8")
        yield app, url, module


def run_node(
    module: Path, mode: str, request: dict[str, Any], tmp_path: Path
) -> tuple[str, list[dict[str, Any]]]:
    assert NODE is not None
    spec = tmp_path / f"req-{mode}.json"
    spec.write_text(json.dumps(request), encoding="utf-8")
    proc = subprocess.run(
        [NODE, str(DRIVER), str(module), mode, str(spec)], capture_output=True, text=True, timeout=240
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    return out["run_id"], out["events"]


def logged(url: str, run_id: str) -> list[dict[str, Any]]:
    """The run's events as logged (``GET /api/runs/{id}/events``)."""
    resp = httpx.get(f"{url}/api/runs/{run_id}/events", headers=TOKEN, timeout=60)
    return [payload for _, payload in parse_standard_stream(resp.text)]


def text_of(events: list[dict[str, Any]]) -> str:
    return "".join(e["content"] for e in events if e["type"] == "token")


def kinds(events: list[dict[str, Any]]) -> list[str]:
    """The event types in order, a run of ``token`` events counted once."""
    out = [e["type"] for e in events]
    return [k for i, k in enumerate(out) if k != "token" or i == 0 or out[i - 1] != "token"]


def requests(url: str) -> dict[str, dict[str, Any]]:
    return {
        "click": {
            "url": f"{url}/api/interpret/click/tun",
            "json": {"tun_id": "15216", "tun_name": "辅运起坡段", "mode": "fast"},
        },
        "chat": {
            "url": f"{url}/api/chat",
            "headers": TOKEN,
            "form": {"fields": {"message": "15216 风速如何？"}},
        },
        "review": {
            "url": f"{url}/api/vent/review/pdf",
            "form": {
                "fields": {},
                "file": {
                    "path": str(DATA / "plan-2026-08-a.pdf"),
                    "name": "plan-a.pdf",
                    "type": "application/pdf",
                },
            },
        },
    }


@pytest.mark.parametrize("flow", ["click", "chat", "review"])
def test_the_spec_parser_reads_every_event_on_loopback(served, flow: str, tmp_path: Path) -> None:
    _app, url, module = served
    run_id, events = run_node(module, "naive", requests(url)[flow], tmp_path)
    log = logged(url, run_id)
    assert events == log
    assert events[-1]["type"] == "done"
    sizes = [
        len(("data: " + json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n\n").encode())
        for e in log
    ]
    assert max(sizes) <= FRAME_CAP
    assert text_of(events).strip(), "the answer text arrived"


@pytest.mark.parametrize("flow", ["click", "chat", "review"])
@pytest.mark.parametrize("piece", [7, 1400])
def test_the_shipped_client_through_a_splitting_proxy_reads_what_was_logged(
    served, flow: str, piece: int, tmp_path: Path
) -> None:
    _app, url, module = served
    with SplittingProxy(int(url.rsplit(":", 1)[1]), piece) as proxy:
        run_id, events = run_node(
            module, "client", requests(f"http://127.0.0.1:{proxy.port}")[flow], tmp_path
        )
    assert events == merge_parts(logged(url, run_id))
    assert events[-1]["type"] == "done"


@pytest.mark.parametrize("flow", ["click", "chat"])
def test_the_shipped_client_reads_the_same_text_split_or_direct(served, flow: str, tmp_path: Path) -> None:
    _app, url, module = served
    _, direct = run_node(module, "client", requests(url)[flow], tmp_path)
    with SplittingProxy(int(url.rsplit(":", 1)[1]), 7) as proxy:
        _, split = run_node(module, "client", requests(f"http://127.0.0.1:{proxy.port}")[flow], tmp_path)
    assert without_clock(text_of(split)) == without_clock(text_of(direct)) != ""
    assert kinds(split) == kinds(direct)  # token events are merged by time: their number may differ
    if flow == "chat":
        assert text_of(split).startswith(ANSWER)


def test_every_stream_says_no_buffering_and_no_cache(served) -> None:
    _app, url, _module = served
    reqs = requests(url)
    pdf = DATA / "plan-2026-08-a.pdf"
    with httpx.Client(timeout=120) as http:
        responses = [
            http.post(reqs["click"]["url"], json=reqs["click"]["json"]),
            http.post(reqs["chat"]["url"], headers=TOKEN, data=reqs["chat"]["form"]["fields"]),
            http.post(reqs["review"]["url"], files={"file": ("a.pdf", pdf.read_bytes(), "application/pdf")}),
        ]
        run_id = responses[0].headers["x-run-id"]
        responses.append(http.get(f"{url}/api/runs/{run_id}/events", headers=TOKEN))
    for resp in responses:
        assert resp.status_code == 200, resp.text
        assert resp.headers["content-type"].startswith("text/event-stream")
        assert resp.headers["cache-control"] == "no-cache"
        assert resp.headers["x-accel-buffering"] == "no"
