"""The run log keeps one index on its runs: ``uq_run_events_run_seq`` (run_id, seq), which every read by
run (replay after a seq, the last seq, deletion) uses; the separate ``ix_run_events_run_id`` duplicated
its leading column and cost every event's insert a second index update (about a quarter of the insert
on SQLite).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.drop_index("ix_run_events_run_id", table_name="run_events", if_exists=True)


def downgrade() -> None:
    op.create_index("ix_run_events_run_id", "run_events", ["run_id"], unique=False)
