"""``POST /api/chat`` (multipart) and ``POST /api/chat/resume`` (spec: 对话式解读接口 / 对话恢复接口).

Both need ``x-access-token``. A turn is a durable run: the stream tails the run's event log, a client
disconnect does not stop it, ``GET /api/runs/{run_id}/events`` picks it up again. ``X-Session-Id`` and
``X-Run-Id`` headers name the session and the run.

One turn at a time per session: while a chat, resume or review run of the session is running (on any
worker), another message or resume is 409 (:data:`~vent_agent.api.session_turn.BUSY`); the claim is made
in the store before the user's message is stored, so a refused message leaves nothing behind
(:mod:`vent_agent.api.session_turn`).

A message that would open a session which cannot be answered (no chat model configured, and not the
review of an attached plan, which needs none) opens none: its run (no ``X-Session-Id``) streams the
``error`` and a ``done`` with ``session_id: null``, and no session, message or upload is stored.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, File, Form, Request, UploadFile
from pydantic import BaseModel, Field
from sse_starlette import EventSourceResponse

from vent_agent.api.deps import CurrentUser, StateDep, public_base_url
from vent_agent.api.errors import ApiError
from vent_agent.api.ids import IdText
from vent_agent.api.json_body import ApiRoute
from vent_agent.api.review import SESSION_ID_PATTERN
from vent_agent.api.session_turn import session_turn
from vent_agent.api.sessions import session_of
from vent_agent.api.sse import run_stream
from vent_agent.api.uploads import UploadRoute
from vent_agent.chat.approvals import pending_interrupts
from vent_agent.chat.service import ChatTurn, chat_run, refuse_without_model, resume_run, thread_exists
from vent_agent.documents.upload import UploadRejected, check_upload_room, save_pdf_upload
from vent_agent.graphs.supervisor import wants_review
from vent_agent.runs.emitter import Emitter
from vent_agent.runs.manager import RunBody
from vent_agent.sessions import store
from vent_agent.state import AppState

router = APIRouter(prefix="/api/chat", tags=["chat"], route_class=UploadRoute)
resume_router = APIRouter(prefix="/api/chat", tags=["chat"], route_class=ApiRoute)
"""``POST /api/chat/resume``: a JSON body, under the JSON body limit (the chat route takes uploads)."""

MAX_MESSAGE = 8000
PENDING = "当前会话有待审批的执行计划，请先批准或拒绝（POST /api/chat/resume）后再发送新消息"


async def _start(
    state: AppState, run_id: str, kind: str, body: RunBody, turn: ChatTurn
) -> EventSourceResponse:
    """Start the reserved chat run of the turn's session and user, and tail it (``X-Session-Id``,
    ``X-Run-Id``)."""
    await state.runs.start(
        kind,
        body,
        session_id=turn.session.id,
        user_name=turn.user.user_name,
        done_fields=lambda _rid: {"session_id": turn.session.id, "thread_id": turn.thread_id},
        run_id=run_id,
    )
    return run_stream(state.runs, run_id, session_id=turn.session.id, ping_s=state.settings.sse_ping_s)


async def _answerable(state: AppState, message: str, attached: bool) -> bool:
    """True when a turn can be answered: a chat model is configured, or the turn is the review of its
    attached plan (``attached``), which needs none."""
    if attached and wants_review(message, {"kind": "pdf"}):
        return True
    return await state.models.chat_model() is not None


async def _refuse_without_model(state: AppState, user_name: str) -> EventSourceResponse:
    """A run of ``user_name`` outside any session streaming the no-model ``error`` and ``done``."""
    run_id = await state.runs.start("chat", refuse_without_model, user_name=user_name)
    return run_stream(state.runs, run_id, ping_s=state.settings.sse_ping_s)


@router.post("")
async def chat(
    request: Request,
    state: StateDep,
    user: CurrentUser,
    message: Annotated[str, Form(min_length=1, max_length=MAX_MESSAGE)],
    session_id: Annotated[str | None, Form(max_length=128, pattern=SESSION_ID_PATTERN)] = None,
    thread_id: Annotated[str | None, Form(max_length=128, pattern=SESSION_ID_PATTERN)] = None,
    mode: Annotated[Literal["plan", "full"] | None, Form()] = None,
    file: Annotated[UploadFile | None, File(description="附件：配风计划 PDF")] = None,
) -> EventSourceResponse:
    """One chat turn. A new session is created when ``session_id`` is not given (``mode`` applies only
    then), unless the turn cannot be answered (no model: an error run outside any session); an unknown
    or another user's ``session_id`` is 404; a pending approval or a turn still running on the session
    is 409."""
    if not message.strip():
        raise ApiError(400, "请求参数错误：message 不能为空")
    if "\x00" in message:
        raise ApiError(400, "请求参数错误：message 含有非法字符（NUL）")
    attached = file is not None and bool(file.filename or file.size)
    if session_id:
        session = await session_of(state, user.user_name, session_id)
    elif not await _answerable(state, message, attached):
        return await _refuse_without_model(state, user.user_name)
    else:
        session = await store.create_session(
            state.db, user.user_name, mode=mode or "full", title=store.default_title(message)
        )
    thread = thread_id or session.thread_id
    if await pending_interrupts(state, session.id, thread):
        raise ApiError(409, PENDING)
    async with session_turn(state, "chat", session.id, user.user_name, thread) as run_id:
        attachment = None
        if file is not None and attached:
            try:
                await check_upload_room(
                    state.settings.uploads_dir, state.settings.max_upload_disk_mb << 20, file.size or 0
                )
                saved = await save_pdf_upload(
                    file, state.settings.uploads_dir / session.id, state.settings.max_upload_mb << 20
                )
            except UploadRejected as exc:
                if not session_id:  # the session was made for this request: nothing of it may remain
                    await state.runs.abandon(run_id)
                    await store.delete_session(state.db, session, data_dirs=[state.settings.uploads_dir])
                raise ApiError(exc.status, exc.message) from exc
            attachment = {
                "kind": "pdf",
                "path": str(saved.path),
                "sha256": saved.sha256,
                "file_name": saved.file_name,
            }
        user_extra = {"thread_id": thread, **({"attachment": attachment["file_name"]} if attachment else {})}
        await store.add_message(state.db, session.id, "user", message, extra=user_extra)
        turn = ChatTurn(user, session, thread, message, attachment, public_base_url(request, state))

        async def body(emitter: Emitter) -> None:
            await chat_run(emitter, state, turn)

        return await _start(state, run_id, "chat", body, turn)


NOTHING_PENDING = "该会话没有待审批的计划"
NO_SUCH_APPROVAL = "该审批项不存在或已处理（interrupt_id 不在待审批列表中）"


class ResumeBody(BaseModel):
    session_id: IdText = Field(min_length=1, max_length=128, pattern=SESSION_ID_PATTERN)
    thread_id: IdText | None = Field(default=None, max_length=128, pattern=SESSION_ID_PATTERN)
    action: Literal["approve", "reject", "cancel"]
    interrupt_id: IdText | None = Field(
        default=None,
        max_length=64,
        pattern=r"^[0-9A-Za-z_-]+$",
        description="只处理这一项审批（interrupt 事件的 interrupt_ids 之一）；不填则处理全部待审批项",
    )


@resume_router.post("/resume")
async def resume(
    request: Request, body: ResumeBody, state: StateDep, user: CurrentUser
) -> EventSourceResponse:
    """Approve, reject or cancel the pending plans: all of them, or the one ``interrupt_id``. 404 unknown
    session (or another user's) or a ``thread_id`` without a conversation; 409 nothing pending (or not
    that ``interrupt_id``), or a turn still running on the session. A decision whose run ended without
    resolving its approval (a failure) is replaced: a pending approval can always be decided again."""
    session = await session_of(state, user.user_name, body.session_id)
    thread = body.thread_id or session.thread_id
    async with session_turn(state, "chat_resume", session.id, user.user_name, thread) as run_id:
        if body.thread_id and not await thread_exists(state, session.id, thread):
            raise ApiError(404, f"会话线程 {thread} 不存在")
        pending = await pending_interrupts(state, session.id, thread)
        if not pending:
            raise ApiError(409, NOTHING_PENDING)
        chosen = [p.id for p in pending if body.interrupt_id in (None, p.id)]
        if not chosen:
            raise ApiError(409, NO_SUCH_APPROVAL)
        await store.record_approvals(
            state.db, session.id, thread, chosen, body.action, user.user_name, run_id
        )
        turn = ChatTurn(user, session, thread, "", None, public_base_url(request, state))

        async def run_body(emitter: Emitter) -> None:
            await resume_run(emitter, state, turn, body.action, chosen)

        return await _start(state, run_id, "chat_resume", run_body, turn)
