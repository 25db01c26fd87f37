"""``POST /api/vent/review/pdf``: review a monthly air-distribution plan (spec: 配风计划审查)."""

from __future__ import annotations

from contextlib import nullcontext
from typing import Annotated

from fastapi import APIRouter, File, Form, Request, UploadFile
from sse_starlette import EventSourceResponse

from vent_agent.api.deps import StateDep, public_base_url
from vent_agent.api.review_upload import review_session, save_review_upload
from vent_agent.api.session_turn import session_turn
from vent_agent.api.sse import run_stream
from vent_agent.api.uploads import UploadRoute
from vent_agent.review.service.pipeline import ReviewRequest
from vent_agent.review.service.run import review_body
from vent_agent.review.service.session_turns import record_review_request

router = APIRouter(prefix="/api/vent/review", tags=["review"], route_class=UploadRoute)

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
    """Save and sniff the upload (400 not a PDF or empty, 413 too large, 507 upload disk full), then
    stream the review. ``session_id`` must be the caller's own session (401 without ``x-access-token``,
    404 unknown or another user's); the review then joins that session's history, and its run (events,
    cancel) is that user's alone. A review of a session is the session's turn: while another turn (chat,
    resume, review) of the session runs it is 409, checked before the upload is saved
    (:mod:`vent_agent.api.session_turn`)."""
    session = await review_session(request, state, session_id)
    sid = session.id if session is not None else None
    turn = (
        session_turn(state, "review", session.id, session.user_name)
        if session is not None
        else nullcontext(None)  # a review outside sessions takes no one's turn
    )
    async with turn as reserved:
        uploads_dir = state.settings.uploads_dir / sid if sid else state.settings.uploads_dir
        saved = await save_review_upload(state, file, uploads_dir)
        client = request.client.host if request.client is not None else "unknown"
        owner = session.user_name if session is not None else f"client:{client}"
        req = ReviewRequest(saved.path, saved.sha256, saved.file_name, force_refresh, message, owner)
        if session is not None:
            await record_review_request(state, session, message, saved.file_name)
        run_id = await state.runs.start(
            "review",
            review_body(state, req, public_base_url(request, state), session),
            session_id=sid,
            done_fields=lambda rid: {"session_id": sid, "thread_id": rid},
            run_id=reserved,  # the reserved run (its session and user recorded), or a new one
        )
    return run_stream(state.runs, run_id, session_id=sid, ping_s=state.settings.sse_ping_s)
