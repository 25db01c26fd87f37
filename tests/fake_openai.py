"""A loopback fake of an OpenAI-compatible chat-completions endpoint, for wire tests.

Each request gets the next scripted :class:`FakeTurn` (the last one repeats): reasoning deltas
(``reasoning_content``, as DeepSeek and Qwen send them), answer text, tool calls (optionally all streamed
with ``index: 0``, or with no index, as some servers do for parallel calls) and usage, sent in a trailing chunk only when
the request asks for it (``stream_options.include_usage``, as OpenAI does). Non-streaming requests get a
whole ``chat.completion``. Every request body is recorded in ``requests``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.routing import Route

DEFAULT_USAGE = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}


@dataclass
class FakeToolCall:
    """One tool call the fake model makes; ``arguments`` is streamed in pieces of ``piece`` characters."""

    id: str
    name: str
    arguments: dict[str, Any]
    piece: int = 4


@dataclass
class FakeTurn:
    """One scripted model response."""

    reply: str = ""
    reasoning: str = ""
    tool_calls: list[FakeToolCall] = field(default_factory=list)
    shared_index: bool = False
    omit_index: bool = False
    interleave: bool = False
    object_arguments: bool = False
    """Send each call's ``arguments`` as a JSON object (whole, in its head delta), as some servers do."""
    usage: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_USAGE))
    cut_after: int | None = None
    """Close the stream after this many answer chunks: no finish_reason, no usage, no ``[DONE]``."""
    no_finish: bool = False
    """Close the stream after the last answer or tool-call chunk, without finish_reason or ``[DONE]``."""
    finish: str | None = None
    """The ``finish_reason`` sent (default: ``tool_calls`` with tool calls, else ``stop``); ``"null"``
    sends JSON ``null`` (and still ``[DONE]``), any other text as it is (``length``, ``content_filter``…)."""
    args_cut: int | None = None
    """Send only the first ``args_cut`` characters of each call's arguments (the output limit hit them)."""
    usage_on_finish: bool = False
    """DeepSeek's shape: usage rides on the finish chunk (OpenAI and Qwen send a trailing chunk without
    choices)."""


class FakeOpenAI:
    """Answers ``POST /v1/chat/completions`` from ``turns`` (or one turn of ``reply``/``reasoning``);
    ``fail_status`` makes it answer that HTTP status instead. ``requests`` holds every request body."""

    def __init__(
        self,
        reply: str = "",
        reasoning: str = "",
        fail_status: int | None = None,
        turns: list[FakeTurn] | None = None,
    ) -> None:
        self.turns = turns or [FakeTurn(reply=reply, reasoning=reasoning)]
        self.fail_status = fail_status
        self.requests: list[dict[str, Any]] = []
        self.app = Starlette(routes=[Route("/v1/chat/completions", self.completions, methods=["POST"])])

    def _turn(self) -> FakeTurn:
        return self.turns[min(len(self.requests) - 1, len(self.turns) - 1)]

    @staticmethod
    def _frame(body: dict[str, Any]) -> str:
        return f"data: {json.dumps(body, ensure_ascii=False)}\n\n"

    def _chunk(
        self, delta: dict[str, Any], finish: str | None = None, usage: dict[str, int] | None = None
    ) -> str:
        body: dict[str, Any] = {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": "fake-model",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        if usage is not None:
            body["usage"] = usage
        return self._frame(body)

    @staticmethod
    def _finish(turn: FakeTurn) -> str | None:
        if turn.finish is None:
            return "tool_calls" if turn.tool_calls else "stop"
        return None if turn.finish == "null" else turn.finish

    def _tool_call_deltas(self, turn: FakeTurn) -> list[dict[str, Any]]:
        """Per call: a head delta (id, name, empty arguments), then argument pieces; calls one after the
        other, or round-robin with ``interleave``."""
        per_call: list[list[dict[str, Any]]] = []
        for i, call in enumerate(turn.tool_calls):
            index = 0 if turn.shared_index else i
            args = json.dumps(call.arguments, ensure_ascii=False)[: turn.args_cut]
            head: dict[str, Any] = {
                "index": index,
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": ""},
            }
            pieces = [
                {"index": index, "function": {"arguments": args[j : j + call.piece]}}
                for j in range(0, len(args), call.piece)
            ]
            if turn.object_arguments:
                head["function"]["arguments"] = call.arguments
                pieces = []
            if turn.omit_index:
                for delta in (head, *pieces):
                    del delta["index"]
            per_call.append([head, *pieces])
        if not turn.interleave:
            return [d for deltas in per_call for d in deltas]
        out: list[dict[str, Any]] = []
        for step in range(max((len(d) for d in per_call), default=0)):
            out.extend(deltas[step] for deltas in per_call if step < len(deltas))
        return out

    async def completions(self, request: Request) -> Any:
        body = await request.json()
        self.requests.append(body)
        if self.fail_status:
            return JSONResponse({"error": {"message": "fake failure"}}, status_code=self.fail_status)
        turn = self._turn()
        if not body.get("stream"):
            return JSONResponse(self._completion(turn))
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))

        async def gen():
            yield self._chunk({"role": "assistant", "content": ""})
            for i in range(0, len(turn.reasoning), 8):
                yield self._chunk({"reasoning_content": turn.reasoning[i : i + 8]})
            for n, i in enumerate(range(0, len(turn.reply), 5)):
                if turn.cut_after is not None and n >= turn.cut_after:
                    return
                yield self._chunk({"content": turn.reply[i : i + 5]})
            for delta in self._tool_call_deltas(turn):
                yield self._chunk({"tool_calls": [delta]})
            if turn.no_finish:
                return
            on_finish = turn.usage if include_usage and turn.usage_on_finish else None
            yield self._chunk({}, finish=self._finish(turn), usage=on_finish)
            if include_usage and not turn.usage_on_finish:
                yield self._frame(
                    {
                        "id": "chatcmpl-fake",
                        "object": "chat.completion.chunk",
                        "created": 0,
                        "model": "fake-model",
                        "choices": [],
                        "usage": turn.usage,
                    }
                )
            yield "data: [DONE]\n\n"

        return StreamingResponse(gen(), media_type="text/event-stream")

    @classmethod
    def _completion(cls, turn: FakeTurn) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": turn.reply or None}
        if turn.reasoning:
            message["reasoning_content"] = turn.reasoning
        if turn.tool_calls:
            message["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {
                        "name": c.name,
                        "arguments": c.arguments
                        if turn.object_arguments
                        else json.dumps(c.arguments, ensure_ascii=False)[: turn.args_cut],
                    },
                }
                for c in turn.tool_calls
            ]
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": "fake-model",
            "choices": [{"index": 0, "message": message, "finish_reason": cls._finish(turn)}],
            "usage": turn.usage,
        }
