"""Plan-mode approvals: the interrupts pending on a thread, the approval card, and the resume run.

A model response may ask for several approvals at once (two ``request_plan_approval`` calls, parallel
tool calls each needing approval): each is one LangGraph interrupt with its own id, all pending in the
same step. The ``interrupt`` event is one card for all of them (``interrupts``: the plans, in the order of
``interrupt_ids``). ``POST /api/chat/resume`` decides all of them at once, or one (``interrupt_id``) in
any order; the others stay pending and a new card names them. LangGraph 1.x resumes several interrupts
only with ``Command(resume={interrupt_id: value, …})`` (a bare value raises ``RuntimeError``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langgraph.types import Command
from langgraph.types import Interrupt as PendingInterrupt

from vent_agent.events import Error, Interrupt
from vent_agent.graphs.dialogue import APPROVAL_MESSAGE
from vent_agent.graphs.supervisor import REVIEW
from vent_agent.runs.emitter import Emitter
from vent_agent.sessions.threads import graph_config
from vent_agent.state import AppState

INTERRUPT = "__interrupt__"
"""The checkpoint channel of pending interrupts (langgraph keeps the constant private since 1.0)."""

REJECT_MESSAGES = {"reject": "用户拒绝了工具执行", "cancel": "用户取消了执行计划"}


async def pending_interrupts(state: AppState, session_id: str, thread_id: str) -> list[PendingInterrupt]:
    """Every interrupt pending on the thread (plan approvals), oldest write first, each once: read from
    the latest checkpoint's pending writes, so it needs no graph and works on any worker after a restart."""
    snap = await state.checkpointer.aget_tuple(graph_config(session_id, thread_id))
    if snap is None:
        return []
    found: dict[str, PendingInterrupt] = {}
    for _task, channel, value in snap.pending_writes or ():
        if channel != INTERRUPT:
            continue
        for item in value if isinstance(value, list | tuple) else [value]:
            if isinstance(item, PendingInterrupt):
                found.setdefault(item.id, item)
    return list(found.values())


def interrupt_card(pending: Sequence[PendingInterrupt], session_id: str, thread_id: str) -> Interrupt:
    """The one ``interrupt`` event for every approval pending: the plans in ``interrupts``, their ids in
    ``interrupt_ids`` (same order), the first plan in ``plan``."""
    values = [p.value for p in pending]
    plans = [v.get("plan", v) if isinstance(v, dict) else v for v in values]
    first = next((v.get("plan") for v in values if isinstance(v, dict) and v.get("plan")), None)
    return Interrupt(
        node="tools",
        message=APPROVAL_MESSAGE
        if len(plans) < 2
        else f"智能体提交了 {len(plans)} 项执行计划，等待您的审批...",
        interrupts=plans,
        interrupt_ids=[p.id for p in pending],
        plan=first,
        session_id=session_id,
        thread_id=thread_id,
    )


def is_review(pending: Sequence[PendingInterrupt]) -> bool:
    """True when every pending interrupt is an approved-review request (which needs no model)."""
    return bool(pending) and all(isinstance(p.value, dict) and p.value.get("kind") == REVIEW for p in pending)


def resume_command(ids: Sequence[str], action: str, user_name: str) -> Command[Any]:
    """The ``Command`` deciding the interrupts ``ids`` (``approve``; ``reject`` and ``cancel`` reject)."""
    decision = {"action": "approve" if action == "approve" else "reject", "user_name": user_name}
    return Command(resume={interrupt_id: decision for interrupt_id in ids})


async def announce_rest(
    emitter: Emitter, state: AppState, session_id: str, thread_id: str, action: str
) -> bool:
    """After a rejection: when approvals are still pending (only one of several was decided), send their
    card and return True (the run then ends without ``done``); else send the rejection's ``error``."""
    rest = await pending_interrupts(state, session_id, thread_id)
    if rest:
        await emitter.send(interrupt_card(rest, session_id, thread_id))
        return True
    await emitter.send(Error(message=REJECT_MESSAGES.get(action, REJECT_MESSAGES["reject"])))
    return False
