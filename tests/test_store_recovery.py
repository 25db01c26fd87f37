"""The store comes back (issue 26, item 4): the checkpointer, the session store and the run-log writer
survive PostgreSQL killing their connections and a server restart; while the server is away requests
get a Chinese 503 and ``/readyz`` says what is down; afterwards chats work again without a restart."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest

from tests.chat_helpers import TOKEN, use_model
from tests.helpers import parse_spec_stream
from tests.pg_cluster import throwaway_cluster
from tests.scripted_model import ScriptedChatModel, says
from vent_agent.settings import Settings

UNAVAILABLE = "数据库暂时不可用（连接中断或正在重启），请稍后重试"


@pytest.fixture
async def pg_app(pg_module_url: str, tmp_path: Path) -> AsyncIterator[Any]:
    """The app on the module's PostgreSQL database."""
    from vent_agent.app import create_app

    settings = Settings(_env_file=None, data_dir=tmp_path / "data", database_url=pg_module_url)
    application = create_app(settings)
    async with application.router.lifespan_context(application):
        yield application


def _client(app: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t", timeout=60)


async def _chat_answer(client: httpx.AsyncClient, text: str) -> str:
    """A chat turn's answer; fails unless it streamed to ``done``."""
    r = await client.post("/api/chat", data={"message": text}, headers=TOKEN)
    assert r.status_code == 200, r.text
    events = parse_spec_stream(r.text)
    assert events[-1]["type"] == "done", events
    return "".join(e.get("content", "") for e in events if e["type"] == "token")


async def test_chats_go_on_after_postgres_kills_every_connection(pg_app: Any) -> None:
    use_model(pg_app, ScriptedChatModel(script=[], fallback=says("回答")))
    async with _client(pg_app) as client:
        assert await _chat_answer(client, "你好") == "回答"
        db = pg_app.state.vent.db
        admin = await asyncpg.connect(db.raw_dsn)
        killed = await admin.fetch(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        await admin.close()
        assert len(killed) >= 2  # the checkpointer's, the pool's, the log writer's, the broker's
        assert await _chat_answer(client, "再问一次") == "回答"
        assert (await client.get("/readyz")).status_code == 200


async def test_a_stopped_server_gives_503_and_chats_work_once_it_is_back(tmp_path: Path) -> None:
    from vent_agent.app import create_app

    with throwaway_cluster() as cluster:
        settings = Settings(_env_file=None, data_dir=tmp_path / "data", database_url=cluster.url)
        application = create_app(settings)
        async with application.router.lifespan_context(application), _client(application) as client:
            use_model(application, ScriptedChatModel(script=[], fallback=says("回答")))
            assert await _chat_answer(client, "你好") == "回答"

            cluster.stop()
            for method, path in (("POST", "/api/chat"), ("GET", "/api/sessions")):
                r = await client.request(
                    method, path, data={"message": "还在吗"} if method == "POST" else None, headers=TOKEN
                )
                assert r.status_code == 503 and r.json() == {"error": UNAVAILABLE}, r.text
                assert r.headers["retry-after"] == "5"
            ready = await client.get("/readyz")
            assert ready.status_code == 503
            body = ready.json()
            assert body["error"].startswith("未就绪：") and "数据库（store）" in body["error"]
            assert "数据库恢复后服务自动重连，无需重启" in body["error"]
            assert body["checks"]["store"]["detail"].startswith("数据库不可达：")
            assert body["checks"]["checkpointer"]["detail"].startswith("数据库不可达：")
            health = await client.get("/healthz")
            assert health.status_code == 503 and health.json()["database"].startswith("数据库不可达：")

            cluster.start()
            assert await _chat_answer(client, "再问一次") == "回答"
            assert (await client.get("/readyz")).json()["status"] == "ready"
            history = (await client.get("/api/sessions", headers=TOKEN)).json()
            assert len(history["sessions"] if isinstance(history, dict) else history) == 2
