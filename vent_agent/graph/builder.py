"""Collecting one run's nodes and edges while its events are projected."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from vent_agent.graph.model import Edge, EdgeKind, Node


@dataclass
class GraphBuilder:
    """Collects one run's nodes and edges (a node added twice is kept once, its properties merged)."""

    run_id: str
    nodes: dict[str, Node] = field(default_factory=dict)
    edges: dict[tuple[str, str, str], Edge] = field(default_factory=dict)

    def node(self, node: Node) -> Node:
        """Add ``node`` (written for this run unless it is a Source); returns the node kept."""
        if node.kind != "Source" and node.run_id is None:
            node = node.model_copy(update={"run_id": self.run_id})
        kept = self.nodes.get(node.id)
        if kept is None:
            self.nodes[node.id] = node
            return node
        kept.props.update(node.props)
        return kept

    def edge(self, src: Node | str, dst: Node | str, kind: EdgeKind) -> None:
        """Add the edge ``src`` → ``dst`` of ``kind``."""
        s = src if isinstance(src, str) else src.id
        d = dst if isinstance(dst, str) else dst.id
        self.edges[(s, d, kind)] = Edge(src=s, dst=d, kind=kind)

    def find(self, kind: str, **props: Any) -> Node | None:
        """The last node of ``kind`` with these properties."""
        hits = [
            n
            for n in self.nodes.values()
            if n.kind == kind and all(n.props.get(k) == v for k, v in props.items())
        ]
        return hits[-1] if hits else None
