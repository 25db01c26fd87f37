"""Blank and near-blank pages, found before OCR from the rendered image by cheap statistics, so that a
PDF of empty pages is refused in seconds and the pages of a plan that carry nothing are not OCR'd.

Each page is rendered in grey at a low scale (its longer side :data:`PROBE_PX` pixels: a few
milliseconds a page with PDFium) and its **ink share** measured: the share of pixels darker than the
paper by more than :data:`INK_CONTRAST` grey levels, the paper being the page's 90th percentile of
brightness (a grey or yellowed scan is paper too). Scanner speckles and a lone page number vanish at
that scale; a line of 10.5 pt text does not. A page whose ink share is below :data:`MIN_INK_SHARE` is
blank (an all-black or all-grey page too: it has no contrast to read).

Measured on the project's samples (:data:`PROBE_PX` = 320): the scanned plan's pages 0.21–6.4 % (its
sign-off page is the lowest), the text-layer plan's 1.3–11.8 %, empty pages 0 %, a noisy scan of an
empty page with a page number 0 %.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pypdfium2 as pdfium

from vent_agent.documents.ocr.page import open_pdf
from vent_agent.documents.pdf_text import PDFIUM_LOCK

PROBE_PX = 320
"""Longer side of the probe rendering (px)."""
INK_CONTRAST = 60
"""How much darker than the paper a pixel must be to be ink (grey levels of 255)."""
MIN_INK_SHARE = 0.0003
"""Below this share of ink pixels (0.03 %) a page is blank: seven times under the faintest plan page
measured (a sign-off page, 0.21 %)."""
PAPER_PERCENTILE = 90
"""The percentile of brightness taken as the paper's."""


def ink_share(grey: np.ndarray) -> float:
    """The share (0–1) of ink pixels of a grey image (``uint8``, 0 black – 255 white): darker than the
    paper (:data:`PAPER_PERCENTILE`) by more than :data:`INK_CONTRAST`."""
    if grey.size == 0:
        return 0.0
    pixels = grey.astype(np.int16)
    paper = float(np.percentile(pixels, PAPER_PERCENTILE))
    return float(np.count_nonzero(pixels < paper - INK_CONTRAST)) / pixels.size


def _probe(pdf: pdfium.PdfDocument, index: int) -> np.ndarray:
    """Page ``index`` (0-based) rendered in grey with its longer side :data:`PROBE_PX` px."""
    with PDFIUM_LOCK:
        page = pdf[index]
        try:
            width, height = page.get_size()
            bitmap = page.render(scale=PROBE_PX / max(width, height, 1.0), grayscale=True)
            image: np.ndarray = np.asarray(bitmap.to_numpy())
        finally:
            page.close()
    return image if image.ndim == 2 else image[..., 0]


def blank_pages(path: Path, pages: list[int]) -> list[int]:
    """The pages among ``pages`` (1-based) of the PDF at ``path`` that are blank or near-blank (see the
    module's doc), in order. Raises :class:`~vent_agent.documents.pdf_text.PdfError` when the file no
    longer opens."""
    pdf = open_pdf(path)
    try:
        return [p for p in sorted(set(pages)) if ink_share(_probe(pdf, p - 1)) < MIN_INK_SHARE]
    finally:
        with PDFIUM_LOCK:
            pdf.close()
