"""A chat model that is down is named, with its base URL, in the turn's error; ``/healthz`` and
``/api/model`` say how its last call went."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.chat_helpers import TOKEN
from tests.fake_openai import FakeOpenAI
from tests.helpers import free_port, parse_spec_stream
from vent_agent.app import create_app
from vent_agent.settings import ModelConfig, Settings


def _local(url: str) -> ModelConfig:
    return ModelConfig(
        name="local", base_url=url, api_key="k", provider="openai", model="qwen2.5:14b", timeout_s=5
    )


async def _turn_then_health(
    tmp_path: Path, url: str
) -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any]]:
    app = create_app(Settings(_env_file=None, data_dir=tmp_path / "d", models=[_local(url)]))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t", timeout=60) as c:
            before = (await c.get("/healthz")).json()
            assert before["chat_model"] == {"name": "local", "base_url": url, "state": "unknown"}
            r = await c.post("/api/chat", data={"message": "15216 风速？"}, headers=TOKEN)
            health = (await c.get("/healthz")).json()
            model = (await c.get("/api/model")).json()
    return parse_spec_stream(r.text), health, model


async def test_a_model_that_is_not_listening_is_named_with_its_base_url(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    events, health, model = await _turn_then_health(tmp_path, url)
    error = next(e for e in events if e["type"] == "error")
    assert error["message"].startswith(f"对话模型「local」（{url}）连接失败")
    assert health["chat_model"]["state"] == "failing" and health["chat_model"]["error"] == error["message"]
    assert model["current"] == "local" and model["current_status"]["state"] == "failing"
    assert model["current_status"]["base_url"] == url


@pytest.mark.parametrize(("status", "said"), [(500, "返回错误（HTTP 500）"), (401, "拒绝了 API 密钥")])
async def test_an_http_error_of_the_model_says_its_status(
    serve, tmp_path: Path, status: int, said: str
) -> None:
    url = serve(FakeOpenAI(fail_status=status))
    events, health, _model = await _turn_then_health(tmp_path, url)
    error = next(e for e in events if e["type"] == "error")
    assert error["message"].startswith(f"对话模型「local」（{url}）{said}")
    assert health["chat_model"]["state"] == "failing"


async def test_a_working_model_is_ok_in_healthz(serve, tmp_path: Path) -> None:
    events, health, model = await _turn_then_health(tmp_path, serve(FakeOpenAI(reply="风速 1.8 m/s。")))
    assert events[-1]["message"] == "对话完成"
    assert health["chat_model"]["state"] == "ok" and "error" not in health["chat_model"]
    assert model["current_status"]["state"] == "ok"


async def test_no_model_configured_is_none_in_healthz(client: httpx.AsyncClient) -> None:
    assert (await client.get("/healthz")).json()["chat_model"] == {
        "name": None,
        "base_url": None,
        "state": "none",
    }
