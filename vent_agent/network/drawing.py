"""The airways of the ventilation network that the monitoring data does not list (the second intake shaft,
connecting roadways, local fans' ducts), as the console's map draws them beside the monitored tunnels, so
the drawn network is connected as the solved one is (``GET /api/mine/network``: ``links``, ``joins``).

A link is a network branch the layout draws (:class:`~vent_agent.upstream.layout.Layout`) and the data
source does not list; its ends are the layout's positions of the branch's two nodes. A join is a node the
network merges with another (``Network.joined``: one node, zero resistance, e.g. a chamber's entrance at the
shaft bottom), drawn as a line between the two positions.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from vent_agent.upstream.layout import Layout
from ventnet import Network


def network_links(layout: Layout, network: Network, listed: Iterable[str]) -> dict[str, Any]:
    """``{"links": [{"id", "name", "kind", "from", "to", "points"}], "joins": [{"node", "partner",
    "points"}]}``: the branches of ``network`` the layout draws that are not in ``listed`` (the tunnel ids
    of the data source), each with its polyline (m, ``[[x, y], …]`` from its first drawn end), and the
    joined node pairs the layout places. Raises ``ValueError`` when the layout draws a branch between
    other nodes than the network's (the map would draw a connection the network does not have)."""
    known = set(listed)
    links: list[dict[str, Any]] = []
    for branch in network.branches:
        drawn = layout.tunnels.get(branch.id)
        if drawn is None:
            continue
        if set(drawn) != {branch.from_node, branch.to_node}:
            raise ValueError(
                f"布局中的分支 {branch.id} 画在 {drawn[0]}–{drawn[1]} 之间，网络中为 {branch.from_node}–{branch.to_node}"
            )
        if branch.id in known:
            continue
        path = layout.path(branch.id) or []
        links.append(
            {
                "id": branch.id,
                "name": branch.name or branch.id,
                "kind": branch.kind,
                "from": drawn[0],
                "to": drawn[1],
                "points": [[x, y] for x, y in path],
            }
        )
    joins = [
        {"node": node, "partner": partner, "points": [_xy(layout, node), _xy(layout, partner)]}
        for node, partner in sorted(network.joined.items())
        if node in layout.nodes and partner in layout.nodes
    ]
    return {"links": links, "joins": joins}


def _xy(layout: Layout, node: str) -> list[float]:
    n = layout.nodes[node]
    return [n.x, n.y]
