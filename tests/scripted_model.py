"""A scripted chat model for driving agents in tests: it answers each call with the next scripted
message, streams text in small chunks (so ``messages`` streaming sees tokens) and tool calls as chunks,
and records what it was sent."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import Field

from vent_agent.evals.replay import message_chunks

_ids = itertools.count(1)


def tool_call(name: str, args: dict[str, Any] | None = None, call_id: str | None = None) -> dict[str, Any]:
    """A tool call for a scripted :class:`AIMessage`."""
    return {"name": name, "args": args or {}, "id": call_id or f"call_{next(_ids)}", "type": "tool_call"}


def says(text: str = "", *calls: dict[str, Any], reasoning: str | None = None) -> AIMessage:
    """A scripted answer: ``text`` and optional tool calls (and reasoning content)."""
    kwargs = {"reasoning_content": reasoning} if reasoning else {}
    return AIMessage(content=text, tool_calls=list(calls), additional_kwargs=kwargs)


class ScriptedChatModel(BaseChatModel):
    """Answers the n-th call with ``script[n]``; once the script is used up, with ``fallback`` (or raises
    ``IndexError`` when there is none). ``seen`` keeps the messages of every call. ``fail_at`` makes
    the given call numbers raise RuntimeError."""

    script: list[AIMessage]
    fallback: AIMessage | None = None
    fail_at: set[int] = Field(default_factory=set)
    seen: list[list[BaseMessage]] = Field(default_factory=list)
    chunk_size: int = 4
    delay_s: float = 0.0

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
        return self

    def _next(self, messages: list[BaseMessage]) -> AIMessage:
        n = len(self.seen)
        self.seen.append(list(messages))
        if n in self.fail_at:
            raise RuntimeError(f"scripted failure at call {n}")
        if n < len(self.script):
            return self.script[n]
        if self.fallback is not None:
            return self.fallback
        raise IndexError(f"script exhausted at call {n}")

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._next(messages))])

    def _chunks(self, msg: AIMessage) -> Iterator[AIMessageChunk]:
        usage = UsageMetadata(input_tokens=100, output_tokens=20, total_tokens=120)
        return message_chunks(msg, self.chunk_size, usage)

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for chunk in self._chunks(self._next(messages)):
            if run_manager and chunk.content:
                run_manager.on_llm_new_token(str(chunk.content), chunk=ChatGenerationChunk(message=chunk))
            yield ChatGenerationChunk(message=chunk)

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        for chunk in self._chunks(self._next(messages)):
            if self.delay_s:
                await asyncio.sleep(self.delay_s)
            yield ChatGenerationChunk(message=chunk)
