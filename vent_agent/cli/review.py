"""``vent-agent review PLAN.pdf``: the review pipeline offline, with a progress bar on stderr.

Scanned pages are OCR'd with the engine of ``VENT_OCR_ENGINE`` (default rapidocr); the bar shows each
page as it is read."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn
from rich.table import Table

from reports.docx_report import render_docx
from reports.labels import CATEGORY_LABELS, SEVERITY_LABELS
from vent_agent.documents.upload import sha256_file
from vent_agent.events import AgentDone, AgentError, EventModel
from vent_agent.events import Progress as ProgressEvent
from vent_agent.review.findings import GENERAL_LOCATION, Severity
from vent_agent.review.outputs.remarks import make_remarks_model
from vent_agent.review.service.pipeline import ReviewFailed, ReviewRequest, review_plan
from vent_agent.review.service.publish import report_issuer
from vent_agent.settings import Settings

STAGES = 6


def finding_rows(findings: list[Any]) -> list[dict[str, Any]]:
    """Findings as the CLI's JSON list (location, category, severity, message, figures, rule, source, page,
    reviewer, rule_id, and the root fault's consequences)."""
    return [
        {
            "location": f.location,
            "category": f.category.value,
            "severity": f.severity.value,
            "message": f.message,
            "figures": f.figures,
            "unit": f.unit,
            "rule": f.rule,
            "source": f.source,
            "page": f.page,
            "reviewer": f.reviewer,
            "rule_id": f.rule_id,
            "consequences": [c.model_dump(mode="json") for c in f.consequences],
        }
        for f in findings
    ]


def user_cache_dir() -> Path:
    """The user's cache directory for vent-agent (``$XDG_CACHE_HOME/vent-agent``, default
    ``~/.cache/vent-agent``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "vent-agent"


def cli_settings() -> Settings:
    """The settings of ``vent-agent review``: ``VENT_DATA_DIR`` when set (the service's extraction
    cache is shared), else the user's cache directory, so a review never creates ``./data`` in the
    working directory."""
    settings = Settings()
    if "data_dir" in settings.model_fields_set:
        return settings
    return settings.model_copy(update={"data_dir": user_cache_dir()})


async def run_cli_review(plan: Path, output: Path | None, *, as_json: bool, force_refresh: bool) -> int:
    """Review ``plan``; write ``output`` (.docx) when given. Returns the exit code: 0 no major or
    critical finding, 1 some, 2 the plan could not be reviewed (or a reviewer failed)."""
    err = Console(stderr=True)
    settings = cli_settings()
    req = ReviewRequest(plan, sha256_file(plan), plan.name, force_refresh)
    with Progress(
        SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), console=err, transient=True
    ) as progress:
        task = progress.add_task("审查中…", total=STAGES)

        async def emit(event: EventModel) -> None:
            if isinstance(event, ProgressEvent | AgentDone | AgentError):
                progress.update(task, description=event.message)
                per_page = isinstance(event, ProgressEvent) and (event.page_progress or event.ocr_progress)
                if not per_page:
                    progress.advance(task, 0.5)

        try:
            result = await review_plan(req, settings, emit, None, remarks_model=make_remarks_model(settings))
        except ReviewFailed as exc:
            err.print(f"[red]审查失败：{exc.message}[/red]")
            return 2
        if output is not None:
            render_docx(result, output, report_issuer(settings))
        progress.update(task, completed=STAGES)
    findings = result.findings
    if as_json:
        sys.stdout.write(json.dumps(finding_rows(findings), ensure_ascii=False, indent=2) + "\n")
    else:
        out = Console(width=None if sys.stdout.isatty() else 200)
        table = Table(title=f"{result.title or plan.name}：审查发现 {len(findings)} 项")
        for col in ("严重程度", "用风地点", "类别", "问题", "依据", "页"):
            table.add_column(col, overflow="fold")
        for f in findings:
            table.add_row(
                SEVERITY_LABELS[f.severity],
                f.location or GENERAL_LOCATION,
                CATEGORY_LABELS[f.category],
                f.message,
                f.source,
                str(f.page or ""),
            )
        out.print(table)
        for r in result.reviewers:
            if r.error:
                out.print(f"[red]{r.cn_name} 出错：{r.error}[/red]")
    if output is not None:
        err.print(f"Word 报告：{output}")
    blocking = {Severity.CRITICAL, Severity.MAJOR}
    if any(f.severity in blocking for f in findings):
        return 1
    if any(r.error for r in result.reviewers):
        err.print("[red]有审查环节出错，审查不完整[/red]")
        return 2
    return 0
