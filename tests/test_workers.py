"""Two service processes on one database (uvicorn subprocesses on loopback ports), as deployed behind a
load balancer: a client that started a click interpretation on worker 1 reconnects to worker 2 and gets
every remaining event exactly once; cancel works from the other worker; a worker killed with SIGKILL
mid-run loses no logged event, and its run is then closed as failed (``error`` + ``done``) by the
surviving worker or by the restarted one.

Brokers: PostgreSQL NOTIFY, Redis pub/sub (on PostgreSQL), and polling of the log (on a shared SQLite
file). The model is a slow loopback fake, so runs last long enough to be interrupted.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fake_openai import FakeOpenAI
from tests.helpers import live_server, parse_spec_stream, parse_standard_stream, present
from tests.pg import REDIS_URL, Worker, pg_database, require_redis, run_sync, start_workers, unique_channel
from vent_agent.store.db import Database
from vent_agent.store.models import RunRow

REPLY = "根据监测数据，该巷道风速 1.8 m/s，风量 1250 m³/min，甲烷浓度 0.21%，均在《煤矿安全规程》规定范围内。"
TUN = {"tun_id": "15216", "tun_name": "15216 辅运起坡段", "mode": "fast"}
CLICK = "/api/interpret/click/tun"
TIMEOUT = httpx.Timeout(60.0)


class SlowFakeOpenAI(FakeOpenAI):
    """The loopback fake model, pausing ``delay_s`` (s) before each streamed chunk (5 characters)."""

    def __init__(self, reply: str, delay_s: float) -> None:
        super().__init__(reply=reply)
        self.delay_s = delay_s

    async def completions(self, request: Any) -> Any:
        response = await super().completions(request)
        inner, delay = response.body_iterator, self.delay_s

        async def slow() -> Any:
            async for chunk in inner:
                await asyncio.sleep(delay)
                yield chunk

        response.body_iterator = slow()
        return response


@dataclass
class Cluster:
    """Running workers on one store, with the fake model they call."""

    workers: list[Worker]
    url: str
    fake: SlowFakeOpenAI
    env: dict[str, str]
    tmp: Path


@contextmanager
def cluster_of(count: int, store: str, broker: str, tmp: Path) -> Iterator[Cluster]:
    """``count`` workers on a fresh ``store`` (postgres | sqlite) with ``broker`` (notify | redis | poll)."""
    if broker == "redis":
        require_redis()
    fake = SlowFakeOpenAI(REPLY, delay_s=0.05)
    with ExitStack() as stack:
        if store == "postgres":
            url = stack.enter_context(pg_database())
        else:
            url = f"sqlite+aiosqlite:///{tmp / 'shared.db'}"
        llm_url = stack.enter_context(live_server(fake.app))
        env = {
            "VENT_DATABASE_URL": url,
            "VENT_DATA_DIR": str(tmp / "data"),
            "VENT_LLM_BASE_URL": f"{llm_url}/v1",
            "VENT_LLM_API_KEY": "k",
            "VENT_LLM_MODEL": "fake-model",
            "VENT_TEST_CHANNEL": unique_channel(),
            "VENT_TEST_HEARTBEAT_S": "0.5",
            "VENT_TEST_POLL_S": "0.5",
            "VENT_WORKER_HEARTBEAT_S": "0.5",
            "VENT_WORKER_DEAD_AFTER_S": "3",
        }
        if broker == "redis":
            env["VENT_REDIS_URL"] = REDIS_URL
        workers = start_workers(count, env, tmp)
        try:
            yield Cluster(workers, url, fake, env, tmp)
        finally:
            for w in workers:
                w.stop()


CLUSTERS = {
    "postgres-notify": ("postgres", "notify"),
    "postgres-redis": ("postgres", "redis"),
    "sqlite-poll": ("sqlite", "poll"),
}
EXPECTED_BROKER = {"notify": "postgres-notify", "redis": "redis", "poll": "in-process"}


@pytest.fixture(scope="module", params=list(CLUSTERS))
def cluster(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    store, broker = CLUSTERS[request.param]
    with cluster_of(2, store, broker, tmp_path_factory.mktemp(request.param)) as c:
        ready = httpx.get(f"{c.workers[1].base_url}/readyz", timeout=TIMEOUT).json()
        assert ready["status"] == "ready" and ready["broker"]["kind"] == EXPECTED_BROKER[broker]
        yield c


def run_status(url: str, run_id: str) -> RunRow | None:
    """The run's row, read straight from the store."""

    async def read() -> RunRow | None:
        database = Database(url)
        try:
            async with database.session() as s:
                return await s.get(RunRow, run_id)
        finally:
            await database.close()

    return run_sync(read())


def start_click(base_url: str, tokens_before_leaving: int) -> tuple[str, list[dict[str, Any]]]:
    """Start a click interpretation, read until ``tokens_before_leaving`` token events, then drop the
    connection; return the run id and the events read."""
    seen: list[dict[str, Any]] = []
    with (
        httpx.Client(timeout=TIMEOUT) as client,
        client.stream("POST", f"{base_url}{CLICK}", json=TUN) as resp,
    ):
        assert resp.status_code == 200
        run_id = resp.headers["x-run-id"]
        buffer = ""
        for text in resp.iter_text():
            buffer += text
            frames, _, buffer = buffer.rpartition("\n\n")
            if frames:
                seen += parse_spec_stream(frames + "\n\n")
            if sum(e["type"] == "token" for e in seen) >= tokens_before_leaving:
                break
    return run_id, seen


def replay(base_url: str, run_id: str, last_event_id: int | None = None) -> list[tuple[int, dict[str, Any]]]:
    """``GET /api/runs/{id}/events`` to the end (``Last-Event-ID`` when given)."""
    headers = {"Last-Event-ID": str(last_event_id)} if last_event_id is not None else {}
    with httpx.Client(timeout=TIMEOUT) as client:
        resp = client.get(f"{base_url}/api/runs/{run_id}/events", headers=headers)
    assert resp.status_code == 200, resp.text
    return parse_standard_stream(resp.text)


def test_reconnect_to_the_other_worker_gets_every_remaining_event(cluster: Cluster) -> None:
    w1, w2 = cluster.workers
    run_id, before = start_click(w1.base_url, tokens_before_leaving=2)
    assert present(run_status(cluster.url, run_id)).status == "running"
    last = before[-1]["seq"]
    after = replay(w2.base_url, run_id, last_event_id=last)
    events = before + [payload for _, payload in after]
    assert [seq for seq, _ in after] == [p["seq"] for _, p in after]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))  # each exactly once
    assert events[-1]["type"] == "done" and all(e["run_id"] == run_id for e in events)
    assert "".join(e["content"] for e in events if e["type"] == "token") == REPLY
    assert [p for _, p in replay(w1.base_url, run_id)] == events  # both workers serve the same log
    assert present(run_status(cluster.url, run_id)).status == "done"


def test_cancel_from_the_other_worker(cluster: Cluster) -> None:
    w1, w2 = cluster.workers
    cluster.fake.delay_s = 0.5  # a run of ~10 s: long enough to cancel under any load
    try:
        run_id, before = start_click(w1.base_url, tokens_before_leaving=1)
        resp = httpx.post(f"{w2.base_url}/api/runs/{run_id}/cancel", timeout=TIMEOUT)
    finally:
        cluster.fake.delay_s = 0.05
    # 200 once the run has stopped; 202 if it has not within the route's wait (a starved host)
    assert (resp.status_code, resp.json()["status"]) in {(200, "cancelled"), (202, "cancelling")}, resp.text
    events = [p for _, p in replay(w2.base_url, run_id)]  # to the end: the run stops by cancellation
    assert events[: len(before)] == before
    assert [e["type"] for e in events[-2:]] == ["error", "done"] and events[-2]["cancelled"] is True
    assert present(run_status(cluster.url, run_id)).status == "cancelled"
    again = httpx.post(f"{w1.base_url}/api/runs/{run_id}/cancel", timeout=TIMEOUT)
    assert again.status_code == 409


def _check_lost_run(cluster: Cluster, base_url: str, run_id: str, before: list[dict[str, Any]]) -> None:
    events = [p for _, p in replay(base_url, run_id)]
    assert events[: len(before)] == before  # nothing logged was lost
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert [e["type"] for e in events[-2:]] == ["error", "done"]
    assert events[-2]["worker_lost"] is True
    # the done of a click's run: the run is its thread, no session (as the run's own done would say)
    assert (events[-1]["thread_id"], events[-1]["session_id"]) == (run_id, None)
    run = run_status(cluster.url, run_id)
    assert run is not None and run.status == "failed" and run.last_seq == len(events)


def test_kill9_the_survivor_closes_the_dead_workers_run(cluster: Cluster) -> None:
    """Last test of each cluster: it kills worker 1."""
    w1, w2 = cluster.workers
    cluster.fake.delay_s = 0.3
    other_id, _ = start_click(w2.base_url, tokens_before_leaving=1)  # the survivor's own run
    run_id, before = start_click(w1.base_url, tokens_before_leaving=2)
    w1.kill9()
    _check_lost_run(cluster, w2.base_url, run_id, before)  # tails until the survivor closes it
    own = [p for _, p in replay(w2.base_url, other_id)]  # only the dead worker's runs were touched
    assert own[-1]["type"] == "done" and not any(e["type"] == "error" for e in own)
    assert present(run_status(cluster.url, other_id)).status == "done"


def test_kill9_the_restarted_worker_closes_the_run(tmp_path: Path) -> None:
    with cluster_of(1, "sqlite", "poll", tmp_path) as c:
        c.fake.delay_s = 0.5
        run_id, before = start_click(c.workers[0].base_url, tokens_before_leaving=2)
        c.workers[0].kill9()
        assert present(run_status(c.url, run_id)).status == "running"
        (restarted,) = start_workers(1, c.env, tmp_path)
        c.workers.append(restarted)
        _check_lost_run(c, restarted.base_url, run_id, before)


def test_kill9_mid_chat_turn_closes_the_agent_it_left_open(tmp_path: Path) -> None:
    """kill -9 while the dialogue agent answers: the replay after the restart closes 「通风对话助手」 with
    ``agent_done`` 中断 before ``error`` (worker_lost) and ``done``, so no agent is left spinning."""
    from tests.chat_helpers import TOKEN

    with cluster_of(1, "sqlite", "poll", tmp_path) as c:
        c.fake.delay_s = 0.5
        seen: list[dict[str, Any]] = []
        with (
            httpx.Client(timeout=TIMEOUT) as client,
            client.stream(
                "POST", f"{c.workers[0].base_url}/api/chat", data={"message": "问题"}, headers=TOKEN
            ) as resp,
        ):
            assert resp.status_code == 200
            run_id, buffer = resp.headers["x-run-id"], ""
            for text in resp.iter_text():
                buffer += text
                frames, _, buffer = buffer.rpartition("\n\n")
                if frames:
                    seen += parse_spec_stream(frames + "\n\n")
                if any(e["type"] == "token" for e in seen):
                    break
        c.workers[0].kill9()
        (restarted,) = start_workers(1, c.env, tmp_path)
        c.workers.append(restarted)
        with httpx.Client(timeout=TIMEOUT) as client:  # a session's run is its user's: with the token
            again = client.get(f"{restarted.base_url}/api/runs/{run_id}/events", headers=TOKEN)
        assert again.status_code == 200, again.text
        events = [p for _, p in parse_standard_stream(again.text)]
    started = [e["agent"] for e in events if e["type"] == "agent_start"]
    assert "通风对话助手" in started
    closing = events[-3]
    assert [e["type"] for e in events[-2:]] == ["error", "done"] and events[-2]["worker_lost"] is True
    assert closing["type"] == "agent_done" and closing["agent"] == "通风对话助手"
    assert closing["message"] == f"「通风对话助手」中断（{closing['duration_ms']}ms）"
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
