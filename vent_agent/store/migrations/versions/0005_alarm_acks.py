"""Alarm acknowledgements of the operator's overview (``alarm_acks``): one per user and alarm.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # a store made by ``create_all`` before migrations existed has the models' tables already
    if "alarm_acks" in sa.inspect(op.get_bind()).get_table_names():
        return
    op.create_table(
        "alarm_acks",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("alarm_key", sa.String(length=32), nullable=False),
        sa.Column("user_name", sa.String(length=128), nullable=False),
        sa.Column("acked_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("alarm_key", "user_name", name="uq_alarm_acks_key_user"),
    )
    op.create_index("ix_alarm_acks_alarm_key", "alarm_acks", ["alarm_key"])


def downgrade() -> None:
    op.drop_index("ix_alarm_acks_alarm_key", table_name="alarm_acks")
    op.drop_table("alarm_acks")
