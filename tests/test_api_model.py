"""``GET /api/model``, ``POST /api/model/switch``, ``POST /api/model/thinking`` (spec §模型管理接口):
fields, token rule, 400s, and a switch that survives an app restart (two app instances, one SQLite file).

The app here is the model router on a store, a user service and a registry built like the real
lifespan's, so that these tests do not depend on the rest of the app's wiring."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from vent_agent.api import model as model_api
from vent_agent.api.errors import install_error_handlers
from vent_agent.auth import UserService, make_user_service
from vent_agent.llm.openai_compat import make_interpret_model
from vent_agent.llm.registry import ModelRegistry
from vent_agent.settings import ModelConfig, Settings
from vent_agent.store.db import Database

TOKEN = {"x-access-token": "demo-token"}
MODELS = [
    ModelConfig(name="deepseek-v4-pro", base_url="http://127.0.0.1:9/v1", provider="deepseek"),
    ModelConfig(name="deepseek-v4-flash", base_url="http://127.0.0.1:9/v1", provider="deepseek"),
]


@dataclass
class _State:
    settings: Settings
    db: Database
    users: UserService
    models: ModelRegistry
    interpret_model: Any


@asynccontextmanager
async def model_app_state(settings: Settings) -> AsyncIterator[tuple[httpx.AsyncClient, _State]]:
    """An app with the model router (its state built as the lifespan builds it); yields a client and
    the state."""
    db = Database(settings.resolved_database_url)
    await db.create_all()
    app = FastAPI()
    install_error_handlers(app)
    app.include_router(model_api.router)
    state = app.state.vent = _State(
        settings=settings,
        db=db,
        users=make_user_service(settings),
        models=ModelRegistry(settings, db),
        interpret_model=make_interpret_model(settings),
    )
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            yield client, state
    finally:
        await db.close()


@asynccontextmanager
async def model_app(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """:func:`model_app_state`, the client only."""
    async with model_app_state(settings) as (client, _state):
        yield client


def _settings(tmp_path: Path, **kw: Any) -> Settings:
    return Settings(_env_file=None, data_dir=tmp_path / "data", models=MODELS, **kw)


async def test_get_model_has_the_spec_fields(tmp_path: Path) -> None:
    async with model_app(_settings(tmp_path)) as client:
        resp = await client.get("/api/model")
    assert resp.status_code == 200
    assert resp.json() == {
        "current": "deepseek-v4-pro",
        "available": ["deepseek-v4-pro", "deepseek-v4-flash"],
        "thinking_level": "off",
        "thinking_levels": ["off", "high", "highest"],
        "current_status": {
            "name": "deepseek-v4-pro",
            "base_url": "http://127.0.0.1:9/v1",
            "state": "unknown",
        },
    }


async def test_switch_and_thinking_answer_as_the_spec(tmp_path: Path) -> None:
    async with model_app(_settings(tmp_path)) as client:
        switched = await client.post("/api/model/switch", json={"model": "deepseek-v4-flash"}, headers=TOKEN)
        thinking = await client.post("/api/model/thinking", json={"level": "high"}, headers=TOKEN)
        now = (await client.get("/api/model")).json()
    assert switched.status_code == 200
    assert switched.json() == {
        "current": "deepseek-v4-flash",
        "message": "已切换到 deepseek-v4-flash，下次请求生效",
    }
    assert thinking.status_code == 200
    assert thinking.json() == {"thinking_level": "high", "message": "思考级别已切换为「high」，下次请求生效"}
    assert (now["current"], now["thinking_level"]) == ("deepseek-v4-flash", "high")


async def test_switch_survives_an_app_restart(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    async with model_app(settings) as client:
        assert (
            await client.post("/api/model/switch", json={"model": "deepseek-v4-flash"}, headers=TOKEN)
        ).status_code == 200
        assert (
            await client.post("/api/model/thinking", json={"level": "highest"}, headers=TOKEN)
        ).status_code == 200
    async with model_app(_settings(tmp_path)) as restarted:
        info = (await restarted.get("/api/model")).json()
    assert (info["current"], info["thinking_level"]) == ("deepseek-v4-flash", "highest")


async def test_two_workers_on_one_store_agree(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    async with model_app(settings) as worker_a, model_app(settings) as worker_b:
        await worker_a.post("/api/model/switch", json={"model": "deepseek-v4-flash"}, headers=TOKEN)
        assert (await worker_b.get("/api/model")).json()["current"] == "deepseek-v4-flash"


@pytest.mark.parametrize(
    ("path", "body"),
    [("/api/model/switch", {"model": "deepseek-v4-flash"}), ("/api/model/thinking", {"level": "high"})],
)
async def test_changes_need_a_token_by_default(tmp_path: Path, path: str, body: dict[str, Any]) -> None:
    async with model_app(_settings(tmp_path)) as client:
        missing = await client.post(path, json=body)
        bad = await client.post(path, json=body, headers={"x-access-token": "wrong"})
        info = (await client.get("/api/model")).json()
    assert missing.status_code == 401 and "令牌" in missing.json()["error"]
    assert bad.status_code == 401
    assert (info["current"], info["thinking_level"]) == ("deepseek-v4-pro", "off")


async def test_token_rule_can_be_turned_off(tmp_path: Path) -> None:
    async with model_app(_settings(tmp_path, admin_needs_token=False)) as client:
        switched = await client.post("/api/model/switch", json={"model": "deepseek-v4-flash"})
        thinking = await client.post("/api/model/thinking", json={"level": "off"})
        bad_token = await client.post(
            "/api/model/thinking", json={"level": "off"}, headers={"x-access-token": "x"}
        )
    assert switched.status_code == 200 and thinking.status_code == 200
    assert bad_token.status_code == 401  # a token that is sent is still checked


async def test_unknown_model_is_400_listing_the_available(tmp_path: Path) -> None:
    async with model_app(_settings(tmp_path)) as client:
        resp = await client.post("/api/model/switch", json={"model": "gpt-9"}, headers=TOKEN)
        missing = await client.post("/api/model/switch", json={}, headers=TOKEN)
        info = (await client.get("/api/model")).json()
    assert resp.status_code == 400
    error = resp.json()["error"]
    assert "gpt-9" in error and "deepseek-v4-pro" in error and "deepseek-v4-flash" in error
    assert missing.status_code == 400 and "model" in missing.json()["error"]
    assert info["current"] == "deepseek-v4-pro"


async def test_bad_level_is_400(tmp_path: Path) -> None:
    async with model_app(_settings(tmp_path)) as client:
        resp = await client.post("/api/model/thinking", json={"level": "medium"}, headers=TOKEN)
        wrong_type = await client.post("/api/model/thinking", json={"level": 3}, headers=TOKEN)
    assert resp.status_code == 400 and "off、high、highest" in resp.json()["error"]
    assert wrong_type.status_code == 400


async def test_no_models_configured(tmp_path: Path) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path / "data")
    async with model_app(settings) as client:
        info = (await client.get("/api/model")).json()
        resp = await client.post("/api/model/switch", json={"model": "x"}, headers=TOKEN)
    assert info == {
        "current": None,
        "available": [],
        "thinking_level": "off",
        "thinking_levels": ["off", "high", "highest"],
        "current_status": {"name": None, "base_url": None, "state": "none"},
    }
    assert resp.status_code == 400 and "未配置" in resp.json()["error"]


async def test_switch_leaves_the_click_interpret_model_alone(tmp_path: Path) -> None:
    settings = _settings(tmp_path, llm_base_url="http://127.0.0.1:9/v1", llm_model="interpret-model")
    async with model_app_state(settings) as (client, state):
        before = state.interpret_model
        await client.post("/api/model/switch", json={"model": "deepseek-v4-flash"}, headers=TOKEN)
        assert (await client.get("/api/model")).json()["current"] == "deepseek-v4-flash"
        assert (await state.models.current()).name == "deepseek-v4-flash"
    assert state.interpret_model is before and before.model_name == "interpret-model"


@pytest.mark.parametrize(
    ("path", "field"), [("/api/model/switch", "model"), ("/api/model/thinking", "level")]
)
@pytest.mark.parametrize("text", ["\\ud800", "a\\udfffb", "\\ud83d", "deepseek-v4-pro\\udc00"])
async def test_a_lone_surrogate_is_400_not_500(tmp_path: Path, path: str, field: str, text: str) -> None:
    """A name with a lone surrogate (JSON's ``\\ud800``) is refused as text, not echoed by the registry's
    "unknown" refusal (which could not be encoded: a 500)."""
    async with model_app(_settings(tmp_path)) as client:
        body = f'{{"{field}": "{text}"}}'.encode()
        resp = await client.post(path, content=body, headers={**TOKEN, "content-type": "application/json"})
        info = (await client.get("/api/model")).json()
    assert resp.status_code == 400, resp.text
    assert (
        resp.json()["error"]
        == f"请求参数错误：字段 {field} 无效：应为合法的 Unicode 文本（含有单独的代理码元，如 \\ud800）"
    )
    assert info["current"] == "deepseek-v4-pro" and info["thinking_level"] == "off"
