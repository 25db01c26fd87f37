"""Diagonal branches (角联分支, docs/DOMAIN.md §7): branches whose direction depends on the resistances of
others, so a change anywhere may reverse them.

With every branch oriented along its solved flow, a branch u→v is diagonal when air can reach v from
the atmosphere without passing u, and can reach the atmosphere from u without passing v: then each of
its ends has a way round it, as the bridge's b–c has (a→c and b→d). A branch whose flow is (near)
zero is tried both ways round.
"""

from __future__ import annotations

from collections.abc import Iterable

import networkx as nx

from ventnet.network import Network
from ventnet.solution import Solution

_SOURCE = "\x00atmosphere-in"
_SINK = "\x00atmosphere-out"
_ZERO_FLOW = 1e-6  # m³/s


def diagonal_branches(network: Network, solution: Solution, among: Iterable[str] | None = None) -> list[str]:
    """The ids of the diagonal branches of ``network`` in the flow directions of ``solution`` (only those
    ``among`` the given ids when given)."""
    graph = _flow_graph(network, solution)
    refs = network.reference_nodes
    wanted = None if among is None else set(among)
    out = []
    for b in network.branches:
        if wanted is not None and b.id not in wanted:
            continue
        q = solution.q[b.id]
        pairs = [(b.from_node, b.to_node), (b.to_node, b.from_node)]
        tried = pairs if abs(q) <= _ZERO_FLOW else [pairs[0] if q > 0 else pairs[1]]
        mapped = [(_SOURCE if u in refs else u, _SINK if v in refs else v) for u, v in tried]
        if any(_has_way_round(graph, u, v) for u, v in mapped):
            out.append(b.id)
    return out


def _flow_graph(network: Network, solution: Solution) -> nx.DiGraph[str]:
    """Nodes joined by branches along their flow; the atmosphere split into a source (air leaving a
    reference node or injected) and a sink (air reaching a reference node or drawn off)."""
    graph: nx.DiGraph[str] = nx.DiGraph()
    refs = network.reference_nodes
    for b in network.branches:
        q = solution.q[b.id]
        ends = [(b.from_node, b.to_node), (b.to_node, b.from_node)]
        if abs(q) > _ZERO_FLOW:
            ends = ends[:1] if q > 0 else ends[1:]
        for u, v in ends:
            graph.add_edge(_SOURCE if u in refs else u, _SINK if v in refs else v)
    for node, q in network.injections.items():
        if q > 0:
            graph.add_edge(_SOURCE, node)
        elif q < 0:
            graph.add_edge(node, _SINK)
    for node, partner in network.joined.items():
        graph.add_edge(node, partner)
        graph.add_edge(partner, node)
    return graph


def _has_way_round(graph: nx.DiGraph[str], u: str, v: str) -> bool:
    if u == _SOURCE or v == _SINK or u not in graph or v not in graph:
        return False
    without_u = nx.restricted_view(graph, [u], [])
    if _SOURCE not in without_u or not nx.has_path(without_u, _SOURCE, v):
        return False
    without_v = nx.restricted_view(graph, [v], [])
    return _SINK in without_v and nx.has_path(without_v, u, _SINK)
