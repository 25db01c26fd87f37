"""Offline replay of a recorded trajectory: a chat model that answers the n-th call with the n-th
recorded :class:`~vent_agent.evals.cases.Turn` (text streamed in small chunks, tool calls as chunks), so
the service's real graph, tools, citation check and events run on it and the eval's checks see what they
would see with a live model. Calls past the recording (the follow-up suggestions) get an empty answer.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult

from vent_agent.evals.cases import Turn

CHUNK = 8
"""Characters per streamed text chunk."""

_ids = itertools.count(1)


def turn_message(turn: Turn) -> AIMessage:
    """The recorded ``turn`` as the model's message (fresh tool-call ids)."""
    calls = [
        {"name": c.name, "args": dict(c.args), "id": f"eval_call_{next(_ids)}", "type": "tool_call"}
        for c in turn.calls
    ]
    return AIMessage(content=turn.text, tool_calls=calls)


def message_chunks(msg: AIMessage, size: int, usage: UsageMetadata | None = None) -> Iterator[AIMessageChunk]:
    """``msg`` streamed as a provider would: its reasoning (``additional_kwargs["reasoning_content"]``) in
    one chunk, its text in chunks of ``size`` characters, each tool call as one chunk of JSON arguments,
    and a last chunk with ``usage`` (zero tokens when None). Shared by the replayed model and the tests'
    scripted one."""
    reasoning = msg.additional_kwargs.get("reasoning_content")
    if reasoning:
        yield AIMessageChunk(content="", additional_kwargs={"reasoning_content": reasoning})
    text = str(msg.content)
    for i in range(0, len(text), size):
        yield AIMessageChunk(content=text[i : i + size])
    for idx, call in enumerate(msg.tool_calls):
        args = json.dumps(call["args"], ensure_ascii=False)
        chunk = tool_call_chunk(name=call["name"], args=args, id=call["id"], index=idx)
        yield AIMessageChunk(content="", tool_call_chunks=[chunk])
    usage = usage or UsageMetadata(input_tokens=0, output_tokens=0, total_tokens=0)
    yield AIMessageChunk(content="", usage_metadata=usage, chunk_position="last")


class ReplayChatModel(BaseChatModel):
    """Answers call n with ``turns[n]``; afterwards with an empty message. ``calls`` counts the calls."""

    turns: list[Turn]
    calls: int = 0

    @property
    def _llm_type(self) -> str:
        return "eval-replay"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ReplayChatModel:
        """The model itself: the replay ignores the schemas, its calls are recorded."""
        return self

    def _next(self) -> AIMessage:
        n, self.calls = self.calls, self.calls + 1
        return turn_message(self.turns[n]) if n < len(self.turns) else AIMessage(content="")

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._next())])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for chunk in message_chunks(self._next(), CHUNK):
            yield ChatGenerationChunk(message=chunk)

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        for chunk in message_chunks(self._next(), CHUNK):
            yield ChatGenerationChunk(message=chunk)


class ReplayModels:
    """Stands in for the app's model registry (``state.models``): every chat turn gets ``model`` (a
    replay here, a scripted model in the tests)."""

    def __init__(self, model: BaseChatModel | None) -> None:
        self.model = model
        self.calls: list[tuple[str, str | None]] = []

    async def chat_model(self, streaming: bool = True) -> BaseChatModel | None:
        """The replayed model (None: no model configured)."""
        return self.model

    @property
    def available(self) -> list[str]:
        """``["replay"]`` while a model is set."""
        return ["replay"] if self.model is not None else []

    def context_window(self, name: str | None = None) -> int:
        """A fixed context window (tokens); the replay reports no usage."""
        return 131072

    def note_call(self, name: str, error: str | None) -> None:
        """Record a chat call's outcome (the registry's health record): kept in ``calls``."""
        self.calls.append((name, error))

    def status(self, name: str | None) -> dict[str, Any]:
        """The model's state as ``/healthz`` gives it: unknown while a replay is set, none without."""
        return {"name": name, "base_url": None, "state": "unknown" if self.model else "none"}

    async def info(self) -> dict[str, Any]:
        """What ``/api/model`` reports: the replay as the current and only model."""
        return {"current": "replay" if self.model else None, "available": self.available}
