"""The supervisor behind ``POST /api/chat``: a small LangGraph graph that routes a turn to the dialogue
agent (通风对话助手) or, for a PDF attachment with a review intent, to the plan-review pipeline
(form-reviewer, data-checker, calc-verifier). Routing is deterministic (:func:`wants_review`): a review
costs no model call and works with no model configured. In plan mode the review waits for the user's
approval first (the same interrupt as the dialogue agent's ``request_plan_approval``; resumed by
``POST /api/chat/resume``); a rejection ends the turn without reviewing."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Hashable
from typing import Annotated, Any, TypedDict

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.types import Checkpointer, interrupt

from vent_agent.graphs.dialogue import APPROVAL_MESSAGE, REJECTED

DIALOGUE = "dialogue"
REVIEW = "review"

_REVIEW_WORDS = re.compile(r"审查|审核|核查|检查|复核|校核|把关|看看|review|audit|check", re.IGNORECASE)
_QUESTION_ELSEWHERE = re.compile(r"风速|风量|瓦斯|CH4|CH₄|CO|温度|主通风机|需风量|计算|多少", re.IGNORECASE)


def wants_review(message: str, attachment: dict[str, Any] | None) -> bool:
    """True when the turn carries a PDF and asks for a review: a review word, or no other question (an
    empty or generic message with a plan attached means "review this")."""
    if not attachment or attachment.get("kind") != "pdf":
        return False
    text = message or ""
    if _REVIEW_WORDS.search(text):
        return True
    return not _QUESTION_ELSEWHERE.search(text)


class SupervisorState(TypedDict, total=False):
    """The conversation (shared with the dialogue agent) and this turn's attachment and route."""

    messages: Annotated[list[AnyMessage], add_messages]
    attachment: dict[str, Any] | None
    route: str


def review_plan_text(attachment: dict[str, Any]) -> str:
    """The execution plan put to the user before a review in plan mode."""
    name = attachment.get("file_name") or "上传的配风计划"
    return (
        f"1. 读取《{name}》的文字层（无文字层的页面进行 OCR 识别）并解析配风计划；\n"
        "2. 由基本形式审查、数据一致性审查、计算核验三个审查智能体并行审查；\n"
        "3. 汇总审查结果，生成 Word 审查报告。"
    )


def approve_review(attachment: dict[str, Any]) -> bool:
    """Interrupt until the user decides on the review plan; True when approved. Inside a graph node."""
    decision = interrupt({"plan": review_plan_text(attachment), "message": APPROVAL_MESSAGE, "kind": REVIEW})
    action = decision.get("action") if isinstance(decision, dict) else decision
    return action == "approve"


ReviewNode = Callable[[dict[str, Any]], Awaitable[str]]
"""Runs the review of an attachment and returns the summary text the conversation keeps."""


def build_supervisor(
    dialogue_agent: Any | None,
    review: ReviewNode,
    *,
    checkpointer: Checkpointer | None = None,
    context_schema: type[Any] | None = None,
    plan_mode: bool = False,
) -> Any:
    """Compile the supervisor: ``route`` → ``dialogue`` (the compiled agent, as a subgraph) or
    ``review``. ``dialogue_agent`` None (no model) routes dialogue turns to a node that says so.
    ``plan_mode``: the review asks for approval first (:func:`approve_review`)."""

    def route(state: SupervisorState) -> dict[str, Any]:
        if state.get("route") in (DIALOGUE, REVIEW):  # decided by the caller on the user's own words
            return {}
        last = next((m for m in reversed(state.get("messages", [])) if isinstance(m, HumanMessage)), None)
        text = str(last.content) if last else ""
        return {"route": REVIEW if wants_review(text, state.get("attachment")) else DIALOGUE}

    async def review_node(state: SupervisorState) -> dict[str, Any]:
        attachment = state.get("attachment") or {}
        if plan_mode and not approve_review(attachment):
            return {"messages": [AIMessage(content=REJECTED, name="配风计划审查")], "attachment": None}
        summary = await review(attachment)
        return {"messages": [AIMessage(content=summary, name="配风计划审查")], "attachment": None}

    graph = StateGraph(SupervisorState, context_schema=context_schema)
    graph.add_node("route", route)
    graph.add_node(REVIEW, review_node)
    if dialogue_agent is not None:
        graph.add_node(DIALOGUE, dialogue_agent)
        graph.add_edge(DIALOGUE, END)
        targets: dict[Hashable, str] = {DIALOGUE: DIALOGUE, REVIEW: REVIEW}
    else:
        targets = {DIALOGUE: END, REVIEW: REVIEW}
    graph.add_edge(START, "route")
    graph.add_conditional_edges("route", lambda s: s["route"], targets)
    graph.add_edge(REVIEW, END)
    return graph.compile(checkpointer=checkpointer, name="supervisor")
