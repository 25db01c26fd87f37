"""SQLModel tables: runs, their event log, and generated reports."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Column, Text, UniqueConstraint
from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


class RunRow(SQLModel, table=True):
    """One streamed request executed as a background run.

    ``kind``: click_tun, click_device, review, chat…; ``status``: running, done, failed, cancelled.
    ``session_id`` / ``user_name`` are None for click interpretations (no session rows, spec).
    """

    __tablename__ = "runs"

    id: str = Field(primary_key=True, max_length=64)
    kind: str = Field(max_length=32, index=True)
    status: str = Field(default="running", max_length=16, index=True)
    session_id: str | None = Field(default=None, max_length=64, index=True)
    user_name: str | None = Field(default=None, max_length=128)
    created_at: datetime = Field(default_factory=utcnow)
    finished_at: datetime | None = None
    error: str | None = Field(default=None, sa_column=Column(Text))
    last_seq: int = 0


class EventRow(SQLModel, table=True):
    """One event of a run, appended before it is sent. ``seq`` is 1-based and dense per run."""

    __tablename__ = "run_events"
    __table_args__ = (UniqueConstraint("run_id", "seq", name="uq_run_events_run_seq"),)

    id: int | None = Field(default=None, primary_key=True)
    run_id: str = Field(max_length=64, index=True)
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
