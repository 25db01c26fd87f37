"""Retention of plan-review files outside sessions: the uploads of standalone reviews (and of reviews
that failed) and the Word reports with their provenance records of reviews that joined no session are
deleted once older than ``upload_retention_hours``. Files of a session stay while the session does (its
deletion removes them). Run by the run manager's :class:`~vent_agent.runs.retention.RetentionSweep`."""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import timedelta
from pathlib import Path

from sqlmodel import col, select

from vent_agent.observability import metrics
from vent_agent.review.outputs.provenance import record_path
from vent_agent.settings import Settings
from vent_agent.store.db import Database
from vent_agent.store.models import ReportRow, utcnow

log = logging.getLogger(__name__)


def _old_upload_files(uploads_dir: Path, max_age_s: float) -> list[Path]:
    """Files directly in ``uploads_dir`` (standalone reviews; sessions have sub-directories) older than
    ``max_age_s`` by modification time (a re-upload of the same file renews it)."""
    if not uploads_dir.is_dir():
        return []
    cutoff = time.time() - max_age_s
    old = []
    for path in uploads_dir.iterdir():
        try:
            if path.is_file() and path.stat().st_mtime < cutoff:
                old.append(path)
        except OSError:
            continue
    return old


class ReviewFileSweep:
    """Deletes the review files outside sessions older than ``settings.upload_retention_hours``."""

    def __init__(self, settings: Settings, db: Database) -> None:
        self.settings = settings
        self.db = db
        self.age = timedelta(hours=settings.upload_retention_hours)

    async def sweep(self) -> int:
        """Delete once; return how many files were deleted (uploads, .docx and provenance records)."""
        uploads = await asyncio.to_thread(
            _old_upload_files, self.settings.uploads_dir, self.age.total_seconds()
        )
        deleted = 0
        for path in uploads:
            path.unlink(missing_ok=True)
            deleted += 1
        async with self.db.session() as s:
            rows = (
                await s.exec(
                    select(ReportRow).where(
                        col(ReportRow.session_id).is_(None), ReportRow.created_at < utcnow() - self.age
                    )
                )
            ).all()
            for row in rows:
                for path in (Path(row.path), record_path(self.settings.reports_dir, row.id)):
                    if path.exists():
                        path.unlink(missing_ok=True)
                        deleted += 1
                await s.delete(row)
            await s.commit()
        if deleted:
            log.info("retention: deleted %d review files older than %s outside sessions", deleted, self.age)
        metrics.set_upload_disk(self.settings)
        return deleted
