"""How a model response ended, told truthfully: its ``finish_reason`` and whether its tool calls are whole.

OpenAI-compatible endpoints (OpenAI, DeepSeek, Qwen/DashScope, vLLM, Ollama) end every choice with a
``finish_reason``: ``stop`` (the answer is complete), ``tool_calls`` (complete tool calls follow), ``length``
(the output-token limit cut the answer), ``content_filter`` (the provider's moderation stopped it), or a
provider's own (DeepSeek: ``insufficient_system_resource``). A missing one (``null``, ``""``, the string
``"null"``) means the stream was closed before the end.

Tool calls are run only when every call of the response is whole: its arguments strict JSON (an object),
never completed or repaired, and the response not cut (``length``, ``content_filter`` or another abnormal
end). LangChain parses streamed arguments with ``parse_partial_json``, which closes an open object:
``{"workers": 4`` (the model was writing 40) becomes ``{"workers": 4}``. :class:`StreamEnd` checks the raw
argument text of the stream before that parse can be used and raises :class:`CutToolCall`, so no tool ever
runs with such arguments; :func:`check_tool_calls` does the same for a whole (non-streamed) response.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGenerationChunk

from vent_agent.llm.chunks import content_text, reasoning_text

COMPLETE = frozenset({"stop", "tool_calls", "function_call"})
"""Finish reasons of a response that ended as the model meant it to."""

MISSING = frozenset({"", "null", "none"})


def finish_reason(metadata: Mapping[str, Any] | None) -> str | None:
    """The ``finish_reason`` in ``metadata`` (a generation's info or a message's ``response_metadata``),
    lower-cased; None when it is absent, empty or the text ``"null"`` (as some gateways send it)."""
    value = (metadata or {}).get("finish_reason")
    if not isinstance(value, str) or value.strip().lower() in MISSING:
        return None
    return value.strip().lower()


@dataclass(frozen=True)
class LastResponse:
    """What the agent's last model response was: its finish reason (None when the model sent none), and
    whether it had answer text, reasoning, tool calls."""

    finish: str | None = None
    has_text: bool = False
    has_reasoning: bool = False
    has_tool_calls: bool = False

    @classmethod
    def of(cls, message: AIMessage) -> LastResponse:
        """The summary of one whole model response."""
        return cls(
            finish=finish_reason(message.response_metadata),
            has_text=bool(content_text(message).strip()),
            has_reasoning=bool(reasoning_text(message).strip()),
            has_tool_calls=bool(message.tool_calls or message.invalid_tool_calls),
        )


class IncompleteResponse(RuntimeError):
    """A streamed model response ended with neither a ``finish_reason`` nor complete tool calls: the
    connection was closed mid-answer. ``partial``: the answer text received before the end."""

    def __init__(self, partial: str) -> None:
        super().__init__(f"model stream ended without finish_reason after {len(partial)} characters")
        self.partial = partial


class CutToolCall(IncompleteResponse):
    """A response whose tool calls may not run: arguments that are not whole strict JSON objects, a
    call without a name, or calls in a response cut by ``finish_reason`` (``length``…). ``message``: the
    Chinese explanation for the user (which tool, why nothing was run; :meth:`describe` with labels);
    ``tools``: the names of the calls;
    ``finish``: the response's finish reason (None when the stream was closed without one)."""

    def __init__(self, partial: str, tools: list[str], finish: str | None, why: str) -> None:
        super().__init__(partial)
        self.tools, self.finish, self.why = tools, finish, why
        self.message = self.describe(lambda name: name)
        self.args = (self.message,)

    def describe(self, label: Callable[[str], str]) -> str:
        """The Chinese explanation, each tool named by ``label(name)`` (its Chinese label)."""
        names = "、".join(f"「{label(t)}」" for t in self.tools if t) or "（未写出名称）"
        return f"模型的工具调用{names}{self.why}，为避免用不完整的参数算出错误数值，未执行该调用；请重试"


def _why_cut(finish: str | None) -> str:
    if finish == "length":
        return "在参数写完之前达到了模型输出长度上限（finish_reason: length）"
    if finish == "content_filter":
        return "被模型服务的内容审核中止（finish_reason: content_filter）"
    if finish is None:
        return "的参数没有传完（模型连接在回答结束前关闭）"
    return f"随模型回答提前结束（finish_reason: {finish}）"


def _whole_arguments(text: str) -> bool:
    """True when ``text`` is one strict JSON object (``""`` counts as ``{}``: a call without arguments)."""
    if not text.strip():
        return True
    try:
        value = json.loads(text)
    except ValueError:
        return False
    return isinstance(value, dict)


def check_tool_calls(calls: list[tuple[str, str]], finish: str | None, partial: str) -> None:
    """Raise :class:`CutToolCall` unless every ``(name, raw arguments text)`` of one response is whole and
    the response ended normally. ``finish`` None is accepted when every call is whole (some servers send
    no finish reason after complete calls); ``partial``: the response's text."""
    if not calls:
        return
    names = [name for name, _ in calls]
    if finish is not None and finish not in COMPLETE:
        raise CutToolCall(partial, names, finish, _why_cut(finish))
    broken = [name for name, args in calls if not name or not _whole_arguments(args)]
    if broken:
        why = "的参数不是完整有效的 JSON" if finish is not None else _why_cut(None)
        raise CutToolCall(partial, broken, finish, why)


class StreamEnd:
    """Watches one streamed response: its finish reason, the text so far, and the tool calls' raw
    argument text (by index, after :class:`~vent_agent.llm.compat.ToolCallIndexer` fixed the indexes)."""

    def __init__(self) -> None:
        self.finish: str | None = None
        self.text: list[str] = []
        self._calls: dict[Any, dict[str, str]] = {}

    def see(self, gen: ChatGenerationChunk) -> None:
        """Record one generation chunk."""
        reason = finish_reason(gen.generation_info) or finish_reason(gen.message.response_metadata)
        if reason is not None:
            self.finish = reason
        self.text.append(gen.text)
        for tc in getattr(gen.message, "tool_call_chunks", None) or []:
            call = self._calls.setdefault(tc.get("index"), {"name": "", "args": ""})
            call["name"] += tc.get("name") or ""
            call["args"] += tc.get("args") or ""

    def check(self) -> None:
        """At the stream's end: raise :class:`CutToolCall` for tool calls that may not run
        (:func:`check_tool_calls`), :class:`IncompleteResponse` for a text answer without a finish
        reason (the connection was closed early)."""
        partial = "".join(self.text)
        if self._calls:
            calls = [(c["name"], c["args"]) for c in self._calls.values()]
            check_tool_calls(calls, self.finish, partial)
        elif self.finish is None:
            raise IncompleteResponse(partial)


def check_whole_response(raw: Mapping[str, Any]) -> None:
    """:func:`check_tool_calls` for the first choice of a non-streamed ``chat.completion`` (a dict)."""
    choices = raw.get("choices") or []
    choice: Mapping[str, Any] = choices[0] if choices and isinstance(choices[0], Mapping) else {}
    found = choice.get("message")
    message: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    calls = []
    for call in message.get("tool_calls") or []:
        function = call.get("function") if isinstance(call, Mapping) else None
        if isinstance(function, Mapping):
            args = function.get("arguments")
            calls.append((str(function.get("name") or ""), args if isinstance(args, str) else ""))
    content = message.get("content")
    check_tool_calls(calls, finish_reason(choice), content if isinstance(content, str) else "")
