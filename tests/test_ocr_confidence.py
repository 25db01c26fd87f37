"""OCR confidence carried to every figure (issue [A] item 8): a box the engine reads below the figure
floor gives no figure (its digits left out, □), and a page whose figures are read with low confidence
is marked so on the plan's record of pages, so that nothing is judged on it."""

from __future__ import annotations

from tests.ocr_fakes import synthetic_scan
from vent_agent.documents.ocr.engine import OcrBox
from vent_agent.documents.ocr.page import FIGURE_FLOOR, layout_page, render_scale
from vent_agent.documents.pdf_text import ExtractedPdf
from vent_agent.documents.quality import low_confidence
from vent_agent.documents.reading import pages_read

ROWS: list[list[str | None]] = [
    ["序号", "用风地点", "需风量", "配风量"],
    ["1", "15216综采工作面", "1415.2", "1500"],
    ["2", "中央变电所", "159.9", "180"],
]


def _page(scores: dict[str, float]) -> tuple[str, list[str]]:
    scan = synthetic_scan(ROWS, col_widths=[110, 420, 220, 220], lines_above=["五、风量分配"])
    boxes = [OcrBox(b.text, scores.get(b.text, 0.98), b.quad) for b in scan.boxes]
    page = layout_page(scan.image, boxes, 4, render_scale(595.0, 842.0, 200.0, 4000))
    (table,) = page.tables
    return page.text.text, [c.text or "" for c in table.cells]


def test_a_figure_read_below_the_floor_is_left_out_never_kept_as_read() -> None:
    text, cells = _page({"1415.2": FIGURE_FLOOR - 0.2, "180": 0.95})
    assert "1415.2" not in text and "□□□□.□" in text
    assert "□□□□.□" in cells and "180" in cells and "159.9" in cells


def test_a_confident_page_keeps_every_figure() -> None:
    text, cells = _page({})
    assert "1415.2" in text and "□" not in text


def test_a_page_of_unsure_figures_is_marked_low_confidence() -> None:
    scan = synthetic_scan(ROWS, col_widths=[110, 420, 220, 220], lines_above=[])
    unsure = [OcrBox(b.text, 0.7 if any(ch.isdigit() for ch in b.text) else 0.99, b.quad) for b in scan.boxes]
    page = layout_page(scan.image, unsure, 1, render_scale(595.0, 842.0, 200.0, 4000))
    assert page.text.figure_boxes == page.text.figures_unread > 0
    (read,) = pages_read(ExtractedPdf(page_count=1, pages=[page.text]))
    assert read.low_confidence and read.ocr_confidence is not None and read.ocr_confidence < 0.75
    assert not low_confidence(0.97, 20, 1)
    assert low_confidence(0.80, 20, 0)  # the figures' mean score below the page floor
    assert low_confidence(0.95, 20, 6)  # more than a quarter of them left out
