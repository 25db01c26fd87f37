"""A page scanned sideways or upside down is turned upright before its text is laid out
(vent_agent/documents/ocr/orientation.py): the engine's first pass tells, the turned readings are
compared, and an upright page costs one pass only."""

from __future__ import annotations

import pytest
from PIL import Image

from vent_agent.documents.ocr.engine import OcrBox
from vent_agent.documents.ocr.orientation import sideways, upright_orientation
from vent_agent.documents.ocr.page import read_page

LINES = [
    "五、风量分配",
    "基础参数：断面12.4m²",
    "按胶轮车功率计算：Q=4×ΣP=4×2×70=560.0",
    "取最大值：Q需=560.0",
    "风速验算：符合要求",
]


def _page(turned_ccw: int) -> Image.Image:
    """A portrait page with a red mark at its top-left corner, stored turned ``turned_ccw`` degrees."""
    image = Image.new("RGB", (200, 300), "white")
    image.putpixel((0, 0), (255, 0, 0))
    return image.rotate(turned_ccw, expand=True) if turned_ccw else image


class MarkEngine:
    """A fake engine that reads a page by where its red mark lies: top-left = upright (wide boxes, high
    scores); top-right or bottom-left = turned 90° (tall boxes, garbled); bottom-right = upside down
    (wide boxes, low scores)."""

    name = "mark"

    def __init__(self) -> None:
        self.calls = 0

    def recognise(self, image: Image.Image) -> list[OcrBox]:
        self.calls += 1
        w, h = image.size
        corner = next(
            (x, y)
            for x, y in ((0, 0), (w - 1, 0), (0, h - 1), (w - 1, h - 1))
            if image.getpixel((x, y)) == (255, 0, 0)
        )
        upright = corner == (0, 0)
        upside_down = corner == (w - 1, h - 1)
        boxes = []
        for i, text in enumerate(LINES):
            if upright or upside_down:
                boxes.append(
                    OcrBox.from_rect(
                        text if upright else "乙热团类",
                        0.98 if upright else 0.6,
                        10,
                        10 + 30 * i,
                        180,
                        30 + 30 * i,
                    )
                )
            else:
                boxes.append(OcrBox.from_rect("))" + text[:2], 0.7, 10 + 30 * i, 10, 30 + 30 * i, 180))
        return boxes


@pytest.mark.parametrize(("stored", "turn"), [(0, 0), (90, 270), (270, 90), (180, 180)])
def test_a_turned_page_is_read_upright(stored: int, turn: int) -> None:
    engine = MarkEngine()
    image = _page(stored)
    got_turn, got_image, boxes = upright_orientation(image, engine.recognise(image), engine)
    assert got_turn == turn
    assert got_image.size == (200, 300)
    assert got_image.getpixel((0, 0)) == (255, 0, 0)
    assert [b.text for b in boxes] == LINES


def test_an_upright_confident_page_costs_one_pass() -> None:
    engine = MarkEngine()
    image = _page(0)
    upright_orientation(image, engine.recognise(image), engine)
    assert engine.calls == 1


def test_few_boxes_or_short_marks_never_call_a_page_sideways() -> None:
    tall = [OcrBox.from_rect("1", 0.9, 0, 0, 10, 40) for _ in range(10)]
    assert not sideways(tall)  # single glyphs (table digits) are tall by nature
    assert not sideways([OcrBox.from_rect("文字内容", 0.9, 0, 0, 10, 80)] * 3)


def test_a_sideways_page_is_read_upright_with_a_warning() -> None:
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument.new()
    pdf.new_page(842, 595)  # a landscape page; the fake engine looks only at the rendered image's mark

    class SidewaysRender(MarkEngine):
        def recognise(self, image: Image.Image) -> list[OcrBox]:
            if self.calls == 0:  # the blank render stands for a page stored turned 90° clockwise
                image = image.copy()
                image.putpixel((image.size[0] - 1, 0), (255, 0, 0))
            elif image.size[0] < image.size[1]:  # turned 90° counter-clockwise: the mark is top-left
                image = image.copy()
                image.putpixel((0, 0), (255, 0, 0))
            else:
                image = image.copy()
                image.putpixel((image.size[0] - 1, image.size[1] - 1), (255, 0, 0))
            return super().recognise(image)

    read = read_page(pdf, 1, SidewaysRender(), dpi=72)
    assert read.result is not None
    assert "按胶轮车功率计算" in read.result.text.text
    assert read.result.text.width < read.result.text.height  # the page laid out upright
    assert any("横置" in w for w in read.warnings)
