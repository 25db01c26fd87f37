"""How a chat answer ended, from the ``finish_reason`` of the dialogue agent's last model response.

The provider classes refuse a cut stream and cut tool calls (:mod:`vent_agent.llm.finish`); an answer
whose text arrived whole but ended abnormally comes here: ``length`` (the output-token limit),
``content_filter`` (the provider's moderation) or a provider's own reason. Its text is kept and flagged:
a ``progress`` notice before ``done``, ``incomplete: true`` and ``finish_reason`` on ``done`` and in the
history. An answer with no text and no tool call (reasoning only, or nothing) is an ``error``: the model
ran out of output (``length``) or gave no answer.
"""

from __future__ import annotations

from dataclasses import dataclass

from vent_agent.events import Notice
from vent_agent.llm.finish import COMPLETE, LastResponse


@dataclass(frozen=True)
class Ending:
    """What the turn says about an abnormal end: a ``progress`` ``notice`` and its ``message`` (text
    kept), or an ``error`` message (no answer at all); ``finish`` is the finish reason."""

    finish: str | None
    notice: Notice | None = None
    message: str = ""
    error: str | None = None


def _notice(finish: str) -> tuple[Notice, str]:
    if finish == "length":
        return "output_limit", "回答达到模型的输出长度上限被截断（finish_reason: length），以上为不完整的回答"
    if finish == "content_filter":
        return (
            "content_filter",
            "回答被模型服务的内容审核中止（finish_reason: content_filter），以上为不完整的回答",
        )
    return "model_stopped", f"模型服务提前结束了回答（finish_reason: {finish}），以上为不完整的回答"


def _no_answer(last: LastResponse) -> str:
    reason = f"finish_reason: {last.finish}" if last.finish else "没有 finish_reason"
    if last.finish == "length":
        shown = "只写出了推理过程" if last.has_reasoning else "没有写出任何内容"
        return f"模型的输出长度用完了：{shown}，没有给出回答（{reason}）；请重试，或调低思考深度、把问题拆小"
    if last.has_reasoning:
        return f"模型只输出了推理过程，没有给出回答（{reason}）；请重试或切换模型"
    return f"模型没有给出回答（{reason}）；请重试或切换模型"


def answer_ending(last: LastResponse | None) -> Ending | None:
    """The abnormal end of the turn whose last model response is ``last``, or None when it ended well
    (or made tool calls the agent went on with, or there was no model response)."""
    if last is None or last.has_tool_calls:
        return None
    if not last.has_text:
        if last.has_reasoning or (last.finish is not None and last.finish not in COMPLETE):
            return Ending(finish=last.finish, error=_no_answer(last))
        return None
    if last.finish is None or last.finish in COMPLETE:
        return None
    notice, message = _notice(last.finish)
    return Ending(finish=last.finish, notice=notice, message=message)
