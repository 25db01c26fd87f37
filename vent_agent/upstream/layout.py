"""The drawing of a ventilation network: node coordinates, each tunnel's end nodes, fixed device spots.

Data, not code: ``vent_agent/data/demo_layout.json`` holds the demo mine's schematic plan (metres, x east,
y north), including the airways of the network (``demo_ventnet.json``) that have no monitoring, so the map
draws the network as connected as it is solved. A tunnel the layout does not name has no coordinates (the
map leaves it out); a device without a fixed spot is placed along its tunnel, the tunnel's devices spread
evenly between 20 % and 80 % of its length and set off to one side so they do not hide the line, the other
side left to the tunnel's name.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel

from vent_agent.upstream.models import Device

LAYOUT_FILE = Path(__file__).resolve().parent.parent / "data" / "demo_layout.json"
DEVICE_OFFSET_M = 28.0  # a device symbol's distance from its tunnel's line, m


class Node(BaseModel):
    """A tunnel end: ``node_id``, a name and its coordinates (m)."""

    node_id: str
    name: str
    x: float
    y: float


class Layout(BaseModel):
    """Nodes by id, each tunnel's ``(from, to)`` node ids, the bends of a tunnel drawn as a polyline
    (``vias``: its inner points, m, from its first end to its second), the bends of the line joining a
    node the network merges with another (``join_vias``: by the merged node, m, from it to its partner, e.g.
    a bar the chambers at the shaft bottom hang from), fixed device spots ``{node, dx, dy}``."""

    units: str = "m"
    nodes: dict[str, Node]
    tunnels: dict[str, tuple[str, str]]
    vias: dict[str, list[tuple[float, float]]] = {}
    join_vias: dict[str, list[tuple[float, float]]] = {}
    devices: dict[str, dict[str, float | str]]

    def ends(self, tun_id: str) -> tuple[Node, Node] | None:
        """The end nodes of a tunnel, or None when the layout does not draw it."""
        pair = self.tunnels.get(tun_id)
        return (self.nodes[pair[0]], self.nodes[pair[1]]) if pair else None

    def path(self, tun_id: str) -> list[tuple[float, float]] | None:
        """The points (m) a tunnel is drawn through: its first end, its bends, its second end; None when
        the layout does not draw it."""
        ends = self.ends(tun_id)
        if ends is None:
            return None
        a, b = ends
        return [(a.x, a.y), *self.vias.get(tun_id, []), (b.x, b.y)]

    def device_spots(self, tun_id: str, devices: list[Device]) -> dict[str, tuple[float, float]]:
        """``device_id → (x, y)`` (m) for the devices of one tunnel (:meth:`spots_of`)."""
        return self.spots_of(tun_id, [d.device_id for d in devices])

    def spots_of(self, tun_id: str, device_ids: list[str]) -> dict[str, tuple[float, float]]:
        """``device_id → (x, y)`` (m) for the devices of one tunnel, by id: a fixed spot where the layout
        has one, else evenly along the tunnel (20–80 % of its length), set off by :data:`DEVICE_OFFSET_M`
        to the right of its drawn direction, all on that side so the other is free for its name. Devices of
        an undrawn tunnel without a fixed spot are left out."""
        spots: dict[str, tuple[float, float]] = {}
        loose = []
        for device_id in device_ids:
            fixed = self.devices.get(device_id)
            if fixed:
                node = self.nodes[str(fixed["node"])]
                spots[device_id] = (node.x + float(fixed.get("dx", 0)), node.y + float(fixed.get("dy", 0)))
            else:
                loose.append(device_id)
        ends = self.ends(tun_id)
        if ends is None or not loose:
            return spots
        a, b = ends
        length = max(((b.x - a.x) ** 2 + (b.y - a.y) ** 2) ** 0.5, 1e-9)
        nx, ny = -(b.y - a.y) / length, (b.x - a.x) / length  # unit normal, to the left
        for i, device_id in enumerate(loose):
            f = 0.5 if len(loose) == 1 else 0.2 + 0.6 * i / (len(loose) - 1)
            spots[device_id] = (
                a.x + f * (b.x - a.x) - DEVICE_OFFSET_M * nx,
                a.y + f * (b.y - a.y) - DEVICE_OFFSET_M * ny,
            )
        return spots


@lru_cache(maxsize=4)
def load_layout(path: Path = LAYOUT_FILE) -> Layout:
    """Read and check a layout file (every tunnel end and device node must be a known node).
    Raises ``ValueError`` for a dangling node id, ``OSError``/``json.JSONDecodeError`` for a bad file."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    nodes = {nid: Node(node_id=nid, **rec) for nid, rec in raw["nodes"].items()}
    layout = Layout(
        units=raw.get("units", "m"),
        nodes=nodes,
        tunnels=raw["tunnels"],
        vias=raw.get("vias", {}),
        join_vias=raw.get("join_vias", {}),
        devices=raw.get("devices", {}),
    )
    used = [n for pair in layout.tunnels.values() for n in pair] + [
        str(s["node"]) for s in layout.devices.values()
    ]
    used += list(layout.join_vias)
    missing = sorted({n for n in used if n not in nodes})
    if missing:
        raise ValueError(f"layout {path.name}: unknown nodes {missing}")
    stray = sorted(set(layout.vias) - set(layout.tunnels))
    if stray:
        raise ValueError(f"layout {path.name}: bends of tunnels it does not draw {stray}")
    return layout
