"""A chat answer survives a broken connection: reconnect with Last-Event-ID gets every event exactly
once; a run finishes with no client attached; the Python client and `vent-agent chat` recover by
themselves; CORS exposes the run and session headers to browser scripts."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from tests.chat_helpers import TOKEN, use_model
from tests.helpers import live_server, parse_spec_stream, parse_standard_stream
from tests.scripted_model import ScriptedChatModel, says
from vent_agent.app import create_app
from vent_agent.cli.chat import run_chat
from vent_agent.client import ChatClient
from vent_agent.events import Done, Token
from vent_agent.sessions.fold import fold_events
from vent_agent.settings import Settings

LONG = "根据监测数据，15216 辅运起坡段风速与风量均在规定范围内。" * 6


def slow_model() -> ScriptedChatModel:
    return ScriptedChatModel(script=[says(LONG)], fallback=says("还想了解什么？"), chunk_size=3, delay_s=0.01)


@pytest.fixture
def served(tmp_path):
    app = create_app(Settings(_env_file=None, data_dir=tmp_path / "data"))
    with live_server(app) as url:
        use_model(app, slow_model())
        yield app, url


def test_reconnect_with_last_event_id_gets_every_event_once(served) -> None:
    app, url = served
    with httpx.Client(base_url=url, headers=TOKEN, timeout=30) as http:
        first: list[dict[str, Any]] = []
        with http.stream("POST", "/api/chat", data={"message": "15216 风速如何？"}) as resp:
            run_id, sid = resp.headers["x-run-id"], resp.headers["x-session-id"]
            for line in resp.iter_lines():
                if line.startswith("data: "):
                    first.append(json.loads(line[6:]))
                if len(first) == 4:
                    break  # the client goes away mid-answer
        last = first[-1]["seq"]
        with http.stream("GET", f"/api/runs/{run_id}/events", headers={"Last-Event-ID": str(last)}) as resp:
            rest = parse_standard_stream(resp.read().decode())
        seqs = [e["seq"] for e in first] + [i for i, _ in rest]
        assert seqs == list(range(1, len(seqs) + 1))
        assert rest[-1][1]["type"] == "done"
        full = parse_standard_stream(http.get(f"/api/runs/{run_id}/events").text)
        assert [p for _, p in full] == first + [p for _, p in rest]
        text = "".join(p["content"] for p in first + [p for _, p in rest] if p["type"] == "token")
        assert text == LONG
        # the history is the fold of the stream
        hist = http.get(f"/api/chat/history/{sid}").json()["messages"][-1]
        folded = fold_events([p for _, p in full])
        assert {k: v for k, v in hist.items() if k not in ("run_id", "created_at")} == folded


def test_run_finishes_with_no_client_attached(served) -> None:
    app, url = served
    with httpx.Client(base_url=url, headers=TOKEN, timeout=30) as http:
        with http.stream("POST", "/api/chat", data={"message": "风量？"}) as resp:
            run_id, sid = resp.headers["x-run-id"], resp.headers["x-session-id"]
        for _ in range(200):
            hist = http.get(f"/api/chat/history/{sid}").json()
            if hist["total"] == 2:
                break
            asyncio.run(asyncio.sleep(0.05))
        assert hist["messages"][-1]["content"] == LONG
        events = parse_standard_stream(http.get(f"/api/runs/{run_id}/events").text)
        assert events[-1][1]["type"] == "done"


def test_cancel_a_chat_run(served) -> None:
    app, url = served
    app.state.vent.models.model.delay_s = 0.2
    with httpx.Client(base_url=url, headers=TOKEN, timeout=30) as http:
        with http.stream("POST", "/api/chat", data={"message": "风量？"}) as resp:
            run_id = resp.headers["x-run-id"]
        r = http.post(f"/api/runs/{run_id}/cancel")
        assert r.status_code == 200
        events = [p for _, p in parse_standard_stream(http.get(f"/api/runs/{run_id}/events").text)]
        assert [e["type"] for e in events][-2:] == ["error", "done"]
        assert events[-2].get("cancelled") is True


class CutAfter(httpx.AsyncBaseTransport):
    """Delivers the first ``frames`` SSE frames of the chat POST, then breaks the connection."""

    def __init__(self, inner: httpx.AsyncBaseTransport, frames: int) -> None:
        self.inner, self.frames = inner, frames

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        resp = await self.inner.handle_async_request(request)
        if request.method != "POST" or request.url.path != "/api/chat":
            return resp
        frames = self.frames

        async def cut():
            buf = b""
            async for part in resp.aiter_raw():
                buf += part
                while b"\n\n" in buf:
                    frame, buf = buf.split(b"\n\n", 1)
                    if frame.startswith(b"data:"):
                        nonlocal frames
                        if frames == 0:
                            raise httpx.RemoteProtocolError("connection broken")
                        frames -= 1
                    yield frame + b"\n\n"

        return httpx.Response(resp.status_code, headers=resp.headers, content=cut())


async def test_python_client_recovers_from_a_broken_stream(served) -> None:
    app, url = served
    client = ChatClient(url, "demo-token", transport=CutAfter(httpx.AsyncHTTPTransport(), 3))
    events = [ev async for ev in client.chat("15216 风速如何？")]
    seqs = [e.seq for e in events]
    assert seqs == list(range(1, len(seqs) + 1))
    assert isinstance(events[-1], Done)
    assert "".join(e.content for e in events if isinstance(e, Token)) == LONG


async def test_python_client_falls_back_to_history(served, monkeypatch: pytest.MonkeyPatch) -> None:
    app, url = served
    client = ChatClient(url, "demo-token", transport=CutAfter(httpx.AsyncHTTPTransport(), 2))
    original = client._recover

    async def run_gone(http, run_id, last_seq):
        # The run ends meanwhile (its log, read to the end, ends with done, after the turn is stored); its
        # events are then out of reach, and the client has only the history left
        async with http.stream("GET", f"/api/runs/{run_id}/events") as log:
            assert log.status_code == 200 and '"type":"done"' in (await log.aread()).decode()
        async for ev in client._from_history(http, run_id):
            yield ev

    monkeypatch.setattr(client, "_recover", run_gone)
    events = [ev async for ev in client.chat("风量？")]
    assert original is not None
    assert isinstance(events[-1], Done) and events[-1].session_id == client.session_id
    assert events[-1].model_extra == {"from_history": True}
    assert isinstance(events[-2], Token) and events[-2].content == LONG


async def test_chat_cli_prints_the_answer(served, capsys) -> None:
    app, url = served
    code = await run_chat("风速？", url=url, token="demo-token", session=None, mode=None, approve=False)
    assert code == 0
    assert LONG in capsys.readouterr().out
    bad = await run_chat("风速？", url=url, token="wrong", session=None, mode=None, approve=False)
    assert bad == 2


async def test_cors_exposes_run_and_session_headers(tmp_path) -> None:
    app = create_app(Settings(_env_file=None, data_dir=tmp_path / "d", cors_origins=["http://mine.example"]))
    async with app.router.lifespan_context(app):
        use_model(app, ScriptedChatModel(script=[], fallback=says("好")))
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c:
            pre = await c.options(
                "/api/chat",
                headers={
                    "Origin": "http://mine.example",
                    "Access-Control-Request-Method": "POST",
                    "Access-Control-Request-Headers": "x-access-token",
                },
            )
            assert pre.status_code == 200
            assert pre.headers["access-control-allow-origin"] == "http://mine.example"
            r = await c.post(
                "/api/chat", data={"message": "hi"}, headers={**TOKEN, "Origin": "http://mine.example"}
            )
            assert "X-Session-Id" in r.headers["access-control-expose-headers"]
            assert parse_spec_stream(r.text)[-1]["type"] == "done"
            evil = await c.options(
                "/api/chat",
                headers={"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"},
            )
            assert "access-control-allow-origin" not in evil.headers


@pytest.mark.parametrize(
    ("origin", "method", "request_headers", "message"),
    [
        (
            "http://evil.example",
            "POST",
            "x-access-token",
            "跨域请求不被允许：来源 http://evil.example 不在允许的来源中（VENT_CORS_ORIGINS）",
        ),
        (
            "http://mine.example",
            "POST",
            "x-access-token, x-session-id",
            "跨域请求不被允许：请求头 x-session-id 不被允许",
        ),
        ("http://mine.example", "PATCH", None, "跨域请求不被允许：请求方法 PATCH 不被允许"),
        (
            "http://evil.example",
            "PATCH",
            "x-other",
            "跨域请求不被允许：来源 http://evil.example 不在允许的来源中（VENT_CORS_ORIGINS）；"
            "请求方法 PATCH 不被允许；请求头 x-other 不被允许",
        ),
    ],
)
async def test_a_refused_preflight_is_the_spec_error_in_chinese(
    tmp_path, origin: str, method: str, request_headers: str | None, message: str
) -> None:
    app = create_app(Settings(_env_file=None, data_dir=tmp_path / "d", cors_origins=["http://mine.example"]))
    headers = {"Origin": origin, "Access-Control-Request-Method": method}
    if request_headers:
        headers["Access-Control-Request-Headers"] = request_headers
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://t") as c,
    ):
        refused = await c.options("/api/chat", headers=headers)
    assert refused.status_code == 400
    assert refused.headers["content-type"] == "application/json"
    assert refused.json() == {"error": message}
    assert "access-control-allow-origin" not in refused.headers or origin == "http://mine.example"
