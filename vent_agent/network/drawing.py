"""The airways of the ventilation network that the monitoring data does not list (the second intake shaft,
connecting roadways, chambers' returns, local fans' ducts), as the console's map draws them beside the
monitored tunnels, so the drawn network is connected as the solved one is (``GET /api/mine/network``:
``links``, ``joins``).

A link is a network branch the layout draws (:class:`~vent_agent.upstream.layout.Layout`) and the data
source does not list; its ends are the layout's positions of the branch's two nodes. A join is a node the
network merges with another (``Network.joined``: one node, zero resistance, e.g. a chamber's entrance at the
shaft bottom), drawn as a line from the one position through the layout's bends of it to the other. The
network's doors and regulators are drawn as devices on their airways' lines (:func:`network_facilities`),
so a click on one can ask what opening or closing it would do; a local fan's duct and the fans are drawn
as :mod:`vent_agent.network.local_fans` places them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from vent_agent.network.local_fans import ducts_by_branch
from vent_agent.network.polyline import length, point_at
from vent_agent.upstream.layout import Layout
from ventnet import Network


def network_links(layout: Layout, network: Network, listed: Iterable[str]) -> dict[str, Any]:
    """``{"links": [{"id", "name", "kind", "from", "to", "points"}], "joins": [{"node", "partner",
    "points"}]}``: the branches of ``network`` the layout draws that are not in ``listed`` (the tunnel ids
    of the data source), each with its polyline (m, ``[[x, y], …]`` from its first drawn end; a local
    fan's duct from its intake node into its heading's mouth and along it to the face:
    :func:`~vent_agent.network.local_fans.duct_path`), and the joined node pairs the layout places, each
    with its line (through the layout's bends of it). Raises ``ValueError`` when the layout draws a branch
    between other nodes than the network's (the map would draw a connection the network does not have)."""
    known = set(listed)
    ducts = ducts_by_branch(layout, network)
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
        path = ducts.get(branch.id) or layout.path(branch.id) or []
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
        {"node": node, "partner": partner, "points": _join_path(layout, node, partner)}
        for node, partner in sorted(network.joined.items())
        if node in layout.nodes and partner in layout.nodes
    ]
    return {"links": links, "joins": joins}


FACILITY_LABELS = {"door": "风门", "regulator": "调节风窗"}
"""The ventilation facilities (通风设施) the map draws as devices, by branch kind."""


def network_facilities(layout: Layout, network: Network) -> list[dict[str, Any]]:
    """The doors and regulators of ``network`` as map devices, in the shape of the view's devices
    (``device_id``, ``name``, ``device_type`` ``"door"``/``"regulator"``, ``type_label``, ``tun_id``,
    ``state``, ``position`` (between which named places: :func:`_between`, never node ids), ``x``, ``y``
    m): the branch id is the device id (what a click on it sends),
    drawn on its own airway's line, halfway along the path the layout draws it by, as a ventilation plan
    sets a door or regulator across the airway it is built in; a facility whose branch the layout does
    not draw is left out (the map has no line to put it on). A door's state is 关闭 while it has an added
    resistance."""
    out = []
    for branch in network.branches:
        label = FACILITY_LABELS.get(branch.kind)
        points = layout.path(branch.id) if label else None
        if label is None or points is None:
            continue
        x, y = point_at(points, length(points) / 2)
        state = ("关闭" if branch.added_resistance > 0 else "打开") if branch.kind == "door" else None
        out.append(
            {
                "device_id": branch.id,
                "name": branch.name or branch.id,
                "device_type": branch.kind,
                "type_label": label,
                "tun_id": branch.id,
                "state": state,
                "position": _between(layout, branch.from_node, branch.to_node),
                "x": round(x, 1),
                "y": round(y, 1),
            }
        )
    return out


def _between(layout: Layout, a: str, b: str) -> str | None:
    """Where a facility stands, in the names a person knows: ``二采区进风口与15216回风顺槽口之间`` from
    the layout's names of its airway's two ends; None when the layout names either end only by its id
    (a node id is the network's, not a place anyone calls it)."""
    names = [layout.nodes[n].name if n in layout.nodes else "" for n in (a, b)]
    if not all(names) or any(name == n for name, n in zip(names, (a, b), strict=True)):
        return None
    return f"{names[0]}与{names[1]}之间"


def _join_path(layout: Layout, node: str, partner: str) -> list[list[float]]:
    """The line joining a merged node to its partner (m): from the one through the layout's bends of
    the join to the other."""
    a, b = layout.nodes[node], layout.nodes[partner]
    return [[a.x, a.y], *([x, y] for x, y in layout.join_vias.get(node, [])), [b.x, b.y]]
