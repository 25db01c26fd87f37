"""Neo4j with the embedded store beside it (``VENT_GRAPH_BACKEND=neo4j``): every run is written to the
embedded store first, then to Neo4j; queries go to Neo4j while it has every run, else to the embedded
store. Neo4j unreachable never fails a run or a query: the write is logged and counted, the queries
carry on embedded, and ``/readyz`` says ``degraded`` until Neo4j answers and has been rebuilt
(``vent-agent graph rebuild``) — a run written while it was down is only in the embedded store."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

from vent_agent.graph.model import Node, RunGraph, RunOwner, Subgraph
from vent_agent.graph.store import ClaimsAnswer, GraphStore

log = logging.getLogger(__name__)
T = TypeVar("T")
PREPARE_WAIT_S = 10.0
"""How long start-up waits for Neo4j's schema statements before carrying on embedded (s)."""


class MirroredGraphStore:
    """``primary`` (Neo4j) kept with ``embedded``; ``in_sync`` is False once a write to the primary
    failed (until a rebuild writes every run to both)."""

    name = "neo4j"

    def __init__(self, primary: GraphStore, embedded: GraphStore) -> None:
        self.primary = primary
        self.embedded = embedded
        self.in_sync = True
        self.last_error: str | None = None

    def _failed(self, what: str, exc: Exception) -> None:
        self.in_sync = False
        self.last_error = f"{type(exc).__name__}: {exc}"
        log.warning("graph: Neo4j %s failed (%s); the embedded store carries on", what, self.last_error)

    async def _read(self, query: Callable[[GraphStore], Awaitable[T]]) -> T:
        if self.in_sync:
            try:
                return await query(self.primary)
            except Exception as exc:  # Neo4j gone: answer from the embedded store
                self._failed("query", exc)
        return await query(self.embedded)

    async def prepare(self) -> None:
        await self.embedded.prepare()
        try:
            await asyncio.wait_for(self.primary.ping(), PREPARE_WAIT_S)  # fails at once when refused
            await asyncio.wait_for(self.primary.prepare(), PREPARE_WAIT_S)
        except Exception as exc:  # unreachable at start: embedded only until a rebuild
            self._failed("schema", exc)

    async def write_run(self, graph: RunGraph) -> None:
        await self.embedded.write_run(graph)
        if not self.in_sync:
            return  # the primary misses runs already: a rebuild writes them all
        try:
            await self.primary.write_run(graph)
        except Exception as exc:  # the embedded store has it; a rebuild catches Neo4j up
            self._failed("write", exc)

    async def owner(self, run_id: str) -> RunOwner | None:
        return await self._read(lambda s: s.owner(run_id))

    async def node(self, node_id: str) -> Node | None:
        return await self._read(lambda s: s.node(node_id))

    async def claims_of_run(self, run_id: str) -> list[Node]:
        return await self._read(lambda s: s.claims_of_run(run_id))

    async def support(self, claim_id: str) -> Subgraph:
        return await self._read(lambda s: s.support(claim_id))

    async def claims_using(self, terms: list[str], viewer: str | None, limit: int = 200) -> ClaimsAnswer:
        return await self._read(lambda s: s.claims_using(terms, viewer, limit))

    async def run_chain(self, run_id: str) -> Subgraph:
        return await self._read(lambda s: s.run_chain(run_id))

    async def clear(self) -> None:
        """Clear both; the primary is in sync again when it could be cleared (a rebuild follows)."""
        await self.embedded.clear()
        try:
            await self.primary.ping()
            await self.primary.prepare()
            await self.primary.clear()
        except Exception as exc:
            self._failed("clear", exc)
        else:
            self.in_sync = True
            self.last_error = None

    async def ping(self) -> str:
        """The primary's answer; raises when it is unreachable or behind (the readiness check)."""
        detail = await self.primary.ping()
        if not self.in_sync:
            raise RuntimeError(
                f"Neo4j 缺少部分运行（{self.last_error}），查询改用内置存储；请运行 vent-agent graph rebuild"
            )
        return detail

    async def close(self) -> None:
        await self.primary.close()
        await self.embedded.close()
