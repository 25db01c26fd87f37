"""The console's solved air and what-if panel (airflow.js) in a real headless browser: arrows and air
volumes on the map, each figure saying whether it was measured or modelled, the arrows clear of each
other; then opening the door FM-01 shows the change on the map, names the door by its modelled state and
the branches that fall short with their clauses; closing a closed door shows the service's note. Fixtures
and skip rules are those of tests/test_console_browser.py."""

from __future__ import annotations

import re
from typing import Any

from tests.test_console_browser import browser, page, server, sync_api  # noqa: F401  (fixtures)


def test_opening_a_door_shows_the_change_on_the_map_and_the_short_branches(
    server: tuple[str, Any],  # noqa: F811
    page: Any,  # noqa: F811
) -> None:
    base, _ = server
    page.goto(f"{base}/#map")
    flows = page.locator("g.airflow g.flow")
    sync_api.expect(flows.first).to_be_attached()
    assert flows.count() >= 15
    sync_api.expect(page.locator('text.label[data-branch="ZJFX"] tspan.flow')).to_contain_text("m³/min")
    assert page.locator("g.airflow g.flow.short").count() == 0  # the undisturbed mine meets its plan
    face = page.locator('text.label[data-branch="15216-GZM"]')
    # no change modelled: a monitored tunnel's two figures are both measured, and say so
    assert re.fullmatch(r"实测 [\d.]+ m/s", (face.locator("tspan.value").text_content() or ""))
    assert re.fullmatch(r"  \d+ m³/min", face.locator("tspan.flow").text_content() or "")
    # an airway without a wind sensor shows the solve's figure, 模拟, unless its air is measured otherwise
    # (the main fan drift: its fan's 实测 air volume, tests/test_console_fan_air.py)
    unmonitored = page.locator("g.labels text.label:not(:has(tspan.value)) tspan.flow")
    texts = [t for t in unmonitored.all_text_contents() if t]
    assert len([t for t in texts if t.startswith("模拟 ")]) >= len(texts) - 1, texts
    page.select_option("#what-if-branch", "FM-01")
    # the closed door's default action is the one that changes it
    assert page.locator("#what-if-action").input_value() == "open_door"
    page.get_by_role("button", name="模拟").click()
    result = page.locator("#what-if-result")
    sync_api.expect(result).to_contain_text("调整：打开二采区进回风联络巷风门（FM-01）")
    sync_api.expect(result.locator("table tbody tr").first).to_be_visible()
    sync_api.expect(result.locator(".findings")).to_contain_text("第159条")
    assert page.locator("g.airflow g.flow.short").count() > 0
    sync_api.expect(face.locator("tspan.flow")).to_contain_text("模拟 ")
    sync_api.expect(face.locator("tspan.flow")).to_contain_text("（−")
    assert (face.locator("tspan.value").text_content() or "").startswith("实测 ")
    rows = result.locator("table tbody tr").evaluate_all(
        "(rows) => rows.map((r) => [...r.cells].slice(1).map((c) => c.textContent))"
    )
    for before, after, change in rows:  # the change is the difference of the figures shown
        figure = [int(re.sub(r"[^\d]", "", t)) for t in (before, after)]
        assert figure[1] - figure[0] == int(change.replace("−", "-")), (before, after, change)
    door = result.locator("table tbody tr", has=page.locator('td[data-branch="FM-01"]'))
    sync_api.expect(door).to_contain_text("风门（打开）")
    assert "（关闭）" not in door.inner_text(), "the door named by its state after the change"
    page.locator("#what-if").get_by_role("button", name="恢复现状").click()
    sync_api.expect(page.locator("g.airflow g.flow.short")).to_have_count(0)
    assert re.fullmatch(r"  \d+ m³/min", face.locator("tspan.flow").text_content() or "")
    # a change the service says does nothing: its note is shown
    page.select_option("#what-if-action", "close_door")
    page.get_by_role("button", name="模拟").click()
    sync_api.expect(result.locator("#what-if-notes")).to_contain_text("已处于关闭状态")


ARROW_BOXES = (
    "[...document.querySelectorAll('g.airflow g.flow path')].map((p) => {"
    " const r = p.getBoundingClientRect(); return [p.parentNode.dataset.branch, r.left, r.top, r.right, r.bottom]; })"
)


def test_the_air_arrows_keep_clear_of_each_other(
    server: tuple[str, Any],  # noqa: F811
    page: Any,  # noqa: F811
) -> None:
    """A local fan's duct runs beside its heading: each line's arrow stands clear of the others."""
    base, _ = server
    page.goto(f"{base}/#map")
    sync_api.expect(page.locator("g.airflow g.flow").first).to_be_attached()
    boxes = page.evaluate(ARROW_BOXES)
    assert len(boxes) >= 15
    overlapping = [
        (a[0], b[0])
        for i, a in enumerate(boxes)
        for b in boxes[i + 1 :]
        if a[1] < b[3] and b[1] < a[3] and a[2] < b[4] and b[2] < a[4]
    ]
    assert not overlapping, f"arrows on top of each other: {overlapping}"


MAP_STATE = (
    "(() => { const svg = document.querySelector('#net-map svg.net');"
    " return {width: svg.clientWidth, box: document.getElementById('net-map').clientWidth,"
    " size: document.querySelector('g.labels').getAttribute('font-size'),"
    " shown: [...document.querySelectorAll('g.labels text.label:not([display])')].map((t) => t.dataset.branch)}; })()"
)


def test_a_modelled_change_keeps_the_maps_width_and_its_changed_branches_labels(
    server: tuple[str, Any],  # noqa: F811
    page: Any,  # noqa: F811
) -> None:
    """At 1280×720, opening a door keeps the map at the plain map's width and label size (the longer 模拟
    labels hide the airways that do not fit, never widen the map off the screen); the door's own label and
    the short faces' are kept; the measured speed steps aside while the change is shown; the legend explains
    the what-if's arrows; a regulator without its added resistance is refused in words."""
    base, _ = server
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{base}/#map")
    sync_api.expect(page.locator("g.airflow g.flow").first).to_be_attached()
    page.wait_for_timeout(300)
    plain = page.evaluate(MAP_STATE)
    assert plain["width"] == plain["box"]
    legend = page.locator("#map-legend")
    sync_api.expect(legend).to_contain_text("风流方向")
    assert not legend.get_by_text("模拟：风流反向").is_visible()
    assert "e-" not in (page.locator("#what-if").text_content() or "")
    page.select_option("#what-if-branch", "FM-01")
    page.get_by_role("button", name="模拟").click()
    sync_api.expect(page.locator("#what-if-result table tbody tr").first).to_be_visible()
    sync_api.expect(page.locator('text.label[data-branch="FM-01"] tspan.name')).to_contain_text("（打开）")
    modelled = page.evaluate(MAP_STATE)
    assert modelled["width"] == plain["width"], "the map keeps its width while a change is modelled"
    assert modelled["size"] == plain["size"], "and its labels their size"
    assert "FM-01" in modelled["shown"], "the changed door's label is kept"
    face = page.locator('text.label[data-branch="15216-GZM"]')
    assert "15216-GZM" in modelled["shown"] and "不足" in (face.text_content() or "")
    assert not face.locator("tspan.value").is_visible()
    sync_api.expect(legend.get_by_text("模拟：低于计划风量（不足）")).to_be_visible()
    page.locator("#what-if").get_by_role("button", name="恢复现状").click()
    sync_api.expect(face.locator("tspan.value")).to_be_visible()
    assert page.evaluate(MAP_STATE)["width"] == plain["width"]
    assert not legend.get_by_text("模拟：风流反向").is_visible()
    regulator = page.locator("#what-if-branch option", has_text="调节风窗").first.get_attribute("value")
    page.select_option("#what-if-branch", regulator)
    page.select_option("#what-if-action", "set_regulator")
    page.get_by_role("button", name="模拟").click()
    sync_api.expect(page.locator("#what-if-result .error")).to_contain_text("附加风阻")


KINDS = {"door": "风门", "regulator": "调节风窗", "fan": "主要通风机"}


def test_the_what_if_names_each_device_once_without_its_id(
    server: tuple[str, Any],  # noqa: F811
    page: Any,  # noqa: F811
) -> None:
    """The what-if's choices name each door, regulator and fan by its kind (once) and its name, never by
    the network's id; its table of the branches that moved names them without an id column."""
    base, _ = server
    page.goto(f"{base}/#map")
    options = page.locator("#what-if-branch option")
    sync_api.expect(options.first).to_be_attached()
    shown = options.evaluate_all("(os) => os.map((o) => [o.value, o.textContent])")
    assert len(shown) >= 3
    for branch, text in shown:
        assert branch not in text, text
        assert not re.search(r"（[A-Za-z0-9][A-Za-z0-9_.-]*）$", text), text
        assert sum(text.count(kind) for kind in KINDS.values()) == 1, text
    door = next(branch for branch, text in shown if KINDS["door"] in text)
    page.select_option("#what-if-branch", door)
    page.get_by_role("button", name="模拟").click()
    table = page.locator("#what-if-result table")
    sync_api.expect(table.locator("tbody tr").first).to_be_visible()
    heads = table.locator("thead th").all_text_contents()
    assert "分支" not in heads and heads[0] == "名称", heads
    for row in table.locator("tbody tr").evaluate_all(
        "(rows) => rows.map((r) => [r.cells[0].dataset.branch, r.cells[0].textContent])"
    ):
        assert row[1] != row[0] and f"（{row[0]}）" not in row[1], row  # the name, not the id


def test_a_modelled_change_is_said_at_the_maps_top_until_it_is_undone(
    server: tuple[str, Any],  # noqa: F811
    page: Any,  # noqa: F811
) -> None:
    """Stopping the main fan, then another tab and back: the map's top says a simulation is shown (its
    figures 模拟, not live) with its own 恢复现状, the live status line steps aside, and the fan it stops
    is drawn stopped (hollow); 恢复现状 there undoes all of it."""
    base, _ = server
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{base}/#map")
    sync_api.expect(page.locator("g.airflow g.flow").first).to_be_attached()
    fan = page.locator('g.device[data-device-id="FAN-001"]')
    fill = "(g) => getComputedStyle(g.querySelector('rect')).fill"
    running_fill = fan.evaluate(fill)
    page.select_option("#what-if-branch", "FD-01")
    page.select_option("#what-if-action", "stop_fan")
    page.get_by_role("button", name="模拟").click()
    sync_api.expect(page.locator("#what-if-result .findings")).to_be_visible()
    page.click('.tabs a[data-view="overview"]')
    page.click('.tabs a[data-view="map"]')
    assert page.evaluate("window.scrollY") == 0, "a tab is shown from its top"
    notice = page.locator("#map-modelled")
    sync_api.expect(notice).to_be_visible()
    sync_api.expect(notice).to_contain_text("正在显示模拟：停止主要通风机")
    assert "非实时" in notice.inner_text()
    assert not page.locator("#map-status").is_visible()
    assert "modelled-off" in (fan.get_attribute("class") or "")
    assert fan.evaluate(fill) == "rgb(255, 255, 255)" != running_fill
    assert "（模拟：已停止）" in (fan.locator("title").text_content() or "")
    notice.get_by_role("button", name="恢复现状").click()
    sync_api.expect(notice).to_be_hidden()
    sync_api.expect(page.locator("#map-status")).to_be_visible()
    assert "modelled" not in (fan.get_attribute("class") or "")
    assert fan.evaluate(fill) == running_fill and "模拟" not in (fan.locator("title").text_content() or "")
    sync_api.expect(page.locator("g.airflow g.flow.short")).to_have_count(0)
