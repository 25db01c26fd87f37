"""Operations: ``/readyz`` (store, migrations, registered component checks), Prometheus ``/metrics``,
structured logs carrying run and session ids, and who may replay or cancel a session's run."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import io
import json
import logging
import threading
import types
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client import REGISTRY
from sqlalchemy import text

from tests.chat_helpers import TOKEN, use_model
from tests.helpers import RUN_GUARD_S, parse_spec_stream
from tests.pg import scaleout_app
from tests.scripted_model import ScriptedChatModel, says, tool_call
from vent_agent.api import runs as runs_api
from vent_agent.app import create_app
from vent_agent.documents.ocr import OcrUnavailable
from vent_agent.observability import component_readiness, metrics
from vent_agent.observability.context import bound
from vent_agent.observability.logging import configure_logging
from vent_agent.observability.memory import YOUNG_THRESHOLD
from vent_agent.observability.readiness import readiness_registry
from vent_agent.runs.emitter import Emitter
from vent_agent.settings import Settings
from vent_agent.store.db import Database, migrations_head

TUN = {"tun_id": "15216", "tun_name": "15216 辅运起坡段", "mode": "fast"}
OTHER = {"x-access-token": "demo-token-2"}  # lisi


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """The app's settings here (``app``, ``client``): OCR off, so /readyz answers for the OCR engine
    without loading it (a worker process and its models, ~5 s); the test of a ready service loads it."""
    return Settings(_env_file=None, data_dir=tmp_path / "data", ocr_engine="none")


@pytest.fixture
async def ocr_on_client(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    """A client of an app with the default settings (OCR on, loaded at start-up) on a temporary data dir."""
    app = create_app(Settings(_env_file=None, data_dir=tmp_path / "data", warm_up=True))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver", timeout=60) as c:
            yield c


async def readyz_once_loaded(client: httpx.AsyncClient, limit_s: float = 120) -> httpx.Response:
    """``/readyz`` once no check is loading any more (the OCR engine's load has ended)."""
    for _ in range(int(limit_s / 0.1)):
        resp = await client.get("/readyz")
        if not resp.json()["loading"]:
            return resp
        await asyncio.sleep(0.1)
    raise AssertionError(f"still loading after {limit_s:g} s: {resp.text}")


async def test_readyz_ready_on_a_fresh_store(ocr_on_client: httpx.AsyncClient) -> None:
    resp = await readyz_once_loaded(ocr_on_client)
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["status"] == "ready" and body["degraded"] == [] and "warning" not in body
    store = body["checks"]["store"]
    assert store == {"ok": True, "detail": "sqlite", "ms": store["ms"], "state": "ok", "required": True}
    assert body["checks"]["migrations"]["detail"] == migrations_head()
    assert body["checks"]["ocr_engine"] == {
        "ok": True,
        "detail": "rapidocr",
        "ms": body["checks"]["ocr_engine"]["ms"],
        "state": "ok",
        "required": False,
    }
    assert body["broker"]["kind"] == "in-process" and body["broker"]["worker_id"]


class FakeOcrLoad:
    """Stands in for the OCR engine's load (seconds, a worker process): it starts when called and
    ends when the test says so, with an engine or with ``error``."""

    def __init__(self, error: Exception | None = None) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        self.error = error

    def __call__(self, settings: Settings) -> object:
        self.started.set()
        if not self.release.wait(30):
            raise TimeoutError("the test never released the OCR load")
        if self.error is not None:
            raise self.error
        return types.SimpleNamespace(name="fake-ocr")


@contextlib.asynccontextmanager
async def app_loading_ocr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, load: FakeOcrLoad, **settings: Any
) -> AsyncIterator[tuple[Any, httpx.AsyncClient]]:
    """An app (OCR on, warmed up at start-up unless ``warm_up=False``) whose OCR load is ``load``, and
    its client; the load is released on the way out."""
    monkeypatch.setattr(component_readiness, "load_configured_engine", load)
    app = create_app(Settings(_env_file=None, data_dir=tmp_path / "data", **{"warm_up": True, **settings}))
    try:
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://testserver", timeout=60) as c:
                yield app, c
    finally:
        load.release.set()


async def readyz_now(client: httpx.AsyncClient) -> httpx.Response:
    """``/readyz``, which must answer without waiting for a component's load (a guard against a hang,
    not a measurement: a load held by the test would never end)."""
    return await asyncio.wait_for(client.get("/readyz"), 10)


async def test_readyz_answers_at_once_while_the_ocr_engine_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The OCR engine loads in the background from start-up; the first /readyz (a probe with a 1 s
    time-out) answers ready with the engine ``loading``, and ok once it has loaded."""
    load = FakeOcrLoad()
    async with app_loading_ocr(tmp_path, monkeypatch, load) as (_app, client):
        assert await asyncio.to_thread(load.started.wait, 10), "the load did not start at start-up"
        resp = await readyz_now(client)
        assert resp.status_code == 200, resp.text
        body = resp.json()
        assert body["status"] == "ready" and body["loading"] == ["ocr_engine"]
        ocr = body["checks"]["ocr_engine"]
        assert ocr["state"] == "loading" and not ocr["ok"] and not ocr["required"]
        load.release.set()
        resp = await readyz_once_loaded(client, limit_s=10)
        assert resp.status_code == 200 and resp.json()["status"] == "ready"
        assert resp.json()["checks"]["ocr_engine"]["detail"] == "fake-ocr"


async def test_without_warm_up_the_first_readyz_starts_the_load_and_answers_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    load = FakeOcrLoad()
    async with app_loading_ocr(tmp_path, monkeypatch, load, warm_up=False) as (_app, client):
        assert not load.started.is_set()
        resp = await readyz_now(client)
        assert resp.status_code == 200 and resp.json()["checks"]["ocr_engine"]["state"] == "loading"
        assert await asyncio.to_thread(load.started.wait, 10)


async def test_an_ocr_engine_that_cannot_load_degrades_but_does_not_unready(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    load = FakeOcrLoad(OcrUnavailable("OCR 引擎加载失败 / cannot load the OCR engine: no models"))
    load.release.set()
    async with app_loading_ocr(tmp_path, monkeypatch, load) as (_app, client):
        resp = await readyz_once_loaded(client, limit_s=10)
        assert resp.status_code == 200, resp.text
        body = resp.json()
        assert body["status"] == "degraded" and body["degraded"] == ["ocr_engine"]
        assert body["warning"] == "部分功能不可用：扫描件配风计划的审查（ocr_engine）"
        ocr = body["checks"]["ocr_engine"]
        assert ocr["state"] == "failed" and not ocr["ok"] and not ocr["required"]
        assert "cannot load the OCR engine: no models" in ocr["detail"]
        assert all(c["ok"] for name, c in body["checks"].items() if name != "ocr_engine")


async def test_the_database_or_the_run_layer_failing_still_unreadies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Required checks keep their 503, whatever an optional one says."""
    load = FakeOcrLoad(OcrUnavailable("OCR 引擎加载失败"))
    load.release.set()
    async with app_loading_ocr(tmp_path, monkeypatch, load) as (app, client):
        await readyz_once_loaded(client, limit_s=10)
        state = app.state.vent
        good_db, good_checkpointer = state.db, state.checkpointer
        state.db = Database("postgresql://nobody@127.0.0.1:9/none")
        try:
            resp = await readyz_now(client)
        finally:
            await state.db.close()
            state.db = good_db
        assert resp.status_code == 503, resp.text
        body = resp.json()
        assert body["status"] == "not_ready" and body["error"] == (
            "未就绪：数据库结构版本（migrations）、数据库（store）不可用"
            "（数据库不可达；数据库恢复后服务自动重连，无需重启）"
        )
        assert body["degraded"] == ["ocr_engine"] and body["checks"]["store"]["required"]

        class BrokenCheckpointer:
            async def aget_tuple(self, config: object) -> None:
                raise ConnectionError("checkpoint store gone")

        state.checkpointer = BrokenCheckpointer()
        try:
            resp = await readyz_now(client)
        finally:
            state.checkpointer = good_checkpointer
        assert resp.status_code == 503 and resp.json()["error"] == (
            "未就绪：对话检查点存储（checkpointer）不可用"
        )
        assert "checkpoint store gone" in resp.json()["checks"]["checkpointer"]["detail"]


async def test_readyz_runs_registered_component_checks(app, client: httpx.AsyncClient) -> None:
    registry = readiness_registry(app)

    async def kb() -> str:
        return "412 articles"

    async def ocr() -> bool:
        raise RuntimeError("rapidocr models missing")

    async def checkpointer() -> None:
        await asyncio.sleep(5)

    registry.register("knowledge_base", kb)
    registry.register("ocr", ocr)
    registry.register("checkpointer", checkpointer, timeout_s=0.05)
    resp = await client.get("/readyz")
    assert resp.status_code == 503
    body = resp.json()
    assert body["status"] == "not_ready" and "checkpointer" in body["error"] and "ocr" in body["error"]
    checks = body["checks"]
    assert checks["knowledge_base"]["ok"] and checks["knowledge_base"]["detail"] == "412 articles"
    assert not checks["ocr"]["ok"] and "rapidocr models missing" in checks["ocr"]["detail"]
    assert not checks["checkpointer"]["ok"] and checks["checkpointer"]["detail"] == "0.05 秒内无应答"
    assert checks["store"]["ok"]
    registry.unregister("ocr")
    registry.unregister("checkpointer")
    assert (await client.get("/readyz")).status_code == 200


async def test_readyz_not_ready_when_the_schema_is_behind(app, client: httpx.AsyncClient) -> None:
    db: Database = app.state.vent.db
    async with db.engine.begin() as conn:
        await conn.execute(text("UPDATE alembic_version SET version_num = 'older'"))
    resp = await client.get("/readyz")
    assert resp.status_code == 503
    assert resp.json()["checks"]["migrations"]["detail"].startswith(
        "RuntimeError: 数据库结构版本为 older，本程序的最新迁移为 "
    )
    assert resp.json()["error"] == "未就绪：数据库结构版本（migrations）不可用"


async def test_readyz_and_healthz_when_the_store_is_unreachable(app, client: httpx.AsyncClient) -> None:
    state = app.state.vent
    good = state.db
    state.db = Database("postgresql://nobody@127.0.0.1:9/none")
    try:
        resp = await client.get("/readyz")
        assert resp.status_code == 503
        assert not resp.json()["checks"]["store"]["ok"] and not resp.json()["checks"]["migrations"]["ok"]
        health = await client.get("/healthz")
        assert health.status_code == 503 and health.json()["database"].startswith("数据库不可达：")
    finally:
        await state.db.close()
        state.db = good


async def test_metrics_count_runs_events_and_helpers(app, client: httpx.AsyncClient) -> None:
    done_before = sample("vent_runs_total", kind="click_tun", outcome="done")
    events_before = sample("vent_events_appended_total", type="done")
    resp = await client.post("/api/interpret/click/tun", json=TUN)
    assert parse_spec_stream(resp.text)[-1]["type"] == "done"
    run_id = resp.headers["x-run-id"]
    await app.state.vent.runs.wait(run_id)

    metrics.observe_tool_call("query_tun_data_by_id", 0.12)
    with pytest.raises(TimeoutError), metrics.time_model("fake-model"):
        raise TimeoutError
    metrics.observe_model_call("fake-model", 1.5, first_token_s=0.3)
    metrics.observe_ocr_page("rapidocr", 2.0)
    metrics.count_ocr_pages("rapidocr", 3, ok=False)

    page = await client.get("/metrics")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/plain")
    assert sample("vent_runs_total", kind="click_tun", outcome="done") == done_before + 1
    assert sample("vent_events_appended_total", type="done") == events_before + 1
    for line in (
        'vent_runs_total{kind="click_tun",outcome="done"}',
        'vent_tool_latency_seconds_count{outcome="ok",tool="query_tun_data_by_id"}',
        'vent_model_latency_seconds_count{model="fake-model",outcome="error"}',
        'vent_model_first_token_seconds_count{model="fake-model"}',
        'vent_ocr_pages_total{engine="rapidocr",outcome="error"}',
        'vent_ocr_page_seconds_count{engine="rapidocr"}',
    ):
        assert line in page.text, line


@pytest.fixture
def log_stream() -> Iterator[io.StringIO]:
    """Root logging to a string in JSON for the test; the previous set-up restored after."""
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    stream = io.StringIO()
    configure_logging("json", "INFO", stream=stream)
    yield stream
    root.handlers[:] = saved[0]
    root.setLevel(saved[1])


async def test_json_logs_carry_run_and_session_ids(log_stream: io.StringIO, tmp_path: Path) -> None:
    from vent_agent.runs.manager import RunManager

    db = Database(f"sqlite+aiosqlite:///{tmp_path / 'logs.db'}")
    await db.migrate()
    manager = RunManager(db)
    log = logging.getLogger("vent_agent.test_ops")

    async def body(em: Emitter) -> None:
        log.info("计算需风量 %s m³/min", 1250)
        await asyncio.sleep(0)
        await asyncio.create_task(asyncio.to_thread(log.warning, "in a thread"))  # context is copied

    run_id = await manager.start("chat", body, session_id="sess-1")
    await manager.wait(run_id)
    with bound(session_id="sess-2"):
        log.info("outside any run")
    log.info("after")
    await db.close()

    records = [json.loads(line) for line in log_stream.getvalue().splitlines() if line.strip()]
    by_message = {r["message"]: r for r in records}
    inside = by_message["计算需风量 1250 m³/min"]
    assert (inside["run_id"], inside["session_id"], inside["level"]) == (run_id, "sess-1", "INFO")
    assert inside["name"] == "vent_agent.test_ops" and inside["time"]
    assert by_message["in a thread"]["run_id"] == run_id
    assert by_message["outside any run"]["run_id"] is None
    assert by_message["outside any run"]["session_id"] == "sess-2"
    assert by_message["after"]["session_id"] is None


def test_plain_logs_show_the_ids() -> None:
    stream = io.StringIO()
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    try:
        configure_logging("plain", "INFO", stream=stream)
        configure_logging("plain", "INFO", stream=stream)  # idempotent: one handler
        with bound(run_id="r-9", session_id="s-9"):
            logging.getLogger("x").info("hello")
    finally:
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])
    (line,) = stream.getvalue().splitlines()
    assert "[run=r-9 session=s-9] hello" in line and " INFO x " in line


# ---- who may see a session's run -----------------------------------------------------------------


@pytest.fixture
async def session_run(app) -> AsyncIterator[str]:
    """A running run of zhangsan's session ``s-1``."""
    gate = asyncio.Event()
    manager = app.state.vent.runs

    async def body(em: Emitter) -> None:
        await em.emit("progress", message="working")
        await gate.wait()

    run_id = await manager.start("chat", body, session_id="s-1", user_name="zhangsan")
    yield run_id
    gate.set()
    await manager.wait(run_id)


async def test_a_sessions_run_needs_its_users_token(client: httpx.AsyncClient, session_run: str) -> None:
    events = f"/api/runs/{session_run}/events"
    cancel = f"/api/runs/{session_run}/cancel"
    assert (await client.get(events)).status_code == 401
    assert (await client.post(cancel)).status_code == 401
    other = await client.get(events, headers=OTHER)
    assert other.status_code == 404 and other.json() == {"error": "运行不存在"}
    assert (await client.post(cancel, headers=OTHER)).status_code == 404
    resp = await client.post(cancel, headers=TOKEN)
    assert resp.status_code == 200 and resp.json()["status"] == "cancelled"
    replay = await client.get(events, headers={**TOKEN, "Last-Event-ID": "0"})
    assert replay.status_code == 200 and replay.headers["x-session-id"] == "s-1"


async def test_cancel_answers_202_when_the_run_does_not_stop_in_time(
    app,
    client: httpx.AsyncClient,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(runs_api, "CANCEL_WAIT_S", 0.1)
    release, running = asyncio.Event(), asyncio.Event()

    async def stubborn(em: Emitter) -> None:
        await em.emit("progress", message="x")
        running.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            await release.wait()  # slow clean-up
            raise

    manager = app.state.vent.runs
    run_id = await manager.start("review", stubborn)
    await asyncio.wait_for(running.wait(), RUN_GUARD_S)
    resp = await client.post(f"/api/runs/{run_id}/cancel")
    assert resp.status_code == 202 and resp.json()["status"] == "cancelling"
    release.set()
    await manager.wait(run_id)
    assert (await manager.get(run_id)).status == "cancelled"


async def test_scaleout_app_serves_and_reports_its_worker(tmp_path: Path) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path / "data", ocr_engine="none")  # see ``settings``
    app = scaleout_app(settings, heartbeat_s=0.1, dead_after_s=1)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            body = (await c.get("/readyz")).json()
            assert body["status"] == "ready"
            assert body["broker"]["worker_id"] == app.state.vent.runs.heartbeat.worker_id


async def test_metrics_record_model_and_tool_latency(app, client: httpx.AsyncClient) -> None:
    use_model(
        app,
        ScriptedChatModel(
            script=[says("", tool_call("get_device_kind_dict", {})), says("好")], fallback=says("")
        ),
    )
    await client.post("/api/chat", data={"message": "设备类型"}, headers=TOKEN)
    text = (await client.get("/metrics")).text
    assert 'vent_tool_latency_seconds_count{outcome="ok",tool="get_device_kind_dict"}' in text
    assert "vent_model_latency_seconds_count" in text and 'model="ScriptedChatModel"' in text


async def test_the_startup_heap_is_frozen_and_young_collections_spaced_while_serving(settings) -> None:
    # tests/conftest.py froze the test process' heap once collected; an app's start freezes its own
    # objects on top, and its shutdown leaves the outer freeze in place (as for the next test)
    frozen_before = gc.get_freeze_count()
    application = create_app(settings)
    async with application.router.lifespan_context(application):
        assert (
            gc.get_freeze_count() > frozen_before + 10_000
        )  # the knowledge base's index and the models at least
        assert gc.get_threshold()[0] == YOUNG_THRESHOLD
    assert gc.get_freeze_count() > frozen_before and gc.get_threshold()[0] == YOUNG_THRESHOLD
