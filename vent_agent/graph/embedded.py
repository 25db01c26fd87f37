"""The embedded provenance-graph store: tables of the service's own database (SQLite or PostgreSQL,
:mod:`vent_agent.graph.tables`), chains followed by recursive queries (``WITH RECURSIVE``) that both
dialects run alike."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import delete, insert, select, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlmodel import SQLModel

from vent_agent.graph.model import (
    ARTIFACT_PREFIX,
    MAX_DEPTH,
    UPSTREAM_FROM_DST,
    UPSTREAM_FROM_SRC,
    ClaimHit,
    Edge,
    Node,
    RunGraph,
    RunOwner,
    Subgraph,
)
from vent_agent.graph.store import ClaimsAnswer, visible
from vent_agent.graph.tables import GraphEdgeRow, GraphNodeRow, GraphRunRow
from vent_agent.store.db import Database
from vent_agent.store.models import table_of, utcnow

NODES, EDGES, RUNS = table_of(GraphNodeRow), table_of(GraphEdgeRow), table_of(GraphRunRow)
TABLES = (NODES, EDGES, RUNS)
MAX_CHAIN = 10_000
"""Steps of a run's task chain followed at most."""
_FROM_DST = ", ".join(f"'{k}'" for k in UPSTREAM_FROM_DST)
_FROM_SRC = ", ".join(f"'{k}'" for k in UPSTREAM_FROM_SRC)
# up: from a claim to what it rests on (an artifact ends the walk: the run that made it is not support); down: from a source to what rests on it (the same edges reversed)
_UP = f"""
WITH RECURSIVE walk(id, depth) AS (
  SELECT CAST(:start AS VARCHAR(255)), 0
  UNION
  SELECT CASE WHEN e.kind IN ({_FROM_DST}) THEN e.src ELSE e.dst END, walk.depth + 1
  FROM graph_edges e JOIN walk
    ON (e.kind IN ({_FROM_DST}) AND e.dst = walk.id AND walk.id NOT LIKE '{ARTIFACT_PREFIX}%')
    OR (e.kind IN ({_FROM_SRC}) AND e.src = walk.id)
  WHERE walk.depth < :max_depth
)
SELECT DISTINCT id FROM walk
"""
_DOWN = f"""
WITH RECURSIVE walk(origin, id, depth) AS (
  SELECT id, id, 0 FROM graph_nodes WHERE kind IN ('Source', 'Artifact') AND {{match}}
  UNION
  SELECT walk.origin, CASE WHEN e.kind IN ({_FROM_DST}) THEN e.dst ELSE e.src END, walk.depth + 1
  FROM graph_edges e JOIN walk
    ON (e.kind IN ({_FROM_DST}) AND e.src = walk.id) OR (e.kind IN ({_FROM_SRC}) AND e.dst = walk.id)
  WHERE walk.depth < :max_depth
)
SELECT DISTINCT walk.origin, walk.id, n.kind, n.run_id FROM walk JOIN graph_nodes n ON n.id = walk.id
"""
_CHAIN = """
WITH RECURSIVE walk(id, depth) AS (
  SELECT CAST(:start AS VARCHAR(255)), 0
  UNION
  SELECT e.dst, walk.depth + 1 FROM graph_edges e JOIN walk ON e.src = walk.id
  WHERE e.run_id = :run_id AND e.kind IN ('next', 'produces') AND walk.depth < :max_depth
)
SELECT DISTINCT id FROM walk
"""


def like_pattern(term: str) -> str:
    """``%term%`` with LIKE's wildcards in ``term`` escaped (by ``\\``)."""
    return "%" + term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _node(row: Any) -> Node:
    return Node(
        id=row.id, kind=row.kind, label=row.label, run_id=row.run_id, props=json.loads(row.props or "{}")
    )


def _owner(row: Any) -> RunOwner:
    return RunOwner(
        run_id=row.run_id,
        kind=row.kind,
        session_id=row.session_id,
        user_name=row.user_name,
        created_at=row.created_at,
    )


class EmbeddedGraphStore:
    """The graph in the service's database (``db``); see the module's doc."""

    name = "embedded"

    def __init__(self, db: Database) -> None:
        self.db = db

    async def prepare(self) -> None:
        """Create the graph's tables where they are missing (after they were dropped)."""
        async with self.db.engine.begin() as conn:
            await conn.run_sync(
                lambda c: SQLModel.metadata.create_all(c, tables=list(TABLES), checkfirst=True)
            )

    async def drop_tables(self) -> None:
        """Drop the graph's tables (a lost graph; :func:`vent_agent.graph.rebuild.rebuild_graph` makes them
        again)."""
        async with self.db.engine.begin() as conn:
            await conn.run_sync(lambda c: SQLModel.metadata.drop_all(c, tables=list(TABLES), checkfirst=True))

    def _insert_absent(self) -> Any:
        """An INSERT of graph nodes that leaves a node already present as it is."""
        if self.db.is_postgres:
            return postgresql.insert(NODES).on_conflict_do_nothing(index_elements=["id"])
        return sqlite.insert(NODES).on_conflict_do_nothing(index_elements=["id"])

    async def write_run(self, graph: RunGraph) -> None:
        """Replace the run's part of the graph in one transaction."""
        run_id = graph.owner.run_id
        rows = graph.node_rows()
        edges = [{"src": e.src, "dst": e.dst, "kind": e.kind, "run_id": run_id} for e in graph.edges]
        owner = graph.owner
        async with self.db.engine.begin() as conn:
            await conn.execute(delete(EDGES).where(EDGES.c.run_id == run_id))
            await conn.execute(delete(NODES).where(NODES.c.run_id == run_id))
            await conn.execute(delete(RUNS).where(RUNS.c.run_id == run_id))
            if rows:
                await conn.execute(self._insert_absent(), rows)
            if edges:
                await conn.execute(insert(EDGES), edges)
            await conn.execute(
                insert(RUNS),
                [
                    {
                        "run_id": run_id,
                        "kind": owner.kind,
                        "session_id": owner.session_id,
                        "user_name": owner.user_name,
                        "created_at": owner.created_at or utcnow(),
                        "projected_at": utcnow(),
                    }
                ],
            )

    async def owner(self, run_id: str) -> RunOwner | None:
        async with self.db.engine.connect() as conn:
            row = (await conn.execute(select(RUNS).where(RUNS.c.run_id == run_id))).first()
        return _owner(row) if row is not None else None

    async def node(self, node_id: str) -> Node | None:
        async with self.db.engine.connect() as conn:
            row = (await conn.execute(select(NODES).where(NODES.c.id == node_id))).first()
        return _node(row) if row is not None else None

    async def claims_of_run(self, run_id: str) -> list[Node]:
        async with self.db.engine.connect() as conn:
            rows = (
                await conn.execute(select(NODES).where(NODES.c.run_id == run_id, NODES.c.kind == "Claim"))
            ).all()
        return sorted(
            map(_node, rows),
            key=lambda n: (str(n.props.get("report_id") or ""), int(n.props.get("index") or 0)),
        )

    async def _subgraph(
        self, conn: AsyncConnection, ids: Sequence[str], kinds: Sequence[str] | None
    ) -> Subgraph:
        if not ids:
            return Subgraph()
        nodes = (await conn.execute(select(NODES).where(NODES.c.id.in_(ids)))).all()
        query = select(EDGES).where(EDGES.c.src.in_(ids), EDGES.c.dst.in_(ids))
        if kinds is not None:
            query = query.where(EDGES.c.kind.in_(kinds))
        edges = {(r.src, r.dst, r.kind) for r in (await conn.execute(query)).all()}
        return Subgraph(
            nodes=[_node(r) for r in nodes], edges=[Edge(src=s, dst=d, kind=k) for s, d, k in sorted(edges)]
        )

    async def support(self, claim_id: str) -> Subgraph:
        async with self.db.engine.connect() as conn:
            ids = [r[0] for r in await conn.execute(text(_UP), {"start": claim_id, "max_depth": MAX_DEPTH})]
            graph = await self._subgraph(conn, ids, [*UPSTREAM_FROM_DST, *UPSTREAM_FROM_SRC])
        # the edges walked: none into an artifact from what produced it (the walk stops at artifacts)
        graph.edges = [
            e for e in graph.edges if not (e.kind in UPSTREAM_FROM_DST and e.dst.startswith(ARTIFACT_PREFIX))
        ]
        return graph

    async def run_chain(self, run_id: str) -> Subgraph:
        async with self.db.engine.connect() as conn:
            params = {"start": f"req:{run_id}", "run_id": run_id, "max_depth": MAX_CHAIN}
            ids = [r[0] for r in await conn.execute(text(_CHAIN), params)]
            if (
                len(ids) == 1
                and (await conn.execute(select(NODES.c.id).where(NODES.c.id == ids[0]))).first() is None
            ):
                return Subgraph()
            return await self._subgraph(conn, ids, ["next", "produces"])

    async def claims_using(self, terms: list[str], viewer: str | None, limit: int = 200) -> ClaimsAnswer:
        terms = [t for t in terms if t][:8]
        if not terms:
            return ClaimsAnswer()
        match = " AND ".join(f"label LIKE :t{i} ESCAPE '\\'" for i in range(len(terms)))
        params: dict[str, Any] = {f"t{i}": like_pattern(t) for i, t in enumerate(terms)} | {
            "max_depth": MAX_DEPTH
        }
        async with self.db.engine.connect() as conn:
            reached = (await conn.execute(text(_DOWN.format(match=match)), params)).all()
            run_ids = sorted({r.run_id for r in reached if r.run_id})
            owners = {}
            if run_ids:
                rows = (await conn.execute(select(RUNS).where(RUNS.c.run_id.in_(run_ids)))).all()
                owners = {r.run_id: _owner(r) for r in rows}
            seen = {rid for rid, o in owners.items() if visible(o, viewer)}
            claim_ids = sorted({r.id for r in reached if r.kind == "Claim" and r.run_id in seen})[:limit]
            nodes = {}
            if claim_ids:
                nodes = {
                    r.id: _node(r)
                    for r in (await conn.execute(select(NODES).where(NODES.c.id.in_(claim_ids)))).all()
                }
            origins = [r.origin for r in reached]
            labels = {}
            if origins:
                q = select(NODES.c.id, NODES.c.label).where(NODES.c.id.in_(sorted(set(origins))))
                labels = {r.id: r.label for r in (await conn.execute(q)).all()}
        hits = []
        for claim_id in claim_ids:
            node = nodes[claim_id]
            sources = sorted({labels[r.origin] for r in reached if r.id == claim_id})
            hits.append(
                ClaimHit(
                    claim=node,
                    run_id=str(node.run_id),
                    report_id=node.props.get("report_id"),
                    sources=sources,
                )
            )
        runs = sorted((owners[r] for r in seen), key=lambda o: (o.created_at is None, o.created_at, o.run_id))
        return ClaimsAnswer(claims=hits, runs=runs)

    async def clear(self) -> None:
        async with self.db.engine.begin() as conn:
            for table in TABLES:
                await conn.execute(delete(table))

    async def ping(self) -> str:
        async with self.db.engine.connect() as conn:
            count = (await conn.execute(text("SELECT count(*) FROM graph_runs"))).scalar_one()
        return f"embedded ({self.db.dialect}), {count} runs"

    async def close(self) -> None:
        """Nothing to release: the database belongs to the app."""
