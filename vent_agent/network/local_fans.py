"""Where the console's map draws a heading's local fans (局部通风机) and their duct (风筒).

《煤矿安全规程》第164条: a forcing local fan stands in the intake airway, at least 10 m outside the return
mouth (回风口) of the heading it ventilates, and its duct runs from it into the heading to the face. The
network models the fan and its duct as one branch (kind ``local_fan``) from the intake node the fan draws
its air from (F) to the face end of the heading (H); the heading is the branch between H and its mouth (M),
where its air leaves. The map draws, for each such branch the layout draws:

- the fans in the intake airway: on the drawn branch whose air arrives at F, :data:`LOCAL_FAN_SETBACK_M`
  upstream of F, each further fan :data:`FAN_SPACING_M` further upstream (a heading's standby fan behind
  its running one, the fans of the headings fed from one node one after another), so they stand outside
  every heading, in the intake;
- the duct from F (its node) along the layout's bends of the branch to the heading's mouth, then inside
  the heading, :data:`DUCT_OFFSET_M` beside its line on the side the duct comes from (both lines show), to
  the face H (its other node).

The layout places a heading's mouth near its fan's intake node; these distances are the schematic's, not
the mine's (the symbols must stand clear of each other at the map's scale), the rule's 10 m a minimum.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from vent_agent.network.polyline import Point, length, offset, point_at, side_of
from vent_agent.upstream.layout import Layout
from ventnet import Branch, Network

LOCAL_FAN_SETBACK_M = 80.0  # a heading's first fan: its distance upstream of the intake node, m (schematic)
FAN_SPACING_M = 75.0  # between two fans in one intake airway, m (schematic: a symbol and a gap at 1280 px)
DUCT_OFFSET_M = 24.0  # the duct's line beside its heading's, m (the two strokes' half-widths and a gap)


@dataclass(frozen=True)
class LocalFan:
    """A local fan branch the layout draws, with what the map draws it by: ``duct`` the branch id,
    ``heading`` the heading's branch id, ``intake`` the id of the airway bringing the fan its air,
    ``source`` the node it draws from (F), ``face`` the heading's face end (H), ``mouth`` its mouth (M)."""

    duct: str
    heading: str
    intake: str
    source: str
    face: str
    mouth: str


def local_fans(layout: Layout, network: Network) -> list[LocalFan]:
    """The local fan branches of ``network`` the layout draws whose heading (the drawn branch at the
    fan's far end, a ``heading`` first) and intake airway (a drawn branch ending at the fan's near end)
    it draws too, in the network's order; a fan without either is left to the layout's own drawing."""
    drawn = [b for b in network.branches if b.id in layout.tunnels and b.kind != "local_fan"]
    out = []
    for duct in network.branches:
        if duct.kind != "local_fan" or duct.id not in layout.tunnels:
            continue
        at_face = sorted(
            (b for b in drawn if duct.to_node in (b.from_node, b.to_node)), key=lambda b: b.kind != "heading"
        )
        intake = next((b for b in drawn if b.to_node == duct.from_node), None)
        if not at_face or intake is None:
            continue
        heading = at_face[0]
        mouth = heading.to_node if heading.from_node == duct.to_node else heading.from_node
        out.append(LocalFan(duct.id, heading.id, intake.id, duct.from_node, duct.to_node, mouth))
    return out


def intake_airway(network: Network, heading: str) -> Branch | None:
    """The intake airway the local fan of ``heading`` (a branch id) stands in: the airway, not a local
    fan's, whose air arrives at the node the fan's branch draws from (as :func:`local_fans` finds it for
    the map); None when the network models no local fan for the heading."""
    start = next((b.from_node for b in network.branches if b.id == heading), None)
    duct = next((b for b in network.branches if b.kind == "local_fan" and b.to_node == start), None)
    if duct is None:
        return None
    return next((b for b in network.branches if b.to_node == duct.from_node and b.kind != "local_fan"), None)


def path_from(layout: Layout, branch_id: str, start: str) -> list[Point]:
    """A drawn branch's points from its end at node ``start`` to its other end."""
    points = layout.path(branch_id) or []
    return points if layout.tunnels[branch_id][0] == start else points[::-1]


def duct_path(layout: Layout, fan: LocalFan) -> list[Point]:
    """The duct's points (m), in the layout's order of the branch's ends: from the fan's intake node along
    the layout's bends of the branch to the heading's mouth, inside the heading to its face."""
    source = layout.nodes[fan.source]
    bends = path_from(layout, fan.duct, fan.source)[1:-1]
    heading = path_from(layout, fan.heading, fan.mouth)
    side = side_of(heading[0], heading[1], bends[-1] if bends else (source.x, source.y))
    inside = offset(heading, side * DUCT_OFFSET_M)
    points = [(source.x, source.y), *bends, *inside, heading[-1]]
    return points if layout.tunnels[fan.duct][0] == fan.source else points[::-1]


def fan_spots(layout: Layout, fans: Iterable[LocalFan], counts: dict[str, int]) -> dict[str, list[Point]]:
    """``heading id → [(x, y), …]`` (m): the spots of the ``counts[heading]`` fans of each heading, in its
    intake airway upstream of the fan's intake node, one after another (:data:`LOCAL_FAN_SETBACK_M`,
    then :data:`FAN_SPACING_M` apart) along the airway's drawn line."""
    taken: dict[str, int] = {}  # intake id → the fans already standing in it
    spots: dict[str, list[Point]] = {}
    for fan in fans:
        line = path_from(layout, fan.intake, fan.source)  # from the intake node upstream
        for _ in range(counts.get(fan.heading, 0)):
            n = taken.get(fan.intake, 0)
            taken[fan.intake] = n + 1
            spots.setdefault(fan.heading, []).append(
                point_at(line, min(LOCAL_FAN_SETBACK_M + n * FAN_SPACING_M, length(line)))
            )
    return spots


def place_local_fans(devices: list[dict[str, Any]], layout: Layout, network: Network) -> None:
    """Move the map devices of type ``aux_fan`` (``tun_id`` their heading, in order of ``device_id``: the
    running fan, then the standby) to their spots in the intake airway (:func:`fan_spots`), and spread the
    devices left in such a heading along it again (:meth:`~vent_agent.upstream.layout.Layout.spots_of`:
    the spread counted the fans); the fans of a heading the network has no drawn local fan for keep their
    spots."""
    fans = [d for d in devices if d["device_type"] == "aux_fan"]
    counts: dict[str, int] = {}
    for d in fans:
        counts[d["tun_id"]] = counts.get(d["tun_id"], 0) + 1
    spots = fan_spots(layout, local_fans(layout, network), counts)
    for d in sorted(fans, key=lambda d: str(d["device_id"])):
        queue = spots.get(d["tun_id"])
        if queue:
            x, y = queue.pop(0)
            d.update(x=round(x, 1), y=round(y, 1))
    for heading in spots:
        rest = [d for d in devices if d["tun_id"] == heading and d["device_type"] != "aux_fan"]
        spread = layout.spots_of(heading, [str(d["device_id"]) for d in rest])
        for d in rest:
            x, y = spread[d["device_id"]]
            d.update(x=round(x, 1), y=round(y, 1))


def ducts_by_branch(layout: Layout, network: Network) -> dict[str, list[Point]]:
    """``local fan branch id → its duct's points`` (:func:`duct_path`) for the fans :func:`local_fans`
    finds."""
    return {fan.duct: duct_path(layout, fan) for fan in local_fans(layout, network)}
