"""The offline review of a PDF written by the plan writer: the pipeline the CLI runs (text layer or OCR
with the default engine, the demo mine's reference data, no model), returning its findings."""

from __future__ import annotations

import asyncio
import hashlib
import tempfile
from pathlib import Path

from vent_agent.review.findings import Finding
from vent_agent.review.service.pipeline import ReviewFailed, ReviewRequest, review_plan
from vent_agent.settings import Settings


async def _no_events(_event: object) -> None:
    return None


def review_pdf(data: bytes, file_name: str) -> list[Finding] | str:
    """The findings of reviewing ``data`` (a PDF) offline, or the message of :class:`ReviewFailed` when
    the plan could not be reviewed at all."""
    with tempfile.TemporaryDirectory(prefix="hand-") as tmp:
        path = Path(tmp) / file_name
        path.write_bytes(data)
        settings = Settings(_env_file=None, data_dir=Path(tmp) / "data")
        req = ReviewRequest(path, hashlib.sha256(data).hexdigest(), file_name)
        try:
            result = asyncio.run(review_plan(req, settings, _no_events, None))
        except ReviewFailed as exc:
            return exc.message
        return result.findings
