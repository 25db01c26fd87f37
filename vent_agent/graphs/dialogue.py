"""The dialogue agent (通风对话助手): ``create_agent`` with the data, knowledge-base, calculator,
preference, skill and system tools, LangChain's todo list, call limits, tool-error middleware and one
retry of a tool call cut by the output limit (:mod:`vent_agent.graphs.cut_retry`), and in plan mode the ``request_plan_approval`` tool, which interrupts the graph until the user decides
(``POST /api/chat/resume``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import (
    AgentMiddleware,
    ModelCallLimitMiddleware,
    TodoListMiddleware,
    ToolCallLimitMiddleware,
    ToolErrorMiddleware,
    hook_config,
)
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, tool
from langgraph.types import Checkpointer, interrupt
from pydantic import BaseModel, Field

from vent_agent.graphs.cut_retry import CutToolCallRetry
from vent_agent.graphs.stream import tool_label

AGENT_NAME = "通风对话助手"
APPROVAL_TOOL = "request_plan_approval"
APPROVAL_MESSAGE = "智能体已制定执行计划，等待您的审批..."
REJECTED = "用户拒绝了执行计划，未执行任何操作。"


class PlanApprovalArgs(BaseModel):
    plan: str = Field(description="执行计划：将调用哪些工具、做什么、为什么（中文，分条）", max_length=4000)


@tool(APPROVAL_TOOL, args_schema=PlanApprovalArgs)
def request_plan_approval(plan: str) -> str:
    """提交执行计划给用户审批。计划模式下，在执行任何查询或计算之前必须调用；调用后暂停，等待用户批准或拒绝。"""
    decision = interrupt({"plan": plan, "message": APPROVAL_MESSAGE})
    action = decision.get("action") if isinstance(decision, dict) else decision
    who = decision.get("user_name", "") if isinstance(decision, dict) else ""
    if action == "approve":
        return f"用户{who}已批准执行计划，请按计划执行。"
    return REJECTED


class PlanRejectionMiddleware(AgentMiddleware):
    """Ends the agent, without another model call, right after the user rejected the plan: the
    approval tool's answer closes the pending call and the thread stays usable for the next message.
    With several approvals in one step, only when every one of them was rejected (one approved: the
    model goes on with what was approved)."""

    @hook_config(can_jump_to=["end"])
    def before_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        answers: list[ToolMessage] = []
        for message in reversed(state.get("messages") or []):
            if not isinstance(message, ToolMessage):
                break
            if message.name == APPROVAL_TOOL:
                answers.append(message)
        if answers and all(m.content == REJECTED for m in answers):
            return {"jump_to": "end"}
        return None


def _tool_error(exc: Exception, request: Any) -> str:
    name = request.tool_call.get("name", "") if hasattr(request, "tool_call") else ""
    return f"工具 {name} 执行失败（{type(exc).__name__}）：{str(exc)[:300]}。请换一种方式或告知用户。"


def build_dialogue_agent(
    model: BaseChatModel,
    tools: Sequence[BaseTool],
    *,
    prompt: str,
    mode: str,
    max_model_calls: int,
    max_tool_calls: int,
    checkpointer: Checkpointer | None = None,
    context_schema: type[Any] | None = None,
) -> Any:
    """The compiled agent graph. In ``plan`` mode ``request_plan_approval`` is added to ``tools``.

    Budgets: at most ``max_model_calls`` model calls and ``max_tool_calls`` tool calls per run; when one
    is hit the agent ends with what it has (ModelCallLimitMiddleware / ToolCallLimitMiddleware,
    ``exit_behavior="end"``/"continue") and the run says so."""
    all_tools = list(tools) + ([request_plan_approval] if mode == "plan" else [])
    # each middleware has its own state schema; create_agent merges them (Any: no common one to name)
    middleware: list[AgentMiddleware[Any, Any]] = [
        TodoListMiddleware(),
        ModelCallLimitMiddleware(run_limit=max_model_calls, exit_behavior="end"),
        ToolCallLimitMiddleware(run_limit=max_tool_calls, exit_behavior="continue"),
        ToolErrorMiddleware(on_error=_tool_error),
        CutToolCallRetry(tool_label),
    ]
    if mode == "plan":
        middleware.append(PlanRejectionMiddleware())
    return create_agent(
        model,
        all_tools,
        system_prompt=prompt,
        middleware=middleware,
        checkpointer=checkpointer,
        context_schema=context_schema,
        name=AGENT_NAME,
    )
