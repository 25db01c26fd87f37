"""``/metrics`` counts the calls made outside the agents' graphs: the calc-verifier's recomputations,
the data-checker's MCP tool calls, the fast interpretation's model call and the follow-up suggestions'
model call."""

from __future__ import annotations

from pathlib import Path

from prometheus_client import REGISTRY

from tests.scripted_model import ScriptedChatModel, says
from vent_agent.chat.suggest import suggest_followups
from vent_agent.documents.plan.model import Plan
from vent_agent.llm.chunks import model_name
from vent_agent.llm.openai_compat import stream_text
from vent_agent.mcp.client import load_reference
from vent_agent.mcp.schemas import TOOL_NAMES
from vent_agent.review.checks.calc_rules import MAX_TOOL, review_calc
from vent_agent.settings import Settings


def tool_calls(tool: str, outcome: str = "ok") -> float:
    return (
        REGISTRY.get_sample_value("vent_tool_latency_seconds_count", {"tool": tool, "outcome": outcome}) or 0
    )


def model_calls(model: str, outcome: str = "ok") -> float:
    return (
        REGISTRY.get_sample_value("vent_model_latency_seconds_count", {"model": model, "outcome": outcome})
        or 0
    )


async def test_calc_verifier_recomputations_are_counted(plan_a: Plan) -> None:
    tools = set(MAX_TOOL.values()) | {"calc_other_by_wind_speed"}
    before = {t: tool_calls(t) + tool_calls(t, "error") for t in tools}
    _findings, recalcs = await review_calc(plan_a)
    counted = sum(tool_calls(t) + tool_calls(t, "error") - before[t] for t in tools)
    assert counted == len(plan_a.locations) and recalcs


async def test_mcp_reference_calls_are_counted(tmp_path: Path) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path / "data")
    before = {t: tool_calls(t) for t in TOOL_NAMES}
    outcome = await load_reference(settings, "示范煤矿", "2026-08")
    assert all(c.ok for c in outcome.calls)
    assert all(tool_calls(t) == before[t] + 1 for t in TOOL_NAMES)


async def test_fast_mode_and_suggestion_model_calls_are_counted() -> None:
    model = ScriptedChatModel(script=[], fallback=says("巷道风速正常。\n下一步检查什么？"))
    name = model_name(model)
    before = model_calls(name)
    first_before = REGISTRY.get_sample_value("vent_model_first_token_seconds_count", {"model": name}) or 0
    pieces = [text async for _kind, text in stream_text(model, [{"role": "user", "content": "解读"}])]
    assert "".join(pieces) == "巷道风速正常。\n下一步检查什么？"
    assert model_calls(name) == before + 1
    assert (
        REGISTRY.get_sample_value("vent_model_first_token_seconds_count", {"model": name}) == first_before + 1
    )
    assert await suggest_followups(model, "风速？", "正常。") == ["巷道风速正常。", "下一步检查什么？"]
    assert model_calls(name) == before + 2
