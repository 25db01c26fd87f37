"""The review report as a Word document an auditor can file (python-docx).

Same content as the Markdown report (both come from :func:`reports.content.build_report`), laid out on
A4 portrait in one section (no page forced between chapters), every table's columns proportioned to the
text width, severity cells shaded, and every run carrying a Latin
and an East-Asian font so Chinese text never falls back to a theme font. Written atomically.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import tempfile
import unicodedata
from datetime import datetime
from pathlib import Path

from docx import Document
from docx.document import Document as DocxDocument
from docx.enum.section import WD_ORIENT
from docx.enum.table import WD_TABLE_ALIGNMENT
from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.oxml.xmlchemy import BaseOxmlElement
from docx.section import Section
from docx.shared import Cm, Pt, RGBColor
from docx.styles.style import BaseStyle
from docx.table import _Cell, _Row
from docx.text.paragraph import Paragraph
from docx.text.run import Run

from calc import symbols
from reports.blocks import Block, Bullets, Heading, Para, ReportContent, Table
from reports.content import FINDINGS_HEADER, PLAN_HEADER, REMARKS_HEADER, SIGNOFF_HEADER, build_report
from reports.front import Issuer
from reports.recalc import METHOD_HEADER, OVERVIEW_HEADER
from vent_agent.review.findings import Severity
from vent_agent.review.result import ReviewResult

# one typeface per script, both sans so they match (Word on Windows: Arial + 微软雅黑; LibreOffice
# substitutes Liberation Sans, metric-compatible with Arial, and, for a run in simplified Chinese, Noto Sans
# CJK SC): no Latin serif beside CJK sans
LATIN_FONT = "Arial"
CJK_FONT = "微软雅黑"
LATIN_LANG = "en-US"
EAST_ASIAN_LANG = "zh-CN"
"""The languages every run and style declares: ``zh-CN`` makes a renderer without 微软雅黑 pick the
simplified-Chinese face of a pan-CJK family (Noto Sans CJK SC, not the Japanese glyph forms of JP)."""
CJK_SYMBOLS = re.compile(r"[\u2100-\u214f]+")
"""Letterlike symbols (℃, №) that the Latin face (Arial; Liberation Sans) lacks: a run of their own with the
report's two faces like every run, marked East-Asian (``w:hint="eastAsia"``: Word sets them in the
East-Asian face, ECMA-376 §17.3.2.26) and Chinese (``w:lang``: LibreOffice, which reads no hint, takes the
missing glyph from the simplified-Chinese face): never a third face. Symbols the Latin face has (±, ≥, ×,
³, ₄) stay in the runs of the text around them."""
HEADING_CJK_FONT = CJK_FONT
BODY_SIZE = Pt(10.5)
TABLE_SIZE = Pt(9)
HEADER_FILL = "F2F2F2"
SEVERITY_FILLS: dict[Severity, str] = {
    Severity.CRITICAL: "FF4D4D",
    Severity.MAJOR: "FFA64D",
    Severity.MINOR: "FFE066",
    Severity.INFO: "D9D9D9",
}
#: Column widths (cm) of tables whose layout matters; others are laid out by Word.
A4_SHORT, A4_LONG = Cm(21.0), Cm(29.7)
MARGIN_CM = 2.0
TEXT_WIDTH_CM = 21.0 - 2 * MARGIN_CM
COLUMN_WIDTHS_CM: dict[tuple[str, ...], tuple[float, ...]] = {
    # each sums to TEXT_WIDTH_CM; a column of two-character words (序号, 程度, 类别) 1.2 cm: two
    # characters at the table's size and the cell margins, so none wraps a character a line
    # the page column holds one line of page runs (3–5、8): the table cells go to the description
    FINDINGS_HEADER: (1.2, 1.2, 2.1, 1.2, 6.6, 3.1, 1.6),
    METHOD_HEADER: (2.3, 3.3, 4.4, 1.9, 2.8, 2.3),
    OVERVIEW_HEADER: (3.0, 2.1, 1.6, 1.6, 3.1, 1.5, 2.3, 1.8),
    REMARKS_HEADER: (1.2, 2.0, 2.1, 1.2, 1.2, 4.9, 3.0, 1.4),
    SIGNOFF_HEADER: (3.5, 7.5, 3.0, 3.0),
    PLAN_HEADER: (3.2, 13.8),
}
KEEP_ROW_LINES = 8
"""A table row of at most this many printed lines (:func:`row_lines`) is kept on one page; a taller one
may break across two. Moved on whole, a kept row leaves at most this many lines less one blank at the
foot of a page (about an eighth of an A4 page of 9 pt table lines); broken, a row of up to this height
leaves a few lines on each page, a finding read across a page turn (an eight-line finding used to run
four lines onto the next page). Only a taller row gains by breaking: moved on whole, a twelve-line
finding used to leave the foot of a page empty."""
NARROW_EM = 0.55
"""The width of a Latin letter, digit, space or symbol relative to a CJK character (one em), on average
in Arial / Liberation Sans."""
CELL_MARGINS_CM = 0.38
"""A table cell's left and right margins together (Word's default 0.19 cm each)."""
_THEME_FONT_ATTRS = ("w:asciiTheme", "w:hAnsiTheme", "w:eastAsiaTheme", "w:cstheme")
_HEADING_STYLES = {0: "Title", 1: "Heading 1", 2: "Heading 2", 3: "Heading 3"}
SUBSCRIPT = symbols.SUBSCRIPT
"""A symbol with a subscript as the calculators write it (``k_h``, ``L_max``, ``q_CO₂``, ``Q_f``): the
calculators' one pattern (:data:`calc.symbols.SUBSCRIPT`), which every finding message is written in."""


# --- fonts ----------------------------------------------------------------------------------------


def _apply_fonts(rfonts: BaseOxmlElement, east_asia: str, latin: str, *, hint: str | None = None) -> None:
    """Set the fonts on a ``w:rFonts`` element and drop its theme-font attributes, which Word would
    otherwise prefer; ``hint`` (``eastAsia``) is the script Word sets a shared symbol in."""
    for attr in _THEME_FONT_ATTRS:
        rfonts.attrib.pop(qn(attr), None)
    if hint is not None:
        rfonts.set(qn("w:hint"), hint)
    for attr in ("w:ascii", "w:hAnsi", "w:cs"):
        rfonts.set(qn(attr), latin)
    rfonts.set(qn("w:eastAsia"), east_asia)


def _lang(latin_lang: str = LATIN_LANG) -> BaseOxmlElement:
    """A ``w:lang``: Latin text in ``latin_lang``, East-Asian text in :data:`EAST_ASIAN_LANG`."""
    lang = OxmlElement("w:lang")
    lang.set(qn("w:val"), latin_lang)
    lang.set(qn("w:eastAsia"), EAST_ASIAN_LANG)
    return lang


def set_fonts(rpr_owner: BaseOxmlElement, east_asia: str = CJK_FONT, latin: str = LATIN_FONT) -> None:
    """Set the Latin and East-Asian fonts and the languages of a run or a style element."""
    rpr = rpr_owner.get_or_add_rPr()
    _apply_fonts(rpr.get_or_add_rFonts(), east_asia, latin)
    for old in rpr.findall(qn("w:lang")):
        rpr.remove(old)
    rpr.append(_lang())  # w:lang is last but for elements the report's styles do not use


def _set_default_fonts(doc: DocxDocument) -> None:
    """The document defaults (``w:docDefaults/w:rPrDefault/w:rPr/w:rFonts``), created when absent."""
    parent = doc.styles.element
    for tag in ("w:docDefaults", "w:rPrDefault", "w:rPr", "w:rFonts"):
        child = parent.find(qn(tag))
        if child is None:
            child = OxmlElement(tag)
            parent.insert(0, child)
        parent = child
    _apply_fonts(parent, CJK_FONT, LATIN_FONT)
    rpr = parent.getparent()
    for old in rpr.findall(qn("w:lang")):
        rpr.remove(old)
    rpr.append(_lang())


def _setup_styles(doc: DocxDocument) -> None:
    """Fonts of the document defaults and of every style that names fonts (theme fonts replaced;
    headings and the title in 黑体, black), Normal at body size with widow control (Word then leaves no
    paragraph's first or last line alone at a page break, in a table row that breaks too), Chinese as
    the East-Asian language.
    The theme fonts of table styles' conditional formats are replaced too, so no style names another face."""
    _set_default_fonts(doc)
    for rfonts in doc.styles.element.iter(qn("w:rFonts")):
        _apply_fonts(rfonts, CJK_FONT, LATIN_FONT)
    heading_names = set(_HEADING_STYLES.values())
    heading_names |= {f"{name} Char" for name in heading_names}
    normal = doc.styles["Normal"]
    normal.font.size = BODY_SIZE
    normal.paragraph_format.widow_control = True
    for style in doc.styles:
        rpr = style.element.rPr
        if style.name != "Normal" and (rpr is None or rpr.rFonts is None):
            continue
        heading = style.name in heading_names
        set_fonts(style.element, east_asia=HEADING_CJK_FONT if heading else CJK_FONT)
        if heading:
            style.font.color.rgb = RGBColor(0, 0, 0)


BULLET = "\u2022"
_SYMBOL_BULLET = "\uf0b7"


def _plain_bullets(doc: DocxDocument) -> None:
    """The template's list bullets (U+F0B7 in the Symbol font, a third face: OpenSymbol under
    LibreOffice) become U+2022 in the report's Latin face."""
    numbering = doc.part.numbering_part.element
    for lvl in numbering.iter(qn("w:lvl")):
        text = lvl.find(qn("w:lvlText"))
        if text is None or text.get(qn("w:val")) != _SYMBOL_BULLET:
            continue
        text.set(qn("w:val"), BULLET)
        for rfonts in lvl.iter(qn("w:rFonts")):
            rfonts.attrib.pop(qn("w:hint"), None)
            _apply_fonts(rfonts, CJK_FONT, LATIN_FONT)


def _run_properties(
    east_asia: str,
    bold: bool,
    size: Pt | None,
    subscript: bool = False,
    *,
    symbol: bool = False,
    fill: str | None = None,
) -> BaseOxmlElement:
    """A fresh ``w:rPr``: both fonts, bold (with its complex-script twin), size, character shading
    (``fill``, hex RGB), subscript and the languages, in schema order; a ``symbol`` run (one of
    :data:`CJK_SYMBOLS`) hinted East-Asian and Chinese."""
    rpr = OxmlElement("w:rPr")
    rfonts = OxmlElement("w:rFonts")
    _apply_fonts(rfonts, east_asia, LATIN_FONT, hint="eastAsia" if symbol else None)
    rpr.append(rfonts)
    if bold:
        rpr.append(OxmlElement("w:b"))
        rpr.append(OxmlElement("w:bCs"))
    if size is not None:
        half_points = str(round(size.pt * 2))
        for tag in ("w:sz", "w:szCs"):
            sz = OxmlElement(tag)
            sz.set(qn("w:val"), half_points)
            rpr.append(sz)
    if fill is not None:
        shd = OxmlElement("w:shd")
        shd.set(qn("w:val"), "clear")
        shd.set(qn("w:color"), "auto")
        shd.set(qn("w:fill"), fill)
        rpr.append(shd)
    if subscript:
        align = OxmlElement("w:vertAlign")
        align.set(qn("w:val"), "subscript")
        rpr.append(align)
    # a letterlike symbol is Chinese text, so that a renderer without it in the Latin face takes it from
    # the SC face, not from a third face
    rpr.append(_lang(EAST_ASIAN_LANG if symbol else LATIN_LANG))
    return rpr


def _add_plain(
    paragraph: Paragraph, text: str, *, bold: bool, size: Pt | None, subscript: bool = False
) -> None:
    """Add text as runs, the :data:`CJK_SYMBOLS` in it as runs of their own, hinted East-Asian."""
    at = 0
    for match in CJK_SYMBOLS.finditer(text):
        if match.start() > at:
            add_run(paragraph, text[at : match.start()], bold=bold, size=size, subscript=subscript)
        add_run(paragraph, match[0], bold=bold, size=size, subscript=subscript, symbol=True)
        at = match.end()
    if at < len(text) or not text:
        add_run(paragraph, text[at:], bold=bold, size=size, subscript=subscript)


def add_text(paragraph: Paragraph, text: str, *, bold: bool = False, size: Pt | None = None) -> None:
    """Add text whose symbols carry subscripts (``k_h`` → k with a subscript h): the symbol in one run,
    its subscript in a subscript run, the rest as plain runs."""
    at = 0
    for match in SUBSCRIPT.finditer(text):
        if match.start() > at:
            _add_plain(paragraph, text[at : match.start()], bold=bold, size=size)
        add_run(paragraph, match[1], bold=bold, size=size)
        add_run(paragraph, match[2], bold=bold, size=size, subscript=True)
        at = match.end()
    if at < len(text) or not text:
        _add_plain(paragraph, text[at:], bold=bold, size=size)


def add_run(
    paragraph: Paragraph,
    text: str,
    *,
    bold: bool = False,
    size: Pt | None = None,
    east_asia: str = CJK_FONT,
    subscript: bool = False,
    symbol: bool = False,
    fill: str | None = None,
) -> Run:
    """Add a run with both fonts and the languages set; every run of the report goes through here. The
    run properties are built as one element (python-docx's per-property setters search the tree each
    time)."""
    run = paragraph.add_run()
    run._r.insert(0, _run_properties(east_asia, bold, size, subscript, symbol=symbol, fill=fill))
    if "\n" in text or "\t" in text:
        run.text = text  # python-docx turns these into w:br / w:tab
    else:
        t = OxmlElement("w:t")
        t.text = text
        if text != text.strip():
            t.set(qn("xml:space"), "preserve")
        run._r.append(t)
    return run


# --- page layout ----------------------------------------------------------------------------------


def _shape_section(section: Section) -> None:
    """A4 portrait with the report's margins: :data:`TEXT_WIDTH_CM` of text width."""
    section.orientation = WD_ORIENT.PORTRAIT
    section.page_width, section.page_height = A4_SHORT, A4_LONG
    section.top_margin = section.bottom_margin = Cm(2.0)
    section.left_margin = section.right_margin = Cm(MARGIN_CM)


def _add_field(paragraph: Paragraph, instr: str) -> None:
    """A simple field (``PAGE``, ``NUMPAGES``) showing ``1`` until the reader updates it."""
    field = OxmlElement("w:fldSimple")
    field.set(qn("w:instr"), instr)
    field.append(add_run(paragraph, "1", size=Pt(8))._element)  # moves the run into the field
    paragraph._p.append(field)


def _add_footer(doc: DocxDocument, notice: str) -> None:
    """The footer of the first section (later sections link to it): the ``notice``
    (:func:`reports.content.footer_text`) and ``第 N 页 共 M 页`` (PAGE and NUMPAGES fields)."""
    paragraph = doc.sections[0].footer.paragraphs[0]
    paragraph.alignment = WD_ALIGN_PARAGRAPH.CENTER
    add_run(paragraph, notice + "第 ", size=Pt(8))
    _add_field(paragraph, "PAGE")
    add_run(paragraph, " 页 共 ", size=Pt(8))
    _add_field(paragraph, "NUMPAGES")
    add_run(paragraph, " 页", size=Pt(8))


# --- blocks ---------------------------------------------------------------------------------------


def shade(cell: _Cell, fill: str) -> None:
    """Fill a table cell with a solid colour (hex RGB)."""
    tc_pr = cell._tc.get_or_add_tcPr()
    for old in tc_pr.findall(qn("w:shd")):
        tc_pr.remove(old)
    shd = OxmlElement("w:shd")
    shd.set(qn("w:val"), "clear")
    shd.set(qn("w:color"), "auto")
    shd.set(qn("w:fill"), fill)
    tc_pr.append(shd)


def _fill_cell(cell: _Cell, text: str, *, bold: bool = False) -> None:
    """Write a cell's text, one paragraph per line."""
    lines = text.split("\n")
    add_text(cell.paragraphs[0], lines[0], bold=bold, size=TABLE_SIZE)
    for line in lines[1:]:
        add_text(cell.add_paragraph(), line, bold=bold, size=TABLE_SIZE)


def _severity_label(cell: _Cell, text: str, fill: str) -> None:
    """The severity as a small coloured label: bold text on a character shading, centred (not a
    shaded cell that grows with the row)."""
    paragraph = cell.paragraphs[0]
    paragraph.alignment = WD_ALIGN_PARAGRAPH.CENTER
    add_run(paragraph, text, bold=True, size=TABLE_SIZE, fill=fill)


def _repeat_header(row: _Row) -> None:
    """Repeat the table's header row on every page."""
    tr_pr = row._tr.get_or_add_trPr()
    header = OxmlElement("w:tblHeader")
    header.set(qn("w:val"), "true")
    tr_pr.append(header)


def _keep_together(row: _Row) -> None:
    """Keep a table row on one page where it fits (``w:cantSplit``)."""
    cant_split = OxmlElement("w:cantSplit")
    cant_split.set(qn("w:val"), "true")
    row._tr.get_or_add_trPr().append(cant_split)


def _printed_cm(text: str, size: Pt) -> float:
    """The printed width of one line of ``text`` (cm), roughly: a full-width character (CJK, full-width
    punctuation) one em of ``size``, any other :data:`NARROW_EM` of an em."""
    em: float = size.cm
    return sum(em if unicodedata.east_asian_width(c) in "WF" else NARROW_EM * em for c in text)


def row_lines(cells: tuple[str, ...], widths_cm: tuple[float, ...], size: Pt = TABLE_SIZE) -> int:
    """How many printed lines the tallest of a row's ``cells`` takes in columns ``widths_cm`` wide
    (estimated: each of a cell's lines wrapped at the column's width less :data:`CELL_MARGINS_CM`)."""

    def lines(text: str, width: float) -> int:
        usable = max(width - CELL_MARGINS_CM, size.cm)
        return sum(max(1, math.ceil(_printed_cm(line, size) / usable)) for line in text.split("\n"))

    return max((lines(text, width) for text, width in zip(cells, widths_cm, strict=True)), default=1)


def _add_table(doc: DocxDocument, table: Table, grid: BaseStyle) -> None:
    """A bordered table: shaded header row repeated on each page, then the rows; the severity column
    shaded by each row's severity."""
    out = doc.add_table(rows=1, cols=len(table.header))
    out._tbl.tblStyle_val = grid.style_id  # by id: python-docx's setter scans every style per call
    out.alignment = WD_TABLE_ALIGNMENT.CENTER
    for cell, text in zip(out.rows[0].cells, table.header, strict=True):
        _fill_cell(cell, text, bold=True)
        shade(cell, HEADER_FILL)
    _repeat_header(out.rows[0])
    widths = COLUMN_WIDTHS_CM.get(table.header)
    estimate = widths or (TEXT_WIDTH_CM / len(table.header),) * len(table.header)
    for row in table.rows:
        added = out.add_row()
        if row_lines(row.cells, estimate) <= KEEP_ROW_LINES:
            _keep_together(added)
        cells = added.cells
        for i, (cell, text) in enumerate(zip(cells, row.cells, strict=True)):
            if i == table.severity_col and row.severity is not None:
                _severity_label(cell, text, SEVERITY_FILLS[row.severity])
            else:
                _fill_cell(cell, text)
    if widths:
        out.autofit = False
        for column, width in zip(out.columns, widths, strict=True):
            column.width = Cm(width)  # the grid: LibreOffice lays out by it, not by the cells
        for row in out.rows:
            for cell, width in zip(row.cells, widths, strict=True):
                cell.width = Cm(width)
    doc.add_paragraph()


def _report_styles(doc: DocxDocument) -> dict[str, BaseStyle]:
    """The styles the report uses, looked up once (python-docx searches styles by name with XPath)."""
    names = (*_HEADING_STYLES.values(), "List Bullet", "Table Grid")
    return {name: doc.styles[name] for name in names}


def _styled_paragraph(doc: DocxDocument, style: BaseStyle) -> Paragraph:
    """A new paragraph in ``style``, set by id (python-docx's setter scans every style per call)."""
    paragraph = doc.add_paragraph()
    paragraph._p.style = style.style_id
    return paragraph


def _add_block(doc: DocxDocument, block: Block, styles: dict[str, BaseStyle]) -> None:
    """Append one content block to the document."""
    match block:
        case Heading(text=text, level=level):
            paragraph = _styled_paragraph(doc, styles[_HEADING_STYLES[min(level, 3)]])
            if level == 0:
                paragraph.alignment = WD_ALIGN_PARAGRAPH.CENTER
            add_run(paragraph, text, east_asia=HEADING_CJK_FONT)
        case Para(text=text, strong=strong):
            add_text(doc.add_paragraph(), text, bold=strong)
        case Bullets(items=items):
            for item in items:
                add_text(_styled_paragraph(doc, styles["List Bullet"]), item)
        case Table():
            _add_table(doc, block, styles["Table Grid"])
        case _:
            raise TypeError(f"unknown block {block!r}")


def _set_properties(doc: DocxDocument, content: ReportContent, result: ReviewResult) -> None:
    """Core properties: title, subject, author, and the review time as creation time."""
    props = doc.core_properties
    props.title = content.title
    props.subject = content.subject
    props.author = "vent-agent"
    props.comments = f"{result.file_name} sha256={result.sha256}"
    with contextlib.suppress(ValueError):
        props.created = props.modified = datetime.fromisoformat(result.created_at)


def build_document(result: ReviewResult, issuer: Issuer | None = None) -> DocxDocument:
    """The report as an in-memory python-docx document; ``issuer`` names the reviewing unit and reviewer."""
    content = build_report(result, issuer)
    doc = Document()
    _setup_styles(doc)
    _plain_bullets(doc)
    _shape_section(doc.sections[0])
    _add_footer(doc, content.footer)
    styles = _report_styles(doc)
    for block in content.blocks:
        _add_block(doc, block, styles)
    _set_properties(doc, content, result)
    return doc


def _save_atomically(doc: DocxDocument, path: Path) -> None:
    """Save to a temporary file beside ``path``, sync it, then rename it over ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            doc.save(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def render_docx(result: ReviewResult, path: Path, issuer: Issuer | None = None) -> Path:
    """Render a review result as a Word report at ``path`` (written atomically) and return the path;
    ``issuer`` names the reviewing unit and reviewer (:class:`~reports.front.Issuer`)."""
    path = Path(path)
    _save_atomically(build_document(result, issuer), path)
    return path
