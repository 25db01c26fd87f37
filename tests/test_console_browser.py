"""The operator console in a real headless browser (Debian's Chromium driven by Playwright for Python):
the token box; click a tunnel → its interpretation streams into the panel; a plan-mode chat turn → approve
→ the answer arrives, and a reload keeps the session. This module holds the fixtures the other console
modules import (test_console_review.py, test_console_overview.py, test_console_map.py,
test_console_airflow.py). Screenshots go to ``$CONSOLE_SHOTS`` (default: the test's tmp dir).

Skipped (with the reason) when Playwright or a Chromium binary is missing, except under ``CI=true``
(.ci/run installs both, so there a missing one fails).
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from langchain_core.messages import AIMessage

from reports.docx_report import SUBSCRIPT
from reports.markdown import render_markdown
from tests.chat_helpers import TOKEN, answering, use_model
from tests.helpers import live_server
from tests.pg import in_ci
from tests.report_samples import make_result
from tests.scripted_model import ScriptedChatModel, says, tool_call
from vent_agent.app import create_app
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


def test_the_mode_controls_are_named_in_words_not_the_apis_values(server: tuple[str, Any], page: Any) -> None:
    """The interpretation's and the chat's modes read 快速 / 计划 / 完全访问 / 计划审批, never the API's
    fast / plan / full beside them."""
    base, _ = server
    for view in ("map", "chat"):
        page.goto(f"{base}/#{view}")
        text = page.locator(f"#view-{view}").inner_text()
        assert "快速" in text or "完全访问" in text
        assert not re.search(r"[（(](fast|plan|full)[）)]", text), text[:200]
