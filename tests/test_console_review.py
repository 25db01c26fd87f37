"""The console's 配风计划审查 tab in a real headless browser: upload plan b → its verdict, coverage, findings
with their consequences and subscripts are listed, a trace reads in Chinese and its graph fits its box, the
Word report downloads; an out-of-date plan month is warned of, a long file name shortened; a failed review
settles its reviewers. Fixtures and skip rules are those of tests/test_console_browser.py."""

# ruff: noqa: F811  (the fixtures imported from tests/test_console_browser.py are the tests' parameters)
from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from reports.docx_report import SUBSCRIPT
from reports.front import month_check
from tests.test_console_browser import (  # noqa: F401  (fixtures)
    DATA,
    TIMEOUT_MS,
    browser,
    page,
    server,
    shots,
    sync_api,
)
from vent_agent.review.findings import GENERAL_LOCATION
from vent_agent.settings import Settings


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
