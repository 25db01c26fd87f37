"""Click interpretation: ``POST /api/interpret/click/tun`` and ``/device`` (spec: 点选解读).

Fast mode: one data query, then one model call whose text is streamed; with no model configured (or
when the model call fails) the deterministic interpretation of the same facts. Plan mode (the spec's
default): the click-interpret agent (skill, data, knowledge base, item-by-item comparison, structured
report); with no model, or when the agent fails or stalls, the deterministic interpretation with a
notice. A fallback after partial model text replaces it: its first ``token`` has ``replace: true`` (the
rule-based text never follows a partial model token as if it continued it). No session or message rows
are written; the events go to the run log like any run's.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field
from sse_starlette import EventSourceResponse

from vent_agent.api.deps import StateDep
from vent_agent.api.sse import run_stream
from vent_agent.chat.toolset import (
    click_tools,
    new_citations,
    record_fact_references,
    references_event,
    skills_index,
)
from vent_agent.graphs.stream import tool_label
from vent_agent.interpret.agent import REPLACE, AgentOutcome, ClickTarget, interpret_with_agent
from vent_agent.interpret.facts import gather_device_facts, gather_tunnel_facts
from vent_agent.interpret.prompt import build_messages
from vent_agent.interpret.render import chunk_text, render_interpretation
from vent_agent.llm.openai_compat import stream_text
from vent_agent.runs.emitter import Emitter
from vent_agent.skills import CLICK_INTERPRET
from vent_agent.state import AppState
from vent_agent.tools.context import AgentContext
from vent_agent.upstream.http_source import UpstreamError
from vent_agent.upstream.models import NotFoundError

log = logging.getLogger(__name__)
router = APIRouter(prefix="/api/interpret/click", tags=["interpret"])

PLAN_MODE_NOTICE = "未配置解读模型（VENT_LLM_*），计划模式按规则给出解读。"


class _ClickBase(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True, coerce_numbers_to_str=True)
    mode: Literal["plan", "fast"] = Field(default="plan", description="plan（默认）或 fast")


class TunnelClick(_ClickBase):
    """Request body of ``/api/interpret/click/tun``."""

    tun_id: str = Field(min_length=1, max_length=128)
    tun_name: str = Field(min_length=1, max_length=200)


class DeviceClick(_ClickBase):
    """Request body of ``/api/interpret/click/device``."""

    device_id: str = Field(min_length=1, max_length=128)
    device_name: str = Field(min_length=1, max_length=200)
    device_type: str = Field(min_length=1, max_length=64)


FactsLoader = Callable[[], Awaitable[object]]


async def _plan_agent(em: Emitter, state: AppState, target: ClickTarget) -> AgentOutcome:
    """Plan mode with a model: the click-interpret agent."""
    citations = new_citations(state)
    context = AgentContext(
        source=state.source, settings=state.settings, run_id=em.run_id, citations=citations
    )

    async def finish(answer: str) -> None:
        await references_event(em.emit, answer, citations)

    return await interpret_with_agent(
        em,
        model=state.interpret_model,
        tools=click_tools(state),
        target=target,
        context=context,
        edition=state.settings.regulation_edition,
        skills_index=await skills_index(state, CLICK_INTERPRET.agent_id),
        max_model_calls=state.settings.max_model_calls,
        max_tool_calls=state.settings.max_tool_calls,
        finish=finish,
    )


async def _interpret(
    em: Emitter,
    state: AppState,
    *,
    mode: str,
    tool: str,
    what: str,
    load_facts: FactsLoader,
    target: ClickTarget,
) -> None:
    """Plan mode with a model: the agent (falling back to the rules if it fails). Otherwise the fast
    sequence: thinking → executing → generating → token… (→ done by the run)."""
    model = state.interpret_model
    replace = False  # partial model text was streamed: the rule-based text replaces it
    if mode == "plan" and model is not None:
        outcome = await _plan_agent(em, state, target)
        if outcome.answered:
            return
        model, replace = None, outcome.partial  # the agent failed: the rules, not the same model again
    await em.emit("thinking", source="fast", node="fetching_data", message=f"正在查询{what}监测数据...")
    await em.emit("executing", source="fast", tools=[tool], message=f"正在{tool_label(tool)}...")
    try:
        facts = await load_facts()
    except (NotFoundError, UpstreamError) as exc:
        await em.emit("error", message=str(exc))
        await em.emit("done", **{**_click_done(em.run_id), "message": "解读失败"})
        return
    await em.emit("progress", source="fast", message=f"查询{what}监测数据完成")
    if mode == "plan" and state.interpret_model is None:
        await em.emit("progress", source="fast", message=PLAN_MODE_NOTICE, notice=True)
    await em.emit("generating", source="fast", message="正在生成解读报告...")
    citations = new_citations(state)
    record_fact_references(citations, facts.references)
    if model is not None:
        answer: list[str] = []
        try:
            async for kind, text in stream_text(model, build_messages(facts)):
                await em.emit(kind, source="fast", content=text)
                if kind == "token":
                    answer.append(text)
            await references_event(em.emit, "".join(answer), citations)
            return
        except Exception as exc:  # fall back to the rule-based text, never a bare failure
            log.warning("interpretation model call failed: %s", exc)
            replace = bool("".join(answer))
            what = "，已生成的部分由规则解读替换" if replace else "，改用规则解读"
            await em.emit(
                "progress",
                source="fast",
                message=f"模型调用失败（{type(exc).__name__}）{what}",
                **({"notice": True} if replace else {}),
            )
    text = render_interpretation(facts)
    for i, piece in enumerate(chunk_text(text, 64)):
        await em.emit(
            "token", source="fast", content=piece, **({REPLACE: True} if replace and i == 0 else {})
        )
    await references_event(em.emit, text, citations, check_figures=False)


def _click_done(run_id: str) -> dict:
    return {"thread_id": run_id, "session_id": None, "message": "解读完成"}


async def _stream(
    state: AppState,
    kind: str,
    *,
    mode: str,
    tool: str,
    what: str,
    load_facts: FactsLoader,
    target: ClickTarget,
) -> EventSourceResponse:
    """Start the click-interpretation run and tail it."""

    async def body(em: Emitter) -> None:
        await _interpret(em, state, mode=mode, tool=tool, what=what, load_facts=load_facts, target=target)

    run_id = await state.runs.start(kind, body, done_fields=_click_done)
    return run_stream(state.runs, run_id, ping_s=state.settings.sse_ping_s)


@router.post("/tun")
async def click_tunnel(req: TunnelClick, state: StateDep) -> EventSourceResponse:
    """Stream the interpretation of one tunnel's live data (spec: 点选巷道解读)."""
    return await _stream(
        state,
        "click_tun",
        mode=req.mode,
        tool="query_tun_data_by_id",
        what="巷道",
        load_facts=lambda: gather_tunnel_facts(state.source, req.tun_id, state.settings),
        target=ClickTarget("tunnel", req.tun_id, req.tun_name, "click-interpret-tun", "query_tun_data_by_id"),
    )


@router.post("/device")
async def click_device(req: DeviceClick, state: StateDep) -> EventSourceResponse:
    """Stream the interpretation of one device's live data (spec: 点选设备解读)."""
    return await _stream(
        state,
        "click_device",
        mode=req.mode,
        tool="query_device_data_by_id",
        what="设备",
        load_facts=lambda: gather_device_facts(state.source, req.device_id, state.settings),
        target=ClickTarget(
            "device",
            req.device_id,
            req.device_name,
            "click-interpret-device",
            "query_device_data_by_id",
            device_type=req.device_type,
        ),
    )
