"""A stand-in for ``neo4j.AsyncDriver``: it records every query (text, parameters, routing, database)
and answers the provenance store's fixed statements from a small in-memory graph, so that the Neo4j
store can be compared with the embedded one without a server. A statement it does not know fails the
test; ``down`` makes every call raise the driver's ``ServiceUnavailable``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from neo4j.exceptions import ServiceUnavailable

from vent_agent.graph import neo4j_store as q
from vent_agent.graph.model import EDGE_KINDS


@dataclass
class Record:
    values: dict[str, Any]

    def data(self) -> dict[str, Any]:
        return dict(self.values)


@dataclass
class Result:
    records: list[Record]


@dataclass
class FakeDriver:
    down: bool = False
    calls: list[tuple[str, dict[str, Any], Any, Any]] = field(default_factory=list)
    nodes: dict[str, dict[str, Any]] = field(default_factory=dict)
    rels: set[tuple[str, str, str, str]] = field(default_factory=set)
    runs: dict[str, dict[str, Any]] = field(default_factory=dict)
    closed: bool = False

    async def execute_query(
        self, query_: Any, parameters_: dict[str, Any] | None = None, **kwargs: Any
    ) -> Result:
        """The driver's call as the store makes it: a fixed text, its parameters, and the keyword options
        ``routing_`` and ``database_`` (recorded; any other option is the driver's and ignored)."""
        assert isinstance(query_, str), query_
        params = parameters_ or {}
        self.calls.append((query_, params, kwargs.get("routing_"), kwargs.get("database_")))
        if self.down:
            raise ServiceUnavailable("Couldn't connect to 127.0.0.1:7687")
        return Result([Record(r) for r in self._answer(query_, params)])

    async def verify_connectivity(self) -> None:
        if self.down:
            raise ServiceUnavailable("Couldn't connect to 127.0.0.1:7687")

    async def close(self) -> None:
        self.closed = True

    def _level(
        self, params: dict[str, Any], near_is_dst: set[str], near_is_src: set[str]
    ) -> list[dict[str, Any]]:
        ids = set(params["ids"])
        return [
            {"src": s, "dst": d, "type": t}
            for s, d, t, _run in sorted(self.rels)
            if (t in near_is_dst and d in ids) or (t in near_is_src and s in ids)
        ]

    def _answer(self, query: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        if query in q.SCHEMA:
            return []
        if query == q.DELETE_RUN:
            gone = {i for i, n in self.nodes.items() if n["run_id"] == params["run_id"]}
            self.nodes = {i: n for i, n in self.nodes.items() if i not in gone}
            self.rels = {r for r in self.rels if r[0] not in gone and r[1] not in gone}
            return []
        if query == q.WRITE_NODES:
            for n in params["nodes"]:
                self.nodes.setdefault(n["id"], dict(n))
            return []
        edge_type = next((k.upper() for k in EDGE_KINDS if query == q.write_edges(k)), None)
        if edge_type is not None:
            for e in params["edges"]:
                if e["src"] in self.nodes and e["dst"] in self.nodes:
                    self.rels.add((e["src"], e["dst"], edge_type, params["run_id"]))
            return []
        if query == q.WRITE_RUN:
            self.runs[params["run_id"]] = dict(params)
            return []
        if query == q.NODES:
            return [self.nodes[i] for i in params["ids"] if i in self.nodes]
        if query == q.RUN_CLAIMS:
            return [
                n for n in self.nodes.values() if n["run_id"] == params["run_id"] and n["kind"] == "Claim"
            ]
        if query == q.RUNS:
            return [self.runs[r] for r in params["run_ids"] if r in self.runs]
        if query == q.MATCH_SOURCES:
            return [
                {"id": n["id"]}
                for n in self.nodes.values()
                if n["kind"] in ("Source", "Artifact") and all(t in n["label"] for t in params["terms"])
            ]
        if query == q.UP_LEVEL:
            return self._level(params, set(params["from_dst"]), set(params["from_src"]))
        if query == q.DOWN_LEVEL:
            return self._level(params, set(params["from_src"]), set(params["from_dst"]))
        if query == q.CHAIN_LEVEL:
            return [
                {"src": s, "dst": d, "type": t}
                for s, d, t, run in sorted(self.rels)
                if t in ("NEXT", "PRODUCES") and run == params["run_id"] and s in set(params["ids"])
            ]
        if query == q.CLEAR:
            self.nodes, self.rels, self.runs = {}, set(), {}
            return []
        raise AssertionError(f"unexpected query: {query}")
