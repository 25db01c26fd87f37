"""GET /api/mine/network (the console's map data), GET /api/console/config and the console's files."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest

from tests.helpers import present
from vent_agent.app import create_app
from vent_agent.interpret.network import compliance_of
from vent_agent.kb.thresholds import ThresholdTable
from vent_agent.network.demo import demo_network
from vent_agent.network.drawing import network_links
from vent_agent.settings import Settings
from vent_agent.upstream.layout import LAYOUT_FILE, load_layout
from vent_agent.upstream.models import Device

NETWORK = json.loads((Path(LAYOUT_FILE).parent / "demo_network.json").read_text(encoding="utf-8"))


async def test_network_draws_every_demo_tunnel_and_device(client: httpx.AsyncClient) -> None:
    resp = await client.get("/api/mine/network")
    assert resp.status_code == 200
    net = resp.json()
    tunnels = {t["tun_id"]: t for t in net["tunnels"]}
    assert set(tunnels) == {t["tun_id"] for t in NETWORK["tunnels"]}
    facilities = {b.id: b.kind for b in demo_network().branches if b.kind in ("door", "regulator")}
    assert "FM-01" in facilities  # the door the click interpretation knows
    assert {d["device_id"] for d in net["devices"]} == {d["device_id"] for d in NETWORK["devices"]} | set(
        facilities
    )
    drawn = {d["device_id"]: d for d in net["devices"]}
    assert all(drawn[k]["device_type"] == kind for k, kind in facilities.items())
    assert drawn["FM-01"]["type_label"] == "风门" and drawn["FM-01"]["state"] == "关闭"
    x0, y0, x1, y1 = net["bounds"]
    for t in tunnels.values():
        assert t["points"] is not None and len(t["points"]) == 2
        assert t["compliance"] in ("ok", "low", "high", "no_data", "no_limit")
        for x, y in t["points"]:
            assert x0 <= x <= x1 and y0 <= y <= y1
    for d in net["devices"]:
        assert x0 <= d["x"] <= x1 and y0 <= d["y"] <= y1
    # a tunnel with a wind sensor has its reading and its class's bounds; the fan drift has no wind sensor
    t = tunnels["15216"]
    assert t["wind_speed"] > 0 and t["wind_min"] == 0.25 and t["wind_max"] == 6.0
    assert t["compliance"] == "ok" and "第157条" in t["article"]
    assert tunnels["FD-01"]["wind_speed"] is None and tunnels["FD-01"]["compliance"] == "no_data"


async def test_the_map_draws_the_network_connected_as_it_is_solved(client: httpx.AsyncClient) -> None:
    """Every branch the map draws (a monitored tunnel or an unmonitored airway) is a branch of the solved
    network, drawn from one of its nodes' positions to the other's; joined nodes are drawn joined; and
    the drawn graph is one piece (the east district no longer floats)."""
    net = (await client.get("/api/mine/network")).json()
    layout = load_layout()
    network = demo_network()
    branches = {b.id: b for b in network.branches}
    drawn = [(t["tun_id"], t["points"]) for t in net["tunnels"]] + [
        (x["id"], x["points"]) for x in net["links"]
    ]
    assert {"15220-YS", "15220-YS-RET", "EC-DYJF", "15218-JF", "ZLJ"} <= {i for i, _ in drawn}
    parent: dict[str, str] = {}

    def root(n: str) -> str:
        while parent.get(n, n) != n:
            n = parent[n]
        return n

    def at(node: str) -> tuple[float, float]:
        return (layout.nodes[node].x, layout.nodes[node].y)

    for branch_id, points in drawn:
        branch = branches[branch_id]  # KeyError: the map draws a line the network does not have
        ends = {tuple(points[0]), tuple(points[-1])}
        assert ends == {at(branch.from_node), at(branch.to_node)}, branch_id
        parent[root(branch.from_node)] = root(branch.to_node)
    for join in net["joins"]:
        assert network.joined[join["node"]] == join["partner"]
        first, last = tuple(join["points"][0]), tuple(join["points"][-1])
        assert (first, last) == (at(join["node"]), at(join["partner"]))  # through the layout's bends of it
        parent[root(join["node"])] = root(join["partner"])
    nodes = {n for b, _ in drawn for n in (branches[b].from_node, branches[b].to_node)}
    assert len({root(n) for n in nodes}) == 1, "the drawn network is in one piece"
    x0, y0, x1, y1 = net["bounds"]
    assert all(x0 <= x <= x1 and y0 <= y <= y1 for _, pts in drawn for x, y in pts)


def test_a_layout_drawing_a_branch_between_other_nodes_is_refused(tmp_path: Path) -> None:
    raw = json.loads(LAYOUT_FILE.read_text(encoding="utf-8"))
    raw["tunnels"]["EC-GDXS-RET"] = ["GDXS-MOUTH", "ZJF-END"]  # the network returns it to EC-HF-END
    bad = tmp_path / "layout.json"
    bad.write_text(json.dumps(raw, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(ValueError, match="EC-GDXS-RET"):
        network_links(load_layout(bad), demo_network(), [])


def test_compliance_of_each_side_of_the_bounds() -> None:
    table = ThresholdTable.load("2025")
    low, high = table.wind_speed_limits("采区进风巷")
    assert low is not None and high is not None
    assert compliance_of("采区进风巷", low.limit - 0.01, table)["compliance"] == "low"
    assert compliance_of("采区进风巷", low.limit, table)["compliance"] == "ok"
    assert compliance_of("采区进风巷", high.limit, table)["compliance"] == "ok"
    assert compliance_of("采区进风巷", high.limit + 0.1, table)["compliance"] == "high"
    assert compliance_of("采区进风巷", None, table)["compliance"] == "no_data"
    assert compliance_of("不存在的巷道类别", 1.0, table)["compliance"] == "no_limit"


def test_devices_spread_along_their_tunnel_and_fixed_spots_win() -> None:
    layout = load_layout()
    a, b = present(layout.ends("15220-YS"))
    devices = [
        Device(device_id=f"S{i}", name=f"S{i}", device_type="ch4_sensor", tun_id="15220-YS") for i in range(3)
    ]
    spots = layout.device_spots("15220-YS", devices)
    xs = [spots[f"S{i}"][0] for i in range(3)]
    assert xs == sorted(xs) and min(a.x, b.x) < xs[0] and xs[-1] < max(a.x, b.x)
    fan = Device(device_id="FAN-001", name="1号", device_type="fan", tun_id="FD-01")
    house = layout.nodes["FAN-HOUSE"]
    assert layout.device_spots("FD-01", [fan])["FAN-001"] == (house.x, house.y + 40)
    assert layout.device_spots("NO-SUCH", devices) == {}


def test_a_layout_with_a_dangling_node_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "layout.json"
    bad.write_text(json.dumps({"nodes": {"A": {"name": "A", "x": 0, "y": 0}}, "tunnels": {"T": ["A", "B"]}}))
    with pytest.raises(ValueError, match="unknown nodes"):
        load_layout(bad)


async def test_console_config_offers_the_demo_tokens_only_on_the_builtin_service(
    client: httpx.AsyncClient,
) -> None:
    cfg = (await client.get("/api/console/config")).json()
    assert cfg["auth"] == "builtin"
    assert {"token": "demo-token", "user_name": "zhangsan"} in cfg["demo_tokens"]
    # the console writes each figure as the service's texts do
    assert cfg["figures"]["wind_speed"] == {"unit": "m/s", "digits": 2}
    assert cfg["figures"]["co"] == {"unit": "ppm", "digits": 0}


async def test_console_config_hides_tokens_with_the_mines_user_service(tmp_path: Path) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path / "data", auth_url="http://127.0.0.1:9/auth")
    app = create_app(settings)
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://t") as c,
    ):
        cfg = (await c.get("/api/console/config")).json()
    assert (cfg["auth"], cfg["demo_tokens"]) == ("external", [])


async def test_the_console_page_its_modules_and_the_report_route(client: httpx.AsyncClient) -> None:
    page = await client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "运维控制台" in page.text and "/static/console/app.js" in page.text
    for name in ("app.js", "api.js", "map.js", "chat.js", "review.js", "turn.js", "md.js", "console.css"):
        resp = await client.get(f"/static/console/{name}")
        assert resp.status_code == 200, name
    api_js = (await client.get("/static/console/api.js")).text
    assert "from '/static/vent-client.js'" in api_js
    assert (await client.get("/static/vent-client.js")).status_code == 200
    nope = await client.get("/static/console/nope.js")
    assert nope.status_code == 404 and "error" in nope.json(), nope.text
    # the reports route next to the mount still answers in the service's error shape
    missing = await client.get("/static/reports/vent_review_" + "0" * 32 + "_20260101.docx")
    assert missing.status_code == 404 and missing.json() == {"error": "报告不存在"}


async def test_no_map_item_is_placed_by_a_node_id(client: httpx.AsyncClient) -> None:
    """A device's place (the side panel's subtitle) is said in names a person knows, or not at all: never
    by the network's node ids (a door's airway ``ZJF-END–HF-END``)."""
    net = (await client.get("/api/mine/network")).json()
    nodes = {n for b in demo_network().branches for n in (b.from_node, b.to_node)}
    facilities = [d for d in net["devices"] if d["device_type"] in ("door", "regulator")]
    assert facilities and all(d["position"] for d in facilities), "the layout names their airways' ends"
    for d in net["devices"]:
        words = re.findall(r"[A-Za-z0-9][A-Za-z0-9-]*", d["position"] or "")
        assert not set(words) & nodes, (d["device_id"], d["position"])
