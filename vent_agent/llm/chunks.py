"""Reading streamed model output: answer text and reasoning text of one message or chunk.

Where reasoning lives (the project's one convention): every provider class of :mod:`vent_agent.llm.compat`
puts a reasoning model's chain of thought into ``AIMessageChunk.additional_kwargs["reasoning_content"]``
(the field name of DeepSeek's and Qwen's wire format, and of ``langchain-deepseek``). Content stays a
plain string. :func:`reasoning_text` also reads LangChain's standard content blocks (``{"type":
"reasoning", "reasoning": …}``) and Anthropic-style ``{"type": "thinking", "thinking": …}`` blocks, so that
scripted test models and other providers work with the same agents. Agents map the result to the
spec's ``reasoning`` events and :func:`content_text` to ``token`` events.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import BaseMessage

REASONING_KEY = "reasoning_content"


def reasoning_text(message: BaseMessage) -> str:
    """The reasoning (chain-of-thought) text carried by ``message`` (a streamed chunk or a whole message);
    ``""`` when there is none."""
    value = message.additional_kwargs.get(REASONING_KEY)
    if isinstance(value, str) and value:
        return value
    content = message.content
    if not isinstance(content, list):
        return ""
    parts: list[str] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "reasoning" and isinstance(block.get("reasoning"), str):
            parts.append(block["reasoning"])
        elif block.get("type") == "thinking" and isinstance(block.get("thinking"), str):
            parts.append(block["thinking"])
    return "".join(parts)


def content_text(message: BaseMessage) -> str:
    """The answer text of ``message``: a string content, or the ``text`` blocks of a list content."""
    content: Any = message.content
    if isinstance(content, str):
        return content
    return "".join(
        part if isinstance(part, str) else str(part.get("text", ""))
        for part in content
        if isinstance(part, str) or (isinstance(part, dict) and part.get("type", "text") == "text")
    )


def model_name(model: object) -> str:
    """A chat model's name for metrics and logs: its endpoint model id, else its class name."""
    return str(getattr(model, "model_name", None) or getattr(model, "model", None) or type(model).__name__)
