"""The operator console in a real headless browser (Debian's Chromium driven by Playwright for Python):
click a tunnel → its interpretation streams into the panel; upload plan b → its findings are listed, a
trace opens and the Word report downloads; a plan-mode chat turn → approve → the answer arrives, and a
reload keeps the session. Screenshots of each view go to ``$CONSOLE_SHOTS`` (default: the test's tmp dir).

Skipped (with the reason) when Playwright or a Chromium binary is missing, except under ``CI=true``
(.ci/run installs both, so there a missing one fails).
"""

from __future__ import annotations

import itertools
import math
import os
import re
import shutil
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest
from langchain_core.messages import AIMessage

from reports.docx_report import SUBSCRIPT
from reports.front import month_check
from reports.markdown import render_markdown
from tests.chat_helpers import TOKEN, answering, use_model
from tests.helpers import live_server
from tests.pg import in_ci
from tests.report_samples import make_result
from tests.scripted_model import ScriptedChatModel, says, tool_call
from vent_agent.app import create_app
from vent_agent.review.findings import GENERAL_LOCATION
from vent_agent.settings import Settings

CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
try:
    from playwright import sync_api as sync_api  # re-exported: tests/test_console_airflow.py uses it
except ImportError:
    PLAYWRIGHT = False
else:
    PLAYWRIGHT = True
_MISSING = (
    "Playwright for Python is not installed (pip install -e '.[test]')"
    if not PLAYWRIGHT
    else "no Chromium binary (apt-get install chromium, or set CHROMIUM)"
    if not CHROMIUM
    else None
)
if _MISSING:
    if in_ci():  # .ci/run installs both: a missing one is a broken CI, not a reason to skip
        raise RuntimeError(f"CI=true requires the console's browser tests to run: {_MISSING}")
    pytest.skip(_MISSING, allow_module_level=True)

DATA = Path(__file__).parent / "data"
TIMEOUT_MS = 90_000
sync_api.expect.set_options(timeout=TIMEOUT_MS)  # a loaded machine: generous, the test ends on success


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    app = create_app(Settings(_env_file=None, data_dir=tmp_path_factory.mktemp("console") / "data"))
    with live_server(app) as base:
        yield base, app


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(
        viewport={"width": 1440, "height": 900}, accept_downloads=True, locale="zh-CN"
    )
    pg = context.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    yield pg
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    out = Path(os.environ.get("CONSOLE_SHOTS", tmp_path))
    out.mkdir(parents=True, exist_ok=True)
    return out


def test_the_token_box_offers_the_demo_tokens(server: tuple[str, Any], page: Any) -> None:
    base, _ = server
    page.goto(f"{base}/")
    note = page.locator("#token-note")
    sync_api.expect(note).to_have_attribute("title", re.compile("demo-token（zhangsan）"))
    assert page.input_value("#token-input") == "demo-token"
    assert page.locator("#demo-tokens option").count() == 2
    sync_api.expect(note).to_have_text("用户 zhangsan")  # who the service knows the token as


def test_a_token_saved_or_cleared_says_whose_and_stays(server: tuple[str, Any], page: Any) -> None:
    """Another token saved: the note names its user and the alarm list is that user's at once; a bad one
    is 令牌无效 and offers no acknowledgement; a cleared one stays cleared across a reload (the demo
    token is offered only to a browser that never chose one)."""
    base, _ = server
    page.goto(f"{base}/")
    note = page.locator("#token-note")
    sync_api.expect(note).to_have_text("用户 zhangsan")
    alarms = page.locator("table.alarms tbody tr")
    sync_api.expect(alarms.first.locator("button.ack")).to_have_attribute("title", re.compile("zhangsan"))
    cell = alarms.first.locator("td").last
    page.fill("#token-input", "demo-token-2")
    page.get_by_role("button", name="保存").click()
    sync_api.expect(note).to_have_text("用户 lisi")
    sync_api.expect(cell.locator("button.ack")).to_have_attribute("title", re.compile("lisi"))
    page.fill("#token-input", "no-such-token")
    page.get_by_role("button", name="保存").click()
    sync_api.expect(note).to_have_text("令牌无效")
    sync_api.expect(cell).to_have_text("令牌无效")
    page.fill("#token-input", "")
    page.get_by_role("button", name="保存").click()
    page.reload()
    sync_api.expect(note).to_have_text("未设置令牌")
    assert page.input_value("#token-input") == ""
    sync_api.expect(alarms.first.locator("td").last).to_have_text("需令牌")


def test_click_a_tunnel_streams_its_interpretation(server: tuple[str, Any], page: Any, shots: Path) -> None:
    base, _ = server
    page.goto(f"{base}/#map")
    tunnels = page.locator("g.tunnel")
    sync_api.expect(tunnels.first).to_be_visible()
    assert tunnels.count() == 18
    assert page.locator("g.device").count() > 30
    page.locator('g.tunnel[data-tun-id="15216"]').click()
    sync_api.expect(page.locator("#panel-title")).to_have_text("15216 辅运起坡段")
    sync_api.expect(page.locator("#panel-body .status")).to_have_text("解读完成")
    answer = page.locator("#panel-body .answer")
    sync_api.expect(answer).to_contain_text("风速")
    assert answer.locator("h2, h3, h4, table, li").count() > 0, "the Markdown is rendered, not shown raw"
    sync_api.expect(page.locator("#panel-body .refs")).to_contain_text("煤矿安全规程")
    # each clause quoted once: by the references list, not again in the answer
    assert not answer.locator("h2, h3, h4", has_text=re.compile("^相关规定$")).count()
    assert answer.locator("strong.st").count() > 0, "statuses as coloured words"
    page.screenshot(path=str(shots / "console-map.png"))
    # a device: a main fan
    page.locator('g.device[data-device-id="FAN-001"]').click()
    sync_api.expect(page.locator("#panel-body .status")).to_have_text("解读完成")
    sync_api.expect(page.locator("#panel-title")).to_contain_text("主")


def test_review_plan_b_lists_findings_traces_and_downloads(
    server: tuple[str, Any], page: Any, shots: Path
) -> None:
    base, _ = server
    page.goto(f"{base}/#review")
    page.set_input_files("#pdf-input", str(DATA / "plan-2026-08-b.pdf"))
    link = page.locator("#report-link")
    sync_api.expect(link).to_be_visible(timeout=240_000)
    rows = page.locator("table.findings tbody tr")
    sync_api.expect(rows.first).to_be_visible()
    total = rows.count()
    assert total >= 10
    assert page.locator(".pages i.on").count() == page.locator(".pages i").count() > 0
    # the severity filter hides the info rows
    info = page.locator("table.findings tbody tr.sev-info").count()
    page.locator(".sev-filter.info input").uncheck()
    assert rows.count() == total - info
    page.locator(".sev-filter.info input").check()
    # the verdict, the coverage and each finding's consequences, as the stream and the report carry them
    sync_api.expect(page.locator("#verdict")).to_contain_text("存在严重问题，须立即处置")
    # plan b's month against today's review, as page 1 of the report says it after 注意：
    today = datetime.now(ZoneInfo(Settings(_env_file=None).timezone)).isoformat()
    late = month_check("2026-08", today)
    month_note = page.locator("#verdict + #month-note")
    if late:
        sync_api.expect(month_note).to_have_text(f"注意：{late}")
    else:
        sync_api.expect(month_note).to_have_count(0)
    coverage = page.locator("#coverage")
    sync_api.expect(coverage).to_contain_text("确认的用风地点 10 个")
    sync_api.expect(coverage).to_contain_text("矿井 示范煤矿，计划月份 2026-08")
    parts = coverage.locator("table.parts tbody tr")
    assert parts.count() >= 6  # cover … totals, each found or not and with its confidence, in Chinese
    assert not re.search("[A-Za-z]", "".join(parts.all_inner_texts()))
    part_pages = [row.locator("td").last.inner_text() for row in parts.all()]
    assert all(re.fullmatch(r"第 [\d–、]+ 页", p) for p in part_pages), part_pages  # where each was read
    assert page.locator("table.findings .consequences li").count() > 0
    # formula symbols as the report sets them: the fan intake Q_f of a method finding as Q with a subscript f
    problems = page.locator("table.findings td.problem")
    assert problems.locator("sub").count() > 0 and not SUBSCRIPT.search("".join(problems.all_inner_texts()))
    # a plan-wide finding (the missing approval) is placed in the report's and the CLI's one term
    places = page.locator("table.findings td.place").all_inner_texts()
    assert GENERAL_LOCATION in places and "全局" not in places
    # the narrow columns keep to one line (no character a line): their content's height, not the cell's
    # (a row is as tall as its problem cell with the consequences under the message)
    content_height = "(td) => { const r = document.createRange(); r.selectNodeContents(td); return r.getBoundingClientRect().height; }"
    for cell in (
        rows.first.locator("td").nth(2),
        rows.first.locator("td").nth(5),
        rows.first.locator("td").nth(7),
    ):
        assert cell.evaluate(content_height) < 3 * 20
    assert not page.locator(".agents li", has_text="等待").count()
    # the first finding's trace
    rows.first.locator(".trace-btn").click()
    sync_api.expect(page.locator(".trace")).to_contain_text("第")
    # beside it, the finding's chain in the provenance graph: the claim, its evidence and sources
    sync_api.expect(page.locator(".chain svg g.node.Claim")).to_have_count(1)
    assert page.locator(".chain svg g.node.Evidence").count() >= 1
    assert page.locator(".chain svg g.node.Source").count() >= 1
    page.screenshot(path=str(shots / "console-review.png"), full_page=True)
    with page.expect_download() as dl:
        link.click()
    download = dl.value
    assert download.suggested_filename.endswith(".docx")
    assert Path(download.path()).read_bytes()[:2] == b"PK"
    # the same PDF again: read from the extraction cache, and the page bar says so instead of staying empty
    page.reload()
    page.set_input_files("#pdf-input", str(DATA / "plan-2026-08-b.pdf"))
    sync_api.expect(page.locator(".pagebar").first).to_contain_text("沿用此前的提取结果", timeout=240_000)


# per chain in the review tab: whether its graph shows whole in its box (no part past its right edge, no
# sideways scroll), and per node its full label (tooltip), its lines and the widest line's drawn width
CHAINS = """() => [...document.querySelectorAll('div.chain')].filter((c) => c.querySelector('svg')).map((c) => {
  const svg = c.querySelector('svg');
  const fits = svg.getBoundingClientRect().right <= c.getBoundingClientRect().right + 0.5
    && c.scrollWidth <= c.clientWidth + 1;
  const nodes = [...svg.querySelectorAll('g.node')].map((g) => {
    const spans = [...g.querySelectorAll('text.label tspan')];
    return { title: g.querySelector('title').textContent, lines: spans.map((t) => t.textContent),
      widest: Math.max(0, ...spans.map((t) => t.getComputedTextLength())),
      box: +g.querySelector('rect').getAttribute('width') };
  });
  return { fits, nodes };
})"""


def test_a_review_trace_reads_in_chinese_and_its_graph_fits_its_box_at_1280(
    server: tuple[str, Any], page: Any, shots: Path
) -> None:
    """At 1280×720, every finding's trace names its calculators and reference tools in Chinese and gives a
    calculator's inputs as 名称 = 值 单位 lines, no program names or JSON; each chain in the provenance graph
    shows whole in its box, each node's label wrapped inside it and in full in its tooltip."""
    base, _ = server
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{base}/#review")
    page.set_input_files("#pdf-input", str(DATA / "plan-2026-08-b.pdf"))
    sync_api.expect(page.locator("#report-link")).to_be_visible(timeout=240_000)
    buttons = page.locator("table.findings .trace-btn")
    total = buttons.count()
    assert total >= 10
    for i in range(total):
        buttons.nth(i).click()
    sync_api.expect(page.locator("div.chain svg")).to_have_count(total)
    text = "\n".join(page.locator(".trace").all_inner_texts())
    program_name = re.compile(
        r"\b[a-z]{2,}\d*_[a-z0-9_]{2,}"
    )  # calc_face_by_climate, ch4_return_stop; not k_h
    assert not program_name.findall(text), "program names in the traces"
    assert not re.search(r"[{}]|\":", text), "JSON in the traces"
    assert "采煤工作面按气象条件计算" in text and "查询瓦斯等级鉴定报告" in text
    assert re.search(r"采高 h = [\d.]+ m\n", text) and re.search(r"结果：[\d.]+ m³/min", text)
    chains = page.evaluate(CHAINS)
    assert len(chains) == total and all(c["fits"] for c in chains), "a chain's graph cut at its box's edge"
    nodes = [n for c in chains for n in c["nodes"]]
    squeezed = [n["title"] for n in nodes if n["widest"] + 6 > n["box"] + 3]
    assert not squeezed, f"labels wider than their boxes: {squeezed}"
    assert not [n["title"] for n in nodes if program_name.search(n["title"])], "program names in the graph"
    for n in nodes:
        shown = "".join(n["lines"]).removesuffix("…").replace(" ", "")
        assert n["lines"] and shown in n["title"].replace(" ", ""), n
    assert any(len(n["lines"]) > 1 for n in nodes), "long labels wrapped over lines"
    page.locator("tr.trace-row").first.scroll_into_view_if_needed()
    page.screenshot(path=str(shots / "console-review-trace-1280.png"))


def test_the_coverage_gives_each_parts_pages_as_runs(server: tuple[str, Any], page: Any) -> None:
    """The coverage's page column: each part's pages from ``part_pages``, consecutive pages as a run."""
    base, _ = server
    page.goto(f"{base}/#review")
    cells = page.evaluate(
        """import('/static/console/review_result.js').then((m) => {
            const cov = { parts: { cover: 'high', calculations: 'high', totals: 'none' },
                          part_pages: { cover: [1], calculations: [4, 2, 3, 3, 6] } };
            return [...m.coverageView(cov).querySelectorAll('tbody tr')].map((tr) => tr.lastChild.textContent);
        })"""
    )
    assert cells == ["第 1 页", "第 2–4、6 页", "—"]


def test_a_findings_formula_symbols_carry_real_subscripts(server: tuple[str, Any], page: Any) -> None:
    """The review tab sets a finding's message and its consequences as the Word report does: ``Q_f`` as Q
    with a subscript f, the rest as text (escaped)."""
    base, _ = server
    page.goto(f"{base}/#review")
    html = page.evaluate(
        """import('/static/console/review_result.js').then((m) => m.problemCell({
            location: 'A', message: '计划 Q = Q_f × I + 60 × v_min × S <b>',
            consequences: [{ location: 'A', message: '按 q_CO₂ 核算' }],
        }).innerHTML)"""
    )
    assert "Q<sub>f</sub> × I" in html and "v<sub>min</sub>" in html and "q<sub>CO₂</sub>" in html
    assert "&lt;b&gt;" in html and not SUBSCRIPT.search(html)


def test_the_review_tab_warns_of_an_out_of_date_plan_month_under_the_verdict(
    server: tuple[str, Any], page: Any
) -> None:
    """The done's ``month_note`` (the report's sentence) right under the verdict; none when it has none."""
    base, _ = server
    page.goto(f"{base}/#review")
    note = month_check("2026-08", "2026-11-05T09:30:00+08:00")
    shown = page.evaluate(
        """(note) => import('/static/console/review_result.js').then(async (m) => {
            const out = [];
            for (const month_note of [note, undefined]) {
              const root = document.createElement('div');
              const done = { download_url: '/static/reports/none.docx', summary: { major: 1 }, month_note };
              await m.showResult(root, done);
              const after = root.querySelector('#verdict').nextElementSibling;
              out.push(after.id === 'month-note' ? after.textContent : null);
            }
            return out;
        })""",
        note,
    )
    assert shown == [f"注意：{note}", None]


def test_a_long_file_name_is_shortened_in_the_middle_in_the_review_tab(
    server: tuple[str, Any], page: Any, shots: Path
) -> None:
    """A name of some 970 characters: the heading keeps its start and its end (the extension) on one
    line, the whole name in its title; the status lines shorten the name as the service saved it."""
    base, _ = server
    page.goto(f"{base}/#review")
    name = ("示范煤矿2026年8月份矿井配风计划（修订稿）_" * 40)[:966] + ".pdf"
    page.evaluate(
        """() => { window.statuses = [];
            new MutationObserver(() => { const s = document.querySelector('#review-progress .status');
                if (s) window.statuses.push(s.textContent); })
              .observe(document.getElementById('review-progress'), { subtree: true, childList: true, characterData: true }); }"""
    )
    pdf = (DATA / "plan-2026-08-b.pdf").read_bytes()
    page.set_input_files("#pdf-input", files=[{"name": name, "mimeType": "application/pdf", "buffer": pdf}])
    heading = page.locator("#review-progress h3")
    sync_api.expect(heading).to_have_attribute("title", name)
    shown = heading.inner_text()
    assert len(shown) <= 60 and "…" in shown
    assert name.startswith(shown.split("…")[0]) and shown.endswith("（修订稿）_.pdf")
    size = heading.evaluate("(h) => parseFloat(getComputedStyle(h).fontSize)")
    assert heading.evaluate("(h) => h.getBoundingClientRect().height") < 2 * size  # one line
    sync_api.expect(page.locator("#report-link")).to_be_visible(timeout=240_000)
    statuses = page.evaluate("window.statuses")
    assert any("《" in s and "…" in s for s in statuses), statuses  # 正在保存上传的 PDF 文件《…》
    assert max(len(s) for s in statuses) < 100, statuses
    page.screenshot(path=str(shots / "console-review-long-name.png"))


def test_short_name_keeps_a_short_name_and_never_cuts_a_character_in_two(
    server: tuple[str, Any], page: Any
) -> None:
    base, _ = server
    page.goto(f"{base}/#review")
    got = page.evaluate(
        """import('/static/console/review.js').then((m) => [
            m.shortName('配风计划.pdf'), m.shortName('𠀀'.repeat(80) + '.pdf', 30), m.shortName('a'.repeat(60))])"""
    )
    assert got[0] == "配风计划.pdf" and got[2] == "a" * 60
    assert got[1] == "𠀀" * 13 + "…" + "𠀀" * 12 + ".pdf"


def test_a_failed_review_settles_its_reviewers_and_its_banner_stays_on_its_tab(
    server: tuple[str, Any], page: Any, tmp_path: Path
) -> None:
    base, _ = server
    fake = tmp_path / "not-a-plan.pdf"
    fake.write_text("这不是 PDF", encoding="utf-8")
    page.goto(f"{base}/#review")
    page.set_input_files("#pdf-input", str(fake))
    sync_api.expect(page.locator("#banner")).to_contain_text("审查请求失败")
    status = page.locator("#review-progress .status")  # the status line says so too, not "正在上传"
    sync_api.expect(status).to_contain_text("审查失败：")
    assert "正在上传" not in status.inner_text() and "error" in (status.get_attribute("class") or "")
    agents = page.locator(".agents li")
    sync_api.expect(agents.first).to_contain_text("未完成")
    assert agents.count() == 3 and not page.locator(".agents li", has_text="等待").count()
    page.goto(f"{base}/#chat")  # another tab: not this review's error
    sync_api.expect(page.locator("#banner")).to_be_hidden()
    page.goto(f"{base}/#review")
    sync_api.expect(page.locator("#banner")).to_contain_text("审查请求失败")


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
        assert strip.evaluate("(s) => s.getBoundingClientRect().height") < 40
        alarms = page.locator("table.alarms tbody tr")
        sync_api.expect(alarms.first).to_be_visible()
        assert alarms.first.locator(".st").inner_text() in ("超限", "偏低")  # worst first, in words
        assert page.locator("table.tunnels-table svg.spark").count() >= 10
        assert page.locator("table.tunnels-table svg.spark.co").count() > 0, "CO's 24 h sparklines"
        unread = page.evaluate(
            "[...document.querySelectorAll('table.tunnels-table tbody tr')]"
            ".filter((r) => [2, 4, 5].every((i) => r.cells[i].textContent.trim() === '—'))"
            ".map((r) => r.cells[1].textContent.trim())"
        )
        assert unread and set(unread) == {"无数据"}, (
            f"a tunnel with no reading is 无数据, never 正常: {unread}"
        )
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


def plan_script() -> list[AIMessage]:
    return [
        says(
            "",
            tool_call("write_todos", {"todos": [{"content": "按人数计算需风量", "status": "pending"}]}),
            tool_call(
                "request_plan_approval", {"plan": "1. 调用 **calc_face_by_workers** 按人数计算\n2. 汇总结果"}
            ),
        ),
        says("", tool_call("calc_face_by_workers", {"n": 40})),
        says("## 结果\n\n按人数计算需风量为 **160 m³/min**。"),
        says("1. 按瓦斯涌出量计算是多少？\n2. 15216 当前风量是否满足？"),
    ]


def test_the_chat_says_before_sending_that_the_service_has_no_model(
    server: tuple[str, Any], page: Any
) -> None:
    base, app = server
    with answering(app, None):
        page.goto(f"{base}/#chat")
        notice = page.locator("#chat-model")
        sync_api.expect(notice).to_be_visible()
        sync_api.expect(notice).to_contain_text("未配置语言模型")
        assert "配风计划审查不需要模型" in notice.inner_text()
    with answering(app, ScriptedChatModel(script=[], fallback=says("好"))):
        page.reload()
        sync_api.expect(page.locator("#chat-input")).to_be_visible()
        page.wait_for_load_state("networkidle")
        sync_api.expect(notice).to_be_hidden()


def test_plan_mode_approval_then_answer_and_reload_keeps_the_session(
    server: tuple[str, Any], page: Any, shots: Path
) -> None:
    base, app = server
    use_model(app, ScriptedChatModel(script=plan_script(), fallback=says("")))
    page.goto(f"{base}/#chat")
    page.select_option("#chat-mode", "plan")
    page.fill("#chat-input", "计算 15216 工作面按人数的需风量")
    page.click("#chat-send")
    card = page.locator(".approval")
    sync_api.expect(card).to_contain_text("calc_face_by_workers")
    sync_api.expect(page.locator("#session-list li.active")).to_have_count(1)
    page.screenshot(path=str(shots / "console-chat-approval.png"))
    # a second message while the approval is pending is refused (409) and the page says so
    page.fill("#chat-input", "再问一个")
    page.click("#chat-send")
    sync_api.expect(page.locator("#banner")).to_contain_text("审批")
    card.locator("button.primary").click()
    answer = page.locator(".msg.assistant .answer").last
    sync_api.expect(answer).to_contain_text("160 m³/min")
    sync_api.expect(page.locator(".suggestions .chip")).to_have_count(2)
    page.screenshot(path=str(shots / "console-chat-answer.png"))
    session = page.evaluate("localStorage.getItem('vent-console.session')")
    page.reload()
    sync_api.expect(page.locator(f'#session-list li.active[data-id="{session}"]')).to_be_visible()
    sync_api.expect(page.locator(".msg.assistant .answer").last).to_contain_text("160 m³/min")
    sync_api.expect(page.locator(".msg.user").first).to_contain_text("计算 15216")


def test_a_reload_mid_answer_picks_the_running_turn_up_again(server: tuple[str, Any], page: Any) -> None:
    base, app = server
    answer = "15216 辅运起坡段当前风速 0.99 m/s，在采区进风巷允许范围 0.25–6 m/s 之内，风量满足需风量要求。"
    use_model(app, ScriptedChatModel(script=[says(answer), says("")], chunk_size=2, delay_s=0.2))
    page.goto(f"{base}/#chat")
    page.click("#new-session")
    page.select_option("#chat-mode", "full")
    page.fill("#chat-input", "15216 风速是否合规？")
    page.click("#chat-send")
    last = page.locator(".msg.assistant .answer").last
    sync_api.expect(last).to_contain_text("15216")  # part of the answer has arrived
    assert "满足需风量要求" not in last.inner_text()
    page.reload()
    sync_api.expect(page.locator(".msg.assistant .answer").last).to_contain_text("满足需风量要求。")
    assert page.locator(".msg.assistant .answer", has_text="满足需风量要求").count() == 1
    sync_api.expect(page.locator(".msg.assistant .status").last).to_have_text("对话完成")


def test_sessions_pin_rename_and_delete(server: tuple[str, Any], page: Any) -> None:
    base, app = server
    use_model(app, ScriptedChatModel(script=[says("好的。"), says("")], fallback=says("")))
    resp = httpx.post(f"{base}/api/chat", data={"message": "会话管理测试"}, headers=TOKEN, timeout=60)
    sid = resp.headers["x-session-id"]
    page.goto(f"{base}/#chat")
    item = page.locator(f'#session-list li[data-id="{sid}"]')
    item.locator("button", has_text="置顶").click()
    sync_api.expect(item.locator(".title .pin")).to_have_text("置顶")
    sync_api.expect(page.locator("#session-list li").first).to_have_attribute("data-id", sid)
    page.once("dialog", lambda d: d.accept("风量复核（已改名）"))
    item.locator("button", has_text="重命名").click()
    sync_api.expect(item.locator(".title")).to_contain_text("风量复核（已改名）")
    item.click()
    sync_api.expect(page.locator(".msg.user")).to_contain_text("会话管理测试")
    page.once("dialog", lambda d: d.accept())
    item.locator("button", has_text="删除").click()
    sync_api.expect(item).to_have_count(0)
    sync_api.expect(page.locator(".msg")).to_have_count(0)
    assert httpx.get(f"{base}/api/chat/history/{sid}", headers=TOKEN).status_code == 404


def test_markdown_is_escaped_before_it_is_rendered(server: tuple[str, Any], page: Any) -> None:
    base, _ = server
    page.goto(f"{base}/")
    source = '# 标题\n<img src=x onerror="alert(1)"> **粗体**\n\n| a | b |\n|---|---|\n| <b>1</b> | 2 |\n\n- 一\n- 二'
    html = page.evaluate("(s) => import('/static/console/md.js').then((m) => m.renderMarkdown(s))", source)
    assert "<img" not in html and "<b>" not in html
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in html and "&lt;b&gt;1&lt;/b&gt;" in html
    assert "<h2>标题</h2>" in html and "<strong>粗体</strong>" in html
    assert "<table>" in html and "<th>a</th>" in html and html.count("<li>") == 2
    # a review's table cell keeps its line breaks (no literal <br>); a status word in bold gets its colour
    cell = page.evaluate(
        "(s) => import('/static/console/md.js').then((m) => m.renderMarkdown(s))",
        "| 问题 | 状态 |\n|---|---|\n| 第一行<br>第二行 | **超限** |",
    )
    assert "第一行<br>第二行" in cell and "&lt;br" not in cell
    assert '<strong class="st st-breach">超限</strong>' in cell
    # a cell's own pipe, escaped by the report, stays in its cell
    piped = page.evaluate(
        "(s) => import('/static/console/md.js').then((m) => m.renderMarkdown(s))",
        "| 问题 | 页码 |\n|---|---|\n| m³/s \\| m³/min 混用 | 11 |",
    )
    assert piped.count("<td") == 2 and "m³/s | m³/min 混用</td>" in piped, piped
    # a blockquote and emphasis are rendered, still escaped; a formula's subscript and a lone `*` stay
    quoted = page.evaluate(
        "(s) => import('/static/console/md.js').then((m) => m.renderMarkdown(s))",
        "> 注意：<i>x</i> **超限**\n> 第二行\n\n*依据 AQ 1028* 与 _附录A_，k_h 与 a * b",
    )
    assert "<blockquote><p>注意：&lt;i&gt;x&lt;/i&gt; <strong" in quoted
    assert "第二行</p></blockquote>" in quoted
    assert "<em>依据 AQ 1028</em>" in quoted and "<em>附录A</em>" in quoted, quoted
    assert "k<sub>h</sub> 与 a * b" in quoted and "&gt;" not in quoted.split("</blockquote>")[1]


SHOW_IN_CHAT = """(md) => import('/static/console/turn.js').then(({ TurnView }) => {
  const wrap = document.createElement('div');
  wrap.className = 'msg assistant';
  document.getElementById('chat-log').append(wrap);
  new TurnView(wrap).setText(md);
})"""
CELL_LINES = """(names) => [...document.querySelectorAll('#chat-log .answer table')].flatMap((table) => {
  const head = [...table.querySelectorAll('thead th')].map((th) => th.textContent.trim());
  return names.filter((n) => head.includes(n)).flatMap((n) => {
    const col = head.indexOf(n);
    return [...table.rows].map((row) => {
      const cell = row.cells[col], range = document.createRange();
      range.selectNodeContents(cell);
      const size = parseFloat(getComputedStyle(cell).fontSize);
      return [n, cell.textContent, range.getBoundingClientRect().height / size];
    });
  });
})"""


def test_a_review_answer_in_the_chat_keeps_short_columns_on_one_line_and_sets_subscripts(
    server: tuple[str, Any], browser: Any, shots: Path
) -> None:
    """The review report as the chat shows it at 1280 px: 程度 and 类别 one line per cell (they wrapped a
    character a line), the formulas with real subscripts as the Word report sets them."""
    base, _ = server
    context = browser.new_context(viewport={"width": 1280, "height": 720}, locale="zh-CN")
    page = context.new_page()
    try:
        page.goto(f"{base}/#chat")
        page.evaluate(SHOW_IN_CHAT, render_markdown(make_result()))
        answer = page.locator("#chat-log .answer").last
        sync_api.expect(answer.locator("table").first).to_be_visible()
        cells = page.evaluate(CELL_LINES, ["程度", "类别"])
        assert len(cells) > 10
        tall = [(name, text, round(lines, 1)) for name, text, lines in cells if lines > 1.6]
        assert not tall, f"cells of more than one line: {tall}"
        subs = answer.locator("sub").all_inner_texts()
        assert {"h", "l"} <= set(subs), subs
        assert not SUBSCRIPT.search(answer.inner_text()), "no programmer notation left"
        js = page.evaluate("import('/static/console/md.js').then((m) => m.SUBSCRIPT.source)")
        assert js == SUBSCRIPT.pattern, "the console and the Word report set the same symbols"
        answer.locator("table", has_text="程度").first.scroll_into_view_if_needed()
        page.screenshot(path=str(shots / "console-chat-review-1280.png"))
    finally:
        context.close()
