"""Session rows and their messages. Every read goes through :func:`owned_session`: a session belongs to
the user who created it, and any other user gets :class:`SessionNotFound` (404 on every route)."""

from __future__ import annotations

import json
import secrets
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import delete, func, update
from sqlmodel import col, select

from vent_agent.store.db import Database
from vent_agent.store.models import (
    ApprovalRow,
    EventRow,
    MessageRow,
    ReportRow,
    RunRow,
    SessionRow,
    utcnow,
)
from vent_agent.times import local_time

MODES = ("plan", "full")
TITLE_MAX = 100


class SessionNotFound(Exception):
    """No such session for this user (it may exist for another user: the answer is the same)."""


def new_session_id() -> str:
    """An unguessable session id (URL- and header-safe)."""
    return secrets.token_urlsafe(16)


def default_title(message: str) -> str:
    """A title from the first message: its first line, at most 30 characters."""
    first = " ".join((message or "").split())
    return (first[:30] + "…") if len(first) > 30 else (first or "新会话")


async def owned_session(db: Database, user_name: str, session_id: str) -> SessionRow:
    """The session ``session_id`` if ``user_name`` owns it. Raises :class:`SessionNotFound`."""
    async with db.session() as s:
        row = await s.get(SessionRow, session_id)
    if row is None or row.user_name != user_name:
        raise SessionNotFound(session_id)
    return row


async def session_owner(db: Database, session_id: str) -> str | None:
    """The user the session ``session_id`` belongs to; None when there is no such session."""
    async with db.session() as s:
        row = await s.get(SessionRow, session_id)
    return row.user_name if row is not None else None


async def create_session(
    db: Database,
    user_name: str,
    *,
    mode: str = "full",
    title: str = "",
    session_id: str | None = None,
    thread_id: str | None = None,
) -> SessionRow:
    """A new session owned by ``user_name``; ``thread_id`` defaults to the session id."""
    sid = session_id or new_session_id()
    row = SessionRow(
        id=sid,
        user_name=user_name,
        mode=mode if mode in MODES else "full",
        title=title[:TITLE_MAX],
        thread_id=thread_id or sid,
    )
    async with db.session() as s:
        s.add(row)
        await s.commit()
    return row


async def list_sessions(
    db: Database, user_name: str, limit: int, offset: int, tz: str = "Asia/Shanghai"
) -> tuple[list[dict[str, Any]], int]:
    """The user's sessions, pinned first then the most recently active, with their message counts."""
    async with db.session() as s:
        total = (
            await s.exec(
                select(func.count()).select_from(SessionRow).where(SessionRow.user_name == user_name)
            )
        ).one()
        counts = (
            select(MessageRow.session_id, func.count().label("n")).group_by(MessageRow.session_id).subquery()
        )
        rows = await s.exec(
            select(SessionRow, counts.c.n)
            .join(counts, counts.c.session_id == SessionRow.id, isouter=True)
            .where(SessionRow.user_name == user_name)
            .order_by(col(SessionRow.pinned).desc(), col(SessionRow.updated_at).desc(), col(SessionRow.id))
            .offset(offset)
            .limit(limit)
        )
        items = [
            {
                "session_id": r.id,
                "title": r.title,
                "message_count": int(n or 0),
                "user_name": r.user_name,
                "sort_order": 1 if r.pinned else 0,
                "mode": r.mode,
                "thread_id": r.thread_id,
                "created_at": local_time(r.created_at, tz),
                "updated_at": local_time(r.updated_at, tz),
            }
            for r, n in rows
        ]
    return items, int(total)


async def update_session(db: Database, session_id: str, **values: Any) -> None:
    """Set columns of a session (the caller has checked ownership); ``updated_at`` is not touched."""
    async with db.session() as s:
        await s.exec(update(SessionRow).where(col(SessionRow.id) == session_id).values(**values))
        await s.commit()


async def touch_session(db: Database, session_id: str) -> None:
    """Mark the session active now (it moves up in the list)."""
    await update_session(db, session_id, updated_at=utcnow())


@dataclass
class DeletedSession:
    """What a delete removed, for the answer and the log."""

    runs: int
    messages: int
    files: int


async def delete_session(db: Database, session: SessionRow, *, data_dirs: list[Path]) -> DeletedSession:
    """Remove the session, its messages, runs, events, approvals and reports (rows and files). Files of
    the session under ``data_dirs`` (``<dir>/<session_id>/``) go too. Checkpoints are the caller's (the
    checkpointer's ``adelete_thread``)."""
    files = 0
    async with db.session() as s:
        run_ids = list(await s.exec(select(RunRow.id).where(RunRow.session_id == session.id)))
        reports = list(await s.exec(select(ReportRow).where(ReportRow.session_id == session.id)))
        for rep in reports:
            docx = Path(rep.path)
            for p in (docx, docx.parent / f"{rep.id}.provenance.json"):
                if p.is_file():
                    p.unlink()
                    files += 1
        n_msgs = (
            await s.exec(
                select(func.count()).select_from(MessageRow).where(MessageRow.session_id == session.id)
            )
        ).one()
        if run_ids:
            await s.exec(delete(EventRow).where(col(EventRow.run_id).in_(run_ids)))
            await s.exec(delete(RunRow).where(col(RunRow.id).in_(run_ids)))
        await s.exec(delete(ReportRow).where(col(ReportRow.session_id) == session.id))
        await s.exec(delete(MessageRow).where(col(MessageRow.session_id) == session.id))
        await s.exec(delete(ApprovalRow).where(col(ApprovalRow.session_id) == session.id))
        await s.exec(delete(SessionRow).where(col(SessionRow.id) == session.id))
        await s.commit()
    for d in data_dirs:
        target = d / session.id
        if target.is_dir() and target.resolve().parent == d.resolve():
            files += sum(1 for p in target.rglob("*") if p.is_file())
            shutil.rmtree(target, ignore_errors=True)
    return DeletedSession(runs=len(run_ids), messages=int(n_msgs), files=files)


async def add_message(
    db: Database,
    session_id: str,
    role: str,
    content: str,
    *,
    run_id: str | None = None,
    extra: dict[str, Any] | None = None,
) -> None:
    """Append one folded message (user or assistant) to the session."""
    async with db.session() as s:
        s.add(
            MessageRow(
                session_id=session_id,
                run_id=run_id,
                role=role,
                content=content,
                extra=json.dumps(extra, ensure_ascii=False) if extra else None,
            )
        )
        await s.exec(update(SessionRow).where(col(SessionRow.id) == session_id).values(updated_at=utcnow()))
        await s.commit()


async def history(
    db: Database, session_id: str, limit: int, offset: int, tz: str = "Asia/Shanghai"
) -> tuple[list[dict[str, Any]], int]:
    """The session's messages in order: ``{"role", "content", …extra}``, and the total count."""
    async with db.session() as s:
        total = (
            await s.exec(
                select(func.count()).select_from(MessageRow).where(MessageRow.session_id == session_id)
            )
        ).one()
        rows = await s.exec(
            select(MessageRow)
            .where(MessageRow.session_id == session_id)
            .order_by(col(MessageRow.id))
            .offset(offset)
            .limit(limit)
        )
        out = []
        for r in rows:
            item: dict[str, Any] = {"role": r.role, "content": r.content}
            if r.extra:
                item.update(json.loads(r.extra))
            if r.run_id:
                item["run_id"] = r.run_id
            item["created_at"] = local_time(r.created_at, tz)
            out.append(item)
    return out, int(total)


async def record_approvals(
    db: Database,
    session_id: str,
    thread_id: str,
    interrupt_ids: list[str],
    action: str,
    user_name: str,
    run_id: str,
) -> None:
    """Record who approved, rejected or cancelled each interrupt of ``interrupt_ids``, when, and in which
    run. The caller holds the session's turn (one run at a time per session) and has read the interrupts
    as still pending, so an earlier decision on one of them is stale (its run ended without resolving it,
    say the resume failed) and is replaced: a pending approval can always be decided again."""
    async with db.session() as s:
        await s.exec(
            delete(ApprovalRow).where(
                col(ApprovalRow.session_id) == session_id,
                col(ApprovalRow.thread_id) == thread_id,
                col(ApprovalRow.interrupt_id).in_(interrupt_ids),
            )
        )
        for interrupt_id in interrupt_ids:
            s.add(
                ApprovalRow(
                    session_id=session_id,
                    thread_id=thread_id,
                    interrupt_id=interrupt_id,
                    action=action,
                    user_name=user_name,
                    run_id=run_id,
                )
            )
        await s.commit()


async def thread_ids(db: Database, session: SessionRow) -> set[str]:
    """Every LangGraph thread the session used: its own and those named by its messages."""
    async with db.session() as s:
        rows = await s.exec(
            select(MessageRow.extra).where(MessageRow.session_id == session.id, MessageRow.role == "user")
        )
        named = {json.loads(x).get("thread_id") for x in rows if x}
    return {session.thread_id, session.id} | {t for t in named if isinstance(t, str) and t}


async def attachment_names(db: Database, session_id: str) -> list[str]:
    """The names of the files attached to the session's user turns (chat turns and reviews), in order,
    each once."""
    async with db.session() as s:
        rows = await s.exec(
            select(MessageRow.extra)
            .where(MessageRow.session_id == session_id, MessageRow.role == "user")
            .order_by(col(MessageRow.id))
        )
        named = [json.loads(x).get("attachment") for x in rows if x]
    return list(dict.fromkeys(n for n in named if isinstance(n, str) and n))


async def run_ids(db: Database, session_id: str) -> list[str]:
    """Ids of every run of the session."""
    async with db.session() as s:
        return list(await s.exec(select(RunRow.id).where(RunRow.session_id == session_id)))


async def running_run_ids(db: Database, session_id: str) -> list[str]:
    """Ids of the session's runs still running."""
    async with db.session() as s:
        rows = await s.exec(
            select(RunRow.id).where(RunRow.session_id == session_id, RunRow.status == "running")
        )
        return list(rows)
