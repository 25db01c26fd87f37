"""``vent-agent graph rebuild``: the provenance graph made again from the event log (the graph's tables
created where they are missing; with ``VENT_GRAPH_BACKEND=neo4j`` Neo4j and the embedded store both)."""

from __future__ import annotations

from vent_agent.graph.mirrored import MirroredGraphStore
from vent_agent.graph.recorder import rebuild_graph
from vent_agent.graph.service import make_store
from vent_agent.settings import Settings
from vent_agent.store.db import Database


async def run_rebuild(settings: Settings) -> int:
    """Rebuild the graph of the configured store; prints one Chinese line; returns the exit code (0; 1
    when Neo4j could not be written and only the embedded store was rebuilt)."""
    db = Database(settings.resolved_database_url)
    try:
        await db.migrate()
        store = make_store(settings, db)
        try:
            count = await rebuild_graph(db, store, settings.reports_dir, settings.regulation_edition)
        finally:
            await store.close()
    finally:
        await db.close()
    if isinstance(store, MirroredGraphStore) and not store.in_sync:
        print(f"溯源图已按事件日志重建：{count} 次运行（仅内置存储；Neo4j 写入失败：{store.last_error}）")
        return 1
    print(f"溯源图已按事件日志重建：{count} 次运行（{store.name}）")
    return 0
