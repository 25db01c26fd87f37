"""The Word report (reports.docx_report): the findings table with shaded severities, every section and
the remarks table, the same content as the Markdown, East Asian fonts on Chinese runs, atomic writes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from docx import Document
from docx.document import Document as DocxDocument
from docx.enum.section import WD_ORIENT
from docx.oxml.ns import qn

from reports import docx_report
from reports.content import FINDINGS_HEADER, REMARKS_HEADER
from reports.docx_report import COLUMN_WIDTHS_CM, SEVERITY_FILLS, SUBSCRIPT, TEXT_WIDTH_CM, render_docx
from reports.front import HANDWRITE, Issuer
from reports.labels import NO_FINDINGS, VERDICT_CRITICAL
from reports.markdown import render_markdown
from tests.helpers import present
from tests.report_samples import CJK, finding, make_result
from vent_agent.review.findings import Category, Severity
from vent_agent.review.result import ReviewerOutcome, sorted_findings


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
    headings = [p.text for p in doc.paragraphs if (present(p.style).name or "").startswith("Heading")]
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
    assert doc.core_properties.title == "配风计划审查报告"


def test_docx_flows_on_portrait_pages_with_no_page_forced(docx_path: Path) -> None:
    """One A4 portrait section and no page break or keep-with-next that would leave a page mostly empty
    between chapters (the landscape sections used to break before and after the findings)."""
    doc = Document(str(docx_path))
    assert len(doc.sections) == 1 and doc.sections[0].orientation == WD_ORIENT.PORTRAIT
    width, height = present(doc.sections[0].page_width), present(doc.sections[0].page_height)
    assert (round(width.cm, 1), round(height.cm, 1)) == (21.0, 29.7)
    body = doc.element.body
    assert not body.findall(".//" + qn("w:br") + f"[@{qn('w:type')}='page']")
    assert not body.findall(".//" + qn("w:pageBreakBefore"))
    assert len(body.findall(".//" + qn("w:sectPr"))) == 1


def test_every_tables_columns_fill_the_text_width_and_keep_two_characters_a_line(docx_path: Path) -> None:
    """Each table's grid adds up to the portrait text width, and no column is narrower than two
    characters of the table's size with the cell margins (a narrower one wraps 类别, 程度, 序号 a
    character a line)."""
    doc = Document(str(docx_path))
    assert COLUMN_WIDTHS_CM.keys() >= {FINDINGS_HEADER, REMARKS_HEADER}
    for header, widths in COLUMN_WIDTHS_CM.items():
        assert round(sum(widths), 2) == TEXT_WIDTH_CM, header
        assert min(widths) >= 1.2, header
    for table in doc.tables:
        header = tuple(c.text for c in table.rows[0].cells)
        if header in COLUMN_WIDTHS_CM:
            grid = [round(col.width.cm, 1) for col in table.columns]
            assert grid == list(COLUMN_WIDTHS_CM[header]), header


def test_a_findings_page_cell_is_one_line(docx_path: Path) -> None:
    """The page column holds the pages as runs, one line (the cells read are in the description)."""
    table = findings_table(Document(str(docx_path)))
    assert all(len(row.cells[6].paragraphs) == 1 for row in table.rows[1:])


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
    """The Markdown report in the same form as :func:`_docx_sequence` (table separators dropped; ``k_h``
    read as the Word report's k with a subscript h)."""
    out = []
    for line in SUBSCRIPT.sub(r"\1\2", md).splitlines():
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
        assert run.rPr.rFonts.get(qn("w:ascii")) == docx_report.LATIN_FONT
        assert run.rPr.rFonts.get(qn("w:eastAsia")) == docx_report.CJK_FONT  # one typeface per script
    for name in ("Normal", "Heading 1", "Heading 2", "Title"):
        rfonts = doc.styles[name].element.rPr.rFonts
        assert rfonts.get(qn("w:eastAsia")) and rfonts.get(qn("w:eastAsiaTheme")) is None


def declared(rpr) -> tuple[tuple[str | None, ...], str | None]:
    """The fonts (ascii, hAnsi, eastAsia, cs) and the East-Asian language a ``w:rPr`` declares."""
    rfonts, lang = rpr.find(qn("w:rFonts")), rpr.find(qn("w:lang"))
    fonts = tuple(rfonts.get(qn(f"w:{a}")) for a in ("ascii", "hAnsi", "eastAsia", "cs"))
    return fonts, None if lang is None else lang.get(qn("w:eastAsia"))


def test_docx_runs_and_styles_declare_one_face_per_script_and_simplified_chinese(docx_path: Path) -> None:
    """A renderer without 微软雅黑 picks the simplified-Chinese face (zh-CN), not the Japanese one, and
    every run and style names the same two faces: no theme font, no third face."""
    doc = Document(str(docx_path))
    latin, cjk = docx_report.LATIN_FONT, docx_report.CJK_FONT
    parts = [doc.element.body] + [s.footer._element for s in doc.sections]
    runs = [r for part in parts for r in part.iter(qn("w:r"))]
    assert len(runs) > 50
    for run in runs:
        fonts, lang = declared(run.rPr)
        assert lang == "zh-CN", run.xml
        assert fonts == (latin, latin, cjk, latin), run.xml  # ℃ too: hinted, not another face
    styles = doc.styles.element
    assert declared(styles.find(qn("w:docDefaults")).find(f"{qn('w:rPrDefault')}/{qn('w:rPr')}")) == (
        (latin, latin, cjk, latin),
        "zh-CN",
    )
    for rfonts in styles.iter(qn("w:rFonts")):  # and no hint: a style holds text of either script
        assert {k.split("}")[1] for k in rfonts.attrib} == {"ascii", "hAnsi", "eastAsia", "cs"}, rfonts.xml
    for name in ("Normal", "Heading 1", "Heading 2", "Title"):
        assert declared(doc.styles[name].element.rPr) == ((latin, latin, cjk, latin), "zh-CN")
    bullets = [
        lvl
        for lvl in doc.part.numbering_part.element.iter(qn("w:lvl"))
        if lvl.find(f"{qn('w:rPr')}/{qn('w:rFonts')}") is not None
    ]
    assert bullets, "the template's bullet lists"
    for lvl in bullets:
        assert lvl.find(qn("w:lvlText")).get(qn("w:val")) != "\uf0b7", "no Symbol-font bullet"
        if lvl.find(qn("w:lvlText")).get(qn("w:val")) == docx_report.BULLET:
            assert declared(lvl.find(qn("w:rPr")))[0] == (latin, latin, cjk, latin)


def test_docx_sets_letterlike_symbols_in_the_documents_faces(tmp_path: Path) -> None:
    """℃ is not in Arial or Liberation Sans: a run of its own that names the report's two faces like every
    run, hinted East-Asian (Word sets it in 微软雅黑) and Chinese (LibreOffice takes it from the SC face);
    the symbols the Latin face has stay in the text's runs, with no hint."""
    doc = Document()
    paragraph = doc.add_paragraph()
    docx_report.add_text(paragraph, "温度 26 ℃ ± 2，v ≥ 0.25 m/s，3 × 4 m³，CH₄，k_h")
    runs = {r.text: present(r._r.rPr) for r in paragraph.runs}
    text = " ± 2，v ≥ 0.25 m/s，3 × 4 m³，CH₄，"
    assert list(runs) == ["温度 26 ", "℃", text, "k", "h"]
    latin, cjk = docx_report.LATIN_FONT, docx_report.CJK_FONT
    assert all(declared(rpr)[0] == (latin, latin, cjk, latin) for rpr in runs.values())
    hints = {t: present(rpr.find(qn("w:rFonts"))).get(qn("w:hint")) for t, rpr in runs.items()}
    assert hints == {"温度 26 ": None, "℃": "eastAsia", text: None, "k": None, "h": None}
    symbol = present(runs["℃"].find(qn("w:lang")))
    assert symbol.get(qn("w:val")) == "zh-CN", "Chinese text, so a stand-in face is the SC one"


def test_docx_without_findings(tmp_path: Path) -> None:
    reviewers = [ReviewerOutcome(agent=a) for a in ("form-reviewer", "data-checker", "calc-verifier")]
    doc = Document(str(render_docx(make_result(reviewers=reviewers), tmp_path / "empty.docx")))
    assert findings_table(doc) is None and table_with_header(doc, REMARKS_HEADER) is None
    assert NO_FINDINGS in [p.text for p in doc.paragraphs]


def test_docx_leaves_an_unset_issuer_blank_to_write_in_by_hand(tmp_path: Path) -> None:
    def issuer_cells(issuer: Issuer | None) -> dict[str, str]:
        doc = Document(str(render_docx(make_result(), tmp_path / "issuer.docx", issuer)))
        rows = [[c.text for c in r.cells] for t in doc.tables for r in t.rows]
        return {r[0]: r[1] for r in rows if len(r) == 2 and r[0] in ("审查单位", "审查人")}

    assert issuer_cells(None) == {"审查单位": HANDWRITE, "审查人": HANDWRITE} and set(HANDWRITE) == {"_"}
    assert issuer_cells(Issuer(unit="通风科", reviewer="王工")) == {"审查单位": "通风科", "审查人": "王工"}


def test_docx_is_written_atomically(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "review.docx"
    assert render_docx(make_result(), path) == path
    assert [p.name for p in tmp_path.iterdir()] == ["review.docx"]
    before = path.read_bytes()

    def broken_save(self, stream) -> None:
        stream.write(b"partial")
        raise OSError("disk full")

    monkeypatch.setattr(DocxDocument, "save", broken_save)
    with pytest.raises(OSError, match="disk full"):
        render_docx(make_result(), path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["review.docx"]


def test_docx_footer_says_page_n_of_m(docx_path: Path) -> None:
    footer = Document(str(docx_path)).sections[0].footer.paragraphs[0]
    fields = [f.get(qn("w:instr")) for f in footer._p.iter(qn("w:fldSimple"))]
    assert fields == ["PAGE", "NUMPAGES"]
    assert "第 1 页 共 1 页" in "".join(t.text or "" for t in footer._p.iter(qn("w:t")))


def no_model(result):
    """``result`` as a review with no language model: no reviewer asked one for remarks."""
    for outcome in result.reviewers:
        outcome.remarks, outcome.remarks_model, outcome.remarks_note = [], None, None
    return result


def test_docx_footer_speaks_of_model_remarks_only_when_a_model_wrote_some(tmp_path: Path) -> None:
    def footer(result) -> str:
        doc = Document(str(render_docx(result, tmp_path / "r.docx")))
        return str(doc.sections[0].footer.paragraphs[0].text)

    assert "确定性规则判定" in footer(make_result()) and "模型意见仅供参考" in footer(make_result())
    deterministic = footer(no_model(make_result()))
    assert "确定性规则判定" in deterministic and "模型" not in deterministic


def test_docx_formula_symbols_carry_real_subscripts(docx_path: Path) -> None:
    doc = Document(str(docx_path))
    runs = [r for t in doc.tables for row in t.rows for c in row.cells for p in c.paragraphs for r in p.runs]
    subs = [r.text for r in runs if r._r.rPr is not None and r._r.rPr.find(qn("w:vertAlign")) is not None]
    assert {"h", "l"} <= set(subs), "k_h and k_l are k with a subscript"
    assert not any(SUBSCRIPT.search(r.text) for r in runs), "no programmer notation left"


def test_docx_appendix_has_no_empty_heading(tmp_path: Path) -> None:
    doc = Document(str(render_docx(make_result(), tmp_path / "r.docx")))
    body = [(present(p.style).name, p.text) for p in doc.paragraphs if p.text]
    start = next(i for i, (_, text) in enumerate(body) if text.startswith("附录"))
    appendix = body[start + 1 :]
    for (style, _), (next_style, _) in zip(appendix, appendix[1:], strict=False):
        assert not (style.startswith("Heading") and next_style.startswith("Heading")), appendix
    assert not any(text == "核算明细见正文第三部分。" for _, text in appendix)


def _kept_whole(row) -> bool:
    return row._tr.trPr is not None and row._tr.trPr.find(qn("w:cantSplit")) is not None


def test_a_short_row_is_kept_on_one_page_and_a_tall_one_may_break(tmp_path: Path) -> None:
    """A tall finding that does not fit at the foot of a page breaks across two instead of moving on
    whole and leaving the rest of the page blank; a short one is never cut (and widow control keeps a
    single line from being left alone)."""
    tall = finding(Severity.MAJOR, Category.DATA, "\n".join(f"第{i}行说明" for i in range(1, 21)))
    short = finding(Severity.MINOR, Category.DATA, "一行说明")
    result = make_result(reviewers=[ReviewerOutcome(agent="data-checker", findings=[tall, short])])
    doc = Document(str(render_docx(result, tmp_path / "r.docx")))
    rows = findings_table(doc).rows[1:]
    assert [_kept_whole(r) for r in rows] == [False, True]
    assert doc.styles["Normal"].paragraph_format.widow_control


def test_a_finding_of_a_few_lines_is_kept_whole_up_to_eight_lines(tmp_path: Path) -> None:
    """A finding of a message, its figures, the reference and the cell read (eight printed lines) is not
    cut across a page: moved on whole it leaves a few lines blank, broken it is read across a page turn;
    a row of nine lines may break."""
    lines = [f"第{i}行说明" for i in range(1, 10)]
    eight = finding(Severity.MINOR, Category.DATA, "\n".join(lines[:8]))
    nine = finding(Severity.MINOR, Category.DATA, "\n".join(lines))
    result = make_result(reviewers=[ReviewerOutcome(agent="data-checker", findings=[eight, nine])])
    rows = findings_table(Document(str(render_docx(result, tmp_path / "r.docx")))).rows[1:]
    assert [len(r.cells[4].paragraphs) for r in rows] == [8, 9]
    assert [_kept_whole(r) for r in rows] == [True, False]


def test_a_rows_printed_lines_are_estimated_from_its_widest_cell() -> None:
    widths = (1.2, 6.6)
    assert docx_report.row_lines(("1", "一行"), widths) == 1
    assert docx_report.row_lines(("1", "两行\n第二行"), widths) == 2
    assert docx_report.row_lines(("1", "字" * 40), widths) == 3  # 19 characters a line in 6.6 cm at 9 pt
    assert docx_report.row_lines(("12345678901234", ""), widths) == 3  # digits half as wide
