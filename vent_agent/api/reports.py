"""``GET /static/reports/{report_id}.docx``: a Word review report, served only by its random id."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse

from vent_agent.api.deps import StateDep
from vent_agent.api.errors import ApiError
from vent_agent.store.models import ReportRow

router = APIRouter(tags=["reports"])

_REPORT_ID = re.compile(r"^vent_review_[0-9a-f]{32}_\d{8}$")
DOCX_MEDIA = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


@router.get("/static/reports/{file_name}")
async def download_report(file_name: str, state: StateDep) -> FileResponse:
    """The .docx of a review; 404 for an unknown or malformed id."""
    report_id = file_name.removesuffix(".docx")
    if not file_name.endswith(".docx") or not _REPORT_ID.match(report_id):
        raise ApiError(404, "报告不存在")
    async with state.db.session() as s:
        row = await s.get(ReportRow, report_id)
    if row is None or not Path(row.path).is_file():
        raise ApiError(404, "报告不存在")
    download_name = f"审查报告_{Path(row.file_name).stem}.docx"
    return FileResponse(row.path, media_type=DOCX_MEDIA, filename=download_name)
