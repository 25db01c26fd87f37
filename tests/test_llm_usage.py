"""Usage helpers: token estimates, summed usage, the session context breakdown (spec §上下文用量查询)."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage

from vent_agent.llm.usage import context_breakdown, estimate_tokens, total_usage


def test_estimate_tokens_counts_cjk_per_character() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("风量") == 2
    assert estimate_tokens("abcdefgh") == 2
    assert estimate_tokens("风量 Q=1200") == 2 + 2


def test_total_usage_sums_ai_messages_only() -> None:
    usage = {"input_tokens": 100, "output_tokens": 20, "total_tokens": 120}
    msgs = [
        HumanMessage("hi"),
        AIMessage(content="a", usage_metadata=usage),
        AIMessageChunk(
            content="b", usage_metadata={"input_tokens": 1, "output_tokens": 2, "total_tokens": 3}
        ),
        AIMessage(content="no usage"),
    ]
    total = total_usage(msgs)
    assert total is not None and (total["input_tokens"], total["output_tokens"], total["total_tokens"]) == (
        101,
        22,
        123,
    )
    assert total_usage([HumanMessage("x")]) is None


def test_breakdown_scales_estimates_to_the_measured_prompt() -> None:
    usage = {"input_tokens": 1000, "output_tokens": 50, "total_tokens": 1050}
    parts = {"messages": 600, "mcp": 300, "skills": 100, "system_prompt": 200}  # estimates: 1200
    ctx = context_breakdown(usage, 131072, parts)
    assert ctx.breakdown == {"messages": 500 + 50, "mcp": 250, "skills": 83, "system_prompt": 167, "other": 0}
    assert ctx.current_usage == 1050 == sum(ctx.breakdown.values())
    assert ctx.usage_pct == round(100 * 1050 / 131072, 1)
    assert ctx.as_dict()["total_limit"] == 131072


def test_unmeasured_remainder_is_other() -> None:
    usage = {"input_tokens": 5000, "output_tokens": 0, "total_tokens": 5000}
    ctx = context_breakdown(usage, 10000, {"system_prompt": "系统提示" * 100, "messages": 400})
    assert ctx.breakdown["system_prompt"] == 400 and ctx.breakdown["messages"] == 400
    assert ctx.breakdown["mcp"] == 0 and ctx.breakdown["other"] == 4200
    assert ctx.usage_pct == 50.0


def test_without_usage_the_estimates_are_used() -> None:
    ctx = context_breakdown(None, 1000, {"messages": 30, "skills": "ab" * 10})
    assert ctx.breakdown == {"messages": 30, "mcp": 0, "skills": 5, "system_prompt": 0, "other": 0}
    assert ctx.current_usage == 35


def test_bad_window_is_refused() -> None:
    with pytest.raises(ValueError):
        context_breakdown(None, 0, {})
