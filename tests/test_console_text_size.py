"""Every text the console shows is at least 12 px on the screen (1280×720 and 1920×1080): the status strip's
notes, the legend's symbols, citation marks, tags, the provenance graph's node text and kinds. The map's
device symbols' letters are icons and its labels are sized by map.js: the network map is left out. Fixtures
and skip rules are those of tests/test_console_browser.py."""

from __future__ import annotations

from typing import Any

import pytest

from tests.test_console_browser import browser, page, server, sync_api  # noqa: F401  (fixtures)

MIN_PX = 12

SMALL_RULES = (
    "[...document.styleSheets].flatMap((sheet) => [...sheet.cssRules]).flatMap((rule) =>"
    " rule.cssRules?.length ? [...rule.cssRules] : [rule]).filter((rule) => rule.style?.fontSize?.endsWith('px')"
    f" && parseFloat(rule.style.fontSize) < {MIN_PX}).map((rule) => rule.cssText)"
)

# each element holding text of its own, shown, outside the network map: its text and its size on the
# screen (an SVG's text scaled by the drawing's size on the screen)
SMALL_TEXT = (
    "(() => [...document.querySelectorAll('body *')].filter((node) => !node.closest('#net-map')"
    " && [...node.childNodes].some((c) => c.nodeType === 3 && c.textContent.trim())"
    " && node.getClientRects().length && getComputedStyle(node).visibility !== 'hidden')"
    ".map((node) => [node.textContent.trim().slice(0, 30),"
    " parseFloat(getComputedStyle(node).fontSize) * (node.getScreenCTM ? node.getScreenCTM().a : 1)])"
    f".filter(([, px]) => px < {MIN_PX} - 0.01))()"
)

CHAIN = (
    "async () => { const { chainSvg } = await import('/static/console/graph.js');"
    " const box = document.createElement('div'); box.className = 'chain'; box.style.width = '320px';"
    " const kinds = ['Source', 'Artifact', 'Evidence', 'ToolCall', 'Task', 'Claim'];"
    " const nodes = kinds.map((kind, i) => ({ id: `n${i}`, kind, label: `《煤矿安全规程》第${i}条 采煤工作面风速` }));"
    " const edges = nodes.slice(1).map((n, i) => ({ from: nodes[i].id, to: n.id, kind: 'supports' }));"
    " box.append(chainSvg({ nodes, edges })); document.querySelector('main').prepend(box); }"
)


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_no_text_is_smaller_than_12_px(
    size: tuple[int, int],
    server: tuple[str, Any],  # noqa: F811
    page: Any,  # noqa: F811
) -> None:
    base, _ = server
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(f"{base}/#map")
    sync_api.expect(page.locator("#map-legend .sym").first).to_be_visible()
    sync_api.expect(page.locator("#strip .total").first).to_be_visible()
    assert page.evaluate(SMALL_RULES) == []
    # a citation mark and a link's tag as the panel and the review show them, and a provenance graph in a
    # box narrower than it
    page.evaluate(
        "document.querySelector('main').insertAdjacentHTML('afterbegin',"
        ' \'<p class="md">风速<sup class="cite">[R1]</sup> <span class="tag ok">已核实</span></p>\')'
    )
    page.evaluate(CHAIN)
    sync_api.expect(page.locator("svg.chain-graph text.kind").first).to_be_visible()
    assert page.evaluate(SMALL_TEXT) == []
