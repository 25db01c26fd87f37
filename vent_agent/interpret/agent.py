"""Click interpretation in plan mode (the spec's default): an agent that loads its skill, queries the
tunnel's or device's data, looks up the regulation in the knowledge base, compares item by item and
writes a structured report, streamed as ``thinking``/``executing``/``tool_call``/``tool_result``/
``token`` events with ``source: "main"``. No checkpointer and no session rows (spec: 点选解读不写数据库).

It uses the click-interpret model (``VENT_LLM_*``), which model switching does not affect. With no
model, or when the agent fails or stalls (the model's read time-out), the deterministic interpretation of
the same facts is streamed with a notice, so a click never ends in a bare failure; when the agent had
already streamed part of an answer, the rule-based text replaces it (its first ``token`` carries
``replace: true``, see :data:`REPLACE`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import (
    AgentMiddleware,
    ModelCallLimitMiddleware,
    ToolCallLimitMiddleware,
    ToolErrorMiddleware,
)
from langchain_core.messages import HumanMessage
from langchain_core.tools import BaseTool

from vent_agent.events import ClickProgress
from vent_agent.graphs.stream import StreamMapper
from vent_agent.llm.chunks import model_name
from vent_agent.runs.emitter import Emitter
from vent_agent.tools.context import AgentContext

log = logging.getLogger(__name__)

AGENT_NAME = "点选解读 Agent"
REPLACE = "replace"
"""Field of the first ``token`` event of a text that replaces every answer token sent before it in the
stream (the client discards the text it has concatenated so far, then appends this content)."""


@dataclass(frozen=True)
class AgentOutcome:
    """How the agent ended: ``answered`` (it finished; the caller is done) and ``partial`` (it failed
    after streaming answer text, which the fallback must replace)."""

    answered: bool
    partial: bool = False


@dataclass(frozen=True)
class ClickTarget:
    """What was clicked: ``kind`` tunnel|device, its id and name (device type for devices), the skill
    that describes the work and the data tool that reads it."""

    kind: str
    target_id: str
    name: str
    skill: str
    data_tool: str
    device_type: str | None = None
    warning: str | None = None
    """What the report must say first about the request (the click's device type was not the device's:
    ``device_type`` is then the real one)."""
    network_note: str | None = None
    """What changing the clicked fan, door or regulator would do (the network solve's lines), for the
    report to relay."""

    def request_text(self) -> str:
        if self.kind == "tunnel":
            return f"请解读巷道「{self.name}」（tun_id={self.target_id}）的实时监测数据。"
        text = f"请解读设备「{self.name}」（device_id={self.target_id}，类型 {self.device_type}）的实时数据与报警。"
        if self.warning:
            text += f"\n注意：{self.warning}请在报告开头照写这条提醒。"
        if self.network_note:
            text += (
                "\n通风网络模拟（规则计算，非实测）给出调整该设备的影响如下，请在报告中单列“调整影响”一节照写，"
                f"并说明仅为模拟、须经审批：\n{self.network_note}"
            )
        return text


def system_prompt(target: ClickTarget, edition: str, skills_index: str) -> str:
    """The click agent's instructions: the fixed order of work and the report's structure."""
    return (
        "你是矿井通风点选解读智能体，为通风工程师解读所点选巷道或设备的实时数据。按以下顺序工作：\n"
        f"1. 调用 load_skill 读取技能「{target.skill}」，按其要求工作；\n"
        f"2. 调用 {target.data_tool} 查询数据（只使用工具返回的数据，不编造）；\n"
        "3. 用 query_knowledge_base 检索相关条款（允许风速、有害气体浓度、温度等），"
        f"以现行 {edition} 版《煤矿安全规程》为准；\n"
        "4. 逐项比对：每个读数写明实测值、限值、比较方向（达到即 ≥）、结论与条款引用标记；\n"
        "5. 输出结构化报告：标题、数据时间（过旧须提醒）、逐项比对表、异常与处置建议、依据条款。\n"
        "用简体中文，单位写全（m/s、m³/min、%、ppm、°C）。"
        + (f"\n\n可用技能：\n{skills_index}" if skills_index else "")
    )


async def interpret_with_agent(
    emitter: Emitter,
    *,
    model: Any,
    tools: list[BaseTool],
    target: ClickTarget,
    context: AgentContext,
    edition: str,
    skills_index: str,
    max_model_calls: int,
    max_tool_calls: int,
    finish: Callable[[str], Awaitable[None]] | None = None,
) -> AgentOutcome:
    """Run the agent and stream its events. When it fails (the model endpoint failed, stalled past its
    read time-out, or cut its stream) the outcome is not ``answered`` and says whether answer text was
    already streamed; the caller then streams the deterministic interpretation in its place.
    ``finish(answer)`` runs after a success (citation check, references event)."""
    # each middleware has its own state schema; create_agent merges them (Any: no common one to name)
    middleware: list[AgentMiddleware[Any, AgentContext]] = [
        ModelCallLimitMiddleware(run_limit=max_model_calls, exit_behavior="end"),
        ToolCallLimitMiddleware(run_limit=max_tool_calls, exit_behavior="continue"),
        ToolErrorMiddleware(
            on_error=lambda exc, req: f"工具执行失败（{type(exc).__name__}）：{str(exc)[:300]}"
        ),
    ]
    agent = create_agent(
        model,
        tools,
        system_prompt=system_prompt(target, edition, skills_index),
        middleware=middleware,
        context_schema=AgentContext,
        name=AGENT_NAME,
    )
    mapper = StreamMapper(emitter.send, source="main", model_name=model_name(model))
    try:
        async for ns, stream_mode, data in agent.astream(
            {"messages": [HumanMessage(content=target.request_text())]},
            {"recursion_limit": 60},
            context=context,
            stream_mode=["messages", "updates", "tasks"],
            subgraphs=True,
        ):
            await mapper.feed((ns, stream_mode, data))
    except Exception as exc:  # the model endpoint failed or hung: fall back, never a bare failure
        log.warning("click agent failed: %s", exc)
        partial = bool("".join(mapper.text))
        what = "中断，已生成的部分将由规则解读替换" if partial else "调用失败，改用规则解读"
        await emitter.send(
            ClickProgress(
                source="main", message=f"智能体{what}（{type(exc).__name__}）", notice="rule_fallback"
            )
        )
        return AgentOutcome(answered=False, partial=partial)
    if finish is not None:
        await finish("".join(mapper.text))
    return AgentOutcome(answered=True)
