"""One eval run end to end (``vent-agent eval``): the cases on their target while the plans with answer
keys are reviewed in worker processes, then the report and the baseline gate.

Exit codes: 0 the gate holds (no category below its baseline, the review no worse), 1 something got
worse, 2 the eval could not run (bad cases file, unknown model, service unreachable).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vent_agent.evals.cases import CasesError, load_cases, select
from vent_agent.evals.judge import JudgeUnavailable, judge_model
from vent_agent.evals.report import (
    RunInfo,
    baseline_of,
    git_commit,
    now_iso,
    regressions,
    report_markdown,
    results_json,
    write_report,
)
from vent_agent.evals.review_eval import PlanScore, load_plans, review_all
from vent_agent.evals.runner import run_cases
from vent_agent.evals.targets import InProcessTarget, TargetError, UrlTarget

REPO = Path(__file__).resolve().parents[2]
EVALS = REPO / "evals"


@dataclass
class EvalOptions:
    """The command's options: see ``vent-agent eval --help``."""

    out: Path
    offline: bool = False
    model: str | None = None
    url: str | None = None
    case_ids: list[str] = field(default_factory=list)
    review: bool = True
    ocr: bool = False
    cases_path: Path = EVALS / "cases.yaml"
    plans_path: Path = EVALS / "review_plans.yaml"
    baseline_path: Path = EVALS / "baseline.json"
    recorded_ocr: Path = EVALS / "hands" / "ocr"
    write_baseline: bool = False
    judge: bool = False


class EvalError(RuntimeError):
    """The eval cannot run; Chinese message."""


_QUIET = ("vent_agent", "uvicorn", "langchain", "langgraph", "httpx", "mcp")


@contextlib.contextmanager
def _quiet_service_logs() -> Iterator[None]:
    """The service under test logs its handled failures (a degraded model…) with tracebacks: the eval
    reports them itself, so only its own lines reach the console while it runs. The loggers' levels
    are given back afterwards (an eval run inside another program, or a test, leaves its logging as
    it was)."""
    saved = {name: logging.getLogger(name).level for name in _QUIET}
    for name in _QUIET:
        logging.getLogger(name).setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for name, level in saved.items():
            logging.getLogger(name).setLevel(level)


async def run_eval(opts: EvalOptions, say: object = print) -> int:
    """Run the eval of ``opts``; returns the exit code. Raises :class:`EvalError`."""
    echo = say if callable(say) else print
    with _quiet_service_logs():
        return await _run_eval(opts, echo)


async def _run_eval(opts: EvalOptions, echo: Any) -> int:
    try:
        cases = load_cases(opts.cases_path)
        selected = select(cases, opts.case_ids)
        plans = load_plans(opts.plans_path) if opts.review and not opts.case_ids else []
        judge = judge_model(opts.model) if opts.judge else None
    except (CasesError, JudgeUnavailable, ValueError, OSError) as exc:
        raise EvalError(str(exc)) from exc
    baseline = (
        json.loads(opts.baseline_path.read_text(encoding="utf-8")) if opts.baseline_path.is_file() else {}
    )
    recorded = None if opts.ocr else opts.recorded_ocr
    target = (
        UrlTarget(opts.url, model=opts.model)
        if opts.url
        else InProcessTarget(offline=opts.offline, model=opts.model)
    )
    echo(f"评测：{len(selected)} 个用例，{len(plans)} 份带答案的配风计划")
    reviews: asyncio.Task[list[PlanScore]] | None = None
    if plans:
        reviews = asyncio.create_task(review_all(plans, recorded))
    try:
        async with target:
            results = await run_cases(target, cases, selected, judge)
    except TargetError as exc:
        if reviews is not None:
            reviews.cancel()
        raise EvalError(str(exc)) from exc
    scores = await reviews if reviews is not None else []
    info = RunInfo(git_commit(REPO), target.description(), now_iso(), opts.offline)
    regressed = regressions(results, scores, baseline) if not opts.case_ids else []
    write_report(
        opts.out,
        report_markdown(info, cases, results, scores, baseline, regressed),
        results_json(results, scores),
    )
    if opts.write_baseline:
        opts.baseline_path.write_text(
            json.dumps(baseline_of(results, scores, baseline), ensure_ascii=False, indent=2) + "\n",
            encoding="utf-8",
        )
    ran = [r for r in results if r.skipped is None]
    echo(f"用例通过 {sum(r.passed for r in ran)}/{len(ran)}；报告：{opts.out / 'REPORT.md'}")
    for line in regressed:
        echo(f"低于基线：{line}")
    return 1 if regressed else 0
