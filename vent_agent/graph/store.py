"""The interface every provenance-graph store offers (:class:`GraphStore`): write a run's part of the
graph, and the read-only queries — a claim's support chain, the claims resting on a source, a run's
task chain. The embedded store (:mod:`vent_agent.graph.embedded`, tables of the service's database) is
the default; :mod:`vent_agent.graph.neo4j_store` keeps the same graph in a mine's Neo4j;
:mod:`vent_agent.graph.mirrored` writes both and reads Neo4j while it answers."""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel, Field

from vent_agent.graph.model import ClaimHit, Node, RunGraph, RunOwner, Subgraph


class ClaimsAnswer(BaseModel):
    """The claims resting on a source (``claims``) and the runs whose work used it (``runs``: run id,
    kind, report ids), both limited to what the viewer may see."""

    claims: list[ClaimHit] = Field(default_factory=list)
    runs: list[RunOwner] = Field(default_factory=list)


class GraphStore(Protocol):
    """A provenance-graph store. Every query is read-only; ``viewer`` is the caller's user name (None
    without a token): the runs of sessions are seen by their user only, runs outside sessions by all."""

    name: str

    async def prepare(self) -> None:
        """Make the store ready to be written (tables or constraints created where missing)."""
        ...

    async def write_run(self, graph: RunGraph) -> None:
        """Replace the run's part of the graph by ``graph`` (shared Source nodes written when absent)."""
        ...

    async def owner(self, run_id: str) -> RunOwner | None:
        """The owner recorded for a projected run (None: not in the graph)."""
        ...

    async def node(self, node_id: str) -> Node | None:
        """One node by id."""
        ...

    async def claims_of_run(self, run_id: str) -> list[Node]:
        """The claims written for a run, by their ``index``."""
        ...

    async def support(self, claim_id: str) -> Subgraph:
        """What claim ``claim_id`` rests on, followed back up to :data:`~vent_agent.graph.model.MAX_DEPTH`
        links: its evidence, the tool calls and tasks that produced them, the artifacts and sources."""
        ...

    async def claims_using(self, terms: list[str], viewer: str | None, limit: int = 200) -> ClaimsAnswer:
        """The claims resting on a Source or Artifact whose label contains every one of ``terms``."""
        ...

    async def run_chain(self, run_id: str) -> Subgraph:
        """A run's task chain: its request, steps (``next``) and what they produced."""
        ...

    async def clear(self) -> None:
        """Remove the whole graph (before a rebuild)."""
        ...

    async def ping(self) -> str:
        """A short description when the store answers; raises otherwise."""
        ...

    async def close(self) -> None:
        """Release the store's connections."""
        ...


def visible(owner: RunOwner, viewer: str | None) -> bool:
    """Whether ``viewer`` may see a run's part of the graph: its user, or anyone for a run outside
    sessions (the ownership rules of runs, ``vent_agent.api.runs``)."""
    return not owner.private or (viewer is not None and owner.user_name == viewer)
