"""The click-interpretation run's body (spec: 点选解读), started by ``vent_agent.api.interpret``.

Fast mode: one data query, then one model call whose text is streamed; with no model configured (or
when the model call fails) the deterministic interpretation of the same facts. Plan mode (the spec's
default): the click-interpret agent (skill, data, knowledge base, item-by-item comparison, structured
report); with no model, or when the agent fails or stalls, the deterministic interpretation with a
notice. A fallback after partial model text replaces it: its first ``token`` has ``replace: true`` (the
rule-based text never follows a partial model token as if it continued it). No session or message rows
are written; the events go to the run log like any run's.

A device is interpreted by its real type: when the click's ``device_type`` is another (a fan clicked as
``ch4_sensor``), a ``progress`` with ``notice: "device_type_mismatch"`` says so (once), and the
interpretation states it first (the rules' text, the model's facts, the agent's request).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from vent_agent.chat.toolset import (
    click_tools,
    new_citations,
    record_fact_references,
    record_text_articles,
    references_event,
    skills_index,
)
from vent_agent.events import (
    ClickDone,
    ClickProgress,
    Error,
    Executing,
    Generating,
    Reasoning,
    Thinking,
    Token,
)
from vent_agent.graphs.stream import tool_label
from vent_agent.interpret.agent import AgentOutcome, ClickTarget, interpret_with_agent
from vent_agent.interpret.device_network import clicked_device_effects, type_label
from vent_agent.interpret.facts import InterpretationFacts
from vent_agent.interpret.prompt import build_messages
from vent_agent.interpret.render import chunk_text, render_interpretation
from vent_agent.llm.openai_compat import stream_text
from vent_agent.network.device_effect import effect_lines
from vent_agent.runs.emitter import Emitter
from vent_agent.runs.manager import RunBody
from vent_agent.skills import CLICK_INTERPRET
from vent_agent.state import AppState
from vent_agent.tools.context import AgentContext
from vent_agent.upstream.http_source import UpstreamError
from vent_agent.upstream.models import DEVICE_TYPE_LABELS, Device, NotFoundError

log = logging.getLogger(__name__)

PLAN_MODE_NOTICE = "未配置解读模型（VENT_LLM_*），计划模式按规则给出解读。"

FactsLoader = Callable[[], Awaitable[InterpretationFacts]]


def device_type_mismatch(claimed: str | None, device: Device) -> str | None:
    """The notice when a click's ``device_type`` (``claimed``) is not ``device``'s real type, which the
    interpretation then uses; None when they agree (or none was given)."""
    real = device.device_type
    if claimed is None or claimed == real:
        return None
    return (
        f"设备类型与实际不符：请求的类型为「{type_label(claimed)}」（{claimed}），"
        f"设备 {device.device_id}（{device.name}）的实际类型为「{DEVICE_TYPE_LABELS[real]}」（{real}），"
        "已按实际类型解读。"
    )


async def _checked_device(emitter: Emitter, state: AppState, target: ClickTarget) -> ClickTarget:
    """Plan mode with a model: the clicked device's real type read before the agent starts; when the
    click named another type, the notice is sent and the target carries the real type and the warning.
    A device the source does not know (or a failing source) is left to the agent's own data query."""
    try:
        data = await state.source.query_device_data_by_id(target.target_id)
    except (NotFoundError, UpstreamError):
        return target
    notice = device_type_mismatch(target.device_type, data.device)
    if notice is None:
        return target
    await emitter.send(ClickProgress(source="main", message=notice, notice="device_type_mismatch"))
    return dataclasses.replace(target, device_type=data.device.device_type, warning=notice)


async def _with_network(state: AppState, target: ClickTarget) -> ClickTarget:
    """Plan mode with a model: the clicked device's network section, handed to the agent to relay."""
    try:
        async with state.click_slots:  # CPU work (a what-if solve), as the facts are computed
            effects = await clicked_device_effects(state.source, target.target_id, state.settings)
    except UpstreamError:
        return target
    if effects is None:
        return target
    return dataclasses.replace(target, network_note="\n".join(effect_lines(effects)))


async def _plan_agent(emitter: Emitter, state: AppState, target: ClickTarget) -> AgentOutcome:
    """Plan mode with a model: the click-interpret agent."""
    citations = new_citations(state)
    context = AgentContext(
        source=state.source, settings=state.settings, run_id=emitter.run_id, citations=citations
    )

    async def finish(answer: str) -> None:
        await references_event(emitter.send, answer, citations, one_off=True)

    return await interpret_with_agent(
        emitter,
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


async def interpret_click(
    emitter: Emitter,
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
        if target.kind == "device":
            target = await _with_network(state, await _checked_device(emitter, state, target))
        outcome = await _plan_agent(emitter, state, target)
        if outcome.answered:
            return
        model, replace = None, outcome.partial  # the agent failed: the rules, not the same model again
    await emitter.send(Thinking(source="fast", node="fetching_data", message=f"正在查询{what}监测数据..."))
    await emitter.send(Executing(source="fast", tools=[tool], message=f"正在{tool_label(tool)}..."))
    try:
        async with state.click_slots:  # CPU work: a burst of clicks must not hold the event loop
            facts = await load_facts()
    except (NotFoundError, UpstreamError) as exc:
        await emitter.send(Error(message=str(exc)))
        await emitter.send(ClickDone(thread_id=emitter.run_id, message="解读失败"))
        return
    await emitter.send(ClickProgress(source="fast", message=f"查询{what}监测数据完成"))
    if target.kind == "device" and facts.device is not None:
        notice = target.warning or device_type_mismatch(target.device_type, facts.device)
        if notice is not None:
            if target.warning is None:  # not sent yet (it was, before an agent that failed)
                await emitter.send(
                    ClickProgress(source="fast", message=notice, notice="device_type_mismatch")
                )
            facts = facts.model_copy(update={"warnings": [*facts.warnings, notice]})
    if mode == "plan" and state.interpret_model is None:
        await emitter.send(ClickProgress(source="fast", message=PLAN_MODE_NOTICE, notice="no_model"))
    await emitter.send(Generating(source="fast", message="正在生成解读报告..."))
    citations = new_citations(state)
    record_fact_references(citations, facts.references)
    if model is not None:
        answer: list[str] = []
        try:
            async for kind, text in stream_text(model, build_messages(facts)):
                await emitter.send(
                    Token(source="fast", content=text)
                    if kind == "token"
                    else Reasoning(source="fast", content=text)
                )
                if kind == "token":
                    answer.append(text)
            async with state.click_slots:
                await references_event(emitter.send, "".join(answer), citations, one_off=True)
            return
        except Exception as exc:  # fall back to the rule-based text, never a bare failure
            log.warning("interpretation model call failed: %s", exc)
            replace = bool("".join(answer))
            what = "，已生成的部分由规则解读替换" if replace else "，改用规则解读"
            await emitter.send(
                ClickProgress(
                    source="fast",
                    message=f"模型调用失败（{type(exc).__name__}）{what}",
                    notice="rule_fallback",
                )
            )
    async with state.click_slots:
        text = render_interpretation(facts)
        for i, piece in enumerate(chunk_text(text, 64)):
            await emitter.send(
                Token(source="fast", content=piece, replace=True if replace and i == 0 else None)
            )
        record_text_articles(citations, text)
        await references_event(emitter.send, text, citations, check_figures=False, one_off=True)


def click_done_fields(run_id: str) -> dict[str, Any]:
    """The fields of a click run's ``done`` (:class:`~vent_agent.events.ClickDone`): no session, the run
    id as the thread."""
    return ClickDone(thread_id=run_id, message="解读完成").model_dump(
        include={"thread_id", "session_id", "message"}
    )


def click_body(
    state: AppState,
    *,
    mode: str,
    tool: str,
    what: str,
    load_facts: FactsLoader,
    target: ClickTarget,
) -> RunBody:
    """The body of a click run: :func:`interpret_click` bound to its request (``done`` by the run)."""

    async def body(emitter: Emitter) -> None:
        await interpret_click(
            emitter, state, mode=mode, tool=tool, what=what, load_facts=load_facts, target=target
        )

    return body
