"""Run the cases on a target and check each transcript: :func:`run_cases` → one :class:`CaseResult` per
case (its checks, latency, tool calls). Cases run one after another (a chat turn's latency is the
measure; the service under test runs its own work concurrently)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Protocol

from langchain_core.language_models import BaseChatModel

from vent_agent.evals.cases import Budget, Case, CaseFile
from vent_agent.evals.checks import (
    Check,
    check_answer_words,
    check_budget,
    check_degraded,
    check_figures,
    check_plan_mode,
    check_service,
    check_trajectory,
)
from vent_agent.evals.citation_check import check_citations
from vent_agent.evals.judge import judge_answer
from vent_agent.evals.oracles import OracleError, calc_value, data_value, network_value
from vent_agent.evals.refusal import check_refusal
from vent_agent.evals.transcript import Transcript, converse
from vent_agent.kb.search import KnowledgeBase, get_knowledge_base
from vent_agent.upstream.base import VentilationSource


class Target(Protocol):
    """What the runner needs of a target (:mod:`vent_agent.evals.targets`)."""

    base_url: str

    @property
    def source(self) -> VentilationSource: ...

    def prepare(self, case: Case) -> Any: ...


@dataclass
class CaseResult:
    """One case's outcome: passed when every check passed; ``skipped`` says why it did not run."""

    id: str
    category: str
    passed: bool
    checks: list[Check] = field(default_factory=list)
    first_event_s: float | None = None
    total_s: float = 0.0
    tool_calls: list[str] = field(default_factory=list)
    answer: str = ""
    skipped: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The case's entry of ``results.json``."""
        return {
            "id": self.id,
            "category": self.category,
            "passed": self.passed,
            "skipped": self.skipped,
            "first_event_s": None if self.first_event_s is None else round(self.first_event_s, 3),
            "total_s": round(self.total_s, 3),
            "tool_calls": self.tool_calls,
            "failed_checks": [{"check": c.name, "detail": c.detail} for c in self.checks if not c.passed],
        }


async def _oracles(case: Case, source: VentilationSource) -> list[float]:
    out = []
    for fig in case.expect.figures:
        if fig.calc is not None:
            out.append(calc_value(fig.calc))
        elif fig.network is not None:
            out.append(await asyncio.to_thread(network_value, fig.network))
        else:
            out.append(await data_value(source, fig.data))  # type: ignore[arg-type]  # a figure has one oracle (validated)
    return out


def check_case(
    case: Case, t: Transcript, budget: Budget, oracle_values: list[float], kb: KnowledgeBase
) -> list[Check]:
    """Every check that applies to ``case`` on its transcript ``t``."""
    e = case.expect
    checks = [check_degraded(case, t)] if case.setup != "replay" else [check_service(case, t)]
    if e.tools or e.forbid_tools or e.no_tools:
        checks.append(check_trajectory(case, t))
    if e.figures:
        checks.append(check_figures(case, t, oracle_values))
    if e.citations or e.articles:
        checks.append(check_citations(case, t, kb))
    if e.refuse is not None:
        checks.append(check_refusal(case, t))
    if e.interrupt:
        checks.append(check_plan_mode(case, t))
    if e.answer:
        checks.append(check_answer_words(case, t))
    checks.append(check_budget(budget, t))
    return checks


async def run_case(
    target: Target, case: Case, budget: Budget, kb: KnowledgeBase, judge: BaseChatModel | None = None
) -> CaseResult:
    """Run one case on ``target`` and check it (and, with a ``judge``, have the model judge the answer of
    a case with a model: not the degraded ones)."""
    async with target.prepare(case) as skipped:
        if skipped:
            return CaseResult(case.id, case.category, passed=False, skipped=skipped)
        try:
            oracle_values = await _oracles(case, target.source)
        except OracleError as exc:
            return CaseResult(case.id, case.category, False, [Check("oracle", False, str(exc))])
        t = await converse(target.base_url, "demo-token", case, timeout_s=budget.total_s * 2)
    checks = check_case(case, t, budget, oracle_values, kb)
    if judge is not None and case.setup == "replay":
        checks.append(await judge_answer(judge, case, t.answer))
    return CaseResult(
        case.id,
        case.category,
        all(c.passed for c in checks),
        checks,
        t.first_event_s,
        t.total_s,
        [u.name for u in t.tool_calls()],
        t.answer,
    )


async def run_cases(
    target: Target, cases: CaseFile, selected: list[Case], judge: BaseChatModel | None = None
) -> list[CaseResult]:
    """Every selected case, in order; ``judge``: the opt-in model judge (:mod:`.judge`)."""
    kb = get_knowledge_base()
    return [await run_case(target, case, cases.budget_of(case), kb, judge) for case in selected]
