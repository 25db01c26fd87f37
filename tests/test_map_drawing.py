"""How the console's map draws the network (``GET /api/mine/network``): every branch the solve gives air
drawn; a door or regulator across its own airway's line; a local fan in the intake airway outside its heading, its duct running from the intake
node into the heading through its mouth to the face (《煤矿安全规程》第164条); a tunnel's devices on one side
of its line; a join through the layout's bends of it."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import httpx

from tests.helpers import present
from vent_agent.network.demo import demo_network
from vent_agent.network.drawing import FACILITY_LABELS, network_facilities, network_links
from vent_agent.network.local_fans import DUCT_OFFSET_M
from vent_agent.network.service import demo_mine_solved
from vent_agent.upstream.layout import LAYOUT_FILE, load_layout
from vent_agent.upstream.models import Device

Point = tuple[float, float]


def _distance(points: list[Point] | list[list[float]], p: Point) -> float:
    """The distance (m) from ``p`` to a polyline."""
    best = math.inf
    for (ax, ay), (bx, by) in itertools.pairwise(points):
        dx, dy = bx - ax, by - ay
        t = max(0.0, min(1.0, ((p[0] - ax) * dx + (p[1] - ay) * dy) / ((dx * dx + dy * dy) or 1.0)))
        best = min(best, math.dist(p, (ax + t * dx, ay + t * dy)))
    return best


def _layout_file(tmp_path: Path, change: dict[str, dict[str, object]]) -> Path:
    """The demo layout with some of its tables' entries replaced (``None`` drops an entry), as a file."""
    raw = json.loads(LAYOUT_FILE.read_text(encoding="utf-8"))
    for table, entries in change.items():
        for key, value in entries.items():
            if value is None:
                raw.setdefault(table, {}).pop(key, None)
            else:
                raw.setdefault(table, {})[key] = value
    path = tmp_path / "layout.json"
    path.write_text(json.dumps(raw, ensure_ascii=False), encoding="utf-8")
    return path


async def test_every_branch_the_solve_gives_air_is_drawn(client: httpx.AsyncClient) -> None:
    """The map data draws each branch of the demo mine's solve that carries air (1 m³/min or more, as the
    map writes air volumes): a monitored tunnel or a link, with a line of two points at least, from one
    of its nodes to the other (a merged branch standing for a district's other consumers too: the air it
    carries is the mine's as much as any tunnel's)."""
    net = (await client.get("/api/mine/network")).json()
    network, solution = demo_mine_solved()
    layout = load_layout()
    lines = {t["tun_id"]: t["points"] for t in net["tunnels"]} | {x["id"]: x["points"] for x in net["links"]}
    carrying = [b for b in network.branches if abs(solution.q[b.id]) * 60 >= 1.0]
    assert len(carrying) > 30
    missing = [
        f"{b.id} {b.name} {abs(solution.q[b.id]) * 60:.0f} m³/min" for b in carrying if b.id not in lines
    ]
    assert not missing, f"solved branches with air the map does not draw: {missing}"
    for b in carrying:
        ends = {tuple(lines[b.id][0]), tuple(lines[b.id][-1])}
        nodes = {(layout.nodes[n].x, layout.nodes[n].y) for n in (b.from_node, b.to_node)}
        assert len(lines[b.id]) >= 2 and ends == nodes, b.id


def test_each_door_and_regulator_sits_on_its_own_airways_line() -> None:
    layout, network = load_layout(), demo_network()
    facilities = network_facilities(layout, network)
    assert len(facilities) == len([b for b in network.branches if b.kind in FACILITY_LABELS])
    for f in facilities:
        path = present(layout.path(f["tun_id"]))
        assert _distance(path, (f["x"], f["y"])) < 0.1, f["device_id"]


def test_a_facility_whose_airway_the_layout_does_not_draw_is_left_off(tmp_path: Path) -> None:
    layout = load_layout(_layout_file(tmp_path, {"tunnels": {"FM-01": None}, "vias": {"FM-01": None}}))
    drawn = {f["device_id"] for f in network_facilities(layout, demo_network())}
    assert "FM-01" not in drawn and "DY-LF" in drawn


async def test_local_fans_stand_in_the_intake_airway_outside_their_heading(client: httpx.AsyncClient) -> None:
    """Each aux fan stands on the line of an airway whose air arrives at its duct's first node, clear of
    its heading's line and at least 10 m from the heading's mouth; its duct runs from that node into the
    heading's mouth and along the heading, beside its line, to the face."""
    net = (await client.get("/api/mine/network")).json()
    layout, network = load_layout(), demo_network()
    branches = {b.id: b for b in network.branches}
    lines = {t["tun_id"]: t["points"] for t in net["tunnels"]} | {x["id"]: x["points"] for x in net["links"]}
    fans = [d for d in net["devices"] if d["device_type"] == "aux_fan"]
    assert len(fans) == 8

    def at(node: str) -> Point:
        return (layout.nodes[node].x, layout.nodes[node].y)

    for fan in fans:
        heading = branches[fan["tun_id"]]
        duct = next(
            b
            for b in network.branches
            if b.kind == "local_fan" and b.to_node in (heading.from_node, heading.to_node)
        )
        mouth = at(heading.to_node if heading.from_node == duct.to_node else heading.from_node)
        intakes = [b.id for b in network.branches if b.to_node == duct.from_node and b.id in lines]
        spot = (fan["x"], fan["y"])
        assert min(_distance(lines[i], spot) for i in intakes if i != duct.id) < 0.5, fan["device_id"]
        assert _distance(lines[heading.id], spot) > 40, f"{fan['device_id']} stands outside its heading"
        assert math.dist(spot, mouth) >= 10, "第164条: at least 10 m outside the heading's return mouth"
        points = [tuple(p) for p in lines[duct.id]]
        assert {points[0], points[-1]} == {at(duct.from_node), at(duct.to_node)}
        if points[0] != at(duct.from_node):
            points.reverse()
        entry = min(range(len(points)), key=lambda i: math.dist(points[i], mouth))
        assert math.dist(points[entry], mouth) <= DUCT_OFFSET_M + 0.5, "the duct enters at the mouth"
        inside = points[entry:]
        assert all(_distance(lines[heading.id], p) <= DUCT_OFFSET_M + 0.5 for p in inside)
        assert math.dist(inside[0], inside[-1]) > 0.9 * math.dist(*lines[heading.id]), "…to the face"


def test_the_demo_layout_draws_every_doors_and_regulators_airway() -> None:
    layout = load_layout()
    facilities = [b.id for b in demo_network().branches if b.kind in ("door", "regulator")]
    assert len(facilities) >= 8
    assert not [f for f in facilities if f not in layout.tunnels], "each one's airway, to draw it on"


def test_a_tunnels_devices_stand_on_one_side_of_its_line() -> None:
    layout = load_layout()
    a, b = present(layout.ends("15220-YS"))
    devices = [
        Device(device_id=f"S{i}", name=f"S{i}", device_type="ch4_sensor", tun_id="15220-YS") for i in range(5)
    ]
    spots = layout.device_spots("15220-YS", devices)
    # the cross product of the drawn direction and the way to each spot: negative to the right of it
    sides = {(b.x - a.x) * (y - a.y) - (b.y - a.y) * (x - a.x) < 0 for x, y in spots.values()}
    assert sides == {True}, "all on the right of the tunnel's drawn direction"


def test_a_join_is_drawn_through_the_layouts_bends(tmp_path: Path) -> None:
    bends = [[120.0, 560.0], [120.0, 900.0]]
    layout = load_layout(_layout_file(tmp_path, {"join_vias": {"CDDS-IN": bends}}))
    joins = {j["node"]: j for j in network_links(layout, demo_network(), [])["joins"]}
    node, shaft = layout.nodes["CDDS-IN"], layout.nodes["JDCC"]
    assert joins["CDDS-IN"]["points"] == [[node.x, node.y], *bends, [shaft.x, shaft.y]]
