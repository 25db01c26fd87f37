"""The main fan's air volume in the console, in a real headless browser: one measured figure, the overview's
(its strip and the fan drift's row), called 实测 wherever it is shown — the drift's label on the map, the
side panel's subtitle of the fan and of its drift — with the network solve's figure called 模拟 only when a
change is modelled; the what-if names the fan, not its drift. Fixtures and skip rules are those of tests/test_console_browser.py."""

from __future__ import annotations

import re
from typing import Any

import httpx

from tests.test_console_browser import (  # noqa: F401  (fixtures)
    browser,
    page,
    server,
    sync_api,
)
from tests.test_console_overview import _open_panel


def _figure(q: float) -> str:
    return f"{q:.0f} m³/min"


def test_the_main_fans_measured_air_is_shown_alike_everywhere(
    server: tuple[str, Any],  # noqa: F811
    page: Any,  # noqa: F811
) -> None:
    base, _ = server
    overview = httpx.get(f"{base}/api/mine/overview", timeout=60).json()
    fan = next(f for f in overview["fans"] if f["running"])
    drift = next(t for t in overview["tunnels"] if t["tun_id"] == fan["tun_id"])
    assert drift["q"] == fan["air_volume"] and drift["status"] != "无数据"
    page.goto(f"{base}/#map")
    label = page.locator(f'text.label[data-branch="{fan["tun_id"]}"] tspan.flow')
    sync_api.expect(label).to_have_text(f"实测 {_figure(fan['air_volume'])}")
    _open_panel(page, f'g.tunnel[data-tun-id="{fan["tun_id"]}"]')
    meta = page.locator("#panel-meta")
    sync_api.expect(meta).to_contain_text(f"风量 实测 {_figure(fan['air_volume'])}")
    assert "无数据" not in (meta.text_content() or "")
    _open_panel(page, f'g.device[data-device-id="{fan["device_id"]}"]')
    sync_api.expect(meta).to_contain_text(f"运行 · 风量 实测 {_figure(fan['air_volume'])}")
    # a modelled change shows the solve's figure, called 模拟
    # the what-if names the fan it stops, not the drift that models it
    named = f"主要通风机 {fan['name']}（{fan['device_id']}）"  # the service's words of the change
    option = page.locator(f'#what-if-branch option[value="{fan["tun_id"]}"]')
    assert option.text_content() == f"主要通风机 {fan['name']}"  # the choice: kind and name, no id
    page.select_option("#what-if-branch", fan["tun_id"])
    page.get_by_role("button", name="模拟").click()
    sync_api.expect(page.locator("#what-if-result")).to_contain_text(f"调整：停止{named}")
    sync_api.expect(label).to_contain_text("模拟 ")
    page.locator("#what-if").get_by_role("button", name="恢复现状").click()
    sync_api.expect(label).to_have_text(re.compile(r"^实测 "))


def test_the_overview_lists_the_data_notes_apart_from_the_alarms(
    server: tuple[str, Any],  # noqa: F811
    page: Any,  # noqa: F811
) -> None:
    """The overview's data-consistency notes (a heading's air above its local fans', a return's above the
    main fans') are listed under the alarms as figures to check, none of them among the alarms."""
    base, _ = server
    overview = httpx.get(f"{base}/api/mine/overview", timeout=60).json()
    assert overview["notes"], "the demo's headings carry more air than their local fans read"
    page.goto(f"{base}/#overview")
    notes = page.locator("#data-notes li")
    sync_api.expect(notes).to_have_count(len(overview["notes"]))
    sync_api.expect(page.locator("#data-notes h3")).to_contain_text("非安全报警")
    assert page.locator("table.alarms tr.alarm").count() == len(overview["alarms"])
