"""The console's 运行总览 and the map's figures in a real headless browser, at 1280×720 and 1920×1080: the
status strip, the alarms acknowledged per user, the sparklines with their limits near their values, the map,
the overview and the panel writing a figure alike, each tunnel coloured by its worst status, the side panel
growing with the screen. Fixtures and skip rules are those of tests/test_console_browser.py."""

# ruff: noqa: F811  (the fixtures imported from tests/test_console_browser.py are the tests' parameters)
from __future__ import annotations

import itertools
import math
import operator
import re
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

NO_EMOJI = re.compile("[\u2600-\u27bf\U0001f000-\U0001faff]")


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_operator_overview_strip_alarms_acknowledged_and_sparklines(
    server: tuple[str, Any], browser: Any, shots: Path, size: tuple[int, int]
) -> None:
    base, _ = server
    overview = httpx.get(f"{base}/api/mine/overview", timeout=60).json()
    alarmed = {a["device_id"] for a in overview["alarms"] if a.get("device_id")}
    assert alarmed, "the data has devices in alarm"
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, locale="zh-CN")
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    try:
        page.goto(f"{base}/")
        strip = page.locator("#strip")
        sync_api.expect(strip).to_contain_text("总进风")
        for text in ("主通风机", "运行", "备用", "总回风", "最高 CH₄", "最高 CO", "数据 "):
            assert text in strip.inner_text(), text
        # the totals go through the shafts, and say so; the strip keeps to one line
        intake = strip.locator(".total").first
        assert "进风井合计：副立井 实测" in (intake.get_attribute("title") or "")
        # at every width each total says where it comes from, and one with a modelled part says so, never
        # one bold figure like the table's rows 总进风巷/总回风巷
        for shown, key in zip(strip.locator(".total").all(), ("intake", "return"), strict=True):
            note = shown.locator("small")
            sync_api.expect(note).to_be_visible()
            modelled = any(part["basis"] == "解算" for part in overview["air_totals"][key]["parts"])
            assert ("含解算" in note.inner_text()) == modelled, (key, note.inner_text())
        assert any(p["basis"] == "解算" for p in overview["air_totals"]["intake"]["parts"]), "the data's case"
        assert strip.evaluate("(s) => s.getBoundingClientRect().height") < 40
        alarms = page.locator("table.alarms tbody tr")
        sync_api.expect(alarms.first).to_be_visible()
        assert alarms.first.locator(".st").inner_text() in ("超限", "偏低")  # worst first, in words
        assert page.locator("table.tunnels-table svg.spark").count() >= 10
        assert page.locator("table.tunnels-table svg.spark.co").count() > 0, "CO's 24 h sparklines"
        rows = page.evaluate(
            "[...document.querySelectorAll('table.tunnels-table tbody tr')]"
            ".map((r) => [...r.cells].slice(1, 6).map((c) => c.textContent.trim()))"
        )  # status, wind speed, air volume, CH₄, CO
        unread = [r[0] for r in rows if all(x == "—" for x in r[1:])]
        assert set(unread) <= {"无数据"}, f"a tunnel with no reading is 无数据, never 正常: {unread}"
        # the fan drift has no sensor of its own: its air volume is its main fans' measured figure, and
        # it is judged by their readings, not shown as 无数据
        drift = [r for r in rows if r[1] == r[3] == r[4] == "—" and r[2] != "—"]
        assert drift and all(r[0] == "正常" and r[2].endswith("m³/min") for r in drift), drift
        assert not NO_EMOJI.search(page.locator("body").inner_text()), "statuses are words, never glyphs"
        assert page.evaluate("document.scrollingElement.scrollWidth") <= size[0], "no sideways scrolling"
        page.screenshot(path=str(shots / f"console-overview-{size[0]}.png"))
        if size[0] == 1280:  # acknowledge: kept per user across a reload
            key = alarms.first.get_attribute("data-key")
            count = alarms.count()
            sync_api.expect(strip).to_contain_text(f"未确认 {count}")
            alarms.first.locator("button.ack").click()
            sync_api.expect(alarms.first).to_contain_text("zhangsan 已确认")  # who and when
            sync_api.expect(strip).to_contain_text(f"未确认 {count - 1}")  # the strip recounts
            page.reload()
            sync_api.expect(page.locator(f'table.alarms tr[data-key="{key}"]')).to_contain_text(
                "zhangsan 已确认"
            )
            sync_api.expect(strip).to_contain_text(f"未确认 {count - 1}")
        page.goto(f"{base}/#map")  # its address typed or linked: the page's top, the strip, stays in view
        sync_api.expect(page.locator("g.tunnel").first).to_be_visible()
        assert page.evaluate("window.scrollY") == 0, "no element of the page is named like a tab's address"
        # the devices in alarm ringed on the map, once the overview has reached it (the map may be drawn
        # before the overview arrives)
        rings = page.locator("#net-map g.device.alarm")
        sync_api.expect(rings).to_have_count(len(alarmed))
        ringed = {r.get_attribute("data-device-id") for r in rings.all()}
        assert ringed == alarmed, "the overview's devices in alarm, and only they, ringed on the map"
    finally:
        context.close()


WIND_CELLS = """() => Object.fromEntries([...document.querySelectorAll('table.tunnels-table tbody tr')]
  .map((r) => [r.dataset.tunId, r.cells[2].textContent.trim()]))"""
MAP_WINDS = """() => Object.fromEntries([...document.querySelectorAll('g.labels text.label')]
  .filter((t) => t.querySelector('tspan.value')).map((t) => [t.dataset.branch, t.querySelector('tspan.value').textContent]))"""


def test_the_map_the_overview_and_the_panel_write_a_figure_alike(server: tuple[str, Any], page: Any) -> None:
    """One reading, one figure: the map's label, the overview's cell and the side panel's table show a
    tunnel's wind speed at the same two decimals (never 0.236 beside 0.24)."""
    base, _ = server
    network = httpx.get(f"{base}/api/mine/network", timeout=60).json()
    overview = httpx.get(f"{base}/api/mine/overview", timeout=60).json()
    # the tunnels whose map figure (the first wind sensor) is the overview's (the worst wind reading)
    rows = {t["tun_id"]: t["values"].get("wind_speed") for t in overview["tunnels"]}
    same = {
        t["tun_id"]: t["wind_speed"]
        for t in network["tunnels"]
        if t["wind_speed"] is not None and (rows.get(t["tun_id"]) or {}).get("value") == t["wind_speed"]
    }
    fine = [i for i, v in same.items() if round(v, 2) != v]
    assert fine, "the data has a wind speed finer than the figures' two decimals"
    page.goto(f"{base}/#map")
    sync_api.expect(page.locator("table.tunnels-table tbody tr").first).to_be_attached()
    sync_api.expect(page.locator("g.labels text.label tspan.value").first).to_be_attached()
    cells = page.evaluate(WIND_CELLS)
    winds = page.evaluate(MAP_WINDS)
    for tun_id, value in same.items():
        assert cells[tun_id] == f"{value:.2f} m/s", (tun_id, cells[tun_id])
        assert winds[tun_id] == f"实测 {cells[tun_id]}", (tun_id, winds[tun_id])
    tun_id = fine[0]
    page.locator(f'g.tunnel[data-tun-id="{tun_id}"]').focus()
    page.keyboard.press("Enter")
    sync_api.expect(page.locator("#panel-body .status")).to_have_text("解读完成")
    wind_row = page.locator("#panel-body table tr", has_text="风速").first
    sync_api.expect(wind_row).to_contain_text(cells[tun_id])
    assert f"{same[tun_id]:g} m/s" not in page.locator("#panel-body").inner_text()


LINE_COLOURS = """() => Object.fromEntries([...document.querySelectorAll('g.tunnel')]
  .map((g) => [g.dataset.tunId, getComputedStyle(g.querySelector('line.stroke')).stroke]))"""
TAG_COLOURS = """() => Object.fromEntries([...document.querySelectorAll('table.tunnels-table tbody tr')]
  .map((r) => [r.dataset.tunId, getComputedStyle(r.cells[1].querySelector('.st')).backgroundColor]))"""
SWATCH_COLOURS = """() => Object.fromEntries([...document.querySelectorAll('#map-legend i.swatch[class*="status-"]')]
  .map((i) => [i.parentElement.textContent, getComputedStyle(i).backgroundColor]))"""
RINGS = """(sel) => [...document.querySelectorAll(sel)].map((n) => getComputedStyle(n)[n.tagName === 'I' ? 'borderTopColor' : 'stroke'])"""


def _colour_distance(a: str, b: str) -> float:
    """Euclidean distance of two CSS ``rgb(r, g, b)`` colours (0–441)."""
    ra, rb = (tuple(int(v) for v in re.findall(r"\d+", c)[:3]) for c in (a, b))
    return math.dist(ra, rb)


def test_the_map_colours_each_tunnel_by_its_worst_status_and_its_legend_says_so(
    server: tuple[str, Any], page: Any
) -> None:
    """A tunnel whose wind speed is fine but whose CH₄ is over its limit is drawn in the 超限 colour: each
    line in the colour of the overview's 状态 of its tunnel; the legend names the statuses and the alarm
    rings the map draws round the devices."""
    base, _ = server
    network = httpx.get(f"{base}/api/mine/network", timeout=60).json()
    overview = httpx.get(f"{base}/api/mine/overview", timeout=60).json()
    status = {t["tun_id"]: t["status"] for t in overview["tunnels"]}
    wind_ok = {t["tun_id"] for t in network["tunnels"] if t["compliance"] == "ok"}
    assert any(status[i] not in ("正常", "无数据") for i in wind_ok), (
        "the data has a tunnel wind alone calls fine"
    )
    page.goto(f"{base}/#map")
    sync_api.expect(page.locator("table.tunnels-table tbody tr").first).to_be_attached()
    sync_api.expect(page.locator("g.device.alarm").first).to_be_attached()  # the overview is on the map
    lines = page.evaluate(LINE_COLOURS)
    tags = page.evaluate(TAG_COLOURS)
    drawn = [i for i in lines if i in status]
    assert len(drawn) == len(lines) > 10
    wrong = {i: (status[i], lines[i], tags[i]) for i in drawn if lines[i] != tags[i]}
    assert not wrong, f"a line not in its tunnel's status colour: {wrong}"
    legend = page.locator("#map-legend")
    for word in ("正常", "偏低", "预警", "超限", "无数据", "最差", "设备报警", "设备预警"):
        sync_api.expect(legend).to_contain_text(word)
    swatches = page.evaluate(SWATCH_COLOURS)
    assert len(swatches) == 5
    for (a, ca), (b, cb) in itertools.combinations(swatches.items(), 2):
        assert _colour_distance(ca, cb) > 80, f"{a} and {b} look alike on the map: {ca} vs {cb}"
    rings = set(page.evaluate(RINGS, "g.device.alarm > :is(circle, rect)"))
    assert rings <= set(page.evaluate(RINGS, "#map-legend i.ring")), (
        "every alarm ring on the map is in the legend"
    )
    tip = page.locator("g.tunnel", has=page.locator("title")).evaluate_all(
        "(gs) => gs.filter((g) => g.dataset.status === '超限').map((g) => g.querySelector('title').textContent)"
    )
    assert tip and all("超限：" in t for t in tip), f"the tooltip says which reading is over its limit: {tip}"


SPARKS = """() => [...document.querySelectorAll('table.tunnels-table svg.spark')].map((svg) => ({
  tun: svg.closest('tr').dataset.tunId, quantity: svg.classList[1],
  title: svg.querySelector(':scope > title')?.textContent || '',
  limits: [...svg.querySelectorAll('line.limit')].map((l) => [l.querySelector('title').textContent, +l.getAttribute('y1')]),
}))"""


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_each_sparkline_shows_its_limits_near_its_values(
    server: tuple[str, Any], browser: Any, size: tuple[int, int]
) -> None:
    """Wind speed, CH₄ and CO each have a 24 h sparkline; a limit the values cross or come near is a dashed
    line in it, a far one is not drawn (it would flatten the curve), every one is named in its tooltip;
    the table still fits the screen."""
    base, _ = server
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, locale="zh-CN")
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    try:
        with page.expect_response(lambda r: r.url.endswith("/api/mine/overview")) as got:
            page.goto(f"{base}/")
        rows = {t["tun_id"]: t for t in got.value.json()["tunnels"]}
        sync_api.expect(page.locator("table.tunnels-table svg.spark").first).to_be_attached()
        sparks = page.evaluate(SPARKS)
        assert {s["quantity"] for s in sparks} == {"wind_speed", "ch4", "co"}
        crossed = far = 0
        for s in sparks:
            row = rows[s["tun"]]
            values = [v for v in row["sparks"][s["quantity"]] if v is not None]
            low, high = min(values), max(values)
            drawn = {title for title, _ in s["limits"]}
            assert all(0 <= y <= 26 for _, y in s["limits"]), s
            for limit in row["spark_limits"][s["quantity"]]:
                assert limit["text"] in s["title"], (s, limit)  # the tooltip names every limit
                shown = any(limit["text"] in t for t in drawn)
                gap = max(low - limit["value"], limit["value"] - high, 0)
                if gap == 0:  # crossed, or touched, in the last 24 h
                    crossed += 1
                    assert shown, (s, limit)
                if gap > max(
                    0.5 * (high - low), 0.15 * abs(limit["value"])
                ):  # far: it would flatten the curve
                    assert not shown, (s, limit)
                    far += 1
        assert crossed, "the data has a limit crossed in the last 24 h"
        assert far, "the data has a limit far from its values"
        assert page.evaluate("document.scrollingElement.scrollWidth") <= size[0], "no sideways scrolling"
    finally:
        context.close()


PANEL_CELL_LINES = """() => [...document.querySelectorAll('#panel-body table')].flatMap((t) => [...t.querySelectorAll('th, td')]
  .map((c) => {
    const r = document.createRange();
    r.selectNodeContents(c);
    const lines = new Set([...r.getClientRects()].filter((x) => x.width > 0).map((x) => Math.round(x.top))).size;
    return [lines, c.textContent.trim()];
  }))"""


def _open_panel(page: Any, selector: str) -> None:
    """Open the side panel on a map item (by keyboard: a symbol may lie over a line's middle), and wait for
    that item's interpretation (its name in the panel's title: not the previous item's still showing)."""
    item = page.locator(selector)
    item.focus()
    page.keyboard.press("Enter")
    sync_api.expect(page.locator("#panel-title")).to_have_text(item.get_attribute("data-name"))
    sync_api.expect(page.locator("#panel-body .status")).to_have_text("解读完成")


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_the_side_panel_grows_with_the_screen(
    server: tuple[str, Any], browser: Any, size: tuple[int, int]
) -> None:
    """On a wall screen the panel is wide enough that no cell of a 监测值与限值 table wraps more than two
    lines, for every tunnel and every kind of device; at 1280 it stays narrow and the map usable, and its
    table's rows are set as cards (表头：值 lines) so no cell wraps a few characters a line."""
    base, _ = server
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, locale="zh-CN")
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    try:
        page.goto(f"{base}/#map")
        sync_api.expect(page.locator("g.tunnel").first).to_be_visible()
        panel = page.locator("#map-panel")
        if size[0] < 1920:
            _open_panel(page, 'g.tunnel[data-tun-id="15220-HF"]')
            assert panel.bounding_box()["width"] <= 380
            cells = page.evaluate(PANEL_CELL_LINES)
            wrapped = [(n, text) for n, text in cells if n > 2]
            assert cells and not wrapped, f"a narrow panel sets each row as a card: {wrapped}"
            assert page.locator("#net-map").bounding_box()["width"] >= 0.6 * size[0], (
                "the map keeps the screen"
            )
            page.locator('g.tunnel[data-tun-id="15216"]').click()  # the map still takes a click
            sync_api.expect(page.locator("#panel-title")).to_have_text("15216 辅运起坡段")
            return
        tunnels = page.evaluate("[...document.querySelectorAll('g.tunnel')].map((g) => g.dataset.tunId)")
        devices = page.evaluate(
            "Object.values(Object.fromEntries([...document.querySelectorAll('g.device')]"
            ".map((g) => [g.querySelector('text').textContent, g.dataset.deviceId])))"
        )
        assert len(devices) >= 6, devices  # one device of each kind
        items = [f'g.tunnel[data-tun-id="{t}"]' for t in tunnels]
        items += [f'g.device[data-device-id="{d}"]' for d in devices]
        tables = 0
        for item in items:
            _open_panel(page, item)
            assert panel.bounding_box()["width"] >= 560
            cells = page.evaluate(PANEL_CELL_LINES)
            tables += bool(cells)
            wrapped = [(n, text) for n, text in cells if n > 2]
            assert not wrapped, f"{item}: cells over two lines at {size}: {wrapped}"
        assert tables > len(tunnels)
    finally:
        context.close()


def test_a_limit_crossed_in_the_last_24_hours_is_tagged_beside_the_status(
    server: tuple[str, Any], page: Any
) -> None:
    """A reading back within its limit leaves the status 正常 and the alarm list empty; a crossing in the
    last 24 hours (the hourly values the sparklines draw) is tagged beside the status with its peak, so
    that the shift coming on sees it. Every row whose sparklines cross a limit is tagged, and only those."""
    base, _ = server
    ops = {">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le}
    rows = httpx.get(f"{base}/api/mine/overview", timeout=60).json()["tunnels"]
    crossed = {
        t["tun_id"]
        for t in rows
        for q, limits in (t.get("spark_limits") or {}).items()
        for limit in limits
        if any(v is not None and ops[limit["op"]](v, limit["value"]) for v in t["sparks"].get(q) or [])
    }
    recovered = {t["tun_id"] for t in rows if t["tun_id"] in crossed and t["status"] == "正常"}
    assert recovered, "the data has a limit crossed in the last 24 hours and recovered since"
    page.goto(f"{base}/")
    sync_api.expect(page.locator("table.tunnels-table tbody tr").first).to_be_visible()
    tagged = page.evaluate(
        "[...document.querySelectorAll('table.tunnels-table tbody tr')]"
        ".filter((r) => r.querySelector('.recent')).map((r) => r.dataset.tunId)"
    )
    assert set(tagged) == crossed
    tag = page.locator(f'tr[data-tun-id="{sorted(recovered)[0]}"] .recent')
    assert "峰值" in (tag.get_attribute("title") or "") or "最低" in (tag.get_attribute("title") or "")
