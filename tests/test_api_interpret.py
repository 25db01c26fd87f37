"""Click interpretation over HTTP: spec events and framing, validation, unknown ids, the model path
over a loopback fake OpenAI-compatible server, and replay of the run log."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import anyio
import httpx
import pytest

from tests.fake_openai import FakeOpenAI
from tests.helpers import live_server, parse_spec_stream, parse_standard_stream
from vent_agent.api.sse import RunEventsResponse
from vent_agent.app import create_app
from vent_agent.event_parts import merge_parts
from vent_agent.settings import Settings
from vent_agent.upstream.demo_mine import DemoMine

TUN = {"tun_id": "15216", "tun_name": "15216 辅运起坡段", "mode": "fast"}
FAN = {"device_id": "FAN-001", "device_name": "主通风机", "device_type": "fan", "mode": "fast"}


async def _stream(
    client: httpx.AsyncClient, path: str, body: dict[str, Any]
) -> tuple[httpx.Response, list[dict[str, Any]]]:
    resp = await client.post(path, json=body)
    return resp, parse_spec_stream(resp.text)


async def test_tunnel_fast_mode_event_sequence(client: httpx.AsyncClient) -> None:
    resp, events = await _stream(client, "/api/interpret/click/tun", TUN)
    assert resp.status_code == 200
    assert resp.headers["content-type"].startswith("text/event-stream")
    assert resp.headers["x-run-id"]
    types = [e["type"] for e in events]
    assert types[:2] == ["thinking", "executing"]
    assert events[0]["node"] == "fetching_data" and events[0]["source"] == "fast"
    assert events[1]["tools"] == ["query_tun_data_by_id"]
    assert "generating" in types and types[-1] == "done"
    assert types.index("generating") < types.index("token")
    for e in events:
        assert e.get("message") or e["type"] == "token", e
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    text = "".join(e["content"] for e in events if e["type"] == "token")
    assert "15216 辅运起坡段" in text and "第157条" in text and "风速" in text
    assert "CH₄" in text or "甲烷" in text
    assert events[-1]["thread_id"] == resp.headers["x-run-id"] and events[-1]["session_id"] is None


async def test_a_click_resolves_its_dependencies_without_the_thread_pool(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plain-function dependency costs a thread hop per request (FastAPI's thread pool): under a burst
    of clicks the requests queue for its threads."""

    async def no_pool(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("a dependency ran in the thread pool")

    monkeypatch.setattr("fastapi.dependencies.utils.run_in_threadpool", no_pool)
    resp, events = await _stream(client, "/api/interpret/click/tun", TUN)
    assert resp.status_code == 200 and events[-1]["type"] == "done"
    resp = await client.get("/api/skills")
    assert resp.status_code == 200


async def test_a_second_click_on_the_same_data_reuses_the_facts(app, client: httpx.AsyncClient) -> None:
    start = datetime.now(ZoneInfo("Asia/Shanghai"))
    app.state.vent.source = DemoMine(now=lambda: start)  # its data time stays, whatever the wall clock
    cache = app.state.vent.facts_cache
    _, first = await _stream(client, "/api/interpret/click/tun", TUN)
    _, second = await _stream(client, "/api/interpret/click/tun", TUN)
    assert (cache.misses, cache.hits) == (1, 1)

    def text(events: list[dict[str, Any]]) -> str:
        return "".join(e["content"] for e in events if e["type"] == "token")

    assert text(first) == text(second)


async def test_a_stream_writes_without_a_cancel_scope_per_frame_unless_a_send_timeout_is_set(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    scopes: list[object] = []
    real = anyio.move_on_after  # what sse_starlette's writes open their cancel scope with

    def counted(delay: float | None) -> anyio.CancelScope:
        scopes.append(delay)
        return real(delay)

    monkeypatch.setattr(anyio, "move_on_after", counted)
    resp, events = await _stream(client, "/api/interpret/click/tun", TUN)
    assert resp.status_code == 200 and events[-1]["type"] == "done"
    assert None not in scopes  # no never-cancelling scope around each write
    response = RunEventsResponse(iter([b"data: {}\n\n"]), send_timeout=5.0)
    sent: list[dict[str, Any]] = []

    async def send(message):
        sent.append(message)

    await response._send_with_timeout(send, {"type": "http.response.body", "body": b"x", "more_body": True})
    assert scopes[-1] == 5.0 and sent[-1]["body"] == b"x"  # a time-out set: the scope bounds the write


async def test_device_fast_mode(client: httpx.AsyncClient) -> None:
    _, events = await _stream(client, "/api/interpret/click/device", FAN)
    assert events[1]["tools"] == ["query_device_data_by_id"]
    text = "".join(e["content"] for e in events if e["type"] == "token")
    assert "主通风机" in text and events[-1]["type"] == "done"


async def test_plan_mode_default_gives_interpretation_with_notice(client: httpx.AsyncClient) -> None:
    body = {k: v for k, v in TUN.items() if k != "mode"}
    _, events = await _stream(client, "/api/interpret/click/tun", body)
    assert any(e["type"] == "progress" and e.get("notice") for e in events)
    assert any(e["type"] == "token" for e in events) and events[-1]["type"] == "done"


async def test_heading_with_gas_anomaly_is_flagged(client: httpx.AsyncClient) -> None:
    _, events = await _stream(
        client, "/api/interpret/click/tun", {**TUN, "tun_id": "15220-HF", "tun_name": "x"}
    )
    text = "".join(e["content"] for e in events if e["type"] == "token")
    assert "第192条" in text and "**超限**" in text


@pytest.mark.parametrize(
    "path,body",
    [
        ("/api/interpret/click/tun", {"tun_name": "x"}),
        ("/api/interpret/click/tun", {"tun_id": "", "tun_name": "x"}),
        ("/api/interpret/click/tun", {"tun_id": "1", "tun_name": "x", "mode": "turbo"}),
        ("/api/interpret/click/device", {"device_id": "FAN-001", "device_name": "x"}),
    ],
)
async def test_bad_request_is_400_in_spec_shape(
    client: httpx.AsyncClient, path: str, body: dict[str, Any]
) -> None:
    resp = await client.post(path, json=body)
    assert resp.status_code == 400
    assert set(resp.json()) == {"error"} and resp.json()["error"]


async def test_malformed_json_is_400(client: httpx.AsyncClient) -> None:
    resp = await client.post(
        "/api/interpret/click/tun", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert resp.status_code == 400 and "error" in resp.json()


async def test_unknown_id_gives_error_then_done(client: httpx.AsyncClient) -> None:
    _, events = await _stream(client, "/api/interpret/click/tun", {**TUN, "tun_id": "NOPE"})
    assert [e["type"] for e in events][-2:] == ["error", "done"]
    assert "NOPE" in events[-2]["message"]


async def test_run_log_replays_with_ids_and_after(client: httpx.AsyncClient) -> None:
    resp, events = await _stream(client, "/api/interpret/click/tun", TUN)
    run_id = resp.headers["x-run-id"]
    replay = await client.get(f"/api/runs/{run_id}/events", headers={"Last-Event-ID": "2"})
    pairs = parse_standard_stream(replay.text)
    assert [i for i, _ in pairs] == [e["seq"] for e in events[2:]]
    assert [p for _, p in pairs] == events[2:]
    after = await client.get(f"/api/runs/{run_id}/events?after={len(events) - 1}")
    assert [p["type"] for _, p in parse_standard_stream(after.text)] == ["done"]
    assert (await client.get("/api/runs/nope/events")).status_code == 404
    assert (await client.get(f"/api/runs/{run_id}/events", headers={"Last-Event-ID": "x"})).status_code == 400
    assert (await client.post(f"/api/runs/{run_id}/cancel")).status_code == 409


def _click_through_fake_model(fake: FakeOpenAI, tmp_path) -> list[dict[str, Any]]:
    """POST the tunnel click to a live app whose model is the loopback ``fake``; the parsed events."""
    with live_server(fake.app) as llm_url:
        settings = Settings(
            _env_file=None,
            data_dir=tmp_path / "d",
            llm_base_url=f"{llm_url}/v1",
            llm_api_key="k",
            llm_model="fake-model",
        )
        with live_server(create_app(settings)) as base:
            resp = httpx.post(f"{base}/api/interpret/click/tun", json=TUN, timeout=60)
    return parse_spec_stream(resp.text)


def test_model_path_streams_model_text(tmp_path) -> None:
    fake = FakeOpenAI(reply="**15216 辅运起坡段**：风速正常。", reasoning="先看风速")
    events = _click_through_fake_model(fake, tmp_path)
    text = "".join(e["content"] for e in events if e["type"] == "token")
    assert text == "**15216 辅运起坡段**：风速正常。"
    assert events[-1]["type"] == "done"
    sent = fake.requests[0]
    assert sent["model"] == "fake-model" and sent["stream"] is True
    prompt = " ".join(m["content"] for m in sent["messages"])
    assert "15216" in prompt and "第157条" in prompt


def test_model_failure_falls_back_to_rules(tmp_path) -> None:
    events = _click_through_fake_model(FakeOpenAI(fail_status=500), tmp_path)
    assert any(e["type"] == "progress" and "模型调用失败" in e["message"] for e in events)
    text = "".join(e["content"] for e in events if e["type"] == "token")
    assert "第157条" in text and events[-1]["type"] == "done"


async def test_numeric_tunnel_id_is_accepted(client: httpx.AsyncClient) -> None:
    resp, events = await _stream(client, "/api/interpret/click/tun", {**TUN, "tun_id": 15216})
    assert resp.status_code == 200 and events[-1]["type"] == "done"
    assert any(e["type"] == "token" for e in events)


async def test_unknown_id_done_says_it_failed(client: httpx.AsyncClient) -> None:
    _, events = await _stream(client, "/api/interpret/click/device", {**FAN, "device_id": "../../etc"})
    assert events[-1]["type"] == "done" and events[-1]["message"] == "解读失败"
    assert sum(e["type"] == "done" for e in events) == 1


@pytest.mark.parametrize(
    "path,body",
    [
        ("/api/interpret/click/tun", {**TUN, "tun_id": "15220-HF"}),
        ("/api/interpret/click/device", FAN),
        ("/api/interpret/click/device", {**FAN, "device_id": "JF-15220-YS-1", "device_type": "aux_fan"}),
        ("/api/interpret/click/device", {**FAN, "device_id": "CH4-15216", "device_type": "ch4_sensor"}),
        ("/api/interpret/click/device", {**FAN, "device_id": "FM-01", "device_type": "door"}),
        ("/api/interpret/click/device", {**FAN, "device_id": "ZYBDS-HF", "device_type": "regulator"}),
    ],
)
async def test_an_interpretation_numbers_its_clauses_without_gaps(
    client: httpx.AsyncClient, path: str, body: dict[str, Any]
) -> None:
    """The run's markers follow what it looked up, some of it not cited; the clauses shown are R1, R2…"""
    _, events = await _stream(client, path, body)
    (refs,) = [e for e in merge_parts(events) if e["type"] == "references"]
    markers = [r["marker"] for r in refs["references"] if r.get("marker")]
    assert markers and markers == [f"R{i}" for i in range(1, len(markers) + 1)], markers


def test_a_model_interpretation_numbers_its_clauses_without_gaps(tmp_path) -> None:
    """The model cites one of the provisions the facts carry, not the first: it is R1."""
    events = merge_parts(
        _click_through_fake_model(FakeOpenAI(reply="一氧化碳浓度正常（第156条）。"), tmp_path)
    )
    (refs,) = [e for e in events if e["type"] == "references"]
    assert [(r["marker"], r["article"]) for r in refs["references"]] == [("R1", 156)]
