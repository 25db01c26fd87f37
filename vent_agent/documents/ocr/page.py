"""OCR of the pages that have no text layer, into the same page structure the text layer gives.

:func:`ocr_pages` takes an :class:`~vent_agent.documents.pdf_text.ExtractedPdf` (from
:func:`~vent_agent.documents.pdf_text.extract_pdf`) and, for each page listed in ``pages_without_text``
(no text layer, or a garbage one: ``ExtractedPdf.ocr_reasons``):

1. renders it with PDFium (under the process-wide PDFium lock) at ``dpi``, capped so that its longer
   side is at most ``max_render_px`` pixels (a huge page is rendered smaller, with a warning);
2. makes a photographed page flat (:mod:`~vent_agent.documents.ocr.photo`), runs the OCR engine on the
   image (outside the lock: other PDFs keep being read meanwhile), turns a
   page scanned sideways or upside down upright (:mod:`~vent_agent.documents.ocr.orientation`), and reads
   back a heading's enumerator the detector missed (:mod:`~vent_agent.documents.ocr.recover`);
3. reads the page's skew from the boxes, turns boxes and image upright, finds the ruled lines, and
   rebuilds ruled tables (:mod:`~vent_agent.documents.ocr.grid_cells`) and the page's text lines
   (:mod:`~vent_agent.documents.ocr.layout`);
4. puts a ``PageText`` (``source="ocr"``, lines top to bottom, the cells of a table row on one line,
   cleaned like a text layer by :func:`~vent_agent.documents.normalize.clean_text`; ``ocr_reason`` and the
   dropped layer's score kept) and the page's ``ExtractedTable`` s (bbox in PDF points) in place of the
   empty page.

It is synchronous and CPU-bound: the caller runs it in a worker thread. An engine that reads whole PDF
pages itself (:class:`PdfPageReader`: the OCR worker pool) is given the path and each page number
instead, and steps 1-3 run in its worker process (:func:`read_pdf_page`). Boxes below ``min_score`` are
dropped. A page the engine fails on keeps ``source="none"`` and a warning; other pages go on.
"""

from __future__ import annotations

import logging
import re
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol, TypedDict, runtime_checkable

import cv2
import numpy as np
import pypdfium2 as pdfium
from PIL import Image

from vent_agent.documents.normalize import clean_cell
from vent_agent.documents.normalize import clean_text as clean_page_text
from vent_agent.documents.ocr.engine import OcrBox, OcrEngine
from vent_agent.documents.ocr.grid_cells import build_cells
from vent_agent.documents.ocr.layout import Upright, clean_text, group_lines, line_text, skew_angle
from vent_agent.documents.ocr.orientation import upright_orientation
from vent_agent.documents.ocr.photo import rectify_photo
from vent_agent.documents.ocr.recover import recover_enumerators
from vent_agent.documents.ocr.rules import find_rules, ruled_grids
from vent_agent.documents.pdf_text import (
    PDFIUM_LOCK,
    ExtractedPdf,
    ExtractedTable,
    PageText,
    PdfError,
    TableCell,
    check_pdf_file,
)

log = logging.getLogger(__name__)

OCR_LAYOUT_VERSION = "ocr-layout-5"
"""Changes whenever the OCR output changes, by the layout or by the engine's settings (part of the
cache key; 3: the detector's input capped at 1536 px, :data:`~vent_agent.documents.ocr.rapid.DET_MAX_SIDE`;
4: pages turned upright before reading, :mod:`~vent_agent.documents.ocr.orientation`, and photographed
pages made flat, :mod:`~vent_agent.documents.ocr.photo`; 5: figures read below
:data:`FIGURE_FLOOR` left out)."""
DEFAULT_DPI = 200.0
MIN_DPI_WARN = 100.0
"""Below this effective resolution (after the render cap) small print is often misread: warn."""

OnOcrPage = Callable[[int, int, int], None]
"""``on_page(done, total, pdf_page)``: called after each OCR'd page (``done`` of ``total``)."""


@dataclass
class OcrStats:
    """Timings of one :func:`ocr_pages` call, seconds: rendering, the engine itself, and the layout
    (skew, rules, tables, lines); ``pages`` OCR'd and their rendered sizes (px)."""

    render_s: float = 0.0
    engine_s: float = 0.0
    layout_s: float = 0.0
    pages: list[int] = field(default_factory=list)
    sizes: list[tuple[int, int]] = field(default_factory=list)


@dataclass
class OcrPage:
    """The OCR result of one page: its text and its ruled tables."""

    text: PageText
    tables: list[ExtractedTable]
    skew_deg: float = 0.0


def render_scale(width_pt: float, height_pt: float, dpi: float, max_render_px: int) -> float:
    """Pixels per PDF point to render a page at ``dpi`` with its longer side at most ``max_render_px``."""
    return min(dpi / 72.0, max_render_px / max(width_pt, height_pt, 1.0))


def render_page(
    pdf: pdfium.PdfDocument, index: int, dpi: float, max_render_px: int
) -> tuple[Image.Image, float]:
    """Render page ``index`` (0-based) to an RGB image under the PDFium lock; returns (image, scale in
    px per point)."""
    with PDFIUM_LOCK:
        page = pdf[index]
        try:
            width, height = page.get_size()
            scale = render_scale(width, height, dpi, max_render_px)
            image = page.render(scale=scale).to_pil().convert("RGB")
        finally:
            page.close()
    return image, scale


def layout_page(
    image: Image.Image, boxes: list[OcrBox], page_no: int, scale: float, *, min_score: float = 0.5
) -> OcrPage:
    """Turn one page's OCR boxes into its text lines and ruled tables (see the module docstring).

    ``scale`` is the render scale in px per PDF point (table bboxes are given in points).
    """
    boxes = [clean_text(b) for b in boxes if b.score >= min_score and b.text.strip()]
    figured = [b for b in boxes if _DIGIT.search(b.text)]
    confidence = statistics.fmean(b.score for b in figured) if figured else None
    boxes = [_unread_figures(b) if b.score < FIGURE_FLOOR else b for b in boxes]
    unread = sum(1 for b in figured if b.score < FIGURE_FLOOR)
    width_px, height_px = image.size
    width_pt, height_pt = width_px / scale, height_px / scale
    angle = skew_angle(boxes)
    upright = Upright(angle, width_px, height_px)
    placed = [upright.place(b) for b in boxes]
    gray = np.asarray(image.convert("L"))
    if angle:
        matrix = cv2.getRotationMatrix2D((width_px / 2, height_px / 2), angle, 1.0)
        gray = cv2.warpAffine(gray, matrix, (width_px, height_px), flags=cv2.INTER_LINEAR, borderValue=255)
    text_height = statistics.median(p.height for p in placed) if placed else 20.0
    rules = find_rules(gray, text_height)
    tables: list[ExtractedTable] = []
    for index, grid in enumerate(ruled_grids(rules)):
        cells, _ = build_cells(grid, placed, rules)
        x0, y0, x1, y1 = grid.bbox
        tables.append(
            ExtractedTable(
                page=page_no,
                index=index,
                bbox=(x0 / scale, y0 / scale, x1 / scale, y1 / scale),
                page_height=height_pt,
                n_rows=len(grid.ys) - 1,
                n_cols=len(grid.xs) - 1,
                cells=[
                    TableCell(page=page_no, table=index, row=c.row, col=c.col, text=clean_cell(c.text))
                    for c in cells
                ],
            )
        )
    text, counts = clean_page_text("\n".join(line_text(line) for line in group_lines(placed)))
    page = PageText(
        page=page_no,
        text=text,
        source="ocr",
        width=width_pt,
        height=height_pt,
        cleaned=dict(counts),
        ocr_confidence=round(confidence, 3) if confidence is not None else None,
        figure_boxes=len(figured),
        figures_unread=unread,
    )
    return OcrPage(text=page, tables=tables, skew_deg=angle)


FIGURE_FLOOR = 0.8
"""A box the engine reads below this score gives no figure: its digits are left out (□), so that no
finding rests on a digit the engine was unsure of (a misread figure must lose findings, never make
them). Printed and photographed plans read at 0.88–1.0 for their figures."""
_DIGIT = re.compile(r"\d")


def _unread_figures(box: OcrBox) -> OcrBox:
    """``box`` with its digits replaced by □ (read, but not with confidence)."""
    return replace(box, text=_DIGIT.sub("□", box.text))


@dataclass
class PageRead:
    """One page read by OCR (:func:`read_page`): its 1-based ``page_no``, the result (None when the
    engine failed on it), warnings for the user, the rendered size (px) and the seconds spent rendering,
    in the engine and on the layout. Picklable: an OCR worker process sends it back whole."""

    page_no: int
    result: OcrPage | None
    warnings: list[str]
    size: tuple[int, int]
    render_s: float = 0.0
    engine_s: float = 0.0
    layout_s: float = 0.0


class PageOptions(TypedDict):
    """How a page is read: render resolution (dots per inch), the rendered image's longest side at
    most (pixels), the lowest engine score kept (0…1)."""

    dpi: float
    max_render_px: int
    min_score: float


@runtime_checkable
class PdfPageReader(Protocol):
    """An engine that reads a whole PDF page itself (renders, recognises and lays it out), such as
    :class:`~vent_agent.documents.ocr.pool.ProcessOcrEngine`, whose workers do it so that the page's
    bitmap never enters the caller's process."""

    def read_pdf_page(
        self, path: Path, page_no: int, *, dpi: float, max_render_px: int, min_score: float
    ) -> PageRead: ...


def read_page(
    pdf: pdfium.PdfDocument,
    page_no: int,
    engine: OcrEngine,
    *,
    dpi: float = DEFAULT_DPI,
    max_render_px: int = 4000,
    min_score: float = 0.5,
) -> PageRead:
    """Render page ``page_no`` (1-based) of ``pdf``, OCR it with ``engine`` and lay it out (steps 1-3
    of the module docstring). An engine failure is a warning (``result`` None); a render failure raises."""
    t0 = time.perf_counter()
    image, scale = render_page(pdf, page_no - 1, dpi, max_render_px)
    t1 = time.perf_counter()
    read = PageRead(page_no=page_no, result=None, warnings=[], size=image.size, render_s=t1 - t0)
    if scale * 72.0 < MIN_DPI_WARN:
        read.warnings.append(
            f"第 {page_no} 页幅面过大，仅按 {scale * 72:.0f} dpi 识别，小字可能识别不准 / "
            f"page {page_no} OCR'd at {scale * 72:.0f} dpi only (render cap)"
        )
    rectified = rectify_photo(image)
    if rectified is not None:
        image = rectified.image
        read.warnings.append(
            f"第 {page_no} 页像是拍照件，已校正透视与光照后识别 / page {page_no} looks photographed: "
            "perspective and lighting corrected before OCR"
        )
    try:
        boxes = engine.recognise(image)
        turn, image, boxes = upright_orientation(image, boxes, engine)
        if turn:
            read.warnings.append(
                f"第 {page_no} 页的文字{'倒置' if turn == 180 else '横置'}，已转正后识别 / "
                f"page {page_no} turned {turn}° to read its text upright"
            )
        boxes = recover_enumerators(image, boxes, engine, skew_angle(boxes))
    except Exception as exc:  # an engine failing on one page must not lose the others
        log.warning("OCR of page %s failed: %s", page_no, exc)
        read.warnings.append(_failed(page_no, exc))
        boxes = None
    t2 = time.perf_counter()
    read.engine_s = t2 - t1
    if boxes is not None:
        read.result = layout_page(image, boxes, page_no, scale, min_score=min_score)
    read.layout_s = time.perf_counter() - t2
    return read


def open_pdf(path: Path) -> pdfium.PdfDocument:
    """The PDF at ``path`` opened with PDFium for rendering (under the PDFium lock). Raises
    :class:`~vent_agent.documents.pdf_text.PdfError` when it no longer opens."""
    data = check_pdf_file(Path(path))
    with PDFIUM_LOCK:
        try:
            return pdfium.PdfDocument(data)
        except pdfium.PdfiumError as exc:
            raise PdfError("corrupt", f"PDF 无法再次打开 / cannot reopen the PDF: {exc}") from exc


def read_pdf_page(
    path: Path,
    page_no: int,
    engine: OcrEngine,
    *,
    dpi: float = DEFAULT_DPI,
    max_render_px: int = 4000,
    min_score: float = 0.5,
) -> PageRead:
    """:func:`read_page` of page ``page_no`` of the PDF at ``path`` (opened and closed for the call:
    what an OCR worker process runs). Raises :class:`~vent_agent.documents.pdf_text.PdfError`."""
    pdf = open_pdf(path)
    try:
        return read_page(pdf, page_no, engine, dpi=dpi, max_render_px=max_render_px, min_score=min_score)
    finally:
        with PDFIUM_LOCK:
            pdf.close()


def _failed(page_no: int, exc: Exception) -> str:
    return f"第 {page_no} 页 OCR 识别失败 / page {page_no}: OCR failed: {exc}"


def ocr_pages(
    path: Path,
    extracted: ExtractedPdf,
    engine: OcrEngine,
    *,
    pages: list[int] | None = None,
    dpi: float = DEFAULT_DPI,
    max_render_px: int = 4000,
    min_score: float = 0.5,
    on_page: OnOcrPage | None = None,
    stats: OcrStats | None = None,
) -> ExtractedPdf:
    """``extracted`` with its pages without text (or the 1-based ``pages`` given) OCR'd by ``engine``.

    An engine that is a :class:`PdfPageReader` reads each page itself (given the path and the page
    number: the page is rendered in its worker process); any other is given pages rendered here.
    Raises :class:`~vent_agent.documents.pdf_text.PdfError` when the file can no longer be opened;
    a page the engine fails on is a warning.
    """
    todo = sorted(set(pages if pages is not None else extracted.pages_without_text))
    if not todo:
        return extracted
    stats = stats if stats is not None else OcrStats()
    options: PageOptions = {"dpi": dpi, "max_render_px": max_render_px, "min_score": min_score}
    reader = engine if isinstance(engine, PdfPageReader) else None
    pdf = None if reader is not None else open_pdf(Path(path))
    result = extracted
    warnings = list(extracted.warnings)
    reasons = extracted.ocr_reasons()
    try:
        for done, page_no in enumerate(todo, start=1):
            if reader is not None:
                read = _read_elsewhere(reader, Path(path), page_no, options)
            else:
                read = read_page(pdf, page_no, engine, **options)
            warnings.extend(read.warnings)
            stats.render_s += read.render_s
            stats.engine_s += read.engine_s
            stats.layout_s += read.layout_s
            if read.result is not None:
                before = result.page(page_no)
                text = read.result.text.model_copy(
                    update={"layer": before.layer, "ocr_reason": reasons.get(page_no)}
                )
                result = result.with_page(text, read.result.tables)
                stats.pages.append(page_no)
                stats.sizes.append(read.size)
            if on_page is not None:
                on_page(done, len(todo), page_no)
    finally:
        if pdf is not None:
            with PDFIUM_LOCK:
                pdf.close()
    return result.model_copy(update={"warnings": warnings})


def _read_elsewhere(reader: PdfPageReader, path: Path, page_no: int, options: PageOptions) -> PageRead:
    """``reader.read_pdf_page``; a failure other than an unreadable PDF (e.g. its worker died) is a
    warning for that page."""
    try:
        return reader.read_pdf_page(path, page_no, **options)
    except PdfError:
        raise
    except Exception as exc:
        log.warning("OCR of page %s failed: %s", page_no, exc)
        return PageRead(page_no=page_no, result=None, warnings=[_failed(page_no, exc)], size=(0, 0))
