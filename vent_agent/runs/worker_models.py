"""Database tables (SQLModel models) of the run layer's scale-out: the service processes (workers) with
their heartbeats, and which worker executes each run.

A worker that stops heart-beating is dead; its running runs are then marked failed by a survivor or by
the next worker to start (:mod:`vent_agent.runs.workers`).
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from vent_agent.store.models import utcnow


class WorkerRow(SQLModel, table=True):
    """One live service process. ``heartbeat_at`` (UTC) is refreshed every few seconds; a row whose
    heartbeat is older than the dead-after period belongs to a dead worker."""

    __tablename__ = "workers"

    id: str = Field(primary_key=True, max_length=96)
    host: str = Field(max_length=255)
    pid: int
    started_at: datetime = Field(default_factory=utcnow)
    heartbeat_at: datetime = Field(default_factory=utcnow, index=True)


class RunWorkerRow(SQLModel, table=True):
    """The worker executing a run (written with the run), and whether a cancel was asked for from
    another worker (``cancel_requested``: the owner polls it when no broker carries the request)."""

    __tablename__ = "run_workers"

    run_id: str = Field(primary_key=True, max_length=64)
    worker_id: str = Field(max_length=96, index=True)
    cancel_requested: bool = False
