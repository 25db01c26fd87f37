"""Sessions hold the run of their current turn (``active_run_id``): one turn at a time per session.

A chat or resume run claims the session by setting it (only where it is NULL or names a run that has
ended, in one conditional UPDATE); the run's end clears it.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("sessions") as batch:
        batch.add_column(sa.Column("active_run_id", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("sessions") as batch:
        batch.drop_column("active_run_id")
