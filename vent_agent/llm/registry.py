"""The chat models of the dialogue and review agents: which are configured, which one is current, at
which thinking level (spec §模型管理接口).

The configured list is ``settings.models`` (``VENT_MODELS``), preceded by the model of ``VENT_LLM_*`` when
that is set and not already listed (docs/DESIGN.md §Model layer: those variables define the first entry).
The current model and thinking level live in the store (``service_state`` keys :data:`CURRENT_KEY` and
:data:`THINKING_KEY`), read on every request, so every worker agrees and a switch survives a restart.
Click interpretation keeps its own model (:func:`vent_agent.llm.openai_compat.make_interpret_model`): the
spec says switching does not affect it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from langchain_core.language_models import BaseChatModel

from vent_agent.llm.providers import build_chat_model
from vent_agent.llm.thinking import DEFAULT_THINKING_LEVEL, THINKING_LEVELS, UnknownThinkingLevel
from vent_agent.settings import ModelConfig, Settings
from vent_agent.store.db import Database
from vent_agent.store.service_state import get_state_value, set_state_value

log = logging.getLogger(__name__)

CURRENT_KEY = "model.current"
THINKING_KEY = "model.thinking_level"


class UnknownModel(ValueError):
    """A model name that is not on the configured list; the message lists the available ones."""

    def __init__(self, name: str, available: list[str]) -> None:
        if available:
            message = f"未知模型「{name}」，可选：{'、'.join(available)}"
        else:
            message = "未配置任何对话模型（VENT_MODELS 或 VENT_LLM_*），无法切换"
        super().__init__(message)
        self.name = name
        self.available = available


@dataclass(frozen=True)
class ModelSelection:
    """The current model (None when none is configured), its configuration and the thinking level."""

    name: str | None
    thinking_level: str
    config: ModelConfig | None


def configured_models(settings: Settings) -> list[ModelConfig]:
    """The configured models in order, names unique (a repeated name keeps its first entry)."""
    candidates = list(settings.models)
    if settings.llm_configured and settings.llm_model not in {m.name for m in candidates}:
        candidates.insert(
            0,
            ModelConfig(
                name=str(settings.llm_model),
                base_url=str(settings.llm_base_url),
                api_key=settings.llm_api_key,
                timeout_s=settings.llm_timeout_s,
            ),
        )
    out: dict[str, ModelConfig] = {}
    for m in candidates:
        if m.name in out:
            log.warning("model %r is configured twice; the first entry is used", m.name)
            continue
        out[m.name] = m
    return list(out.values())


class ModelRegistry:
    """Configured chat models and the store-backed current choice. One per app (the lifespan's)."""

    def __init__(self, settings: Settings, db: Database) -> None:
        self._db = db
        self._configs = {m.name: m for m in configured_models(settings)}
        self._default = self._pick_default(settings.default_model)
        self._built: dict[tuple[str, str, bool], BaseChatModel] = {}
        self._last: str | None = None
        self._outcome: dict[str, dict[str, Any]] = {}

    def note_call(self, name: str, error: str | None) -> None:
        """Record how the last chat call of model ``name`` went on this worker: ``error`` is the message
        shown to the user, None when the call succeeded (:meth:`status` reports it)."""
        self._outcome[name] = {
            "state": "failing" if error else "ok",
            "error": error,
            "checked_at": datetime.now(UTC).isoformat(timespec="seconds"),
        }

    def status(self, name: str | None) -> dict[str, Any]:
        """What is known of model ``name``: ``{"name", "base_url", "state", "error"?, "checked_at"?}``;
        ``state`` is ``ok`` / ``failing`` after a chat call on this worker, ``unknown`` before one (no
        probe is made), ``none`` when no model is configured."""
        config = self._configs.get(name or "")
        if config is None:
            return {"name": None, "base_url": None, "state": "none"}
        outcome = self._outcome.get(config.name, {"state": "unknown"})
        return {"name": config.name, "base_url": config.base_url, **{k: v for k, v in outcome.items() if v}}

    def _pick_default(self, wanted: str | None) -> str | None:
        if wanted and wanted in self._configs:
            return wanted
        first = next(iter(self._configs), None)
        if wanted:
            log.warning("default model %r is not configured; using %r", wanted, first)
        return first

    @property
    def available(self) -> list[str]:
        """Names of the configured models, in configuration order."""
        return list(self._configs)

    def config(self, name: str) -> ModelConfig | None:
        """The configuration of model ``name``, or None."""
        return self._configs.get(name)

    def context_window(self, name: str | None = None) -> int:
        """The context window in tokens of model ``name``; without a name, of the model last handed out
        by :meth:`chat_model` (else the default model). 131072 when no model is configured."""
        config = self._configs.get(name or self._last or self._default or "")
        return config.context_window if config else ModelConfig.model_fields["context_window"].default

    async def current(self) -> ModelSelection:
        """The current model and thinking level from the store; a stored name that is no longer
        configured falls back to ``default_model`` (else the first configured), a stored level that is
        not valid to ``off``."""
        stored = await get_state_value(self._db, CURRENT_KEY)
        name = stored if isinstance(stored, str) and stored in self._configs else self._default
        level = await get_state_value(self._db, THINKING_KEY, DEFAULT_THINKING_LEVEL)
        if level not in THINKING_LEVELS:
            level = DEFAULT_THINKING_LEVEL
        return ModelSelection(
            name=name, thinking_level=level, config=self._configs.get(name) if name else None
        )

    async def switch(self, name: str, by: str | None = None) -> str:
        """Make ``name`` the current model for every worker (from the next request on); ``by`` is the
        user recorded with the change. Raises :class:`UnknownModel` for a name not configured."""
        if name not in self._configs:
            raise UnknownModel(name, self.available)
        await set_state_value(self._db, CURRENT_KEY, name, updated_by=by)
        log.info("model switched to %s by %s", name, by or "anonymous")
        return name

    async def set_thinking(self, level: str, by: str | None = None) -> str:
        """Set the thinking level (``off``, ``high``, ``highest``) for every worker; ``by`` as in
        :meth:`switch`. Raises :class:`~vent_agent.llm.thinking.UnknownThinkingLevel`."""
        if level not in THINKING_LEVELS:
            raise UnknownThinkingLevel(level)
        await set_state_value(self._db, THINKING_KEY, level, updated_by=by)
        log.info("thinking level set to %s by %s", level, by or "anonymous")
        return level

    async def info(self) -> dict[str, Any]:
        """``GET /api/model``'s answer: ``current``, ``available``, ``thinking_level``, ``thinking_levels``,
        and ``current_status`` (:meth:`status` of the current model: its base URL and how its last chat
        call on this worker went)."""
        sel = await self.current()
        return {
            "current": sel.name,
            "available": self.available,
            "thinking_level": sel.thinking_level,
            "thinking_levels": list(THINKING_LEVELS),
            "current_status": self.status(sel.name),
        }

    async def chat_model(self, streaming: bool = True) -> BaseChatModel | None:
        """The current model's chat model at the current thinking level, or None when no model is
        configured. Instances are reused per (model, level, streaming); they hold no per-call state."""
        sel = await self.current()
        if sel.config is None or sel.name is None:
            return None
        self._last = sel.name
        key = (sel.name, sel.thinking_level, streaming)
        model = self._built.get(key)
        if model is None:
            model = self._built[key] = build_chat_model(sel.config, sel.thinking_level, streaming=streaming)
        return model
