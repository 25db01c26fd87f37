"""The request side of ``POST /api/vent/review/pdf``: whose session the review joins, and the upload
saved within the upload disk cap."""

from __future__ import annotations

from typing import Any

from fastapi import Request, UploadFile

from vent_agent.api.deps import require_user
from vent_agent.api.errors import ApiError
from vent_agent.api.sessions import session_of
from vent_agent.documents.upload import SavedUpload, UploadRejected, check_upload_room, save_pdf_upload
from vent_agent.state import AppState
from vent_agent.store.models import SessionRow

NEEDS_TOKEN = "关联会话（session_id）需要登录：请在请求头中携带 x-access-token"


async def review_session(request: Request, state: AppState, session_id: str | None) -> SessionRow | None:
    """The caller's session named by ``session_id`` (None when not given). The review route needs no
    token (spec), but a session belongs to a user: :class:`ApiError` 401 without ``x-access-token``
    (or the auth errors of :func:`require_user`), 404 unknown or another user's session."""
    if not session_id:
        return None
    if not request.headers.get("x-access-token"):
        raise ApiError(401, NEEDS_TOKEN)
    user = await require_user(state, request.headers.get("x-access-token"))
    return await session_of(state, user.user_name, session_id)


async def save_review_upload(state: AppState, file: UploadFile, uploads_dir: Any) -> SavedUpload:
    """Save the uploaded plan under ``uploads_dir``: :class:`ApiError` 507 when the uploads' disk cap
    (``max_upload_disk_mb``) would be exceeded, 400 not a PDF or empty, 413 over ``max_upload_mb``."""
    settings = state.settings
    try:
        await check_upload_room(settings.uploads_dir, settings.max_upload_disk_mb << 20, file.size or 0)
        return await save_pdf_upload(file, uploads_dir, settings.max_upload_mb << 20)
    except UploadRejected as exc:
        raise ApiError(exc.status, exc.message) from exc
