"""The review report renderers: Markdown (reports.markdown) and Word (reports.docx_report)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from docx import Document
from docx.oxml.ns import qn

from calc.result import BoundCheck, CalcResult, Coefficient, MaxResult
from reports import docx_report
from reports.content import FINDINGS_HEADER, fmt_num
from reports.docx_report import SEVERITY_FILLS, render_docx
from reports.labels import NO_FINDINGS, VERDICT_CLEAR, VERDICT_CRITICAL, VERDICT_MAJOR
from reports.markdown import escape_cell, render_markdown
from vent_agent.review.findings import Category, Evidence, Finding, Severity
from vent_agent.review.result import LocationRecalc, ReviewerOutcome, ReviewResult

CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
FACE = "15216综采工作面"


def finding(severity: Severity, category: Category, message: str, **kw) -> Finding:
    """A finding with the fields a test does not care about filled in."""
    kw.setdefault("location", FACE)
    kw.setdefault("rule", "规则")
    kw.setdefault("source", "AQ 1056-2008")
    return Finding(severity=severity, category=category, message=message, **kw)


def face_recalc() -> LocationRecalc:
    """The 15216 face: three methods, the climate method governs, one speed check."""
    gas = CalcResult(
        value=630.0,
        method="calc_face_by_gas",
        method_cn="按瓦斯涌出量",
        formula="Q = 100·q·k",
        substituted="Q = 100 × 4.20 × 1.5 = 630.0 m³/min",
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
            remarks=["封面版本号齐全。"],
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
            remarks=["各地点均已核算。"],
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
    assert "| 严重 | 重大 | 一般 | 提示 | 合计 |\n|---|---|---|---|---|\n| 1 | 3 | 1 | 1 | 6 |" in md
    assert f"**结论：{VERDICT_CRITICAL}（数据一致性审查未完成，结论不完整）**" in md
    assert "- 第 12 页表格跨页，已合并" in md


def test_markdown_findings_table_one_row_per_finding_in_severity_order() -> None:
    result = make_result()
    rows = findings_rows(render_markdown(result))
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
    assert "参考数据：瓦斯等级鉴定报告（tool=get_gas_report）" in data


def test_markdown_escapes_pipes_and_newlines_in_cells() -> None:
    rows = findings_rows(render_markdown(make_result()))
    units = next(row for row in rows if "单位" in row)
    assert "需风量单位 m³/s \\| m³/min 混用<br>第二行说明" in units
    for row in rows:
        assert len(re.findall(r"(?<!\\)\|", row)) == len(FINDINGS_HEADER) + 1
    assert escape_cell("a|b\r\nc") == "a\\|b<br>c"


def test_markdown_recalculation_section() -> None:
    md = render_markdown(make_result())
    assert "### 1. 15216综采工作面（采煤工作面，第 5 页）" in md
    assert (
        "| 按瓦斯涌出量 | Q = 100 × 4.20 × 1.5 = 630.0 m³/min | 630.0 m³/min | k = 1.5（计划给定；范围 1.2–1.6） |"
        in md
    )
    assert "| 按气象条件（取值） | Q = 60 × 0.70 × 1.2 × 18.72 × 1.2 × 1.0 = 1132.2 m³/min |" in md
    assert "Q = 4 × 30 = 120.0 m³/min" in md
    assert "**需风量取各方法最大值：1132.2 m³/min，取值方法：按气象条件。**" in md
    assert "| 风速校验 | 282.6 | 3014.4 | 1132.2 | 合格 |" in md
    assert "| 630.0 | 1132.2 | 700.0 | -44.4% | -432.2（配风量 < 核算需风量） |" in md
    assert "- 按气象条件：v 取 20–23 °C 区间中值" in md
    assert "| 15216综采工作面 | 采煤工作面 | 630.0 | 1132.2 | 按气象条件 | 700.0 | 合格 |" in md
    assert "### 2. 中央变电所（硐室）\n\n未能核算。缺少设备功率" in md


def test_markdown_reviewer_sections() -> None:
    md = render_markdown(make_result())
    section = md.split("## 四、各审查环节意见", 1)[1]
    order = [section.index(name) for name in ("基本形式审查", "数据一致性审查", "计算核验审查")]
    assert order == sorted(order)
    assert "状态：完成；发现问题 2 项（重大 1，提示 1）；用时 1.2 秒。" in section
    assert "状态：失败；发现问题 1 项（重大 1）；用时 30.0 秒。" in section
    assert "**错误：MCP 工具超时：get_air_survey**" in section
    assert "- 各地点均已核算。" in section
    assert "确定性规则判定" in section


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


def test_missing_reviewer_makes_the_verdict_incomplete() -> None:
    md = render_markdown(make_result(reviewers=[ReviewerOutcome(agent="calc-verifier")]))
    assert "（基本形式审查、数据一致性审查未完成，结论不完整）" in md
    assert md.count("状态：未运行。") == 2


@pytest.mark.parametrize(
    ("value", "text"), [(144.0, "144.0"), (0.8, "0.8"), (1.05, "1.05"), (3, "3"), (None, "—"), ("n/a", "n/a")]
)
def test_fmt_num(value: float | int | str | None, text: str) -> None:
    assert fmt_num(value) == text


# --- Word -----------------------------------------------------------------------------------------


def findings_table(doc):
    """The table whose header row is the findings header, or None."""
    for table in doc.tables:
        if tuple(c.text for c in table.rows[0].cells) == FINDINGS_HEADER:
            return table
    return None


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
        assert shading(severity_cell) == SEVERITY_FILLS[expected[severity_cell.text]]
    units = next(row for row in table.rows if row.cells[3].text == "单位")
    assert units.cells[4].text == "需风量单位 m³/s | m³/min 混用\n第二行说明"
    assert units.cells[2].text == "井下爆炸材料库"


def test_docx_content_matches_the_report(docx_path: Path) -> None:
    doc = Document(str(docx_path))
    text = "\n".join(p.text for p in doc.paragraphs)
    cells = "\n".join(c.text for t in doc.tables for r in t.rows for c in r.cells)
    assert f"结论：{VERDICT_CRITICAL}" in text and "错误：MCP 工具超时：get_air_survey" in text
    assert "Q = 60 × 0.70 × 1.2 × 18.72 × 1.2 × 1.0 = 1132.2 m³/min" in cells and "示范煤矿" in cells
    assert "确定性规则判定" in doc.sections[0].footer.paragraphs[0].text
    orientations = [s.orientation for s in doc.sections]
    assert len(orientations) == 3 and orientations[1] != orientations[0]
    assert (
        round(doc.sections[0].page_width.cm, 1) == 21.0 and round(doc.sections[0].page_height.cm, 1) == 29.7
    )
    assert doc.core_properties.title == "配风计划审查报告"


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
    assert findings_table(doc) is None
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
