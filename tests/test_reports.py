"""The review report renderers: Markdown (reports.markdown) and Word (reports.docx_report)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from docx import Document
from docx.oxml.ns import qn

from calc.result import BoundCheck, CalcResult, Coefficient, MaxResult
from reports import docx_report
from reports.content import FINDINGS_HEADER, REMARKS_HEADER, fmt_num, sorted_findings
from reports.docx_report import SEVERITY_FILLS, render_docx
from reports.labels import NO_FINDINGS, VERDICT_CLEAR, VERDICT_CRITICAL, VERDICT_MAJOR
from reports.markdown import escape_cell, render_markdown
from vent_agent.events import EventModel
from vent_agent.review.findings import Category, Evidence, Finding, Severity
from vent_agent.review.publish import stream_markdown, token_pieces
from vent_agent.review.result import LocationRecalc, Remark, ReviewerOutcome, ReviewResult

CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
FACE = "15216综采工作面"


def finding(severity: Severity, category: Category, message: str, **kw) -> Finding:
    """A finding with the fields a test does not care about filled in."""
    kw.setdefault("location", FACE)
    kw.setdefault("rule", "规则")
    kw.setdefault("source", "AQ 1056-2008")
    return Finding(severity=severity, category=category, message=message, **kw)


def remark(agent: str, message: str, **kw) -> Remark:
    """A model remark with the fields a test does not care about filled in."""
    kw.setdefault("location", None)
    kw.setdefault("category", Category.FORM)
    kw.setdefault("severity", Severity.INFO)
    return Remark(
        message=message, rule="语言与逻辑审查（模型意见）", source="语言模型意见", reviewer=agent, **kw
    )


def face_recalc() -> LocationRecalc:
    """The 15216 face: three methods, the climate method governs, one speed check."""
    gas = CalcResult(
        value=630.0,
        method="calc_face_by_gas",
        method_cn="按瓦斯涌出量",
        formula="Q = 100·q·k",
        substituted="Q = 100 × 4.20 × 1.5 = 630.0 m³/min",
        inputs={"gas_emission": 4.2, "mining_method": "综采"},
        coefficients=[Coefficient(symbol="k", value=1.5, origin="given", valid_range=(1.2, 1.6))],
        source="AQ 1056-2008 附录",
    )
    climate = CalcResult(
        value=1132.2,
        method="calc_face_by_climate",
        method_cn="按气象条件",
        formula="Q = 60·0.70·v·S·k_h·k_l",
        substituted="Q = 60 × 0.70 × 1.2 × 18.72 × 1.2 × 1.0 = 1132.2 m³/min",
        warnings=["v 取 20–23 °C 区间中值"],
    )
    workers = CalcResult(
        value=120.0,
        method="calc_face_by_workers",
        method_cn="按工作人数",
        formula="Q = 4·N",
        substituted="Q = 4 × 30 = 120.0 m³/min",
        source="《煤矿安全规程》第159条",
    )
    check = BoundCheck(
        name="风速校验",
        value=1132.2,
        lower=282.6,
        upper=3014.4,
        ok=True,
        formula="60 × 0.25 × 18.84 ≤ Q ≤ 60 × 4 × 12.56",
        source="《煤矿安全规程》第157条",
    )
    best = MaxResult(
        value=1132.2,
        method="calc_coal_face",
        method_cn="采煤工作面需风量",
        formula="max(...)",
        substituted="max(630.0, 1132.2, 120.0) = 1132.2 m³/min",
        methods=[gas, climate, workers],
        governing="calc_face_by_climate",
        checks=[check],
    )
    return LocationRecalc(
        location=FACE, kind="coal_face", result=best, stated_required=630.0, allocated=700.0, page=5
    )


def make_result(*, reviewers: list[ReviewerOutcome] | None = None) -> ReviewResult:
    """Three reviewers, findings of every severity and category, data-checker failed part-way."""
    if reviewers is None:
        form = ReviewerOutcome(
            agent="form-reviewer",
            findings=[
                finding(
                    Severity.MAJOR,
                    Category.FORM,
                    "批准（总工程师）签字及日期缺失，计划未生效",
                    location=None,
                    page=1,
                    reviewer="form-reviewer",
                ),
                finding(
                    Severity.INFO,
                    Category.REGULATION,
                    "引用规程版本一致",
                    location=None,
                    reviewer="form-reviewer",
                ),
            ],
            remarks=[
                remark("form-reviewer", "封面“编制日期”与签字日期写法不一致，建议统一为 YYYY年M月D日。")
            ],
            remarks_model="fake-model",
            duration_ms=1200,
        )
        data = ReviewerOutcome(
            agent="data-checker",
            findings=[
                finding(
                    Severity.MAJOR,
                    Category.DATA,
                    "瓦斯涌出量与鉴定报告不符",
                    location="15220回风顺槽掘进工作面",
                    figures={"plan": 1.10, "report": 1.6},
                    unit="m³/min",
                    page=7,
                    reviewer="data-checker",
                    evidence=[
                        Evidence(kind="reference", text="瓦斯等级鉴定报告", detail={"tool": "get_gas_report"})
                    ],
                )
            ],
            error="MCP 工具超时：get_air_survey",
            duration_ms=30000,
        )
        calc = ReviewerOutcome(
            agent="calc-verifier",
            findings=[
                finding(
                    Severity.CRITICAL,
                    Category.REGULATION,
                    "回风流中甲烷浓度 1.05% 达到 1.0%，须停止工作、撤出人员",
                    location="15220回风顺槽掘进工作面",
                    figures={"measured": 1.05, "limit": 1.0},
                    unit="%",
                    source="《煤矿安全规程》第192条",
                    page=9,
                ),
                finding(
                    Severity.MAJOR,
                    Category.CALCULATION,
                    "需风量应取最大值 1132.2，计划取 630.0",
                    figures={"stated": 630.0, "recomputed": 1132.2, "allocated": 700.0},
                    unit="m³/min",
                    page=5,
                    evidence=[Evidence(kind="pdf", page=5, table=2, row=4, column="需风量", text="630.0")],
                ),
                finding(
                    Severity.MINOR,
                    Category.UNITS,
                    "需风量单位 m³/s | m³/min 混用\n第二行说明",
                    location="井下爆炸材料库",
                    figures={"stated": 1.33, "recomputed": 80.0},
                    page=11,
                ),
            ],
            remarks=[
                remark(
                    "calc-verifier",
                    "15216综采工作面取值说明只写“取最大值”，未写明取自哪一方法。",
                    location=FACE,
                    category=Category.CALCULATION,
                    severity=Severity.MINOR,
                    figures={"计划取值": 630.0},
                    page=5,
                    basis="AQ 1056-2008",
                ),
                remark(
                    "calc-verifier",
                    "合计一节引用的 999 m³/min 在计划中未见。",
                    verified=False,
                    figures={"合计": 999.0},
                    note="所引数值 999 未在计划或规则核算结果中找到；未核实，仅作提示",
                ),
            ],
            remarks_model="fake-model",
            remarks_note="1 条与规则结论重复或为空的意见已略去",
            duration_ms=800,
        )
        reviewers = [form, data, calc]
    return ReviewResult(
        file_name="plan-2026-08-b.pdf",
        sha256="0123456789abcdef" * 4,
        title="2026年8月配风计划",
        mine="示范煤矿",
        month="2026-08",
        created_at="2026-08-03T09:30:00+08:00",
        page_count=14,
        reviewers=reviewers,
        recalcs=[face_recalc(), LocationRecalc(location="中央变电所", kind="chamber", note="缺少设备功率")],
        plan_warnings=["第 12 页表格跨页，已合并"],
    )


def findings_rows(markdown: str) -> list[str]:
    """The data rows of the findings table."""
    section = markdown.split("## 二、问题清单", 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if re.match(r"\| \d+ \|", line)]


def section(markdown: str, heading: str) -> str:
    """The text of one chapter (from its ``## `` heading to the next)."""
    return markdown.split(f"## {heading}", 1)[1].split("\n## ", 1)[0]


# --- Markdown -------------------------------------------------------------------------------------


def test_markdown_title_metadata_and_summary() -> None:
    md = render_markdown(make_result())
    assert md.startswith("# 配风计划审查报告\n")
    for text in (
        "plan-2026-08-b.pdf",
        "示范煤矿",
        "2026年8月",
        "0123456789abcdef…",
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
    assert "| 5<br>表2 第4行 需风量列 |" in calc
    data = next(row for row in rows if "鉴定报告不符" in row)
    assert "瓦斯等级鉴定报告：瓦斯等级鉴定报告" not in data and "get_gas_report" in data
    assert not any("模型" in row for row in rows), "model remarks never enter the findings table"


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
    assert "计划值 1.05；限值 1.0<br>判定 ≥（达到）" in rows[0]


def test_markdown_escapes_pipes_and_newlines_in_cells() -> None:
    rows = findings_rows(render_markdown(make_result()))
    units = next(row for row in rows if "单位" in row)
    assert "需风量单位 m³/s \\| m³/min 混用<br>第二行说明" in units
    for row in rows:
        assert len(re.findall(r"(?<!\\)\|", row)) == len(FINDINGS_HEADER) + 1
    assert escape_cell("a|b\r\nc") == "a\\|b<br>c"


def test_markdown_recalculation_section() -> None:
    md = render_markdown(make_result())
    assert "### 1. 15216综采工作面（采煤工作面，计划第 5 页）" in md
    assert "| 计算方法 | 输入参数 | 计算公式及代入数值 | 结果 | 系数及来源 | 依据 |" in md
    assert (
        "| 按瓦斯涌出量 | 瓦斯（CH₄）绝对涌出量 q = 4.2 m³/min<br>采煤方法 = 综采 | "
        "Q = 100·q·k<br>Q = 100 × 4.20 × 1.5 = 630.0 m³/min | 630.0 m³/min | k = 1.5（计划给定；范围 1.2–1.6） |"
        in md
    )
    assert "| 按气象条件（取值） | — | Q = 60·0.70·v·S·k_h·k_l<br>Q = 60 × 0.70 × 1.2 × 18.72" in md
    assert "Q = 4 × 30 = 120.0 m³/min" in md
    assert "- 需风量取各方法最大值：1132.2 m³/min（按气象条件）。" in md
    assert "允许 282.6–3014.4 m³/min，合格" in md
    assert "计划值偏差 -44.4%；配风余量 -432.2（配风量 < 核算需风量）" in md
    # the body details the locations with a finding; the appendix has every location
    assert "### 1. 15216综采工作面\n\n核算明细见正文第三部分。" in md
    assert "| 15216综采工作面 | 采煤工作面 | 630.0 | 1132.2 | 按气象条件 | 700.0 | 否 | 合格 |" in md
    assert "| 中央变电所 | 硐室 | — | — | 未核算 | — | — | — |" in md
    assert "### 2. 中央变电所（硐室）\n\n未能核算。缺少设备功率" in md


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


def test_markdown_model_remarks_have_their_own_marked_section() -> None:
    md = render_markdown(make_result())
    text = section(md, "五、模型审查意见（语言与逻辑，仅供参考）")
    assert "由语言模型（fake-model）按各审查环节撰写" in text and "不改变审查结论" in text
    assert "| " + " | ".join(REMARKS_HEADER) + " |" in text
    rows = [line for line in text.splitlines() if re.match(r"\| \d+ \|", line)]
    assert len(rows) == 3
    assert rows[0].startswith("| 1 | 基本形式审查 | 计划整体 | 形式 | 提示 | 封面“编制日期”")
    assert rows[1].startswith(f"| 2 | 计算核验审查 | {FACE} | 计算 | 一般 | ")
    assert "<br>模型所述依据（未核实）：AQ 1056-2008<br>所引数值：计划取值 630.0 | 已核实 | 5 |" in rows[1]
    assert "| 未核实<br>所引数值 999 未在计划或规则核算结果中找到；未核实，仅作提示 | — |" in rows[2]
    assert "- 计算核验审查：1 条与规则结论重复或为空的意见已略去" in text


def test_model_remarks_do_not_change_counts_or_verdict() -> None:
    base = make_result()
    bare = base.model_copy(deep=True)
    for outcome in bare.reviewers:
        outcome.remarks, outcome.remarks_model, outcome.remarks_note = [], None, None
    assert base.counts() == bare.counts()
    rows = findings_rows(render_markdown(base))
    assert rows == findings_rows(render_markdown(bare))
    md = render_markdown(bare)
    assert "未配置语言模型，本次审查无模型意见" in section(md, "一、审查结论")
    assert "未配置语言模型" in section(md, "五、模型审查意见（语言与逻辑，仅供参考）")


def test_model_asked_but_no_remarks_says_why() -> None:
    reviewers = [
        ReviewerOutcome(
            agent=a, remarks_model="fake-model", remarks_note="模型调用超时（60 秒），本环节无模型意见"
        )
        for a in ("form-reviewer", "data-checker", "calc-verifier")
    ]
    text = section(
        render_markdown(make_result(reviewers=reviewers)), "五、模型审查意见（语言与逻辑，仅供参考）"
    )
    assert "模型未提出补充意见。" in text
    assert text.count("模型调用超时（60 秒）") == 3


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


# --- streaming ------------------------------------------------------------------------------------


def test_token_pieces_end_at_line_ends_and_join_back() -> None:
    md = render_markdown(make_result())
    pieces = token_pieces(md, 200)
    assert "".join(pieces) == md
    assert all(len(p) <= 200 for p in pieces)
    long_lines = {line for line in md.splitlines(keepends=True) if len(line) > 200}
    for piece in pieces[:-1]:
        assert piece.endswith("\n") or any(piece in line for line in long_lines)


async def test_stream_markdown_emits_the_report_as_tokens() -> None:
    events: list[tuple[str, dict]] = []

    async def emit(event: EventModel) -> None:
        fields = event.wire()
        events.append((fields.pop("type"), fields))

    text = await stream_markdown(make_result(), emit)
    tokens = [f for t, f in events if t == "token"]
    assert [t for t, _ in events[:2]] == ["progress", "generating"]
    assert all(f["source"] == "main" for f in tokens)
    assert "".join(f["content"] for f in tokens) == text == render_markdown(make_result())


# --- Word -----------------------------------------------------------------------------------------


def table_with_header(doc, header: tuple[str, ...]):
    """The first table whose header row is ``header``, or None."""
    for table in doc.tables:
        if tuple(c.text for c in table.rows[0].cells) == header:
            return table
    return None


def findings_table(doc):
    """The table whose header row is the findings header, or None."""
    return table_with_header(doc, FINDINGS_HEADER)


def shading(cell) -> str | None:
    shd = cell._tc.tcPr.find(qn("w:shd")) if cell._tc.tcPr is not None else None
    return None if shd is None else shd.get(qn("w:fill"))


@pytest.fixture
def docx_path(tmp_path: Path) -> Path:
    return render_docx(make_result(), tmp_path / "reports" / "review.docx")


def test_docx_findings_table_with_shaded_severity(docx_path: Path) -> None:
    doc = Document(str(docx_path))
    assert doc.paragraphs[0].text == "配风计划审查报告"
    table = findings_table(doc)
    assert table is not None and len(table.rows) == 1 + 6
    expected = {
        "严重": Severity.CRITICAL,
        "重大": Severity.MAJOR,
        "一般": Severity.MINOR,
        "提示": Severity.INFO,
    }
    for row in table.rows[1:]:
        severity_cell = row.cells[1]
        run_shading = severity_cell.paragraphs[0].runs[0]._r.rPr.find(qn("w:shd"))
        assert run_shading.get(qn("w:fill")) == SEVERITY_FILLS[expected[severity_cell.text]]
        assert shading(severity_cell) is None  # a small label, not a shaded block
    units = next(row for row in table.rows if row.cells[3].text == "单位")
    assert units.cells[4].text.startswith("需风量单位 m³/s | m³/min 混用\n第二行说明")
    assert units.cells[2].text == "井下爆炸材料库"
    assert table.rows[0]._tr.trPr.find(qn("w:tblHeader")) is not None


def test_docx_has_every_section_and_the_remarks_table(docx_path: Path) -> None:
    doc = Document(str(docx_path))
    headings = [p.text for p in doc.paragraphs if p.style.name.startswith("Heading")]
    chapters = [h for h in headings if re.match(r"[一二三四五六]、", h)]
    assert chapters == [
        "一、审查结论",
        "二、问题清单",
        "三、有问题地点的需风量核算",
        "四、各审查环节情况",
        "五、模型审查意见（语言与逻辑，仅供参考）",
        "六、审阅签字",
    ]
    assert "1. 15216综采工作面（采煤工作面，计划第 5 页）" in headings
    assert "附录  各用风地点需风量核算明细" in headings
    remarks = table_with_header(doc, REMARKS_HEADER)
    assert remarks is not None and len(remarks.rows) == 1 + 3
    assert [r.cells[1].text for r in remarks.rows[1:]] == ["基本形式审查", "计算核验审查", "计算核验审查"]
    assert remarks.rows[3].cells[6].text.startswith("未核实\n")
    label = remarks.rows[2].cells[4].paragraphs[0].runs[0]._r.rPr.find(qn("w:shd"))
    assert label.get(qn("w:fill")) == SEVERITY_FILLS[Severity.MINOR]


def test_docx_content_matches_the_report(docx_path: Path) -> None:
    doc = Document(str(docx_path))
    text = "\n".join(p.text for p in doc.paragraphs)
    cells = "\n".join(c.text for t in doc.tables for r in t.rows for c in r.cells)
    assert f"结论：{VERDICT_CRITICAL}" in text and "错误：MCP 工具超时：get_air_survey" in text
    assert "Q = 60 × 0.70 × 1.2 × 18.72 × 1.2 × 1.0 = 1132.2 m³/min" in cells and "示范煤矿" in cells
    assert "确定性规则判定" in doc.sections[0].footer.paragraphs[0].text
    orientations = [s.orientation for s in doc.sections]
    # portrait, landscape (findings, recomputation), portrait, landscape (appendix)
    assert len(orientations) == 4 and orientations[1] != orientations[0] == orientations[2] != orientations[3]
    assert (
        round(doc.sections[0].page_width.cm, 1) == 21.0 and round(doc.sections[0].page_height.cm, 1) == 29.7
    )
    assert round(doc.sections[1].page_width.cm, 1) == 29.7
    assert doc.core_properties.title == "配风计划审查报告"


def _docx_sequence(doc) -> list[str]:
    """The document body in order: ``H:`` headings, ``P:`` paragraphs and list items, ``R:`` table rows
    (cells joined by ``¦``, lines by ``\\n``); empty paragraphs left out."""
    out = []
    for child in doc.element.body.iterchildren():
        if child.tag == qn("w:p"):
            para = next(p for p in doc.paragraphs if p._p is child)
            if not para.text:
                continue
            style = para.style.name
            prefix = "H" if style.startswith("Heading") or style == "Title" else "P"
            out.append(f"{prefix}:{para.text}")
        elif child.tag == qn("w:tbl"):
            table = next(t for t in doc.tables if t._tbl is child)
            out += ["R:" + "¦".join(c.text for c in row.cells) for row in table.rows]
    return out


def _markdown_sequence(md: str) -> list[str]:
    """The Markdown report in the same form as :func:`_docx_sequence` (table separators dropped)."""
    out = []
    for line in md.splitlines():
        if not line or re.fullmatch(r"\|(---\|)+", line):
            continue
        if line.startswith("#"):
            out.append("H:" + line.lstrip("#").strip())
        elif line.startswith("|"):
            cells = re.split(r"(?<!\\)\|", line)[1:-1]
            out.append("R:" + "¦".join(c.strip().replace("\\|", "|").replace("<br>", "\n") for c in cells))
        elif line.startswith("- "):
            out.append("P:" + line[2:])
        else:
            out.append("P:" + line.removeprefix("**").removesuffix("**"))
    return out


@pytest.mark.parametrize("variant", ["full", "no_model", "no_findings"])
def test_markdown_says_what_the_docx_says(tmp_path: Path, variant: str) -> None:
    result = make_result()
    if variant == "no_model":
        for outcome in result.reviewers:
            outcome.remarks, outcome.remarks_model = [], None
    elif variant == "no_findings":
        result = make_result(reviewers=[ReviewerOutcome(agent="form-reviewer")])
    doc = Document(str(render_docx(result, tmp_path / "r.docx")))
    md_seq = _markdown_sequence(render_markdown(result))
    docx_seq = _docx_sequence(doc)
    assert md_seq == docx_seq
    finding_rows = [r for r in docx_seq if re.match(r"R:\d+¦(严重|重大|一般|提示)¦", r)]
    remark_rows = [r for r in docx_seq if re.match(r"R:\d+¦(基本形式|数据一致性|计算核验)审查¦", r)]
    assert len(finding_rows) == len(result.findings) and len(remark_rows) == len(result.remarks)
    # the description cell starts with the message (then the consequences and the figures compared)
    assert [r.split("¦")[4].split("\n")[0] for r in finding_rows] == [
        f.message.split("\n")[0] for f in sorted_findings(result)
    ]


def test_docx_every_chinese_run_has_an_east_asian_font(docx_path: Path) -> None:
    doc = Document(str(docx_path))
    parts = [doc.element.body] + [s.footer._element for s in doc.sections]
    runs = [
        r
        for part in parts
        for r in part.iter(qn("w:r"))
        if CJK.search("".join(t.text or "" for t in r.iter(qn("w:t"))))
    ]
    assert len(runs) > 50
    for run in runs:
        assert run.rPr is not None and run.rPr.rFonts is not None
        assert run.rPr.rFonts.get(qn("w:eastAsia")), run.xml
        assert run.rPr.rFonts.get(qn("w:ascii")) == "Times New Roman"
    for name in ("Normal", "Heading 1", "Heading 2", "Title"):
        rfonts = doc.styles[name].element.rPr.rFonts
        assert rfonts.get(qn("w:eastAsia")) and rfonts.get(qn("w:eastAsiaTheme")) is None


def test_docx_without_findings(tmp_path: Path) -> None:
    reviewers = [ReviewerOutcome(agent=a) for a in ("form-reviewer", "data-checker", "calc-verifier")]
    doc = Document(str(render_docx(make_result(reviewers=reviewers), tmp_path / "empty.docx")))
    assert findings_table(doc) is None and table_with_header(doc, REMARKS_HEADER) is None
    assert NO_FINDINGS in [p.text for p in doc.paragraphs]


def test_docx_is_written_atomically(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "review.docx"
    assert render_docx(make_result(), path) == path
    assert [p.name for p in tmp_path.iterdir()] == ["review.docx"]
    before = path.read_bytes()

    def broken_save(self, stream) -> None:
        stream.write(b"partial")
        raise OSError("disk full")

    monkeypatch.setattr(docx_report.DocxDocument, "save", broken_save)
    with pytest.raises(OSError, match="disk full"):
        render_docx(make_result(), path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["review.docx"]
