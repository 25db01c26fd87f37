"""The embedded provenance graph (issue 28): ``graph_runs`` (the runs projected, with their owner),
``graph_nodes`` and ``graph_edges`` (:mod:`vent_agent.graph.tables`). Derived from the event log: a
table missing is made again here or by :func:`vent_agent.graph.rebuild.rebuild_graph`, which skips the
ones present, as this migration does.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    present = set(sa.inspect(op.get_bind()).get_table_names())
    if "graph_edges" not in present:
        op.create_table(
            "graph_edges",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("src", sa.String(length=255), nullable=False),
            sa.Column("dst", sa.String(length=255), nullable=False),
            sa.Column("kind", sa.String(length=16), nullable=False),
            sa.Column("run_id", sa.String(length=64), nullable=False),
            sa.PrimaryKeyConstraint("id"),
        )
        for column in ("dst", "run_id", "src"):
            op.create_index(f"ix_graph_edges_{column}", "graph_edges", [column], unique=False)
    if "graph_nodes" not in present:
        op.create_table(
            "graph_nodes",
            sa.Column("id", sa.String(length=255), nullable=False),
            sa.Column("kind", sa.String(length=16), nullable=False),
            sa.Column("label", sa.Text(), nullable=False),
            sa.Column("run_id", sa.String(length=64), nullable=True),
            sa.Column("props", sa.Text(), nullable=False),
            sa.PrimaryKeyConstraint("id"),
        )
        for column in ("kind", "run_id"):
            op.create_index(f"ix_graph_nodes_{column}", "graph_nodes", [column], unique=False)
    if "graph_runs" not in present:
        op.create_table(
            "graph_runs",
            sa.Column("run_id", sa.String(length=64), nullable=False),
            sa.Column("kind", sa.String(length=32), nullable=False),
            sa.Column("session_id", sa.String(length=128), nullable=True),
            sa.Column("user_name", sa.String(length=128), nullable=True),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
            sa.Column("projected_at", sa.DateTime(timezone=True), nullable=False),
            sa.PrimaryKeyConstraint("run_id"),
        )
        for column in ("session_id", "user_name"):
            op.create_index(f"ix_graph_runs_{column}", "graph_runs", [column], unique=False)


def downgrade() -> None:
    for table in ("graph_runs", "graph_nodes", "graph_edges"):
        op.drop_table(table)
