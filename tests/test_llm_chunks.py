"""``reasoning_text`` and ``content_text``: the one place agents read streamed model output."""

from __future__ import annotations

from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage

from vent_agent.llm.chunks import content_text, reasoning_text


def test_reasoning_from_additional_kwargs() -> None:
    chunk = AIMessageChunk(content="答", additional_kwargs={"reasoning_content": "想"})
    assert reasoning_text(chunk) == "想" and content_text(chunk) == "答"
    assert reasoning_text(AIMessageChunk(content="x")) == ""
    assert reasoning_text(HumanMessage("x")) == ""


def test_reasoning_and_text_from_content_blocks() -> None:
    message = AIMessage(
        content=[
            {"type": "reasoning", "reasoning": "先查"},
            {"type": "thinking", "thinking": "再比"},
            {"type": "text", "text": "风速"},
            "正常",
            {"type": "image_url", "image_url": {"url": "x"}},
        ]
    )
    assert reasoning_text(message) == "先查再比"
    assert content_text(message) == "风速正常"
