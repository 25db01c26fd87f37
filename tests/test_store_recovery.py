"""The store comes back: chats after PostgreSQL killed the service's connections."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest

from tests.chat_helpers import TOKEN, use_model
from tests.helpers import parse_spec_stream
from tests.scripted_model import ScriptedChatModel, says
from vent_agent.settings import Settings


@pytest.fixture
async def pg_app(pg_module_url: str, tmp_path: Path) -> AsyncIterator[Any]:
    from vent_agent.app import create_app

    settings = Settings(_env_file=None, data_dir=tmp_path / "data", database_url=pg_module_url)
    application = create_app(settings)
    async with application.router.lifespan_context(application):
        yield application


async def _chat(client: httpx.AsyncClient, text: str) -> tuple[int, list[dict[str, Any]]]:
    r = await client.post("/api/chat", data={"message": text}, headers=TOKEN)
    return r.status_code, parse_spec_stream(r.text) if r.status_code == 200 else [r.json()]


async def test_chat_works_after_every_connection_is_killed(pg_app: Any, pg_module_url: str) -> None:
    use_model(pg_app, ScriptedChatModel(script=[says("第一次回答"), says("第二次回答")]))
    transport = httpx.ASGITransport(app=pg_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t", timeout=60) as client:
        status, events = await _chat(client, "你好")
        assert status == 200 and events[-1]["type"] == "done", events
        name = pg_app.state.vent.db.engine.url.database
        admin = await asyncpg.connect(pg_app.state.vent.db.raw_dsn.rsplit("/", 1)[0] + "/postgres")
        killed = await admin.fetch(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
            name,
        )
        await admin.close()
        assert killed
        status, events = await _chat(client, "再问一次")
        assert status == 200 and events[-1]["type"] == "done", events
