"""The provenance graph's model: nodes, edges, a run's part of the graph and the answers of queries.

Two chains joined at claims and artifacts (issue 28):

- the **task chain** of a run: ``Request -next-> Task -next-> ToolCall -next-> …``, the last step
  ``-produces->`` the run's Artifact (a Word report, an answer); a reviewer's Task ``-produces->`` its
  Claims, a ToolCall ``-produces->`` the Evidence it fetched;
- the **citation chain** of a claim: ``Evidence -supports-> Claim``, ``Claim -stated_in-> Artifact``,
  ``Claim -cites-> Source``, ``Evidence -extracts-> Artifact|Source`` (a PDF cell from the plan, a
  reference record from a month's 瓦斯等级鉴定报告, an excerpt from an article of 《煤矿安全规程》).

Node kinds: Request, Task (an agent or reviewer step), ToolCall, Artifact (a plan PDF, a report, an
answer), Claim (a finding; a statement or figure of an answer), Evidence (a PDF cell, a reference record,
a calculator result, a retrieved excerpt), Source (a regulation article, a standard, a reference
document of a mine and month). Ids are stable strings, so projecting a run again writes the same graph.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

NodeKind = Literal["Request", "Task", "ToolCall", "Artifact", "Claim", "Evidence", "Source"]
EdgeKind = Literal["next", "produces", "supports", "stated_in", "extracts", "cites"]
NODE_KINDS: tuple[NodeKind, ...] = ("Request", "Task", "ToolCall", "Artifact", "Claim", "Evidence", "Source")
EDGE_KINDS: tuple[EdgeKind, ...] = ("next", "produces", "supports", "stated_in", "extracts", "cites")

UPSTREAM_FROM_DST: tuple[EdgeKind, ...] = ("supports", "produces")
"""Edges whose source is what their destination rests on (Evidence supports a Claim)."""
UPSTREAM_FROM_SRC: tuple[EdgeKind, ...] = ("cites", "stated_in", "extracts")
"""Edges whose destination is what their source rests on (a Claim cites a Source)."""
ARTIFACT_PREFIX = "art:"
"""How Artifact ids begin. A support chain stops at an artifact: what produced the report a claim is
stated in (the run's last step) is not what the claim rests on."""
MAX_DEPTH = 8
"""How many links a support chain or a source's claims are followed (recursive queries' bound)."""


class Node(BaseModel):
    """A node: ``id``, ``kind``, Chinese ``label``, the ``run_id`` it was written for (None: shared by
    runs, e.g. an article) and its properties (page, severity, tool, excerpt…)."""

    id: str
    kind: NodeKind
    label: str
    run_id: str | None = None
    props: dict[str, Any] = Field(default_factory=dict)

    def wire(self) -> dict[str, Any]:
        """``{"id", "kind", "label", "run_id"?, …props}`` as the routes answer it."""
        out: dict[str, Any] = {"id": self.id, "kind": self.kind, "label": self.label}
        if self.run_id is not None:
            out["run_id"] = self.run_id
        return {**self.props, **out}


class Edge(BaseModel):
    """An edge ``src`` → ``dst`` of ``kind``."""

    src: str
    dst: str
    kind: EdgeKind

    def wire(self) -> dict[str, str]:
        """``{"from", "to", "kind"}``."""
        return {"from": self.src, "to": self.dst, "kind": self.kind}


class RunOwner(BaseModel):
    """Who a run's part of the graph belongs to: the run's ``kind``, ``session_id`` and ``user_name``
    (the run's user or its session's; both None for a run outside sessions, seen by its id alone)."""

    run_id: str
    kind: str
    session_id: str | None = None
    user_name: str | None = None
    created_at: datetime | None = None

    @property
    def private(self) -> bool:
        """True when only its user may see it (a run in a session)."""
        return self.session_id is not None or self.user_name is not None


class RunGraph(BaseModel):
    """A run's part of the graph, as projected from its events: its owner, nodes and edges (shared
    nodes included; they are written only when absent)."""

    owner: RunOwner
    nodes: list[Node] = Field(default_factory=list)
    edges: list[Edge] = Field(default_factory=list)

    def node_rows(self) -> list[dict[str, Any]]:
        """The nodes as a store writes them: ``id``, ``kind``, ``label``, ``run_id`` and ``props`` as JSON
        text (either backend, embedded or Neo4j)."""
        return [
            {
                "id": n.id,
                "kind": n.kind,
                "label": n.label,
                "run_id": n.run_id,
                "props": json.dumps(n.props, ensure_ascii=False, default=str),
            }
            for n in self.nodes
        ]


class Subgraph(BaseModel):
    """A query's answer: ``{"nodes": [...], "edges": [{"from", "to", "kind"}]}``."""

    nodes: list[Node] = Field(default_factory=list)
    edges: list[Edge] = Field(default_factory=list)

    def wire(self) -> dict[str, Any]:
        """The JSON the routes answer, nodes and edges sorted for a stable answer."""
        return {
            "nodes": [n.wire() for n in sorted(self.nodes, key=lambda n: n.id)],
            "edges": [e.wire() for e in sorted(self.edges, key=lambda e: (e.src, e.dst, e.kind))],
        }


class ClaimHit(BaseModel):
    """A claim found resting on a source: the claim, its run and report, and the sources matched."""

    claim: Node
    run_id: str
    report_id: str | None = None
    sources: list[str] = Field(default_factory=list)

    def wire(self) -> dict[str, Any]:
        """``{"id", "kind": "Claim", "label", "run_id", "report_id", "sources", …props}``."""
        return {
            **self.claim.wire(),
            "run_id": self.run_id,
            "report_id": self.report_id,
            "sources": self.sources,
        }


def run_scoped(nodes: list[Node], run_id: str) -> set[str]:
    """Ids of the nodes written for ``run_id``."""
    return {n.id for n in nodes if n.run_id == run_id}
