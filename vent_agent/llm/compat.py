"""The provider chat-model classes, each a small documented subclass of the provider's own LangChain class.

Why subclass at all (checked against langchain-openai 1.7, langchain-deepseek 1.1):

* ``ChatOpenAI`` drops ``reasoning_content`` (its docs say so: official OpenAI fields only), so a
  reasoning model behind an OpenAI-compatible endpoint (vLLM, Ollama, a gateway) would lose it.
* Neither ``ChatOpenAI`` nor ``ChatDeepSeek`` sends ``reasoning_content`` back on assistant messages.
  DeepSeek's thinking mode requires it for every assistant turn that made tool calls ("The
  reasoning_content in the thinking mode must be passed back to the API", HTTP 400), so a tool loop
  breaks on its second model call (langchain-ai/langchain issues #34166, #37389, #39370).
* Some OpenAI-compatible servers send a tool call's ``function.arguments`` as a JSON object instead of
  the JSON string the API defines; LangChain then fails the turn. The object is serialised as it stands
  (:func:`serialise_tool_arguments`), streamed or not.
* Some OpenAI-compatible servers stream parallel tool calls that all carry ``index: 0`` (told apart only
  by ``id``) or no index at all; LangChain merges chunks by index, and the calls are glued into one
  garbage call (``"get_aget_b"``, ``'{"x":1}{"y":2}'``).

:class:`ReasoningRoundTrip` fixes the four for any ``BaseChatOpenAI`` subclass, and refuses a streamed
response that ends with neither a ``finish_reason`` nor complete tool calls (the server or a proxy closed
the stream early; ``langchain-openai`` would return the partial text as if it were the answer), and any
response whose tool calls are cut or not strict JSON (:mod:`vent_agent.llm.finish`): streamed and
non-streamed ``reasoning_content`` (or ``reasoning``) lands in ``additional_kwargs["reasoning_content"]``
(see :mod:`vent_agent.llm.chunks`); assistant messages that carry it send it back; streamed tool calls
get one index each (:class:`ToolCallIndexer`). Qwen uses :class:`VentChatOpenAI`: DashScope's
compatible mode streams ``reasoning_content`` exactly like DeepSeek, and ``langchain-qwq``'s
``ChatQwen`` sends nothing back either, rewrites its own ``extra_body`` on every call and pins
``json-repair`` and LangGraph versions.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import LanguageModelInput
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_deepseek import ChatDeepSeek
from langchain_openai import ChatOpenAI

from vent_agent.llm.chunks import REASONING_KEY
from vent_agent.llm.finish import IncompleteResponse, StreamEnd, check_whole_response

__all__ = ["IncompleteResponse", "ReasoningRoundTrip", "VentChatDeepSeek", "VentChatOpenAI"]


class ToolCallIndexer:
    """Gives every streamed tool call its own ``index`` within one model response.

    A chunk starts a new call when its raw index is new, when it carries an ``id`` different from the
    call last seen at that raw index, or when it carries a ``name`` (without the same ``id``) while that
    call already has one. Arguments-only chunks continue the call last seen at their raw index.
    Mutates the chunks' ``tool_call_chunks`` in place; one instance per streamed response."""

    def __init__(self) -> None:
        self._slot_by_raw: dict[Any, int] = {}
        self._id_of: dict[int, str] = {}
        self._named: set[int] = set()
        self._next = 0

    def fix(self, message: BaseMessage) -> None:
        """Rewrite the ``index`` of each tool-call chunk of ``message`` (no-op without tool calls)."""
        for tc in getattr(message, "tool_call_chunks", None) or []:
            raw, tc_id, name = tc.get("index"), tc.get("id") or None, tc.get("name") or None
            slot = self._slot_by_raw.get(raw)
            same_id = slot is not None and tc_id is not None and self._id_of.get(slot) == tc_id
            if (
                slot is None
                or (tc_id is not None and slot in self._id_of and not same_id)
                or (name is not None and slot in self._named and not same_id)
            ):
                slot = self._next
                self._next += 1
                self._slot_by_raw[raw] = slot
            if tc_id is not None:
                self._id_of.setdefault(slot, tc_id)
            if name is not None:
                self._named.add(slot)
            tc["index"] = slot


def _delta_reasoning(chunk: Mapping[str, Any]) -> str | None:
    choices = chunk.get("choices") or []
    delta = (choices[0] or {}).get("delta") if choices else None
    if not isinstance(delta, Mapping):
        return None
    value = delta.get(REASONING_KEY) or delta.get("reasoning")
    return value if isinstance(value, str) and value else None


def serialise_tool_arguments(calls: list[Any]) -> list[Any] | None:
    """``calls`` (raw ``tool_calls`` of a message or delta) with each ``function.arguments`` that is
    not a string (a JSON object or array sent as such) serialised to JSON text; None when all are
    strings (or absent) already."""
    fixed, changed = [], False
    for call in calls:
        function = call.get("function") if isinstance(call, dict) else None
        args = function.get("arguments") if isinstance(function, dict) else None
        if isinstance(function, dict) and args is not None and not isinstance(args, str):
            call = {**call, "function": {**function, "arguments": json.dumps(args, ensure_ascii=False)}}
            changed = True
        fixed.append(call)
    return fixed if changed else None


def _with_tool_call_indexes(chunk: dict[str, Any]) -> dict[str, Any]:
    """A copy of a raw stream chunk whose tool-call deltas all have an ``index`` key (None when the
    server sent none: ``langchain-openai`` drops every tool call of a delta when one lacks it) and
    string ``arguments`` (:func:`serialise_tool_arguments`)."""
    choices = chunk.get("choices") or []
    delta = choices[0].get("delta") if choices and isinstance(choices[0], dict) else None
    calls = delta.get("tool_calls") if isinstance(delta, dict) else None
    if not isinstance(delta, dict) or not calls:
        return chunk
    serialised = serialise_tool_arguments(calls)
    if serialised is None and all(isinstance(c, dict) and "index" in c for c in calls):
        return chunk
    fixed_calls = [{"index": None, **c} if isinstance(c, dict) else c for c in serialised or calls]
    return {**chunk, "choices": [{**choices[0], "delta": {**delta, "tool_calls": fixed_calls}}, *choices[1:]]}


def _with_string_arguments(response: Any) -> Any:
    """A non-streamed response (dict or openai model) whose tool calls' ``arguments`` are all strings:
    the response itself when they are, else its dict with them serialised."""
    raw = response if isinstance(response, dict) else response.model_dump()
    choices = raw.get("choices")
    if not isinstance(choices, list):
        return response
    changed = False
    new_choices = []
    for choice in choices:
        message = choice.get("message") if isinstance(choice, dict) else None
        calls = message.get("tool_calls") if isinstance(message, dict) else None
        serialised = serialise_tool_arguments(calls) if isinstance(calls, list) else None
        if serialised is not None and isinstance(message, dict):
            choice = {**choice, "message": {**message, "tool_calls": serialised}}
            changed = True
        new_choices.append(choice)
    return {**raw, "choices": new_choices} if changed else response


if TYPE_CHECKING:  # the mixin's super() is the BaseChatOpenAI subclass it is mixed into
    from langchain_openai.chat_models.base import BaseChatOpenAI as _MixedInto
else:
    _MixedInto = object


class ReasoningRoundTrip(_MixedInto):
    """Mixin for ``BaseChatOpenAI`` subclasses (put it first in the bases): reasoning in, reasoning back
    out, one index per streamed tool call. See the module docstring."""

    def _requires_reasoning_on_tool_calls(self) -> bool:
        """True: every assistant message with tool calls gets ``reasoning_content`` (``""`` when unknown)."""
        return False

    def _convert_chunk_to_generation_chunk(
        self, chunk: dict[str, Any], default_chunk_class: type, base_generation_info: dict[str, Any] | None
    ) -> ChatGenerationChunk | None:
        chunk = _with_tool_call_indexes(chunk)
        gen = super()._convert_chunk_to_generation_chunk(chunk, default_chunk_class, base_generation_info)
        if gen is not None and isinstance(gen.message, AIMessageChunk):
            reasoning = _delta_reasoning(chunk)
            if reasoning and not gen.message.additional_kwargs.get(REASONING_KEY):
                gen.message.additional_kwargs[REASONING_KEY] = reasoning
        return gen

    def _create_chat_result(self, response: Any, generation_info: dict[str, Any] | None = None) -> ChatResult:
        response = _with_string_arguments(response)
        raw = response if isinstance(response, dict) else response.model_dump()
        check_whole_response(raw)
        result = super()._create_chat_result(response, generation_info)
        choices = raw.get("choices") or []
        message = (choices[0] or {}).get("message") if choices else None
        if isinstance(message, dict) and result.generations:
            value = message.get(REASONING_KEY) or message.get("reasoning")
            target = result.generations[0].message
            if isinstance(value, str) and value and not target.additional_kwargs.get(REASONING_KEY):
                target.additional_kwargs[REASONING_KEY] = value
        return result

    def _get_request_payload(
        self, input_: LanguageModelInput, *, stop: list[str] | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        payload = super()._get_request_payload(input_, stop=stop, **kwargs)
        sent = payload.get("messages")
        if isinstance(sent, list):
            messages = self._convert_input(input_).to_messages()
            if len(messages) == len(sent):
                attach_reasoning(sent, messages, empty_on_tool_calls=self._requires_reasoning_on_tool_calls())
        return payload

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        indexer, end = ToolCallIndexer(), StreamEnd()
        async for gen in super()._astream(messages, stop=stop, run_manager=None, **kwargs):
            indexer.fix(gen.message)
            end.see(gen)
            if run_manager:
                logprobs = (gen.generation_info or {}).get("logprobs")
                await run_manager.on_llm_new_token(gen.text, chunk=gen, logprobs=logprobs)
            yield gen
        end.check()

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        indexer, end = ToolCallIndexer(), StreamEnd()
        for gen in super()._stream(messages, stop=stop, run_manager=None, **kwargs):
            indexer.fix(gen.message)
            end.see(gen)
            if run_manager:
                logprobs = (gen.generation_info or {}).get("logprobs")
                run_manager.on_llm_new_token(gen.text, chunk=gen, logprobs=logprobs)
            yield gen
        end.check()


def attach_reasoning(
    sent: list[dict[str, Any]], messages: list[BaseMessage], *, empty_on_tool_calls: bool
) -> None:
    """Copy ``reasoning_content`` of each assistant message into its request dict (``sent[i]`` is the
    dict of ``messages[i]``). With ``empty_on_tool_calls``, assistant dicts with ``tool_calls`` and no
    known reasoning get ``""`` (DeepSeek rejects a tool-call turn without the field in thinking mode)."""
    for message, body in zip(messages, sent, strict=True):
        if not isinstance(message, AIMessage) or body.get("role") != "assistant":
            continue
        value = message.additional_kwargs.get(REASONING_KEY)
        if isinstance(value, str) and value:
            body[REASONING_KEY] = value
        elif empty_on_tool_calls and body.get("tool_calls"):
            body[REASONING_KEY] = ""


class VentChatOpenAI(ReasoningRoundTrip, ChatOpenAI):
    """``ChatOpenAI`` for any OpenAI-compatible Chat Completions endpoint (providers ``openai`` and
    ``qwen``), with reasoning kept and sent back and streamed tool calls indexed (module docstring).
    ``context_window``: the model's limit in tokens (from ``ModelConfig``; never sent)."""

    context_window: int | None = None
    config_name: str | None = None
    """The model's name in ``VENT_MODELS`` (errors name it with its ``base_url``; never sent)."""


class VentChatDeepSeek(ReasoningRoundTrip, ChatDeepSeek):
    """``ChatDeepSeek`` that also sends ``reasoning_content`` back and indexes streamed tool calls.

    While thinking is not disabled (``extra_body.thinking.type``; DeepSeek's default is enabled), every
    assistant message with tool calls carries ``reasoning_content``, ``""`` when none is known (for
    example a turn produced by another model before a switch). ``context_window`` and ``config_name``
    as in :class:`VentChatOpenAI`."""

    context_window: int | None = None
    config_name: str | None = None

    def _requires_reasoning_on_tool_calls(self) -> bool:
        thinking = (self.extra_body or {}).get("thinking")
        return not (isinstance(thinking, Mapping) and thinking.get("type") == "disabled")
