"""Database tables (SQLModel models) of the embedded provenance graph: the runs projected into it (with
their owner, for the ownership rules of runs), its nodes and its edges.

A node or an edge written for a run carries that run's ``run_id`` (a run's part of the graph is replaced
whole when it is projected again); a node shared by runs (a regulation article, a reference document
of a month) has none and is written once. The tables are derived: :mod:`vent_agent.graph.rebuild`
makes them again from the event log.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, Text
from sqlmodel import Field, SQLModel

from vent_agent.store.models import utcnow


class GraphRunRow(SQLModel, table=True):
    """A run projected into the graph: its ``kind`` (review, chat, click_tun…), its session and owner
    (``user_name``: the run's user or its session's; None for a run outside sessions) and when it was
    projected (UTC)."""

    __tablename__ = "graph_runs"

    run_id: str = Field(primary_key=True, max_length=64)
    kind: str = Field(max_length=32)
    session_id: str | None = Field(default=None, max_length=128, index=True)
    user_name: str | None = Field(default=None, max_length=128, index=True)
    created_at: datetime = Field(default_factory=utcnow)
    projected_at: datetime = Field(default_factory=utcnow)


class GraphNodeRow(SQLModel, table=True):
    """A node: ``id`` (``claim:<report>:1``, ``src:rule:2025:192``…), ``kind`` (Request, Task, ToolCall,
    Artifact, Claim, Evidence, Source), a Chinese ``label``, the ``run_id`` it belongs to (None: shared)
    and its properties as JSON."""

    __tablename__ = "graph_nodes"

    id: str = Field(primary_key=True, max_length=255)
    kind: str = Field(max_length=16, index=True)
    label: str = Field(sa_column=Column(Text, nullable=False))
    run_id: str | None = Field(default=None, max_length=64, index=True)
    props: str = Field(default="{}", sa_column=Column(Text, nullable=False))


class GraphEdgeRow(SQLModel, table=True):
    """An edge ``src`` → ``dst`` of ``kind`` (next, produces, supports, stated_in, extracts, cites),
    written for ``run_id``."""

    __tablename__ = "graph_edges"

    id: int | None = Field(default=None, primary_key=True)
    src: str = Field(max_length=255, index=True)
    dst: str = Field(max_length=255, index=True)
    kind: str = Field(max_length=16)
    run_id: str = Field(max_length=64, index=True)
