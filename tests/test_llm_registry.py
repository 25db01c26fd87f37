"""The model registry: configured list, default, store-backed current model and thinking level, the
chat model built for them; the click-interpret model stays apart."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from vent_agent.llm.compat import VentChatDeepSeek, VentChatOpenAI
from vent_agent.llm.openai_compat import make_interpret_model
from vent_agent.llm.registry import ModelRegistry, UnknownModel, configured_models
from vent_agent.llm.thinking import THINKING_PARAMS, UnknownThinkingLevel, thinking_params
from vent_agent.settings import ModelConfig, Settings
from vent_agent.store.db import Database
from vent_agent.store.service_state import set_state_value

MODELS = [
    ModelConfig(name="deepseek-v4-pro", base_url="http://127.0.0.1:9/v1", provider="deepseek"),
    ModelConfig(
        name="deepseek-v4-flash", base_url="http://127.0.0.1:9/v1", provider="deepseek", model="flash-id"
    ),
    ModelConfig(name="qwen3", base_url="http://127.0.0.1:9/v1", provider="qwen", timeout_s=12),
]


def _settings(tmp_path: Path, **kw) -> Settings:
    return Settings(_env_file=None, data_dir=tmp_path / "data", **kw)


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = Database(f"sqlite+aiosqlite:///{tmp_path / 'reg.db'}")
    await database.create_all()
    yield database
    await database.close()


async def test_default_is_the_setting_else_the_first(tmp_path: Path, db: Database) -> None:
    reg = ModelRegistry(_settings(tmp_path, models=MODELS, default_model="qwen3"), db)
    assert reg.available == ["deepseek-v4-pro", "deepseek-v4-flash", "qwen3"]
    assert (await reg.current()).name == "qwen3"
    reg2 = ModelRegistry(_settings(tmp_path, models=MODELS, default_model="not-there"), db)
    sel = await reg2.current()
    assert (sel.name, sel.thinking_level) == ("deepseek-v4-pro", "off")
    assert sel.config is not None and sel.config.provider == "deepseek"


async def test_switch_and_level_are_shared_through_the_store(tmp_path: Path, db: Database) -> None:
    """Two registries on one database stand for two workers (or an app before and after a restart)."""
    settings = _settings(tmp_path, models=MODELS)
    worker_a, worker_b = ModelRegistry(settings, db), ModelRegistry(settings, db)
    assert await worker_a.switch("deepseek-v4-flash", by="zhangsan") == "deepseek-v4-flash"
    assert await worker_a.set_thinking("highest", by="zhangsan") == "highest"
    sel = await worker_b.current()
    assert (sel.name, sel.thinking_level) == ("deepseek-v4-flash", "highest")
    assert await worker_b.info() == {
        "current": "deepseek-v4-flash",
        "available": ["deepseek-v4-pro", "deepseek-v4-flash", "qwen3"],
        "thinking_level": "highest",
        "thinking_levels": ["off", "high", "highest"],
        "current_status": {
            "name": "deepseek-v4-flash",
            "base_url": "http://127.0.0.1:9/v1",
            "state": "unknown",
        },
    }


async def test_unknown_model_and_level_are_refused_and_change_nothing(tmp_path: Path, db: Database) -> None:
    reg = ModelRegistry(_settings(tmp_path, models=MODELS), db)
    with pytest.raises(UnknownModel) as err:
        await reg.switch("gpt-9")
    assert "gpt-9" in str(err.value) and "deepseek-v4-flash" in str(err.value)
    with pytest.raises(UnknownThinkingLevel) as err2:
        await reg.set_thinking("medium")
    assert "off、high、highest" in str(err2.value)
    sel = await reg.current()
    assert (sel.name, sel.thinking_level) == ("deepseek-v4-pro", "off")


async def test_stale_stored_values_fall_back(tmp_path: Path, db: Database) -> None:
    """A stored model that was removed from the configuration, or a corrupt level, is not used."""
    await set_state_value(db, "model.current", "removed-model")
    await set_state_value(db, "model.thinking_level", "ultra")
    sel = await ModelRegistry(_settings(tmp_path, models=MODELS), db).current()
    assert (sel.name, sel.thinking_level) == ("deepseek-v4-pro", "off")


async def test_no_model_configured(tmp_path: Path, db: Database) -> None:
    reg = ModelRegistry(_settings(tmp_path), db)
    assert reg.available == [] and await reg.chat_model() is None
    assert (await reg.info())["current"] is None
    with pytest.raises(UnknownModel, match="未配置任何对话模型"):
        await reg.switch("anything")


async def test_chat_model_follows_the_current_model_and_level(tmp_path: Path, db: Database) -> None:
    reg = ModelRegistry(_settings(tmp_path, models=MODELS), db)
    first = await reg.chat_model()
    assert isinstance(first, VentChatDeepSeek)
    assert first.model_name == "deepseek-v4-pro" and first.extra_body == {"thinking": {"type": "disabled"}}
    assert first.stream_usage is True and first.streaming is True
    assert await reg.chat_model() is first  # reused while nothing changes

    await reg.switch("deepseek-v4-flash")
    await reg.set_thinking("highest")
    flash = await reg.chat_model()
    assert isinstance(flash, VentChatDeepSeek)
    assert flash.model_name == "flash-id" and flash.reasoning_effort == "max"

    await reg.switch("qwen3")
    await reg.set_thinking("high")
    qwen = await reg.chat_model(streaming=False)
    assert isinstance(qwen, VentChatOpenAI) and not qwen.streaming
    assert qwen.extra_body == {"enable_thinking": True, "thinking_budget": 8192}
    assert qwen.request_timeout == 12


async def test_context_window_of_the_model_in_use(tmp_path: Path, db: Database) -> None:
    models = [MODELS[0].model_copy(update={"context_window": 1_000_000}), MODELS[2]]
    reg = ModelRegistry(_settings(tmp_path, models=models), db)
    assert reg.context_window() == 1_000_000  # the default, before any call
    await reg.switch("qwen3")
    model = await reg.chat_model()
    assert isinstance(model, VentChatOpenAI | VentChatDeepSeek)
    assert reg.context_window() == 131072 == model.context_window
    assert reg.context_window("deepseek-v4-pro") == 1_000_000
    assert ModelRegistry(_settings(tmp_path), db).context_window() == 131072


def test_llm_variables_define_the_first_entry_and_the_interpret_model_stays(tmp_path: Path) -> None:
    settings = _settings(
        tmp_path, models=MODELS, llm_base_url="http://127.0.0.1:9/v1", llm_model="local-qwen", llm_api_key="k"
    )
    configs = configured_models(settings)
    assert [c.name for c in configs] == ["local-qwen", "deepseek-v4-pro", "deepseek-v4-flash", "qwen3"]
    assert configs[0].provider == "openai" and configs[0].api_key == "k"
    interpret = make_interpret_model(settings)
    assert isinstance(interpret, VentChatOpenAI) and interpret.model_name == "local-qwen"
    # listed already: not repeated
    dup = _settings(tmp_path, models=MODELS, llm_base_url="http://x/v1", llm_model="qwen3")
    assert [c.name for c in configured_models(dup)] == ["deepseek-v4-pro", "deepseek-v4-flash", "qwen3"]


def test_every_provider_maps_every_level() -> None:
    for provider, levels in THINKING_PARAMS.items():
        assert set(levels) == {"off", "high", "highest"}, provider
    params = thinking_params("deepseek", "high")
    params["extra_body"]["thinking"]["type"] = "mutated"
    assert THINKING_PARAMS["deepseek"]["high"]["extra_body"]["thinking"]["type"] == "enabled"
    assert thinking_params("unknown-kind", "high") == {"reasoning_effort": "medium"}
