"""Writing the provenance graph as runs happen, and rebuilding it from the event log.

When a run of this worker ends (:class:`~vent_agent.runs.manager.RunManager` calls
:meth:`GraphRecorder.run_finished`), its id is queued and the recorder's own task projects the run's
logged events (:func:`vent_agent.graph.project.project_run`) into the store: the run never waits for the
graph, and a failure to write it is logged, never raised into the run. A graph lost or never written
(a run another worker closed as lost, a store that was down, dropped tables) is made again from the log
by :func:`rebuild_graph` (``vent-agent graph rebuild``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from pathlib import Path
from typing import Any

from sqlmodel import col, select

from vent_agent.graph.model import RunGraph, RunOwner
from vent_agent.graph.project import project_run
from vent_agent.graph.store import GraphStore
from vent_agent.review.outputs.provenance import ProvenanceRecord, load_record
from vent_agent.sessions.store import session_owner
from vent_agent.store.db import Database
from vent_agent.store.models import EventRow, MessageRow, RunRow

log = logging.getLogger(__name__)

STOP_WAIT_S = 10.0
"""How long shutting down waits for the runs still queued to be written (s)."""


async def run_events(db: Database, run_id: str) -> list[dict[str, Any]]:
    """The logged events of ``run_id`` (payloads, ``seq`` order)."""
    async with db.session() as s:
        rows = (
            await s.exec(
                select(EventRow.payload).where(EventRow.run_id == run_id).order_by(col(EventRow.seq))
            )
        ).all()
    return [json.loads(p) for p in rows]


async def _request_text(db: Database, run: RunRow) -> str | None:
    """What the user asked in a chat turn: the first user message of its session stored from the
    run's start on (the route stores it just after reserving the run); None for other kinds."""
    if run.kind != "chat" or run.session_id is None:
        return None
    query = select(MessageRow.content).where(
        MessageRow.session_id == run.session_id,
        MessageRow.role == "user",
        MessageRow.created_at >= run.created_at,
    )
    async with db.session() as s:
        return (await s.exec(query.order_by(col(MessageRow.id)))).first()


class GraphProjector:
    """Projects a run of the log into a graph store: the run's row and owner, its events, the user's
    message, and the provenance records of the reports it produced (under ``reports_dir``)."""

    def __init__(self, db: Database, store: GraphStore, reports_dir: Path, edition: str) -> None:
        self.db = db
        self.store = store
        self.reports_dir = reports_dir
        self.edition = edition

    def _record(self, report_id: str) -> ProvenanceRecord | None:
        try:
            return load_record(self.reports_dir, report_id)
        except (OSError, ValueError) as exc:
            log.warning("graph: unreadable provenance record %s: %s", report_id, exc)
            return None

    async def graph_of(self, run: RunRow) -> RunGraph:
        """The graph of one run, from the log."""
        user = run.user_name
        if user is None and run.session_id is not None:
            user = await session_owner(self.db, run.session_id)
        owner = RunOwner(
            run_id=run.id, kind=run.kind, session_id=run.session_id, user_name=user, created_at=run.created_at
        )
        events = await run_events(self.db, run.id)
        request = await _request_text(self.db, run)
        return await asyncio.to_thread(
            project_run, owner, events, self._record, request_text=request, edition=self.edition
        )

    async def project(self, run_id: str) -> RunGraph | None:
        """Project ``run_id`` and write it; None when the run is unknown."""
        async with self.db.session() as s:
            run = await s.get(RunRow, run_id)
        if run is None:
            return None
        graph = await self.graph_of(run)
        await self.store.write_run(graph)
        return graph


class GraphRecorder(GraphProjector):
    """Writes each ended run's graph from a queue, in a task of its own (see the module's doc)."""

    def __init__(self, db: Database, store: GraphStore, reports_dir: Path, edition: str) -> None:
        super().__init__(db, store, reports_dir, edition)
        self._queue: asyncio.Queue[str] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self.failures = 0

    def run_finished(self, run_id: str) -> None:
        """Queue ``run_id`` for projection and return at once (a run's end listener)."""
        self._queue.put_nowait(run_id)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._drain(), name="graph-recorder")

    async def _drain(self) -> None:
        while not self._queue.empty():
            run_id = self._queue.get_nowait()
            try:
                await self.project(run_id)
            except Exception as exc:  # the graph is derived: the log keeps what a rebuild needs
                self.failures += 1
                log.warning(
                    "graph: run %s not written (%s: %s); rebuild from the log",
                    run_id,
                    type(exc).__name__,
                    exc,
                )
            finally:
                self._queue.task_done()

    async def idle(self) -> None:
        """Wait until every queued run has been written (or failed)."""
        await self._queue.join()

    async def stop(self) -> None:
        """Let the queued runs be written (at most :data:`STOP_WAIT_S`), then stop."""
        if self._task is not None and not self._task.done():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._task), STOP_WAIT_S)
            self._task.cancel()


async def rebuild_graph(db: Database, store: GraphStore, reports_dir: Path, edition: str) -> int:
    """Make the whole graph again from the event log (the graph's tables created where missing, its
    content replaced); returns how many runs were projected. Running runs are left to their end."""
    await store.prepare()
    await store.clear()
    projector = GraphProjector(db, store, reports_dir, edition)
    async with db.session() as s:
        runs = (
            await s.exec(select(RunRow).where(RunRow.status != "running").order_by(col(RunRow.created_at)))
        ).all()
    for run in runs:
        await store.write_run(await projector.graph_of(run))
    return len(runs)
