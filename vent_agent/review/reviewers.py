"""The three reviewers of a plan, run in parallel: form-reviewer, data-checker and calc-verifier.

Each reviewer is a body ``(plan, emit) -> (findings, recalculations)``; :func:`run_reviewers` wraps
them in the ``agent_*`` events, keeps one failing reviewer from stopping the others, adds each reviewer's
optional model remarks, hands the data-checker's reference month to the calc-verifier, and returns all
of it with the data-checker's reference look-up (:class:`ReviewersResult`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel

from vent_agent.documents.plan.model import Plan
from vent_agent.events import (
    AgentError,
    AgentExecuting,
    AgentStart,
    AgentThinking,
    AgentTodos,
    AgentToolResult,
    ReviewerDone,
    Todo,
)
from vent_agent.events import Send as Emit
from vent_agent.mcp.client import ReferenceOutcome
from vent_agent.mcp.data_checker import run_data_checker
from vent_agent.review.checks.calc_rules import review_calc
from vent_agent.review.checks.data_rules import reference_for
from vent_agent.review.checks.form_rules import review_form
from vent_agent.review.findings import GENERAL_LOCATION, Finding
from vent_agent.review.outputs.remarks import review_remarks
from vent_agent.review.reference import MonthlyReference, ReferenceData
from vent_agent.review.result import REVIEWERS, LocationRecalc, ReviewerOutcome
from vent_agent.settings import Settings

log = logging.getLogger(__name__)


ReviewerBody = Callable[[Plan, Emit], Awaitable[tuple[list[Finding], list[LocationRecalc]]]]
Gate = Callable[[list[Finding], "ReferenceOutcome | None"], list[Finding]]
"""What a reviewer's findings go through before they are shown or kept (the review's "judge only what
was read": :mod:`vent_agent.review.judgement.read_scope`), given the data-checker's reference look-up."""


async def _form(plan: Plan, emit: Emit) -> tuple[list[Finding], list[LocationRecalc]]:
    await emit(
        AgentTodos(
            agent="form-reviewer",
            message="「基本形式审查」已更新任务进度",
            todos=[
                Todo(content="版本与编制日期", status="in_progress"),
                Todo(content="审批签字与日期顺序", status="pending"),
                Todo(content="各地点计算过程完整性", status="pending"),
            ],
        )
    )
    return await asyncio.to_thread(review_form, plan), []


LookUp = asyncio.Future[ReferenceOutcome | None]
"""The data-checker's reference look-up, awaited by the calc-verifier (None when the data-checker
failed)."""


def _data_body(settings: Settings, reference: ReferenceData | None, looked_up: LookUp) -> ReviewerBody:
    """The data-checker: reference data over MCP (:func:`vent_agent.mcp.data_checker.run_data_checker`);
    its outcome (source, status, every call) is the result of ``looked_up``, for the calc-verifier and
    the report's provenance (None when the data-checker failed)."""

    async def body(plan: Plan, emit: Emit) -> tuple[list[Finding], list[LocationRecalc]]:
        try:
            check = await run_data_checker(plan, settings, emit, reference=reference)
            looked_up.set_result(check.outcome)
            return check.findings, []
        finally:
            if not looked_up.done():
                looked_up.set_result(None)

    return body


def _calc_body(looked_up: LookUp) -> ReviewerBody:
    """The calc-verifier, after the data-checker's reference look-up: inputs the plan's month of the
    reference data contradicts are recomputed with the reference figure (docs/DOMAIN.md §5)."""

    async def body(plan: Plan, emit: Emit) -> tuple[list[Finding], list[LocationRecalc]]:
        outcome = await looked_up
        month = reference_for(plan, outcome.reference)[0] if outcome is not None else None
        return await _calc(plan, emit, month)

    return body


async def _calc(
    plan: Plan, emit: Emit, reference: MonthlyReference | None = None
) -> tuple[list[Finding], list[LocationRecalc]]:
    async def on_location(location: str, tool: str, done: bool) -> None:
        if done:
            await emit(
                AgentToolResult(
                    agent="calc-verifier", tool=tool, message=f"「计算核验审查」{location} 需风量核算 完成"
                )
            )
        else:
            await emit(
                AgentExecuting(
                    agent="calc-verifier",
                    tools=[tool],
                    message=f"「计算核验审查」正在核算 {location} 需风量...",
                )
            )

    return await review_calc(plan, on_location=on_location, reference=reference)


def _preview(agent: str, findings: list[Finding]) -> str:
    lines = [f"## {REVIEWERS[agent]}结果", f"发现问题 {len(findings)} 项。"]
    for f in findings[:5]:
        lines.append(f"- [{f.severity.value}] {f.location or GENERAL_LOCATION}：{f.message}")
        lines += [f"  - 后果：{c.message}" for c in f.consequences]
    return "\n".join(lines)[:300]


@dataclass
class ReviewersResult:
    """What :func:`run_reviewers` gives: each reviewer's outcome (in the order form-reviewer,
    data-checker, calc-verifier), the calc-verifier's recomputation of each location, and the
    data-checker's reference look-up (source, status, every MCP call; None when the data-checker
    failed) for the report's provenance."""

    outcomes: list[ReviewerOutcome]
    recalcs: list[LocationRecalc]
    reference: ReferenceOutcome | None


async def run_reviewers(
    plan: Plan,
    emit: Emit,
    reference: ReferenceData | None,
    settings: Settings,
    *,
    remarks_model: BaseChatModel | None = None,
    gate: Gate | None = None,
) -> ReviewersResult:
    """Run the three reviewers in parallel; a failing reviewer gives ``agent_error`` and the others go on.
    The data-checker asks for the reference data as ``settings`` say (``mcp_url``, ``reference_dir``,
    ``tool_timeout_s``; ``reference`` replaces the embedded server's backend). The calc-verifier waits
    for its look-up and recomputes the inputs the reference data contradicts with the reference figure
    (without it, with the plan's).

    With ``remarks_model``, each reviewer that finished asks it for language and logic remarks after its
    rules (:func:`vent_agent.review.outputs.remarks.review_remarks`, at most ``settings.llm_timeout_s`` s);
    remarks never change a rule finding, and a failing model leaves a note, never a failed reviewer.

    ``gate`` (after the reference look-up is known) filters each reviewer's findings before its
    ``agent_done`` preview, so that the stream never shows a finding the result holds back."""
    looked_up: LookUp = asyncio.get_running_loop().create_future()
    bodies: dict[str, ReviewerBody] = {
        "form-reviewer": _form,
        "data-checker": _data_body(settings, reference, looked_up),
        "calc-verifier": _calc_body(looked_up),
    }
    completed = 0
    lock = asyncio.Lock()

    async def run_one(agent: str, body: ReviewerBody) -> tuple[ReviewerOutcome, list[LocationRecalc]]:
        nonlocal completed
        cn = REVIEWERS[agent]
        started = time.perf_counter()
        await emit(AgentThinking(agent=agent, message=f"「{cn}」正在分析..."))
        try:
            findings, recalcs = await body(plan, emit)
        except Exception as exc:  # one reviewer failing must not stop the others
            log.exception("reviewer %s failed", agent)
            duration = int((time.perf_counter() - started) * 1000)
            async with lock:
                completed += 1
                await emit(
                    AgentError(
                        agent=agent,
                        message=f"「{cn}」审查出错",
                        error=f"{type(exc).__name__}: {exc}",
                        progress=f"{completed}/{len(bodies)}",
                    )
                )
            return ReviewerOutcome(
                agent=agent, error=f"{type(exc).__name__}: {exc}", duration_ms=duration
            ), []
        if gate is not None:
            findings = gate(findings, await asyncio.shield(looked_up))
        remarks = await review_remarks(
            agent, plan, findings, model=remarks_model, emit=emit, timeout_s=settings.llm_timeout_s
        )
        duration = int((time.perf_counter() - started) * 1000)
        async with lock:
            completed += 1
            await emit(
                ReviewerDone(
                    agent=agent,
                    cn_agent=cn,
                    message=f"「{cn}」审查完成",
                    preview=_preview(agent, findings),
                    progress=f"{completed}/{len(bodies)}",
                    duration_ms=duration,
                    findings=len(findings),
                )
            )
        outcome = ReviewerOutcome(
            agent=agent,
            findings=findings,
            remarks=remarks.remarks,
            remarks_model=remarks.model,
            remarks_note=remarks.note,
            duration_ms=duration,
        )
        return outcome, recalcs

    for agent in bodies:
        cn = REVIEWERS[agent]
        await emit(AgentStart(agent=agent, cn_agent=cn, message=f"「{cn}」开始审查..."))
    results = await asyncio.gather(*(run_one(a, b) for a, b in bodies.items()))
    return ReviewersResult(
        outcomes=[o for o, _ in results],
        recalcs=[r for _, rs in results for r in rs],
        reference=looked_up.result(),
    )
