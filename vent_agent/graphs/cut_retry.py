"""A tool call cut by the model's output limit is asked for once more, saying why, before the turn stops.

A response whose tool calls the output limit cut (``finish_reason: length``) raises
:class:`~vent_agent.llm.finish.CutToolCall` at its end: the call is never run
(:mod:`vent_agent.llm.finish`). :class:`CutToolCallRetry` (``create_agent`` middleware around the model
call) then sends the same request once more with a user note naming the cut call and asking for it
whole, with no long text before it; the stream says so first (``progress``, ``notice:
"tool_call_retry"``, through LangGraph's ``custom`` stream). Once per turn: a second cut, or a call cut
otherwise (a closed connection, the provider's moderation, arguments that are not JSON), stops the turn
with its error as before. The note is not kept in the conversation (it is added to the request only).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware import AgentMiddleware, ModelRequest
from langchain_core.messages import HumanMessage
from langgraph.config import get_stream_writer

from vent_agent.llm.finish import CutToolCall

RETRY_NOTICE = "tool_call_retry"
"""``progress.notice`` of the retry."""


def retry_note(cut: CutToolCall, label: Callable[[str], str]) -> str:
    """What the model is told on the retry: which call was cut, why, and what to send instead."""
    names = "、".join(f"{label(t)}（{t}）" for t in cut.tools if t) or "工具调用"
    return (
        f"【系统提示】你上一次回答中的工具调用 {names} 在参数写完之前达到了模型输出长度上限"
        "（finish_reason: length），没有执行。请重新发出这个工具调用，参数写完整；调用之前不要写长段文字或推理。"
    )


def retry_message(cut: CutToolCall, label: Callable[[str], str]) -> str:
    """What the user is told (the ``progress`` message)."""
    names = "、".join(f"「{label(t)}」" for t in cut.tools if t) or "（未写出名称）"
    return f"模型的工具调用{names}在参数写完之前达到了输出长度上限，未执行；已请模型重新发出一次"


class CutToolCallRetry(AgentMiddleware):
    """Asks the model once more (once per agent run: the agent is built per turn) when its tool call
    was cut by the output limit; ``label`` names a tool in Chinese for the user."""

    def __init__(self, label: Callable[[str], str]) -> None:
        super().__init__()
        self.label = label
        self.retried = False

    async def awrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], Awaitable[Any]]
    ) -> Any:
        try:
            return await handler(request)
        except CutToolCall as cut:
            if self.retried or cut.finish != "length":
                raise
            self.retried = True
            get_stream_writer()({"notice": RETRY_NOTICE, "message": retry_message(cut, self.label)})
            note = HumanMessage(content=retry_note(cut, self.label))
            return await handler(request.override(messages=[*request.messages, note]))
