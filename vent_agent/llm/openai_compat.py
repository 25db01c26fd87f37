"""The OpenAI-compatible model used by fast click interpretation (one streamed call).

Configured by ``VENT_LLM_BASE_URL``, ``VENT_LLM_API_KEY`` and ``VENT_LLM_MODEL``; with none set the service
runs without a model and interpretations are rendered deterministically. This model is not affected by
``POST /api/model/switch`` (spec); the agents' models come from :mod:`vent_agent.llm.registry`.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import httpx
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessageChunk, BaseMessage, HumanMessage, SystemMessage
from pydantic import SecretStr

from vent_agent.llm.chunks import content_text, model_name, reasoning_text
from vent_agent.llm.compat import VentChatOpenAI
from vent_agent.observability import metrics
from vent_agent.settings import Settings
from vent_agent.tls import tls_context


def make_interpret_model(settings: Settings) -> BaseChatModel | None:
    """The chat model for click interpretation, or None when no model is configured.

    An OpenAI-compatible endpoint through :class:`~vent_agent.llm.compat.VentChatOpenAI`, so that a
    reasoning model's ``reasoning_content`` reaches the ``reasoning`` events."""
    if not settings.llm_configured or settings.llm_model is None:  # configured: a base URL and a model
        return None
    return VentChatOpenAI(
        base_url=settings.llm_base_url,
        api_key=SecretStr(settings.llm_api_key or "not-needed"),
        model=settings.llm_model,
        streaming=True,
        stream_usage=True,
        timeout=settings.llm_timeout_s,
        # its own client: langchain-openai's shared default client stays bound to the first event loop
        http_async_client=httpx.AsyncClient(timeout=settings.llm_timeout_s, verify=tls_context()),
        max_retries=1,
        temperature=0.2,
        use_responses_api=False,
    )


def to_messages(messages: list[dict[str, str]]) -> list[BaseMessage]:
    """OpenAI-style ``[{"role": …, "content": …}]`` to LangChain messages (system and user roles)."""
    out: list[BaseMessage] = []
    for m in messages:
        cls = SystemMessage if m["role"] == "system" else HumanMessage
        out.append(cls(content=m["content"]))
    return out


async def stream_text(model: BaseChatModel, messages: list[dict[str, str]]) -> AsyncIterator[tuple[str, str]]:
    """Stream one model call as ``("token", text)`` and ``("reasoning", text)`` pieces.

    Reasoning is read with :func:`~vent_agent.llm.chunks.reasoning_text`. Raises whatever the client
    raises (time-out, HTTP error); the caller decides the fallback. The call's time and time to its first
    piece are counted in ``/metrics`` (an exception, or the caller stopping early, as an error).
    """
    started = time.perf_counter()
    first: float | None = None
    ok = False
    try:
        async for chunk in model.astream(to_messages(messages)):
            if not isinstance(chunk, AIMessageChunk):
                continue
            reasoning = reasoning_text(chunk)
            text = content_text(chunk)
            if first is None and (reasoning or text):
                first = time.perf_counter() - started
            if reasoning:
                yield "reasoning", reasoning
            if text:
                yield "token", text
        ok = True
    finally:
        metrics.observe_model_call(model_name(model), time.perf_counter() - started, ok, first)
