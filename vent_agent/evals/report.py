"""The eval's report: ``results.json`` (the shape of issue 27: ``categories`` {n, passed}, ``cases``,
``review`` {plan, faults, found, false_majors}) and ``REPORT.md`` (commit, model, date; by category n,
passed, rate and the change against the baseline; the review table with the misses; failing cases with
their diff; latency p50/p95), and the baseline gate: a category whose pass rate falls below its
baseline, or a review that finds fewer faults or raises more false majors in total, fails the run."""

from __future__ import annotations

import json
import statistics
import subprocess
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from vent_agent.evals.cases import CATEGORIES, CaseFile
from vent_agent.evals.review_eval import PlanScore, review_rows
from vent_agent.evals.runner import CaseResult


@dataclass(frozen=True)
class RunInfo:
    """What the report says of the run: commit, model, date (ISO, UTC) and whether it was offline."""

    commit: str
    model: str
    date: str
    offline: bool


def git_commit(repo: Path) -> str:
    """The repository's current commit (short), or ``unknown`` outside a git checkout."""
    try:
        out = subprocess.run(
            ["git", "-C", str(repo), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() or "unknown"


def category_counts(results: list[CaseResult]) -> dict[str, dict[str, int]]:
    """Per category (every one of :data:`CATEGORIES`): ``n`` cases run (skipped ones left out), ``passed``."""
    out = {name: {"n": 0, "passed": 0} for name in CATEGORIES}
    for r in results:
        if r.skipped is None:
            out[r.category]["n"] += 1
            out[r.category]["passed"] += int(r.passed)
    return out


def review_totals(scores: list[PlanScore]) -> dict[str, int]:
    """The review table's totals: ``faults``, ``found``, ``false_majors``, ``failed`` (plans not reviewed)."""
    return {
        "faults": sum(s.faults for s in scores),
        "found": sum(s.found for s in scores),
        "false_majors": sum(s.false_majors for s in scores),
        "failed": sum(1 for s in scores if s.error),
    }


def results_json(results: list[CaseResult], scores: list[PlanScore]) -> dict[str, Any]:
    """``results.json``: categories, cases, review (per plan)."""
    rows = [{k: row[k] for k in ("plan", "faults", "found", "false_majors")} for row in review_rows(scores)]
    return {"categories": category_counts(results), "cases": [r.as_dict() for r in results], "review": rows}


def rate(counts: dict[str, int]) -> float | None:
    """``passed / n``, None when no case ran."""
    return counts["passed"] / counts["n"] if counts["n"] else None


def baseline_of(
    results: list[CaseResult], scores: list[PlanScore], previous: dict[str, Any]
) -> dict[str, Any]:
    """The baseline after this run (``evals/baseline.json``): each category's rate where cases ran, the
    review's totals when plans were reviewed; what this run did not measure keeps its ``previous`` value."""
    cats = {name: rate(c) for name, c in category_counts(results).items()}
    measured = {k: round(v, 4) for k, v in cats.items() if v is not None}
    out = {**previous, "categories": {**previous.get("categories", {}), **measured}}
    if scores:
        out["review"] = review_totals(scores)
    return out


def regressions(results: list[CaseResult], scores: list[PlanScore], baseline: dict[str, Any]) -> list[str]:
    """What got worse than ``baseline`` (Chinese lines; empty: the gate holds). A category without
    cases this run is not judged; the review fails on fewer faults found or more false majors in total."""
    out: list[str] = []
    for name, counts in category_counts(results).items():
        now, before = rate(counts), baseline.get("categories", {}).get(name)
        if now is not None and before is not None and now + 1e-9 < before:
            out.append(f"{name} 通过率 {now:.0%} 低于基线 {before:.0%}")
    base_review = baseline.get("review")
    if base_review and scores:
        totals = review_totals(scores)
        if totals["found"] < base_review.get("found", 0):
            out.append(f"审查找到的问题 {totals['found']} 少于基线 {base_review['found']}")
        if totals["false_majors"] > base_review.get("false_majors", 0):
            out.append(f"审查误报的重大问题 {totals['false_majors']} 多于基线 {base_review['false_majors']}")
    return out


def _pct(values: list[float], q: int) -> str:
    if not values:
        return "—"
    if len(values) == 1:
        return f"{values[0]:.2f} s"
    return f"{statistics.quantiles(values, n=100, method='inclusive')[q - 1]:.2f} s"


def _change(now: float | None, before: float | None) -> str:
    if now is None or before is None:
        return "—"
    delta = (now - before) * 100
    return "±0" if abs(delta) < 0.05 else f"{delta:+.1f} 个百分点"


def _category_table(results: list[CaseResult], cases: CaseFile, baseline: dict[str, Any]) -> list[str]:
    lines = ["| 类别 | n | 通过 | 通过率 | 较基线 | 说明 |", "|---|---|---|---|---|---|"]
    skipped = {name: sum(1 for r in results if r.category == name and r.skipped) for name in CATEGORIES}
    for name, counts in category_counts(results).items():
        now = rate(counts)
        note = cases.categories[name].note if name in cases.categories else ""
        if skipped[name]:
            note = f"{note} 跳过 {skipped[name]} 个".strip()
        shown = "—" if now is None else f"{now:.0%}"
        change = _change(now, baseline.get("categories", {}).get(name))
        lines.append(f"| {name} | {counts['n']} | {counts['passed']} | {shown} | {change} | {note} |")
    return lines


def _review_table(scores: list[PlanScore], baseline: dict[str, Any]) -> list[str]:
    lines = ["| 计划 | 问题数 | 找到 | 误报重大 | 读取 | 用时 | 备注 |", "|---|---|---|---|---|---|---|"]
    for s in scores:
        cells = [s.plan, s.faults, s.found, s.false_majors, s.reading, f"{s.seconds:.1f} s", s.error or ""]
        lines.append("| " + " | ".join(map(str, cells)) + " |")
    t = review_totals(scores)
    base = baseline.get("review") or {}
    against = f"基线：找到 {base.get('found', '—')}，误报重大 {base.get('false_majors', '—')}"
    lines.append(f"| **合计** | {t['faults']} | {t['found']} | {t['false_majors']} | | | {against} |")
    for s in scores:
        if s.misses or s.false_major_findings:
            lines += ["", f"**{s.plan}**"]
            lines += [f"- 漏报：{m}" for m in s.misses]
            lines += [f"- 误报重大：{m}" for m in s.false_major_findings]
    return lines


def _failures(results: list[CaseResult]) -> list[str]:
    lines: list[str] = []
    for r in results:
        if r.passed or r.skipped:
            continue
        lines += [f"### {r.id}（{r.category}）", ""]
        lines += [f"- `{c.name}`：{c.detail}" for c in r.checks if not c.passed]
        lines += [f"- 实际回答：{r.answer[:300] or '（无）'}", ""]
    return lines or ["无。", ""]


def report_markdown(
    info: RunInfo,
    cases: CaseFile,
    results: list[CaseResult],
    scores: list[PlanScore],
    baseline: dict[str, Any],
    regressed: list[str],
) -> str:
    """``REPORT.md`` (Chinese)."""
    ran = [r for r in results if r.skipped is None]
    total = [r.total_s for r in ran]
    first = [r.first_event_s for r in ran if r.first_event_s is not None]
    lines = [
        "# 通风对话助手评测报告",
        "",
        f"- 提交：`{info.commit}`",
        f"- 模型：{info.model}",
        f"- 日期：{info.date}",
        f"- 用例：{len(ran)} 个运行，{sum(r.passed for r in ran)} 个通过，{len(results) - len(ran)} 个跳过",
        f"- 基线闸门：{'；'.join(regressed) if regressed else '通过（无类别低于基线）'}",
        "",
        "## 按类别",
        "",
        *_category_table(results, cases, baseline),
        "",
        "## 延迟",
        "",
        "| | p50 | p95 |",
        "|---|---|---|",
        f"| 首个事件 | {_pct(first, 50)} | {_pct(first, 95)} |",
        f"| 总耗时 | {_pct(total, 50)} | {_pct(total, 95)} |",
        "",
        "## 配风计划审查（每份带答案的计划）",
        "",
        *_review_table(scores, baseline),
        "",
        "## 未通过的用例",
        "",
        *_failures(results),
    ]
    return "\n".join(lines)


def write_report(out: Path, markdown: str, results: dict[str, Any]) -> None:
    """Write ``REPORT.md`` and ``results.json`` into ``out`` (created)."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "REPORT.md").write_text(markdown, encoding="utf-8")
    (out / "results.json").write_text(
        json.dumps(results, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )


def now_iso() -> str:
    """The current time, ISO 8601 to the second, UTC."""
    return datetime.now().astimezone().isoformat(timespec="seconds")
