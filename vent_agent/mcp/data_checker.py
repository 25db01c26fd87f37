"""The data-checker reviewer's body: fetch the plan's (mine, month) over MCP, stream the tool calls as
``agent_executing`` / ``agent_tool_result`` events, then run the deterministic data rules.

``review_plan`` (pipeline) calls :func:`run_data_checker` for the ``data-checker`` reviewer; the
:class:`DataCheck` it returns carries the findings and the :class:`~vent_agent.mcp.client.ReferenceOutcome`
(status, source, every MCP call with its inputs and outputs) for the report's provenance.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from vent_agent.documents.plan.model import Plan
from vent_agent.events import AgentExecuting, AgentTodos, AgentToolResult, Todo, TodoStatus
from vent_agent.events import Send as Emit
from vent_agent.mcp.client import (
    EmbeddedTransport,
    ReferenceOutcome,
    ReferenceStatus,
    ToolCallRecord,
    load_reference,
)
from vent_agent.mcp.schemas import TOOL_LABELS, TOOL_NAMES
from vent_agent.review.checks.data_rules import review_data
from vent_agent.review.findings import Finding
from vent_agent.review.reference import ReferenceData
from vent_agent.settings import Settings

AGENT = "data-checker"
CN = "数据一致性审查"


@dataclass
class DataCheck:
    """The data-checker's result: its ``findings`` and the reference ``outcome`` they rest on."""

    findings: list[Finding]
    outcome: ReferenceOutcome


def _todos(fetch: TodoStatus, compare: TodoStatus) -> AgentTodos:
    """The data-checker's task list: fetching the reference data, comparing, checking the limits."""
    return AgentTodos(
        agent=AGENT,
        message=f"「{CN}」已更新任务进度",
        todos=[
            Todo(content="查询采掘计划、作业规程、瓦斯鉴定报告与测风报表", status=fetch),
            Todo(content="对比用风地点完整性与数据一致性", status=compare),
            Todo(content="核对实测风速、CH₄ 与温度限值", status="pending"),
        ],
    )


def _result_message(record: ToolCallRecord) -> str:
    label = TOOL_LABELS.get(record.tool, record.tool)
    if not record.ok:
        return f"「{CN}」{label} 失败：{record.error}"
    if record.output and record.output.get("available") is False:
        return f"「{CN}」{label} 完成：无数据（{record.output.get('reason') or '—'}）"
    return f"「{CN}」{label} 完成"


async def run_data_checker(
    plan: Plan,
    settings: Settings,
    emit: Emit,
    *,
    transport: EmbeddedTransport = "memory",
    timeout_s: float | None = None,
    reference: ReferenceData | None = None,
) -> DataCheck:
    """Fetch the reference data of ``plan.mine`` / ``plan.month`` (:func:`~vent_agent.mcp.client.load_reference`),
    emitting ``agent_todos``, one ``agent_executing`` naming the four MCP tools and one
    ``agent_tool_result`` per call (``tool`` = the MCP tool name), then ``review_data`` in a worker
    thread. ``reference`` replaces the embedded server's backend (still spoken to over MCP; ignored
    when ``settings.mcp_url`` is set). Never fails for want of reference data: an unavailable source
    is one info finding."""
    await emit(_todos("in_progress", "pending"))
    await emit(
        AgentExecuting(
            agent=AGENT,
            tools=list(TOOL_NAMES),
            message=f"「{CN}」正在查询采掘计划、作业规程、瓦斯鉴定报告与测风报表...",
        )
    )

    async def on_call(record: ToolCallRecord) -> None:
        await emit(AgentToolResult(agent=AGENT, tool=record.tool, message=_result_message(record)))

    outcome = await load_reference(
        settings,
        plan.mine,
        plan.month,
        transport=transport,
        timeout_s=timeout_s,
        on_call=on_call,
        reference=reference,
    )
    if outcome.status is ReferenceStatus.UNAVAILABLE and not outcome.calls:
        for tool in TOOL_NAMES:  # nothing was called: say so for each tool announced
            await emit(
                AgentToolResult(
                    agent=AGENT, tool=tool, message=f"「{CN}」{TOOL_LABELS[tool]} 未完成：参考数据不可用"
                )
            )
    await emit(_todos("completed", "in_progress"))
    findings = await asyncio.to_thread(review_data, plan, outcome.reference)
    return DataCheck(findings=findings, outcome=outcome)
