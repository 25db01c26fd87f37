"""A stand-in chat model for a graph that must be built but may not call a model: resolving a plan-mode
approval by rejection when no chat model is configured (the rejection closes the pending call and ends
the agent before any model call, so the session is always released)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatResult


class NoModelConfigured(RuntimeError):
    """A model call reached :class:`NoChatModel` (no chat model is configured)."""


class NoChatModel(BaseChatModel):
    """Binds any tools and raises :class:`NoModelConfigured` when called."""

    @property
    def _llm_type(self) -> str:
        return "none"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> NoChatModel:
        """Itself: there is nothing to bind the tools to."""
        return self

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        raise NoModelConfigured("未配置对话模型（VENT_MODELS）")
