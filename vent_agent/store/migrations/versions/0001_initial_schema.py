"""Initial schema: runs and their event log, reports, sessions, messages, preferences, service state,
approvals, and the workers' heartbeats.

A database made before migrations existed (``create_all``) already has some of these tables: only the
missing ones are created, then the database is at this revision.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.schema import SchemaItem

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _tz() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def _create(name: str, *items: SchemaItem, indexes: Sequence[str] = ()) -> None:
    """Create table ``name`` with an ``ix_<name>_<column>`` index per column of ``indexes``, unless it
    exists already."""
    if sa.inspect(op.get_bind()).has_table(name):
        return
    op.create_table(name, *items)
    for column in indexes:
        op.create_index(f"ix_{name}_{column}", name, [column], unique=False)


def upgrade() -> None:
    _create(
        "runs",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("session_id", sa.String(length=64), nullable=True),
        sa.Column("user_name", sa.String(length=128), nullable=True),
        sa.Column("created_at", _tz(), nullable=False),
        sa.Column("finished_at", _tz(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("last_seq", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        indexes=("kind", "session_id", "status"),
    )
    _create(
        "run_events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(length=32), nullable=False),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.Column("created_at", _tz(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("run_id", "seq", name="uq_run_events_run_seq"),
        indexes=("run_id",),
    )
    _create(
        "reports",
        sa.Column("id", sa.String(length=96), nullable=False),
        sa.Column("run_id", sa.String(length=64), nullable=True),
        sa.Column("session_id", sa.String(length=64), nullable=True),
        sa.Column("file_name", sa.String(length=255), nullable=False),
        sa.Column("path", sa.Text(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("created_at", _tz(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        indexes=("run_id", "session_id"),
    )
    _create(
        "sessions",
        sa.Column("id", sa.String(length=128), nullable=False),
        sa.Column("user_name", sa.String(length=128), nullable=False),
        sa.Column("title", sa.String(length=100), nullable=False),
        sa.Column("mode", sa.String(length=8), nullable=False),
        sa.Column("pinned", sa.Boolean(), nullable=False),
        sa.Column("thread_id", sa.String(length=128), nullable=False),
        sa.Column("created_at", _tz(), nullable=False),
        sa.Column("updated_at", _tz(), nullable=False),
        sa.Column("context_usage", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        indexes=("user_name",),
    )
    _create(
        "messages",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("session_id", sa.String(length=128), nullable=False),
        sa.Column("run_id", sa.String(length=64), nullable=True),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("extra", sa.Text(), nullable=True),
        sa.Column("created_at", _tz(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        indexes=("run_id", "session_id"),
    )
    _create(
        "user_preferences",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_name", sa.String(length=128), nullable=False),
        sa.Column("key", sa.String(length=100), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.Column("created_at", _tz(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("user_name", "key", name="uq_user_preferences_user_key"),
        indexes=("user_name",),
    )
    _create(
        "service_state",
        sa.Column("key", sa.String(length=128), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.Column("updated_at", _tz(), nullable=False),
        sa.Column("updated_by", sa.String(length=128), nullable=True),
        sa.PrimaryKeyConstraint("key"),
    )
    _create(
        "approvals",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("session_id", sa.String(length=128), nullable=False),
        sa.Column("thread_id", sa.String(length=128), nullable=False),
        sa.Column("interrupt_id", sa.String(length=64), nullable=False),
        sa.Column("run_id", sa.String(length=64), nullable=True),
        sa.Column("action", sa.String(length=16), nullable=False),
        sa.Column("user_name", sa.String(length=128), nullable=False),
        sa.Column("created_at", _tz(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("session_id", "thread_id", "interrupt_id", name="uq_approvals_interrupt"),
        indexes=("session_id",),
    )
    _create(
        "workers",
        sa.Column("id", sa.String(length=96), nullable=False),
        sa.Column("host", sa.String(length=255), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("started_at", _tz(), nullable=False),
        sa.Column("heartbeat_at", _tz(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        indexes=("heartbeat_at",),
    )
    _create(
        "run_workers",
        sa.Column("run_id", sa.String(length=64), nullable=False),
        sa.Column("worker_id", sa.String(length=96), nullable=False),
        sa.Column("cancel_requested", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("run_id"),
        indexes=("worker_id",),
    )


def downgrade() -> None:
    for name in (
        "run_workers",
        "workers",
        "approvals",
        "service_state",
        "user_preferences",
        "messages",
        "sessions",
        "reports",
        "run_events",
        "runs",
    ):
        op.drop_table(name)
