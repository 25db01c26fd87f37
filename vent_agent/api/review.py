"""``POST /api/vent/review/pdf``: review a monthly air-distribution plan (spec: 配风计划审查)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, File, Form, Request, UploadFile
from sse_starlette import EventSourceResponse

from vent_agent.api.deps import StateDep, public_base_url
from vent_agent.api.errors import ApiError
from vent_agent.api.sse import run_stream
from vent_agent.documents.upload import UploadRejected, save_pdf_upload
from vent_agent.review.pipeline import ReviewRequest
from vent_agent.review.run import review_body

router = APIRouter(prefix="/api/vent/review", tags=["review"])

SESSION_ID_PATTERN = r"^[A-Za-z0-9._:-]{1,128}$"
"""Session ids travel in the ``X-Session-Id`` header: printable ASCII without separators."""


@router.post("/pdf")
async def review_pdf(
    request: Request,
    state: StateDep,
    file: Annotated[UploadFile, File(description="配风计划 PDF")],
    session_id: Annotated[str | None, Form(max_length=128, pattern=SESSION_ID_PATTERN)] = None,
    message: Annotated[str | None, Form(max_length=4000)] = None,
    force_refresh: Annotated[bool, Form()] = False,
) -> EventSourceResponse:
    """Save and sniff the upload (400 not a PDF or empty, 413 too large), then stream the review."""
    try:
        saved = await save_pdf_upload(file, state.settings.uploads_dir, state.settings.max_upload_mb << 20)
    except UploadRejected as exc:
        raise ApiError(exc.status, exc.message) from exc
    req = ReviewRequest(saved.path, saved.sha256, saved.file_name, force_refresh, message)
    base_url = public_base_url(request, state)

    run_id = await state.runs.start(
        "review",
        review_body(state, req, base_url, session_id),
        session_id=session_id,
        done_fields=lambda rid: {"session_id": session_id, "thread_id": rid},
    )
    return run_stream(state.runs, run_id, session_id=session_id, ping_s=state.settings.sse_ping_s)
