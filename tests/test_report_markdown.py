"""The Markdown report (reports.markdown): title, metadata and summary, the findings table (order,
evidence, escaping), the verdict, the reviewer sections, sign-off, number formatting, determinism."""

from __future__ import annotations

import re

import pytest

from reports.blocks import page_runs
from reports.content import FINDINGS_HEADER, figures_cell, fmt_num, page_cell, places_line
from reports.front import ITEM_CHARS, Issuer, month_check, shorten
from reports.labels import NO_FINDINGS, VERDICT_CLEAR, VERDICT_CRITICAL, VERDICT_MAJOR
from reports.markdown import escape_cell, render_markdown
from tests.report_samples import finding, findings_rows, make_result, section
from vent_agent.review.findings import Category, Evidence, Severity
from vent_agent.review.result import ReviewerOutcome


def test_markdown_title_metadata_and_summary() -> None:
    md = render_markdown(make_result())
    assert md.startswith("# 配风计划审查报告\n")
    for text in (
        "plan-2026-08-b.pdf",
        "示范煤矿",
        "2026年8月",
        "| 文件 SHA-256 | " + "0123456789abcdef" * 4 + " |",  # the full digest, never cut
        "2025 版",
        "2026-08-03 09:30:00",
    ):
        assert text in md
    summary = section(md, "一、审查结论")
    assert "| 严重 | 重大 | 一般 | 提示 | 合计 |\n|---|---|---|---|---|\n| 1 | 3 | 1 | 1 | 6 |" in summary
    assert f"**结论：{VERDICT_CRITICAL}（数据一致性审查未完成，结论不完整）**" in summary
    assert "- 审查依据：《煤矿安全规程》2025 版（条款重新编号版）；AQ 1056-2008" in summary
    assert "- 数据一致性审查：失败（MCP 工具超时：get_air_survey），其规则结论未包含在本报告中" in summary
    assert "- 基本形式审查：完成，发现问题 2 项" in summary
    assert "**注意：数据一致性审查未能完成" in summary
    assert (
        "- 模型审查意见：3 条（语言模型 fake-model 撰写，见第五部分），不计入上表，不影响审查结论。"
        in summary
    )
    assert "- 第 12 页表格跨页，已合并" in summary


def test_markdown_findings_table_one_row_per_finding_in_severity_order() -> None:
    result = make_result()
    md = render_markdown(result)
    assert "| 序号 | 程度 | 用风地点 | 类别 | 问题描述、后果及比对数据 | 检查规则及依据 | 页码 |" in md
    rows = findings_rows(md)
    assert len(rows) == len(result.findings) == 6
    severities = [row.split(" | ")[1] for row in rows]
    assert severities == ["严重", "重大", "重大", "重大", "一般", "提示"]
    assert {row.split(" | ")[3] for row in rows} == {"形式", "数据", "计算", "单位", "规程"}
    critical = rows[0]
    assert "15220回风顺槽掘进工作面" in critical and "实测值 1.05；限值 1.0（%）" in critical
    assert "《煤矿安全规程》第192条" in critical and critical.endswith("| 9 |")
    general = next(row for row in rows if "批准" in row)
    assert "| 计划整体 | 形式 |" in general
    calc = next(row for row in rows if "1132.2，计划取" in row)
    assert "计划值 630.0；核算值 1132.2；配风量 700.0（m³/min）" in calc
    assert "<br>原文位置：第5页 表2 第4行 需风量列 |" in calc and calc.endswith(
        " | 5 |"
    )  # page cell: pages only
    data = next(row for row in rows if "鉴定报告不符" in row)
    assert "瓦斯等级鉴定报告：瓦斯等级鉴定报告" not in data and "get_gas_report" in data
    assert not any("模型" in row for row in rows), "model remarks never enter the findings table"


@pytest.mark.parametrize(
    ("pages", "runs"),
    [([4], "4"), ([3, 4, 5], "3–5"), ([8, 3, 5, 4, 4, None], "3–5、8"), ([2, 4], "2、4"), ([], "—")],
)
def test_pages_are_written_as_runs(pages: list[int | None], runs: str) -> None:
    assert page_runs(pages) == runs


def test_the_page_cell_is_one_short_line_and_the_cells_read_go_with_the_figures() -> None:
    """A finding read on page 3 whose figure's cell is on page 4 and whose plan has copies on pages 5 and
    8: the page cell says ``3–5、8``, the figures say which cells (``原文位置``), never a line per cell."""
    cells = [Evidence(kind="pdf", page=p, table=1, row=4, column="ch4", text="1.05") for p in (4, 5, 8)]
    f = finding(
        Severity.MAJOR, Category.DATA, "CH₄ 不符", page=3, evidence=[Evidence(kind="pdf", page=3), *cells]
    )
    assert page_cell(f) == "3–5、8"
    assert (
        places_line(f)
        == "原文位置：第4页 表1 第4行 甲烷浓度列；第5页 表1 第4行 甲烷浓度列；第8页 表1 第4行 甲烷浓度列"
    )
    assert "原文位置：第4页" in figures_cell(f)


def test_markdown_findings_evidence_reads_as_text() -> None:
    reference = finding(
        Severity.MAJOR,
        Category.DATA,
        "瓦斯涌出量与鉴定报告不符",
        figures={"plan": 1.1, "report": 1.6, "deviation_pct": -31.2},
        unit="m³/min",
        evidence=[
            Evidence(
                kind="reference",
                text="绝对瓦斯涌出量 1.6 m³/min",
                detail={"tool": "query_gas_identification_report", "mine": "示范煤矿", "month": "2026-08"},
            ),
            Evidence(kind="clause", text="甲烷浓度达到1.0%", detail={"edition": "2025", "article": 192}),
            Evidence(kind="calc", detail={"method": "calc_x", "substituted": "Q = 1 × 2 = 2.0 m³/min"}),
        ],
    )
    limit = finding(
        Severity.CRITICAL,
        Category.REGULATION,
        "CH₄ 达到限值",
        figures={"value": 1.05, "limit": 1.0, "op": ">="},
    )
    reviewers = [ReviewerOutcome(agent="data-checker", findings=[reference, limit])]
    rows = findings_rows(render_markdown(make_result(reviewers=reviewers)))
    assert "计划值 1.1；鉴定报告值 1.6（m³/min）<br>偏差（%） -31.2" in rows[1]
    assert "瓦斯等级鉴定报告（示范煤矿 2026-08）：绝对瓦斯涌出量 1.6 m³/min" in rows[1]
    assert "规程条款（2025版第192条）：甲烷浓度达到1.0%" in rows[1]
    assert "核算：Q = 1 × 2 = 2.0 m³/min" in rows[1]
    assert "计划值 1.05；限值 1.0" in rows[0] and "判定" not in rows[0] and "≥" not in rows[0]


def test_a_quote_the_message_already_carries_is_not_repeated() -> None:
    clause = (
        "采区回风巷、采掘工作面回风巷风流中甲烷浓度达到1.0％时，必须停止工作，撤出人员，采取措施，进行处理。"
    )
    limit = finding(
        Severity.CRITICAL,
        Category.REGULATION,
        "回风流 CH₄ 1.05 %：回风流中甲烷浓度达到1.0%：必须停止工作，撤出人员，采取措施，进行处理",
        figures={"value": 1.05, "limit": 1.0, "op": ">="},
        evidence=[
            Evidence(kind="pdf", page=4, text="1.05"),
            Evidence(kind="pdf", page=4, text="取最大值 Q需= 630.0 m³/min"),
            Evidence(kind="clause", text=clause, detail={"edition": "2025", "article": 192}),
        ],
    )
    row = findings_rows(
        render_markdown(make_result(reviewers=[ReviewerOutcome(agent="x", findings=[limit])]))
    )[0]
    assert row.count("撤出人员") == 1, "the clause the message quotes is not quoted again"
    assert "“1.05”" not in row, "a bare figure is not quoted as the plan's text"
    assert "原文：“取最大值 Q需= 630.0 m³/min”" in row, "a quote that says more stays"


def test_page_one_names_each_critical_and_major_item_with_the_verdict() -> None:
    md = render_markdown(make_result())
    summary = section(md, "一、审查结论")
    assert summary.index("**结论：") < summary.index("严重和重大问题：") < summary.index("| 严重 |")
    items = [line for line in summary.splitlines() if line.startswith("- 【")]
    findings = make_result().findings
    assert len(items) == sum(f.severity in (Severity.CRITICAL, Severity.MAJOR) for f in findings) > 0
    assert items[0].startswith("- 【严重】")


def test_page_one_gives_a_critical_item_whole_with_its_required_action() -> None:
    """Plan b's CH₄ item used to end "回风流中甲烷浓度达到1.0%…", losing what must be done."""
    message = (
        "15220回风顺槽掘进工作面CH₄浓度（回风流） 1.05 %，达到限值 1.0 %（应 < 1.0 %）：回风流中甲烷浓度"
        "达到1.0%：必须停止工作，撤出人员，采取措施，进行处理"
    )
    limit = finding(Severity.CRITICAL, Category.REGULATION, message, location="15220回风顺槽掘进工作面")
    md = render_markdown(make_result(reviewers=[ReviewerOutcome(agent="x", findings=[limit])]))
    items = [line for line in section(md, "一、审查结论").splitlines() if line.startswith("- 【严重】")]
    assert len(items) == 1 and "必须停止工作，撤出人员，采取措施，进行处理" in items[0], items
    assert "…" not in items[0]


def test_a_long_item_is_shortened_at_clause_boundaries_keeping_its_last_clause() -> None:
    clauses = ["甲" * 60 + "：", "乙" * 60 + "；", "丙" * 60 + "：", "必须停止工作，撤出人员"]
    short = shorten("".join(clauses))
    assert short == clauses[0] + "……" + clauses[-1]
    assert len(short) <= ITEM_CHARS
    assert shorten("丁" * 200) == "丁" * 200, "no clause boundary: never cut mid-clause"
    assert shorten("短句：照做") == "短句：照做"


def test_issuer_report_number_and_the_plans_month_against_the_review_date() -> None:
    result = make_result()
    md = render_markdown(result, Issuer(unit="通风科", reviewer="王工"))
    assert "| 审查单位 | 通风科 |" in md and "| 审查人 | 王工 |" in md
    assert re.search(r"\| 报告编号 \| 配审-\d{8}-\d{6}-012345 \|", md)
    unset = render_markdown(result)  # not configured: a blank to write in by hand, never "未设置"
    assert "| 审查单位 | ____________ |" in unset and "| 审查人 | ____________ |" in unset
    assert "未设置" not in unset
    assert month_check("2026-08", "2026-08-03T09:30:00") is None
    assert month_check("2026-09", "2026-08-20T09:30:00") is None  # next month's plan, written ahead
    assert "计划已过期" in (month_check("2026-07", "2026-08-03T09:30:00") or "")
    assert "晚 3 个月" in (month_check("2026-11", "2026-08-03T09:30:00") or "")
    late = render_markdown(result.model_copy(update={"month": "2026-06"}))
    assert late.split("## 二、", 1)[0].count("计划已过期") == 1, "the note said once, in the conclusion"
    assert "| 计划月份 | 2026年6月（与审查日期不符，见审查结论） |" in late


def test_markdown_escapes_pipes_and_newlines_in_cells() -> None:
    rows = findings_rows(render_markdown(make_result()))
    units = next(row for row in rows if "单位" in row)
    assert "需风量单位 m³/s \\| m³/min 混用<br>第二行说明" in units
    for row in rows:
        assert len(re.findall(r"(?<!\\)\|", row)) == len(FINDINGS_HEADER) + 1
    assert escape_cell("a|b\r\nc") == "a\\|b<br>c"


def test_markdown_reviewer_sections() -> None:
    md = render_markdown(make_result())
    text = section(md, "四、各审查环节情况")
    order = [text.index(name) for name in ("基本形式审查", "数据一致性审查", "计算核验审查")]
    assert order == sorted(order)
    assert "状态：完成；发现问题 2 项（重大 1，提示 1）；用时 1.2 秒。" in text
    assert "状态：失败；发现问题 1 项（重大 1）；用时 30.0 秒。" in text
    assert "状态：完成；发现问题 3 项（严重 1，重大 1，一般 1）；用时 800 毫秒。" in text
    assert "**错误：MCP 工具超时：get_air_survey**" in text
    assert "模型意见：2 条（1 条与规则结论重复或为空的意见已略去）。" in text
    assert "确定性规则判定" in section(md, "六、审阅签字")


def test_markdown_is_deterministic_whatever_the_reviewer_order() -> None:
    result = make_result()
    shuffled = make_result(reviewers=list(reversed(result.reviewers)))
    assert render_markdown(result) == render_markdown(result) == render_markdown(shuffled)


@pytest.mark.parametrize(
    ("severities", "verdict"),
    [([Severity.MAJOR, Severity.MINOR], VERDICT_MAJOR), ([Severity.MINOR, Severity.INFO], VERDICT_CLEAR)],
)
def test_verdict_follows_the_most_severe_finding(severities: list[Severity], verdict: str) -> None:
    findings = [finding(s, Category.CALCULATION, f"问题{i}") for i, s in enumerate(severities)]
    reviewers = [
        ReviewerOutcome(agent=a, findings=findings if a == "calc-verifier" else [])
        for a in ("form-reviewer", "data-checker", "calc-verifier")
    ]
    assert f"**结论：{verdict}**" in render_markdown(make_result(reviewers=reviewers))


def test_markdown_without_findings() -> None:
    reviewers = [ReviewerOutcome(agent=a) for a in ("form-reviewer", "data-checker", "calc-verifier")]
    md = render_markdown(make_result(reviewers=reviewers))
    assert NO_FINDINGS in md and f"**结论：{VERDICT_CLEAR}**" in md
    assert "| 0 | 0 | 0 | 0 | 0 |" in md and not findings_rows(md)
    assert "**注意" not in md


def test_missing_reviewer_makes_the_verdict_incomplete() -> None:
    md = render_markdown(make_result(reviewers=[ReviewerOutcome(agent="calc-verifier")]))
    assert "（基本形式审查、数据一致性审查未完成，结论不完整）" in md
    assert md.count("状态：未运行。") == 2
    assert "- 基本形式审查：未运行" in md


def test_sign_off_table_for_the_mine() -> None:
    text = section(render_markdown(make_result()), "六、审阅签字")
    assert "| 职务 | 审阅意见 | 签字 | 日期 |" in text and "| 总工程师 |  |  |  |" in text


@pytest.mark.parametrize(
    ("value", "text"), [(144.0, "144.0"), (0.8, "0.8"), (1.05, "1.05"), (3, "3"), (None, "—"), ("n/a", "n/a")]
)
def test_fmt_num(value: float | int | str | None, text: str) -> None:
    assert fmt_num(value) == text


def test_the_verdict_says_what_was_not_read() -> None:
    from reports.content import verdict
    from reports.labels import VERDICT_PARTLY_READ, VERDICT_UNREADABLE
    from vent_agent.review.judgement.plausibility import Coverage
    from vent_agent.review.judgement.read_scope import PartCoverage, ReadScope

    def part(key: str, confidence: str) -> PartCoverage:
        return PartCoverage(part=key, label=key, found=confidence != "none", confidence=confidence)

    reviewers = [ReviewerOutcome(agent=a) for a in ("form-reviewer", "data-checker", "calc-verifier")]
    unread = Coverage(scope=ReadScope(parts=[part("calculations", "low"), part("allocation", "none")]))
    assert (
        verdict(make_result(reviewers=reviewers).model_copy(update={"coverage": unread}))
        == VERDICT_UNREADABLE
    )
    partly = Coverage(scope=ReadScope(parts=[part("calculations", "low"), part("allocation", "high")]))
    assert (
        verdict(make_result(reviewers=reviewers).model_copy(update={"coverage": partly}))
        == VERDICT_CLEAR + VERDICT_PARTLY_READ
    )
