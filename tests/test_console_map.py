"""The console's network map laid out in a real headless browser, at 1280×720 and 1920×1080, with the side
panel closed and open (a click on the tunnel drawn furthest right): no label over another, over a symbol,
across another line or hidden; each label nearest its own line (or tied to it by a leader); each door and
regulator on its airway's line, each local fan on its intake's; the clicked tunnel highlighted and in the
map's view. And the devices in alarm ringed whether the overview or the map comes first. Fixtures and skip
rules are those of tests/test_console_browser.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.test_console_browser import (  # noqa: F401  (fixtures)
    TIMEOUT_MS,
    browser,
    page,
    server,
    shots,
    sync_api,
)
from tests.test_console_overview import _open_panel
from vent_agent.network.demo import demo_network

SIZES = [(1280, 720), (1920, 1080)]
SMALL_LABEL_PX = 13  # the labels' size on a map about as wide as a 1280 screen's (map.js labelPx)

BOX = "(({{left, top, right, bottom}}) => [left, top, right, bottom])({}.getBoundingClientRect())"
LABEL_BOXES = (
    "[...document.querySelectorAll('g.labels text.label')].map((t) => [t.textContent, "
    + BOX.format("t")
    + ", t.getAttribute('display') !== 'none'])"
)

LABELS_CROSSING = """() => import('/static/console/labels.js').then(({ segmentHitsBox }) => {
  const segs = [...document.querySelectorAll('svg.net [data-path]')].flatMap((n) => {
    const pts = n.dataset.path.split(' ').map((p) => p.split(',').map(Number));
    return pts.slice(1).map((b, i) => [n.dataset.branch, [...pts[i], ...b]]);
  });
  return [...document.querySelectorAll('g.labels text.label:not([display=none])')].flatMap((t) => {
    const { x, y, width, height } = t.getBBox();
    const box = { left: x, top: y, right: x + width, bottom: y + height };
    return segs.filter(([b, seg]) => b !== t.dataset.branch && segmentHitsBox(seg, box))
      .map(([b]) => `${t.querySelector('.name').textContent} × ${b}`);
  });
})"""

HIDDEN_BRANCHES = (
    "[...document.querySelectorAll('g.labels text.label[display=none]')].map((t) => t.dataset.branch)"
)

# Each placed label that would read as naming another line than its own: its own line is to be strictly
# the nearest to the label's centre (a label beside a line along it) or to its edge (beside a line across
# its end, a wide label beside an upright line), else the label has a leader from a point of its own
# line to its edge that crosses no other line. In the SVG's user units (the map's one scale).
LABELS_MISREAD = """() => import('/static/console/labels.js').then(({ segmentHitsBox }) => {
  const svg = document.querySelector('svg.net');
  const lines = [...svg.querySelectorAll('[data-path]')].flatMap((n) => {
    const pts = n.dataset.path.split(' ').map((p) => p.split(',').map(Number));
    return pts.slice(1).map((b, i) => [n.dataset.branch, [...pts[i], ...b]]);
  });
  const toSegment = (px, py, [ax, ay, bx, by]) => {
    const dx = bx - ax, dy = by - ay;
    const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy || 1)));
    return Math.hypot(ax + t * dx - px, ay + t * dy - py);
  };
  const toBox = (px, py, b) => Math.hypot(Math.max(b.left - px, 0, px - b.right), Math.max(b.top - py, 0, py - b.bottom));
  const boxToSegment = (b, s) => (segmentHitsBox(s, b) ? 0 : Math.min(toBox(s[0], s[1], b), toBox(s[2], s[3], b),
    ...[[b.left, b.top], [b.right, b.top], [b.left, b.bottom], [b.right, b.bottom]].map(([x, y]) => toSegment(x, y, s))));
  const turn = (p, q, r) => Math.sign((q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]));
  const cross = ([a, b, c, d], [e, f, g, h]) => turn([a, b], [c, d], [e, f]) * turn([a, b], [c, d], [g, h]) <= 0
    && turn([e, f], [g, h], [a, b]) * turn([e, f], [g, h], [c, d]) <= 0;
  return [...svg.querySelectorAll('g.labels text.label:not([display=none])')].flatMap((t) => {
    const { x, y, width, height } = t.getBBox();
    const box = { left: x, top: y, right: x + width, bottom: y + height };
    const name = t.querySelector('.name').textContent;
    const own = lines.filter(([b]) => b === t.dataset.branch).map(([, s]) => s);
    const others = lines.filter(([b]) => b !== t.dataset.branch);
    const leader = svg.querySelector(`line.leader[data-branch="${CSS.escape(t.dataset.branch)}"]`);
    if (leader) {
      const seg = ['x1', 'y1', 'x2', 'y2'].map((a) => +leader.getAttribute(a));
      const fromOwn = Math.min(...own.map((s) => toSegment(seg[0], seg[1], s))) < 1;
      const across = others.filter(([, s]) => cross(s, seg)).map(([b]) => b);
      return fromOwn && toBox(seg[2], seg[3], box) < 1 && !across.length ? [] : [`${name}: leader across ${across}`];
    }
    const nearest = (dist) => {
      const [branch, d] = others.map(([b, s]) => [b, dist(s)]).sort((p, q) => p[1] - q[1])[0];
      return [Math.min(...own.map(dist)), branch, d];
    };
    const centre = nearest((s) => toSegment(x + width / 2, y + height / 2, s));
    const edge = nearest((s) => boxToSegment(box, s));
    return centre[0] < centre[2] || edge[0] < edge[2]
      ? [] : [`${name}: centre ${centre.map(String)}, edge ${edge.map(String)}`];
  });
})"""

LABEL_PX = (
    "[...document.querySelectorAll('g.labels text')].map((t) => parseFloat(getComputedStyle(t).fontSize)"
    " * Math.hypot(t.getScreenCTM().a, t.getScreenCTM().b))"
)
RIGHTMOST_TUNNEL = """() => [...document.querySelectorAll('g.tunnel')]
  .map((g) => [g.dataset.tunId, g.querySelector('line').getBoundingClientRect().right])
  .sort((a, b) => b[1] - a[1])[0][0]"""


def _overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.fixture(
    params=[(size, panel) for size in SIZES for panel in (False, True)],
    ids=lambda p: f"{p[0][0]}-{'panel' if p[1] else 'no-panel'}",
)
def map_view(
    request: pytest.FixtureRequest,
    server: tuple[str, Any],  # noqa: F811
    browser: Any,  # noqa: F811
) -> Iterator[tuple[Any, tuple[int, int], str | None]]:
    """The map tab at a screen size, its air volumes in its labels, with the side panel closed or open on
    the tunnel drawn furthest right (by keyboard, as a user may): (tab, size, the clicked tunnel or None)."""
    size, panel = request.param
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, locale="zh-CN")
    tab = context.new_page()
    tab.set_default_timeout(TIMEOUT_MS)
    try:
        tab.goto(f"{server[0]}/#map")
        tab.wait_for_function(
            "document.querySelector('text.label[data-branch=\"ZJFX\"] tspan.flow')?.textContent"
        )
        clicked = tab.evaluate(RIGHTMOST_TUNNEL) if panel else None
        if clicked:
            _open_panel(tab, f'g.tunnel[data-tun-id="{clicked}"]')
        yield tab, size, clicked
    finally:
        context.close()


def test_the_map_labels_stay_clear_and_by_their_own_lines(
    map_view: tuple[Any, tuple[int, int], str | None],
    shots: Path,  # noqa: F811
) -> None:
    """Every label readable, none over another or a symbol or across another line, none of a monitored
    tunnel hidden, each nearest its own line (a label squeezed against another tunnel's line reads as
    naming it): with the side panel open the map keeps a width where that holds, scrolled sideways in its
    box, the clicked tunnel highlighted and in view."""
    tab, size, clicked = map_view
    view = f"{size} {'panel on ' + clicked if clicked else 'no panel'}"
    tab.screenshot(path=str(shots / f"console-map-{size[0]}{'-panel' if clicked else ''}.png"))
    sizes = tab.evaluate(LABEL_PX)
    assert min(sizes) >= 11, f"map labels readable at {view}: {min(sizes):.1f} px"
    if clicked or size[0] == 1280:  # a map about as wide as a 1280 screen's: that screen's labels
        assert round(max(sizes)) == SMALL_LABEL_PX, f"labels of {max(sizes):.1f} px at {view}"
    if clicked and size[0] == 1920:  # a wall screen's map beside the side panel: wide enough, unscrolled
        assert tab.locator("#net-map").evaluate("(m) => m.scrollWidth <= m.clientWidth")
    order = tab.evaluate(
        "[...document.querySelector('svg.net').children].map((g) => g.getAttribute('class'))"
    )
    assert order.index("labels") > order.index("devices"), "labels drawn above the device symbols"
    assert order.index("airflow") < order.index("devices"), "the air's arrows under the device symbols"
    boxes = [(text, box) for text, box, shown in tab.evaluate(LABEL_BOXES) if shown]
    overlaps = [(a, b) for i, (a, p) in enumerate(boxes) for b, q in boxes[i + 1 :] if _overlap(p, q)]
    assert not overlaps, f"map labels overlap at {view}: {overlaps}"
    svg = tab.evaluate(BOX.format("document.querySelector('svg.net')"))
    outside = [t for t, b in boxes if b[0] < svg[0] or b[1] < svg[1] or b[2] > svg[2] or b[3] > svg[3]]
    assert not outside, f"map labels cut at the map's edge at {view}: {outside}"
    icons = tab.evaluate(f"[...document.querySelectorAll('g.device')].map((d) => {BOX.format('d')})")
    covering = [t for t, b in boxes if any(_overlap(b, i) for i in icons)]
    assert not covering, f"map labels over device symbols at {view}: {covering}"
    small = [round(b[2] - b[0], 1) for b in icons if b[2] - b[0] < 14 or b[3] - b[1] < 14]
    assert not small, f"device symbols under 14 px at {view}: {small}"
    stacked = [(a, b) for i, a in enumerate(icons) for b in icons[i + 1 :] if _overlap(a, b)]
    assert not stacked, f"device symbols overlap each other at {view}: {stacked}"
    crossing = tab.evaluate(LABELS_CROSSING)
    assert not crossing, f"map labels across other lines at {view}: {crossing}"
    tunnels = tab.evaluate("[...document.querySelectorAll('g.tunnel')].map((g) => g.dataset.tunId)")
    lost = set(tab.evaluate(HIDDEN_BRANCHES)) & set(tunnels)
    assert not lost, f"monitored tunnels' labels hidden at {view}: {lost}"
    misread = tab.evaluate(LABELS_MISREAD)
    assert not misread, f"map labels nearer another line than their own at {view}: {misread}"
    if clicked:
        item = tab.locator(f'g.tunnel[data-tun-id="{clicked}"]')
        assert "selected" in (item.get_attribute("class") or ""), "the tunnel in the panel stays highlighted"
        box = tab.evaluate(BOX.format("document.getElementById('net-map')"))
        line = tab.evaluate(BOX.format(f"document.querySelector('g.tunnel[data-tun-id=\"{clicked}\"] line')"))
        assert box[0] <= line[0] and line[2] <= box[2], f"the clicked tunnel in the map's view at {view}"


def _fans_and_facilities(net: dict[str, Any]) -> tuple[dict[str, tuple[list[str], str]], list[str]]:
    """The map data's local fans, each with the drawn airways its duct's first node is fed by (its intake)
    and its heading, and the doors and regulators (each a device named by its own branch)."""
    network = demo_network()
    drawn = {t["tun_id"] for t in net["tunnels"]} | {x["id"] for x in net["links"]}
    fans = {}
    for fan in (d for d in net["devices"] if d["device_type"] == "aux_fan"):
        heading = next(b for b in network.branches if b.id == fan["tun_id"])
        duct = next(
            b
            for b in network.branches
            if b.kind == "local_fan" and b.to_node in (heading.from_node, heading.to_node)
        )
        intakes = [b.id for b in network.branches if b.to_node == duct.from_node and b.id in drawn]
        fans[fan["device_id"]] = ([i for i in intakes if i != duct.id], heading.id)
    facilities = [d["device_id"] for d in net["devices"] if d["device_type"] in ("door", "regulator")]
    return fans, facilities


# per [device id, [branch ids]]: the screen distance (px) from the device symbol's drawn centre to the
# nearest of those branches' drawn lines, and the symbol's half-width (px)
SYMBOL_TO_LINES = """(pairs) => {
  const svg = document.querySelector('svg.net');
  const m = svg.getScreenCTM();
  const screen = ([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f];
  const toSegment = ([px, py], [ax, ay], [bx, by]) => {
    const dx = bx - ax, dy = by - ay;
    const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy || 1)));
    return Math.hypot(ax + t * dx - px, ay + t * dy - py);
  };
  const toLine = (branch, p) => {
    const node = svg.querySelector(`[data-path][data-branch="${CSS.escape(branch)}"]`);
    const pts = node.dataset.path.split(' ').map((q) => screen(q.split(',').map(Number)));
    return Math.min(...pts.slice(1).map((b, i) => toSegment(p, pts[i], b)));
  };
  return pairs.map(([device, branches]) => {
    const box = svg.querySelector(`g.device[data-device-id="${CSS.escape(device)}"]`).getBoundingClientRect();
    const centre = [box.left + box.width / 2, box.top + box.height / 2];
    return [device, Math.min(...branches.map((b) => toLine(b, centre))), box.width / 2];
  });
}"""


def test_doors_regulators_and_local_fans_sit_on_their_airways(
    server: tuple[str, Any],  # noqa: F811
    map_view: tuple[Any, tuple[int, int], str | None],
) -> None:
    """A door or regulator is drawn across its own airway's line; a local fan on the line of the intake
    airway its duct starts from, clear of its heading's line (《煤矿安全规程》第164条), its duct dashed."""
    fans, facilities = _fans_and_facilities(httpx.get(f"{server[0]}/api/mine/network", timeout=60).json())
    assert len(fans) == 8 and len(facilities) >= 8
    tab, size, clicked = map_view
    view = f"{size} {'panel on ' + clicked if clicked else 'no panel'}"
    placed = tab.evaluate(SYMBOL_TO_LINES, [[f, [f]] for f in facilities])
    off = [(f, round(px, 1)) for f, px, _ in placed if px > 3]
    assert not off, f"doors and regulators off their airway's line at {view} (px): {off}"
    in_intake = tab.evaluate(SYMBOL_TO_LINES, [[f, intakes] for f, (intakes, _) in fans.items()])
    off = [(f, round(px, 1)) for f, px, _ in in_intake if px > 3]
    assert not off, f"local fans off their intake airway's line at {view} (px): {off}"
    by_heading = tab.evaluate(SYMBOL_TO_LINES, [[f, [heading]] for f, (_, heading) in fans.items()])
    inside = [(f, round(px, 1)) for f, px, half in by_heading if px <= half]
    assert not inside, f"local fans drawn on their heading's line at {view} (px): {inside}"
    dashes = tab.evaluate(
        "[...document.querySelectorAll('g.link.local_fan .stroke')].map((l) => getComputedStyle(l).strokeDasharray)"
    )
    assert len(dashes) == 4 and "none" not in dashes, f"ducts drawn dashed: {dashes}"


RINGED = "[...document.querySelectorAll('#net-map g.device.alarm')].map((g) => g.dataset.deviceId)"


def test_the_map_rings_the_devices_in_alarm_whichever_comes_first(
    server: tuple[str, Any],  # noqa: F811
    page: Any,  # noqa: F811
) -> None:
    """The map and the overview load side by side: the devices in the overview's alarms are ringed when the
    overview comes after the map is drawn, and stay ringed when the map is drawn again after it."""
    base, _ = server
    overview = httpx.get(f"{base}/api/mine/overview", timeout=60).json()
    alarmed = {a["device_id"] for a in overview["alarms"] if a.get("device_id")}
    assert alarmed, "the data has devices in alarm"
    held: list[Any] = []
    page.route("**/api/mine/overview", lambda route: held.append(route))  # held back until the map is drawn
    page.goto(f"{base}/#map")
    sync_api.expect(page.locator("g.tunnel").first).to_be_visible()
    assert held and not page.evaluate(RINGED)
    held[0].continue_()
    sync_api.expect(page.locator("#net-map g.device.alarm")).to_have_count(len(alarmed))
    assert set(page.evaluate(RINGED)) == alarmed
    drawn = page.locator("svg.net").element_handle()
    page.locator("#map-refresh").click()  # the map drawn again, the overview already there
    page.wait_for_function("(svg) => !svg.isConnected && document.querySelector('svg.net')", arg=drawn)
    assert set(page.evaluate(RINGED)) == alarmed, "the rings kept across a redraw"


def test_an_unmonitored_branch_opens_its_solved_air_in_the_panel(
    server: tuple[str, Any],  # noqa: F811
    page: Any,  # noqa: F811
) -> None:
    """A click on an airway without sensors opens the side panel: no readings, its solved air (模拟) and
    resistance, the solve's figure the map's label gives; a regulator's airway points to its symbol."""
    base, _ = server
    page.goto(f"{base}/#map")
    sync_api.expect(page.locator("g.airflow g.flow").first).to_be_attached()
    links = httpx.get(f"{base}/api/mine/network", timeout=60).json()["links"]
    regulator = next(link for link in links if link["kind"] == "regulator")
    plain = next(link for link in links if link["kind"] == "roadway")
    link = page.locator(f'g.link[data-tun-id="{regulator["id"]}"]')
    link.dispatch_event("click")  # its middle carries the regulator's symbol, which opens the device
    panel = page.locator("#map-panel")
    sync_api.expect(panel).to_be_visible()
    sync_api.expect(page.locator("#panel-title")).to_have_text(regulator["name"])
    body = page.locator("#panel-body")
    sync_api.expect(body).to_contain_text("没有监测数据")
    sync_api.expect(body).to_contain_text("点击图上的调节风窗符号")
    label = page.locator(f'text.label[data-branch="{regulator["id"]}"] tspan.flow')
    label_flow = label.text_content() or ""
    q = label_flow.split("模拟 ")[1].split(" ")[0]
    sync_api.expect(body).to_contain_text(f"现状解算风量 {q} m³/min（模拟）")
    assert "selected" in (link.get_attribute("class") or "")
    page.locator(f'g.link[data-tun-id="{plain["id"]}"]').focus()
    page.keyboard.press("Enter")
    sync_api.expect(page.locator("#panel-title")).to_have_text(plain["name"])
    assert "符号" not in (body.text_content() or "")


def test_a_standby_fan_is_drawn_hollow_and_the_legend_says_so(
    server: tuple[str, Any],  # noqa: F811
    page: Any,  # noqa: F811
) -> None:
    """A fan that moves no air (备用) must not look like the running one: hollow, dashed, named in its tooltip
    and in the legend; the running fans keep their filled symbol."""
    base, _ = server
    devices = httpx.get(f"{base}/api/mine/network", timeout=60).json()["devices"]
    fans = [d for d in devices if d["device_type"] in ("fan", "aux_fan")]
    standby = {d["device_id"] for d in fans if d["state"] == "备用"}
    assert standby and len(standby) < len(fans), "the demo mine has running and standby fans"
    page.goto(f"{base}/#map")
    sync_api.expect(page.locator("g.device").first).to_be_attached()
    fills = page.evaluate(
        "Object.fromEntries([...document.querySelectorAll('g.device')].map((g) => [g.dataset.deviceId,"
        " getComputedStyle(g.querySelector('rect, circle')).fill]))"
    )
    white = "rgb(255, 255, 255)"
    assert {d["device_id"] for d in fans if fills[d["device_id"]] == white} == standby
    title = page.locator(f'g.device[data-device-id="{sorted(standby)[0]}"] title').text_content() or ""
    assert "（备用）" in title
    sync_api.expect(page.locator("#map-legend")).to_contain_text("主要通风机（备用 / 停止）")
