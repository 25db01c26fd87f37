"""The provenance graph of one app: the store chosen in the settings (``VENT_GRAPH_BACKEND``: the
embedded tables, or Neo4j with the embedded store beside it), the recorder fed by the run manager's end
of runs, and its readiness check (Neo4j optional: unreachable → ``degraded``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from vent_agent.graph.embedded import EmbeddedGraphStore
from vent_agent.graph.mirrored import MirroredGraphStore
from vent_agent.graph.neo4j_store import Neo4jGraphStore
from vent_agent.graph.recorder import GraphRecorder, rebuild_graph
from vent_agent.graph.store import GraphStore
from vent_agent.observability.readiness import ReadinessRegistry
from vent_agent.runs.manager import RunManager
from vent_agent.settings import Settings
from vent_agent.store.db import Database

NEO4J_DEGRADES = "Neo4j 溯源图（查询改用内置存储）"
"""What ``/readyz`` says stops working when Neo4j does not answer."""
EMBEDDED_DEGRADES = "溯源图查询（运行 vent-agent graph rebuild 重建）"
"""What stops working when the embedded graph cannot be read (its tables lost): runs go on."""


@dataclass
class GraphService:
    """The app's graph: ``store`` (queries), ``recorder`` (writes as runs end)."""

    store: GraphStore
    recorder: GraphRecorder
    settings: Settings
    db: Database

    async def rebuild(self) -> int:
        """Make the graph again from the event log; returns the runs projected."""
        await self.recorder.idle()
        return await rebuild_graph(
            self.db, self.store, self.settings.reports_dir, self.settings.regulation_edition
        )


def make_store(settings: Settings, db: Database) -> GraphStore:
    """The store the settings choose; raises ValueError for ``neo4j`` without ``VENT_NEO4J_URI``."""
    embedded = EmbeddedGraphStore(db)
    if settings.graph_backend == "embedded":
        return embedded
    if not settings.neo4j_uri:
        raise ValueError("VENT_GRAPH_BACKEND=neo4j 需要设置 VENT_NEO4J_URI")
    password = settings.neo4j_password.get_secret_value() if settings.neo4j_password else None
    neo4j = Neo4jGraphStore.connect(
        settings.neo4j_uri, settings.neo4j_user, password, settings.neo4j_database
    )
    return MirroredGraphStore(neo4j, embedded)


@asynccontextmanager
async def open_graph(settings: Settings, db: Database, runs: RunManager) -> AsyncIterator[GraphService]:
    """The app's graph for the life of the app: the store prepared (Neo4j unreachable is not an
    error), the recorder listening to the ends of runs; on exit the queued runs are written."""
    store = make_store(settings, db)
    await store.prepare()
    recorder = GraphRecorder(db, store, settings.reports_dir, settings.regulation_edition)
    runs.finish_listeners.append(recorder.run_finished)
    try:
        yield GraphService(store, recorder, settings, db)
    finally:
        runs.finish_listeners.remove(recorder.run_finished)
        await recorder.stop()
        await store.close()


def register_graph_readiness(registry: ReadinessRegistry, graph: GraphService) -> None:
    """``/readyz``'s ``graph`` check: the store answers. Optional: the graph is derived, runs go on
    without it; the instance is then ``degraded``."""

    async def check() -> str:
        return await graph.store.ping()

    degrades = NEO4J_DEGRADES if isinstance(graph.store, MirroredGraphStore) else EMBEDDED_DEGRADES
    registry.register("graph", check, timeout_s=5.0, degrades=degrades)
