"""Publishing a review: the Markdown report streamed as ``token`` events, the Word report written under
an unguessable id and recorded, and its ``download_url``."""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from reports.docx_report import render_docx
from reports.front import Issuer
from reports.markdown import render_markdown
from vent_agent.events import Generating, ReviewProgress, Token
from vent_agent.events import Send as Emit
from vent_agent.review.result import ReviewResult
from vent_agent.settings import Settings
from vent_agent.store.db import Database
from vent_agent.store.models import ReportRow

TOKEN_CHARS = 200
"""Target size of one ``token`` event's content (characters); pieces end at a line end where possible."""


@dataclass(frozen=True)
class PublishedReport:
    """A written Word report: its id (the file's base name), path and download URL."""

    report_id: str
    path: Path
    download_url: str


def new_report_id(timezone: str) -> str:
    """An unguessable report id: ``vent_review_<128 random bits hex>_<yyyymmdd>``."""
    day = datetime.now(ZoneInfo(timezone)).strftime("%Y%m%d")
    return f"vent_review_{secrets.token_hex(16)}_{day}"


def report_issuer(settings: Settings) -> Issuer:
    """Who issues review reports: the reviewing unit and reviewer of the settings (``VENT_REPORT_UNIT``,
    ``VENT_REPORT_REVIEWER``; empty when unset)."""
    return Issuer(unit=settings.report_unit.strip(), reviewer=settings.report_reviewer.strip())


def token_pieces(text: str, size: int = TOKEN_CHARS) -> list[str]:
    """``text`` cut into pieces of about ``size`` characters that end at a line end (a line longer than
    ``size`` is cut inside), so a client rendering as it goes never shows half a table row for long.
    Joining the pieces gives ``text`` back."""
    pieces: list[str] = []
    current = ""
    for line in text.splitlines(keepends=True):
        if current and len(current) + len(line) > size:
            pieces.append(current)
            current = ""
        while len(line) > size:
            pieces.append(line[:size])
            line = line[size:]
        current += line
    if current:
        pieces.append(current)
    return pieces


async def stream_markdown(result: ReviewResult, emit: Emit, issuer: Issuer | None = None) -> str:
    """Emit the final Markdown report (:func:`reports.markdown.render_markdown`) as ``token`` events
    (``source="main"``); return it. Model remarks, when there are any, are in its fifth chapter."""
    await emit(ReviewProgress(message="正在生成最终审查报告..."))
    await emit(Generating(source="main", message="正在生成最终审查报告..."))
    text = render_markdown(result, issuer)
    for piece in token_pieces(text):
        await emit(Token(source="main", content=piece))
    return text


async def publish_docx(
    result: ReviewResult,
    emit: Emit,
    *,
    reports_dir: Path,
    base_url: str,
    timezone: str,
    db: Database,
    issuer: Issuer | None = None,
    run_id: str | None = None,
    session_id: str | None = None,
) -> PublishedReport:
    """Write the Word report (off the event loop), record it, and announce its ``download_url``."""
    await emit(ReviewProgress(message="正在生成 Word 审查报告..."))
    report_id = new_report_id(timezone)
    path = reports_dir / f"{report_id}.docx"
    await asyncio.to_thread(render_docx, result, path, issuer)
    async with db.session() as s:
        s.add(
            ReportRow(
                id=report_id,
                run_id=run_id,
                session_id=session_id,
                file_name=result.file_name,
                path=str(path),
                sha256=result.sha256,
            )
        )
        await s.commit()
    url = f"{base_url.rstrip('/')}/static/reports/{report_id}.docx"
    await emit(ReviewProgress(message="Word 报告已生成，点击下载", download_url=url))
    return PublishedReport(report_id, path, url)
