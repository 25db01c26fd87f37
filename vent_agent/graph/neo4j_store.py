"""The provenance graph in a mine's Neo4j (``VENT_GRAPH_BACKEND=neo4j``), through the official driver
(``neo4j`` 6.x): the same :class:`~vent_agent.graph.store.GraphStore` as the embedded one.

Nodes are ``(:ProvNode {id, kind, label, run_id, props})`` (``props`` as JSON text), edges typed by kind
(``:NEXT``, ``:PRODUCES``, ``:SUPPORTS``, ``:STATED_IN``, ``:EXTRACTS``, ``:CITES``) with the ``run_id``
they were written for, runs ``(:ProvRun {run_id, kind, session_id, user_name, created_at})``. Every query
is a fixed text with parameters (the edge types come from :data:`~vent_agent.graph.model.EDGE_KINDS`,
never from input); chains are followed a level at a time, bounded like the embedded store's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from typing import Any, Protocol

from neo4j import AsyncGraphDatabase, RoutingControl

from vent_agent.graph.model import (
    ARTIFACT_PREFIX,
    EDGE_KINDS,
    MAX_DEPTH,
    UPSTREAM_FROM_DST,
    UPSTREAM_FROM_SRC,
    ClaimHit,
    Edge,
    EdgeKind,
    Node,
    RunGraph,
    RunOwner,
    Subgraph,
)
from vent_agent.graph.store import ClaimsAnswer, visible

CONNECT_TIMEOUT_S = 5.0
"""How long opening a connection to Neo4j may take (s): an unreachable server fails fast."""
RETRY_TIME_S = 5.0
"""How long the driver retries a query on a transient error (s)."""
MAX_CHAIN_STEPS = 10_000
"""Levels of a run's task chain followed at most."""
_TYPES = {kind: kind.upper() for kind in EDGE_KINDS}
_KINDS = {t: k for k, t in _TYPES.items()}
SCHEMA = (
    "CREATE CONSTRAINT prov_node_id IF NOT EXISTS FOR (n:ProvNode) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT prov_run_id IF NOT EXISTS FOR (r:ProvRun) REQUIRE r.run_id IS UNIQUE",
    "CREATE INDEX prov_node_run IF NOT EXISTS FOR (n:ProvNode) ON (n.run_id)",
)
DELETE_RUN = "MATCH (n:ProvNode {run_id: $run_id}) DETACH DELETE n"
WRITE_NODES = (
    "UNWIND $nodes AS n MERGE (x:ProvNode {id: n.id}) "
    "ON CREATE SET x.kind = n.kind, x.label = n.label, x.run_id = n.run_id, x.props = n.props"
)
_WRITE_EDGES = (
    "UNWIND $edges AS e MATCH (a:ProvNode {id: e.src}) MATCH (b:ProvNode {id: e.dst}) "
    "MERGE (a)-[:TYPE {run_id: $run_id}]->(b)"
)


def write_edges(kind: EdgeKind) -> str:
    """The statement writing the edges of ``kind`` (its relationship type from :data:`EDGE_KINDS`)."""
    return _WRITE_EDGES.replace(":TYPE ", f":{_TYPES[kind]} ")


WRITE_RUN = (
    "MERGE (r:ProvRun {run_id: $run_id}) SET r.kind = $kind, r.session_id = $session_id, "
    "r.user_name = $user_name, r.created_at = $created_at"
)
NODES = "MATCH (n:ProvNode) WHERE n.id IN $ids RETURN n.id AS id, n.kind AS kind, n.label AS label, n.run_id AS run_id, n.props AS props"
RUN_CLAIMS = (
    "MATCH (n:ProvNode {run_id: $run_id, kind: 'Claim'}) "
    "RETURN n.id AS id, n.kind AS kind, n.label AS label, n.run_id AS run_id, n.props AS props"
)
RUNS = (
    "MATCH (r:ProvRun) WHERE r.run_id IN $run_ids "
    "RETURN r.run_id AS run_id, r.kind AS kind, r.session_id AS session_id, r.user_name AS user_name, "
    "r.created_at AS created_at"
)
MATCH_SOURCES = (
    "MATCH (n:ProvNode) WHERE n.kind IN ['Source', 'Artifact'] AND all(t IN $terms WHERE n.label CONTAINS t) "
    "RETURN n.id AS id"
)
# one level of a walk: the edges whose far end is what the near ends rest on (up) or what rests on them
UP_LEVEL = (
    "MATCH (a:ProvNode)-[r]->(b:ProvNode) "
    "WHERE (type(r) IN $from_dst AND b.id IN $ids) OR (type(r) IN $from_src AND a.id IN $ids) "
    "RETURN a.id AS src, b.id AS dst, type(r) AS type"
)
DOWN_LEVEL = (
    "MATCH (a:ProvNode)-[r]->(b:ProvNode) "
    "WHERE (type(r) IN $from_dst AND a.id IN $ids) OR (type(r) IN $from_src AND b.id IN $ids) "
    "RETURN a.id AS src, b.id AS dst, type(r) AS type"
)
CHAIN_LEVEL = (
    "MATCH (a:ProvNode)-[r:NEXT|PRODUCES {run_id: $run_id}]->(b:ProvNode) WHERE a.id IN $ids "
    "RETURN a.id AS src, b.id AS dst, type(r) AS type"
)
CLEAR = "MATCH (n) WHERE n:ProvNode OR n:ProvRun DETACH DELETE n"


class Neo4jDriver(Protocol):
    """What the store uses of ``neo4j.AsyncDriver`` (a test passes a fake recording the queries)."""

    async def execute_query(
        self, query_: Any, parameters_: dict[str, Any] | None = None, **kwargs: Any
    ) -> Any: ...

    async def verify_connectivity(self) -> None: ...

    async def close(self) -> None: ...


def _node(rec: dict[str, Any]) -> Node:
    return Node(
        id=rec["id"],
        kind=rec["kind"],
        label=rec["label"],
        run_id=rec.get("run_id"),
        props=json.loads(rec.get("props") or "{}"),
    )


def _owner(rec: dict[str, Any]) -> RunOwner:
    created = rec.get("created_at")
    return RunOwner(
        run_id=rec["run_id"],
        kind=rec.get("kind") or "",
        session_id=rec.get("session_id"),
        user_name=rec.get("user_name"),
        created_at=datetime.fromisoformat(created) if isinstance(created, str) else None,
    )


class Neo4jGraphStore:
    """The graph in Neo4j over ``driver``, in ``database`` (None: the server's default)."""

    name = "neo4j"

    def __init__(self, driver: Neo4jDriver, database: str | None = None) -> None:
        self.driver = driver
        self.database = database

    @classmethod
    def connect(cls, uri: str, user: str, password: str | None, database: str | None) -> Neo4jGraphStore:
        """A store on a new driver for ``uri`` (``neo4j://``, ``bolt://``…); connects lazily."""
        auth = (user, password) if password is not None else None
        driver = AsyncGraphDatabase.driver(
            uri, auth=auth, connection_timeout=CONNECT_TIMEOUT_S, max_transaction_retry_time=RETRY_TIME_S
        )
        return cls(driver, database)

    async def _run(self, query: str, write: bool = False, **params: Any) -> list[dict[str, Any]]:
        routing = RoutingControl.WRITE if write else RoutingControl.READ
        result = await self.driver.execute_query(query, params, routing_=routing, database_=self.database)
        return [record.data() for record in result.records]

    async def prepare(self) -> None:
        """Create the constraints and index (once; ``IF NOT EXISTS``)."""
        for statement in SCHEMA:
            await self._run(statement, write=True)

    async def write_run(self, graph: RunGraph) -> None:
        owner = graph.owner
        nodes = graph.node_rows()
        await self._run(DELETE_RUN, write=True, run_id=owner.run_id)
        await self._run(WRITE_NODES, write=True, nodes=nodes)
        for kind in EDGE_KINDS:
            edges = [{"src": e.src, "dst": e.dst} for e in graph.edges if e.kind == kind]
            if edges:
                await self._run(write_edges(kind), write=True, edges=edges, run_id=owner.run_id)
        created = owner.created_at.isoformat() if owner.created_at else None
        await self._run(
            WRITE_RUN,
            write=True,
            run_id=owner.run_id,
            kind=owner.kind,
            session_id=owner.session_id,
            user_name=owner.user_name,
            created_at=created,
        )

    async def owner(self, run_id: str) -> RunOwner | None:
        rows = await self._run(RUNS, run_ids=[run_id])
        return _owner(rows[0]) if rows else None

    async def node(self, node_id: str) -> Node | None:
        rows = await self._run(NODES, ids=[node_id])
        return _node(rows[0]) if rows else None

    async def claims_of_run(self, run_id: str) -> list[Node]:
        nodes = [_node(r) for r in await self._run(RUN_CLAIMS, run_id=run_id)]
        return sorted(
            nodes, key=lambda n: (str(n.props.get("report_id") or ""), int(n.props.get("index") or 0))
        )

    async def _walk(
        self, start: Iterable[str], direction: str, depth: int, **params: Any
    ) -> tuple[dict[str, set[str]], set[tuple[str, str, EdgeKind]]]:
        """Follow the edges a level at a time from ``start``: ``up`` (what a node rests on), ``down``
        (what rests on it) or ``chain`` (a run's steps). Returns node id → the start ids it was reached
        from, and the edges followed."""
        query = {"up": UP_LEVEL, "down": DOWN_LEVEL, "chain": CHAIN_LEVEL}[direction]
        reached: dict[str, set[str]] = {s: {s} for s in start}
        frontier = set(reached)
        edges: set[tuple[str, str, EdgeKind]] = set()
        for _ in range(depth):
            if not frontier:
                break
            rows = await self._run(query, ids=sorted(frontier), **params)
            grown: set[str] = set()
            for row in rows:
                kind = _KINDS.get(row["type"])
                if kind is None:
                    continue
                src, dst = row["src"], row["dst"]
                forward = direction == "chain" or (kind in UPSTREAM_FROM_SRC) == (direction == "up")
                near, far = (src, dst) if forward else (dst, src)
                if near not in frontier or (
                    direction == "up" and not forward and near.startswith(ARTIFACT_PREFIX)
                ):
                    continue  # not from this level; or past an artifact (see ARTIFACT_PREFIX)
                edges.add((src, dst, kind))
                before = reached.setdefault(far, set())
                if not reached[near] <= before:
                    before |= reached[near]
                    grown.add(far)
            frontier = grown
        return reached, edges

    async def _subgraph(self, ids: Iterable[str], edges: set[tuple[str, str, EdgeKind]]) -> Subgraph:
        nodes = [_node(r) for r in await self._run(NODES, ids=sorted(set(ids)))]
        return Subgraph(nodes=nodes, edges=[Edge(src=s, dst=d, kind=k) for s, d, k in sorted(edges)])

    async def support(self, claim_id: str) -> Subgraph:
        types = {
            "from_dst": [_TYPES[k] for k in UPSTREAM_FROM_DST],
            "from_src": [_TYPES[k] for k in UPSTREAM_FROM_SRC],
        }
        reached, edges = await self._walk([claim_id], "up", MAX_DEPTH, **types)
        return await self._subgraph(reached, edges)

    async def run_chain(self, run_id: str) -> Subgraph:
        reached, edges = await self._walk([f"req:{run_id}"], "chain", MAX_CHAIN_STEPS, run_id=run_id)
        graph = await self._subgraph(reached, edges)
        return graph if graph.nodes else Subgraph()

    async def claims_using(self, terms: list[str], viewer: str | None, limit: int = 200) -> ClaimsAnswer:
        terms = [t for t in terms if t][:8]
        if not terms:
            return ClaimsAnswer()
        origins = [r["id"] for r in await self._run(MATCH_SOURCES, terms=terms)]
        types = {
            "from_dst": [_TYPES[k] for k in UPSTREAM_FROM_DST],
            "from_src": [_TYPES[k] for k in UPSTREAM_FROM_SRC],
        }
        reached, _edges = await self._walk(origins, "down", MAX_DEPTH, **types)
        nodes = {n.id: n for n in [_node(r) for r in await self._run(NODES, ids=sorted(reached))]}
        run_ids = sorted({n.run_id for n in nodes.values() if n.run_id})
        owners = {o.run_id: o for o in map(_owner, await self._run(RUNS, run_ids=run_ids))} if run_ids else {}
        seen = {rid for rid, o in owners.items() if visible(o, viewer)}
        claims = sorted(
            (n for n in nodes.values() if n.kind == "Claim" and n.run_id in seen), key=lambda n: n.id
        )[:limit]
        hits = [
            ClaimHit(
                claim=n,
                run_id=str(n.run_id),
                report_id=n.props.get("report_id"),
                sources=sorted(nodes[o].label for o in reached[n.id] if o in nodes),
            )
            for n in claims
        ]
        runs = sorted((owners[r] for r in seen), key=lambda o: (o.created_at is None, o.created_at, o.run_id))
        return ClaimsAnswer(claims=hits, runs=runs)

    async def clear(self) -> None:
        await self._run(CLEAR, write=True)

    async def ping(self) -> str:
        await self.driver.verify_connectivity()
        return "neo4j"

    async def close(self) -> None:
        await self.driver.close()
