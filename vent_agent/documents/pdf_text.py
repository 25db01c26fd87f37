"""Text-layer extraction of a PDF: per-page text (pypdfium2) and ruled tables (pdfplumber).

:func:`extract_pdf` is synchronous and CPU-bound: the caller runs it in a worker thread. PDFium is not
thread-safe, so every PDFium call of this module runs under one process-wide lock.

Page text is read by a *page reader*, a small function ``(page, page_no) -> PageText`` that another
module can replace (e.g. the OCR engine: read the text layer, and OCR the page when it has none). The
default is :func:`read_text_layer`. Every page text and table cell is cleaned once here
(:func:`vent_agent.documents.normalize.clean_text`: radicals, control and private-use characters, NFKC),
the counts kept per page in ``PageText.cleaned``. A raw layer that is not text (private-use glyphs,
mojibake: :func:`vent_agent.documents.quality.score_layer`) is dropped and its score kept in
``PageText.layer``. A page whose (cleaned) text has fewer than :data:`MIN_TEXT_CHARS` non-blank
characters is listed in ``ExtractedPdf.pages_without_text``, the reason in :meth:`ExtractedPdf.ocr_reasons`;
:meth:`ExtractedPdf.with_page` puts an OCR result in its place afterwards.

Numbering: ``PageText.page`` and ``ExtractedTable.page`` are 1-based PDF pages; ``ExtractedTable.index``
(the table's position on its page, top to bottom) and ``TableCell.row`` / ``TableCell.col`` are 0-based.

Errors: :class:`PdfError` (a ``ValueError``) with a ``code`` and a Chinese + English message for a
missing, empty, non-PDF, encrypted, truncated or corrupt file, a PDF without pages, one with more
than ``max_pages`` pages, and one with a page larger than :data:`MAX_PAGE_PT`. Problems confined to one page (a page PDFium cannot read, a table pdfplumber
cannot analyse) do not raise: they are listed in ``ExtractedPdf.warnings``.
"""

from __future__ import annotations

import io
import logging
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import pdfplumber
import pypdfium2 as pdfium
from pydantic import BaseModel, Field

from vent_agent.documents.normalize import clean_cell, clean_text
from vent_agent.documents.quality import LayerQuality, score_layer

log = logging.getLogger(__name__)

MIN_TEXT_CHARS = 5
"""A page with fewer non-blank characters than this has no (usable) text layer."""

_HEADER_WINDOW = 1024  # the PDF header may follow a little junk (PDF 1.7, 7.5.2 implementation note)
_EOF_WINDOW = 2048  # %%EOF must be near the end of the file
PDFIUM_LOCK = threading.RLock()
"""Held around every PDFium call of the process (PDFium is not thread-safe); the OCR module renders
pages under it too."""
MAX_PAGE_PT = 14400.0
"""The largest page side PDF allows (PDF 1.7, annex C: 14 400 units = 200 in = 5.08 m); a larger page
is refused."""

# FPDF_GetLastError codes (fpdfview.h)
_ERR_PASSWORD, _ERR_SECURITY = 4, 5
_EMPTY_PAGE_TREE = re.compile(rb"/Type\s*/Pages\b[^>]*?/Count\s+0\b|/Count\s+0\b[^>]*?/Type\s*/Pages\b")

OcrReason = Literal["no_text_layer", "garbage_text_layer"]
"""Why a page is OCR'd: it has no text layer, or its layer is not text (:mod:`.quality`)."""

PdfErrorCode = Literal[
    "not_found",
    "empty",
    "not_pdf",
    "encrypted",
    "truncated",
    "corrupt",
    "no_pages",
    "too_many_pages",
    "page_too_large",
    "too_large",
]


class PdfError(ValueError):
    """A PDF that cannot be read. ``code`` is machine-readable; ``str(err)`` is the Chinese message a user sees."""

    def __init__(self, code: PdfErrorCode, message: str) -> None:
        super().__init__(message)
        self.code: PdfErrorCode = code
        self.message = message

    def __reduce__(self) -> tuple[type[PdfError], tuple[PdfErrorCode, str]]:
        """Pickled with its code (an OCR worker process raises it to the service)."""
        return (PdfError, (self.code, self.message))


class PageText(BaseModel):
    """The text of one page (1-based ``page``), line ends ``\\n``. ``source`` says where it came from:
    ``text`` (the PDF's text layer), ``ocr``, or ``none`` (nothing readable).

    ``cleaned`` counts what the boundary normalisation removed or mapped in this page's text (keys of
    :data:`~vent_agent.documents.normalize.REMOVED_KINDS` and ``radical``); ``layer`` is the score of the
    page's raw text layer (None when it had none); ``ocr_reason`` why the page was OCR'd."""

    page: int
    text: str = ""
    source: Literal["text", "ocr", "none"] = "text"
    width: float = 0.0
    height: float = 0.0
    cleaned: dict[str, int] = Field(default_factory=dict)
    layer: LayerQuality | None = None
    ocr_reason: OcrReason | None = None
    ocr_confidence: float | None = None
    """OCR'd pages: the mean engine score (0…1) of the page's boxes that hold figures."""
    figure_boxes: int = 0
    """OCR'd pages: the boxes that hold figures."""
    figures_unread: int = 0
    """OCR'd pages: of those, the boxes read below the confidence floor, their figures left out (□)."""

    @property
    def has_text(self) -> bool:
        """True when the page carries at least :data:`MIN_TEXT_CHARS` non-blank characters."""
        return sum(1 for c in self.text if not c.isspace()) >= MIN_TEXT_CHARS


class TableCell(BaseModel):
    """One cell of a ruled table: 1-based page, 0-based table index on the page, row and column.
    ``text`` is None for the continuation of a merged (spanning) cell."""

    page: int
    table: int
    row: int
    col: int
    text: str | None


class ExtractedTable(BaseModel):
    """A ruled table found by pdfplumber. ``bbox`` is (x0, top, x1, bottom) in PDF points from the top
    of the page; ``page_height`` lets a reader tell whether the table runs into the page's foot."""

    page: int
    index: int
    bbox: tuple[float, float, float, float]
    page_height: float
    n_rows: int
    n_cols: int
    cells: list[TableCell] = Field(default_factory=list)

    def rows(self) -> list[list[str | None]]:
        """The table as a list of rows of cell texts (None for merged continuations)."""
        grid: list[list[str | None]] = [[None] * self.n_cols for _ in range(self.n_rows)]
        for c in self.cells:
            grid[c.row][c.col] = c.text
        return grid


class ExtractedPdf(BaseModel):
    """Everything read from one PDF: pages in order, ruled tables in page order, and the 1-based pages
    that have no text layer."""

    file_name: str = ""
    page_count: int
    pages: list[PageText]
    tables: list[ExtractedTable] = Field(default_factory=list)
    pages_without_text: list[int] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)

    @property
    def text(self) -> str:
        """All pages' text, separated by form feeds."""
        return "\f".join(p.text for p in self.pages)

    @property
    def char_count(self) -> int:
        """Non-blank characters over all pages."""
        return sum(1 for p in self.pages for c in p.text if not c.isspace())

    def page(self, page_no: int) -> PageText:
        """The page of that 1-based number (IndexError when there is none)."""
        if 1 <= page_no <= len(self.pages) and self.pages[page_no - 1].page == page_no:
            return self.pages[page_no - 1]
        for p in self.pages:
            if p.page == page_no:
                return p
        raise IndexError(f"page {page_no} not in the document")

    def ocr_reasons(self) -> dict[int, OcrReason]:
        """Page → why it is to be OCR'd, for each page of ``pages_without_text``: its raw text layer was
        garbage (``garbage_text_layer``) or there was none (``no_text_layer``)."""
        layers = {p.page: p.layer for p in self.pages}
        return {
            n: "garbage_text_layer"
            if (layer := layers.get(n)) is not None and layer.garbage
            else "no_text_layer"
            for n in self.pages_without_text
        }

    def tables_on(self, page_no: int) -> list[ExtractedTable]:
        """The ruled tables of one page, top to bottom."""
        return [t for t in self.tables if t.page == page_no]

    def with_page(self, page: PageText, tables: list[ExtractedTable] | None = None) -> ExtractedPdf:
        """A copy with ``page`` in place of the page of the same number (e.g. an OCR result), with
        ``pages_without_text`` recomputed. ``tables`` (when given) replace that page's tables."""
        pages = [page if p.page == page.page else p for p in self.pages]
        update: dict[str, Any] = {
            "pages": pages,
            "pages_without_text": [p.page for p in pages if not p.has_text],
        }
        if tables is not None:
            kept = [t for t in self.tables if t.page != page.page]
            update["tables"] = sorted([*kept, *tables], key=lambda t: (t.page, t.index))
        return self.model_copy(update=update)


PageReader = Callable[[pdfium.PdfPage, int], PageText]
"""Reads one page: ``(pdfium page, 1-based page number) -> PageText``. Called under the PDFium lock."""


def read_text_layer(page: pdfium.PdfPage, page_no: int) -> PageText:
    """The default page reader: the page's text layer in PDFium's reading order, cleaned
    (:func:`read_layer_text`)."""
    width, height = page.get_size()
    textpage = page.get_textpage()
    try:
        text = textpage.get_text_range()
    finally:
        textpage.close()
    return read_layer_text(text, page_no, width, height)


def read_layer_text(raw: str, page_no: int, width: float = 0.0, height: float = 0.0) -> PageText:
    """A page from its raw text layer: scored (:func:`~vent_agent.documents.quality.score_layer`), and
    cleaned (:func:`~vent_agent.documents.normalize.clean_text`) unless garbage; a garbage layer gives
    an empty page (``source="none"``, to be OCR'd) that keeps its ``layer`` score."""
    layer = score_layer(raw) if raw.strip() else None
    if layer is not None and layer.garbage:
        return PageText(page=page_no, source="none", width=width, height=height, layer=layer)
    text, counts = clean_text(raw)
    out = PageText(page=page_no, text=text, width=width, height=height, cleaned=dict(counts), layer=layer)
    return out if out.has_text else out.model_copy(update={"source": "none"})


def check_pdf_file(path: Path, max_bytes: int | None = None) -> bytes:
    """Read the file and apply the byte-level guards (exists, at most ``max_bytes``, not empty, %PDF-
    header). Raises :class:`PdfError`."""
    if not path.is_file():
        raise PdfError("not_found", f"文件不存在：{path.name}")
    size = path.stat().st_size
    if max_bytes is not None and size > max_bytes:
        raise PdfError(
            "too_large",
            f"文件过大：{size / (1 << 20):.1f} MB，上限 {max_bytes / (1 << 20):.0f} MB",
        )
    data = path.read_bytes()
    if not data.strip():
        raise PdfError("empty", "文件为空")
    if b"%PDF-" not in data[:_HEADER_WINDOW]:
        raise PdfError("not_pdf", "文件不是 PDF（缺少 %PDF- 文件头）")
    return data


def _open_pdfium(data: bytes, has_eof: bool) -> pdfium.PdfDocument:
    """Open with PDFium and turn its load errors into :class:`PdfError`."""
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        code = getattr(exc, "err_code", None)
        # PDFium's last-error code can be stale (it is not reset on every failure): a password error
        # counts only when the file has an encryption dictionary
        if code in (_ERR_PASSWORD, _ERR_SECURITY) and b"/Encrypt" in data:
            raise PdfError(
                "encrypted",
                "PDF 已加密或设有打开密码，无法读取，请上传未加密的文件",
            ) from exc
        if _EMPTY_PAGE_TREE.search(data):
            # PDFium refuses a document whose page tree is empty (its error code then says "success")
            raise PdfError("no_pages", "PDF 文件没有页面") from exc
        if not has_eof:
            raise PdfError(
                "truncated",
                "PDF 文件不完整（可能上传中断或被截断）",
            ) from exc
        raise PdfError("corrupt", "PDF 文件已损坏，无法解析") from exc


def _check_page_size(page: pdfium.PdfPage, page_no: int) -> None:
    """Refuse a page larger than :data:`MAX_PAGE_PT` (a hostile or broken file: rendering it for OCR, or
    laying out its text, would cost unbounded memory)."""
    width, height = page.get_size()
    if not (0 < width <= MAX_PAGE_PT and 0 < height <= MAX_PAGE_PT):
        raise PdfError(
            "page_too_large",
            f"PDF 第 {page_no} 页尺寸异常（{width:.0f} × {height:.0f} pt，上限 {MAX_PAGE_PT:.0f} pt），无法处理",
        )


def _read_pages(
    doc: pdfium.PdfDocument,
    count: int,
    reader: PageReader,
    on_page: Callable[[int, int], None] | None,
    warnings: list[str],
) -> list[PageText]:
    pages: list[PageText] = []
    for i in range(count):
        page_no = i + 1
        with PDFIUM_LOCK:
            try:
                page = doc[i]
            except pdfium.PdfiumError as exc:
                log.warning("page %s: unreadable: %s", page_no, exc)
                warnings.append(f"第 {page_no} 页无法读取")
                pages.append(PageText(page=page_no, source="none"))
                page = None
            if page is not None:
                try:
                    _check_page_size(page, page_no)
                    pages.append(reader(page, page_no))
                except PdfError:
                    raise
                except Exception as exc:  # a page reader (e.g. OCR) failing must not lose the others
                    log.warning("page %s: reader failed: %s", page_no, exc)
                    warnings.append(f"第 {page_no} 页文字提取失败")
                    pages.append(PageText(page=page_no, source="none"))
                finally:
                    page.close()
        if on_page is not None:
            on_page(page_no, count)
    return pages


def _read_tables(data: bytes, pages: list[PageText], warnings: list[str]) -> list[ExtractedTable]:
    """Ruled tables of every page that has a text layer (lines strategy: the cell borders drawn)."""
    tables: list[ExtractedTable] = []
    try:
        with pdfplumber.open(io.BytesIO(data)) as pdf:
            for pt in pages:
                if not pt.has_text or pt.page > len(pdf.pages):
                    continue
                page = pdf.pages[pt.page - 1]
                try:
                    found = page.find_tables()
                    for index, table in enumerate(sorted(found, key=lambda t: (t.bbox[1], t.bbox[0]))):
                        x0, top, x1, bottom = (float(v) for v in table.bbox)
                        rows = table.extract()
                        n_cols = max((len(r) for r in rows), default=0)
                        cells = [
                            TableCell(page=pt.page, table=index, row=r, col=c, text=clean_cell(text))
                            for r, row in enumerate(rows)
                            for c, text in enumerate(row)
                        ]
                        tables.append(
                            ExtractedTable(
                                page=pt.page,
                                index=index,
                                bbox=(x0, top, x1, bottom),
                                page_height=float(page.height),
                                n_rows=len(rows),
                                n_cols=n_cols,
                                cells=cells,
                            )
                        )
                except Exception as exc:  # pdfminer raises many types on odd pages
                    log.warning("page %s: table detection failed: %s", pt.page, exc)
                    warnings.append(f"第 {pt.page} 页表格识别失败")
                finally:
                    page.flush_cache()
    except Exception as exc:
        log.warning("table detection failed: %s", exc)
        warnings.append("表格识别失败")
    return tables


def sideways_pages(data: bytes) -> list[int]:
    """1-based pages stored with a rotation (``/Rotate`` 90, 180 or 270) whose text layer, shown with
    that rotation, runs sideways or upside down: their text was written upright and the rotation only
    turns the display. Such pages are read without the rotation. Empty for unreadable files."""
    out: list[int] = []
    try:
        with pdfplumber.open(io.BytesIO(data)) as pdf:
            for number, page in enumerate(pdf.pages, start=1):
                if page.rotation % 360 == 0:
                    continue
                chars = page.chars
                upright = sum(1 for c in chars if c.get("upright") and c["matrix"][0] > 0)
                if chars and upright < len(chars) / 2:
                    out.append(number)
                page.flush_cache()
    except Exception as exc:  # pdfminer raises many types on odd files; the reading goes on as it is
        log.warning("page rotation check failed: %s", exc)
    return out


def _derotated(doc: pdfium.PdfDocument, pages: list[int], warnings: list[str]) -> bytes:
    """Remove the display rotation of ``pages`` (1-based) in ``doc`` and return the document's bytes as
    now saved (for the table reader); says which pages were turned back in ``warnings``."""
    with PDFIUM_LOCK:
        for number in pages:
            page = doc[number - 1]
            try:
                page.set_rotation(0)
            finally:
                page.close()
        buffer = io.BytesIO()
        doc.save(buffer)
    warnings.append(f"第 {'、'.join(map(str, pages))} 页按旋转前的方向读取（页面设置了旋转显示）")
    return buffer.getvalue()


def extract_pdf(
    path: Path,
    *,
    max_pages: int,
    on_page: Callable[[int, int], None] | None = None,
    page_reader: PageReader = read_text_layer,
    with_tables: bool = True,
    max_bytes: int | None = None,
) -> ExtractedPdf:
    """Extract the text layer and ruled tables of the PDF at ``path``.

    ``on_page(done, total)`` is called after each page's text is read (for progress events);
    ``page_reader`` reads one page (default: its text layer; the OCR module passes its own);
    ``with_tables`` turns pdfplumber's table detection off (e.g. for scanned documents); ``max_bytes``
    caps the file's size.

    Raises :class:`PdfError` (codes ``not_found``, ``empty``, ``not_pdf``, ``encrypted``, ``truncated``,
    ``corrupt``, ``no_pages``, ``too_many_pages``, ``page_too_large``, ``too_large``).
    """
    path = Path(path)
    data = check_pdf_file(path, max_bytes)
    has_eof = b"%%EOF" in data[-_EOF_WINDOW:]
    warnings: list[str] = []
    with PDFIUM_LOCK:
        doc = _open_pdfium(data, has_eof)
    try:
        with PDFIUM_LOCK:
            count = len(doc)
        if count == 0:
            raise PdfError("no_pages", "PDF 文件没有页面")
        if count > max_pages:
            raise PdfError(
                "too_many_pages",
                f"PDF 共 {count} 页，超过上限 {max_pages} 页",
            )
        if not has_eof:
            warnings.append("文件末尾缺少 %%EOF，可能不完整")
        sideways = sideways_pages(data)
        if sideways:
            data = _derotated(doc, sideways, warnings)
        pages = _read_pages(doc, count, page_reader, on_page, warnings)
    finally:
        with PDFIUM_LOCK:
            doc.close()
    tables = _read_tables(data, pages, warnings) if with_tables else []
    return ExtractedPdf(
        file_name=path.name,
        page_count=count,
        pages=pages,
        tables=tables,
        pages_without_text=[p.page for p in pages if not p.has_text],
        warnings=warnings,
    )
