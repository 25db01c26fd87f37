"""SQLModel tables: runs, their event log, and generated reports."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Column, Table, Text, UniqueConstraint
from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


def table_of(model: type[SQLModel]) -> Table:
    """The SQLAlchemy table of a SQLModel table class: its ``__table__``, looked up by name in the
    metadata (SQLModel sets ``__table__`` when the class is made but does not declare it to a type
    checker)."""
    return model.metadata.tables[str(model.__tablename__)]


def row_values(model: type[SQLModel], **values: Any) -> dict[str, Any]:
    """The column values of a new row of table ``model``: ``values`` and every other field's default,
    as ``model(**values).model_dump()`` gives them but without building the instrumented instance (about
    90 µs each: a cost on the path of every run's start). Raises ValueError when a required field is
    missing."""
    out: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        if name in values:
            out[name] = values[name]
        elif field.default_factory is not None:
            out[name] = field.default_factory()  # type: ignore[call-arg]
        elif field.is_required():
            raise ValueError(f"{model.__name__}: {name} is required")
        else:
            out[name] = field.default
    return out


class RunRow(SQLModel, table=True):
    """One streamed request executed as a background run.

    ``kind``: click_tun, click_device, review, chat…; ``status``: running, done, failed, cancelled.
    ``session_id`` / ``user_name`` are None for click interpretations (no session rows, spec).
    ``thread_id``: the LangGraph thread of a chat turn (its ``done`` carries it); None where the run is
    its own thread (click interpretations, reviews: their ``done`` carries the run id).
    """

    __tablename__ = "runs"

    id: str = Field(primary_key=True, max_length=64)
    kind: str = Field(max_length=32, index=True)
    status: str = Field(default="running", max_length=16, index=True)
    session_id: str | None = Field(default=None, max_length=64, index=True)
    user_name: str | None = Field(default=None, max_length=128)
    thread_id: str | None = Field(default=None, max_length=128)
    created_at: datetime = Field(default_factory=utcnow)
    finished_at: datetime | None = None
    error: str | None = Field(default=None, sa_column=Column(Text))
    last_seq: int = 0


class EventRow(SQLModel, table=True):
    """One event of a run, appended before it is sent. ``seq`` is 1-based and dense per run."""

    __tablename__ = "run_events"
    __table_args__ = (UniqueConstraint("run_id", "seq", name="uq_run_events_run_seq"),)

    id: int | None = Field(default=None, primary_key=True)
    run_id: str = Field(max_length=64)  # looked up through uq_run_events_run_seq (run_id, seq)
    seq: int
    type: str = Field(max_length=32)
    payload: str = Field(sa_column=Column(Text, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)


class ReportRow(SQLModel, table=True):
    """A generated Word report, served only by its unguessable ``id``."""

    __tablename__ = "reports"

    id: str = Field(primary_key=True, max_length=96)
    run_id: str | None = Field(default=None, max_length=64, index=True)
    session_id: str | None = Field(default=None, max_length=64, index=True)
    file_name: str = Field(max_length=255)
    path: str = Field(sa_column=Column(Text, nullable=False))
    sha256: str = Field(max_length=64)
    created_at: datetime = Field(default_factory=utcnow)


class SessionRow(SQLModel, table=True):
    """A chat session; belongs to the user who created it (``user_name``), invisible to any other.

    ``mode``: plan | full. ``pinned`` sorts first (``sort_order`` 1 in the spec). ``thread_id`` is the
    LangGraph thread, by default the session id. ``context_usage``: JSON of the last request's token
    usage (``GET …/context``), None until a model has reported one. ``active_run_id``: the chat,
    resume or session review run of the turn in progress (one turn at a time; claimed and released by
    :class:`vent_agent.runs.manager.RunManager`), None between turns.
    """

    __tablename__ = "sessions"

    id: str = Field(primary_key=True, max_length=128)
    user_name: str = Field(max_length=128, index=True)
    title: str = Field(default="", max_length=100)
    mode: str = Field(default="full", max_length=8)
    pinned: bool = False
    thread_id: str = Field(max_length=128)
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    context_usage: str | None = Field(default=None, sa_column=Column(Text))
    active_run_id: str | None = Field(default=None, max_length=64)


class MessageRow(SQLModel, table=True):
    """One folded turn of a session: the user's message, or the assistant's final text with its tool
    calls, todos, references and suggested follow-ups (JSON lists, None when absent)."""

    __tablename__ = "messages"

    id: int | None = Field(default=None, primary_key=True)
    session_id: str = Field(max_length=128, index=True)
    run_id: str | None = Field(default=None, max_length=64, index=True)
    role: str = Field(max_length=16)
    content: str = Field(default="", sa_column=Column(Text, nullable=False))
    extra: str | None = Field(default=None, sa_column=Column(Text))
    created_at: datetime = Field(default_factory=utcnow)


class PreferenceRow(SQLModel, table=True):
    """A user's saved preference (``save_user_preference``), put into that user's prompts."""

    __tablename__ = "user_preferences"
    __table_args__ = (UniqueConstraint("user_name", "key", name="uq_user_preferences_user_key"),)

    id: int | None = Field(default=None, primary_key=True)
    user_name: str = Field(max_length=128, index=True)
    key: str = Field(max_length=100)
    value: str = Field(sa_column=Column(Text, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)


class ServiceStateRow(SQLModel, table=True):
    """Service-wide state every worker must agree on (current model, thinking level, skill switches):
    one JSON ``value`` per ``key``."""

    __tablename__ = "service_state"

    key: str = Field(primary_key=True, max_length=128)
    value: str = Field(sa_column=Column(Text, nullable=False))
    updated_at: datetime = Field(default_factory=utcnow)
    updated_by: str | None = Field(default=None, max_length=128)


class ApprovalRow(SQLModel, table=True):
    """Who approved or rejected a plan-mode interrupt, and when. One decision per interrupt: the
    unique key makes a double resume (two tabs, two workers) fail cleanly."""

    __tablename__ = "approvals"
    __table_args__ = (
        UniqueConstraint("session_id", "thread_id", "interrupt_id", name="uq_approvals_interrupt"),
    )

    id: int | None = Field(default=None, primary_key=True)
    session_id: str = Field(max_length=128, index=True)
    thread_id: str = Field(max_length=128)
    interrupt_id: str = Field(default="", max_length=64)
    run_id: str | None = Field(default=None, max_length=64)
    action: str = Field(max_length=16)
    user_name: str = Field(max_length=128)
    created_at: datetime = Field(default_factory=utcnow)


class AlarmAckRow(SQLModel, table=True):
    """A user's acknowledgement of an alarm of the operator's overview (``alarm_key``: the 16-hex-digit id
    of :func:`vent_agent.monitor.overview.alarm_key`). One per user and alarm: acknowledging again keeps
    the first time."""

    __tablename__ = "alarm_acks"
    __table_args__ = (UniqueConstraint("alarm_key", "user_name", name="uq_alarm_acks_key_user"),)

    id: int | None = Field(default=None, primary_key=True)
    alarm_key: str = Field(max_length=32, index=True)
    user_name: str = Field(max_length=128)
    acked_at: datetime = Field(default_factory=utcnow)
