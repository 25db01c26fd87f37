"""Runs record the LangGraph thread of their turn (``thread_id``), so that a run closed by another
worker (its own died) ends with the ``done`` its kind sends, ``thread_id`` included: a chat turn's thread
is chosen by the request and known nowhere else once its worker is gone. NULL for kinds whose thread is
the run itself (click interpretations, reviews) and for runs recorded before.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # a store made by ``create_all`` before migrations existed has the models' columns already
    if "thread_id" in {c["name"] for c in sa.inspect(op.get_bind()).get_columns("runs")}:
        return
    with op.batch_alter_table("runs") as batch:
        batch.add_column(sa.Column("thread_id", sa.String(length=128), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        batch.drop_column("thread_id")
