"""Build the chat model of one configured model (:class:`vent_agent.settings.ModelConfig`) at a thinking
level: the provider's class (:mod:`vent_agent.llm.compat`), its endpoint, and the level's parameters
(:mod:`vent_agent.llm.thinking`)."""

from __future__ import annotations

from typing import Any

import httpx
from langchain_core.language_models import BaseChatModel

from vent_agent.llm.compat import VentChatDeepSeek, VentChatOpenAI
from vent_agent.llm.thinking import thinking_params
from vent_agent.settings import ModelConfig
from vent_agent.tls import tls_context

#: provider kind → chat-model class.
PROVIDER_CLASSES: dict[str, type[BaseChatModel]] = {
    "openai": VentChatOpenAI,
    "qwen": VentChatOpenAI,
    "deepseek": VentChatDeepSeek,
}

MAX_RETRIES = 1


def build_chat_model(config: ModelConfig, level: str, *, streaming: bool = True) -> BaseChatModel:
    """The chat model for ``config`` at thinking ``level`` (``off``, ``high``, ``highest``).

    Always Chat Completions (never OpenAI's Responses API), usage reported in streams
    (``stream_options.include_usage``, so the last chunk carries ``usage_metadata``), time-out
    ``config.timeout_s`` seconds per request. Raises :class:`~vent_agent.llm.thinking.UnknownThinkingLevel`
    for another level. Building makes no network call."""
    cls = PROVIDER_CLASSES.get(config.provider, VentChatOpenAI)
    kwargs: dict[str, Any] = {
        "model": config.model or config.name,
        "base_url": config.base_url,
        "api_key": config.api_key or "not-needed",
        "timeout": config.timeout_s,
        # its own client: langchain-openai's shared default client stays bound to the first event loop
        "http_async_client": httpx.AsyncClient(timeout=config.timeout_s, verify=tls_context()),
        "max_retries": MAX_RETRIES,
        "streaming": streaming,
        "stream_usage": True,
        "use_responses_api": False,
        "context_window": config.context_window,
        "config_name": config.name,
        **thinking_params(config.provider, level),
    }
    return cls(**kwargs)
