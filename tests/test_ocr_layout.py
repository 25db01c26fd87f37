"""OCR layout: skew from the boxes, lines tolerant to skew, ruled tables rebuilt from the render and the
boxes (spanning cells, boxes across a border, misread decimal points), on synthetic skewed, speckled
scans."""

from __future__ import annotations

import pytest
from PIL import Image

from tests.ocr_fakes import rotated_quad, synthetic_scan
from vent_agent.documents.ocr.engine import OcrBox
from vent_agent.documents.ocr.grid_cells import split_at
from vent_agent.documents.ocr.layout import Placed, Upright, clean_text, group_lines, line_text, skew_angle
from vent_agent.documents.ocr.page import layout_page, render_scale

ROWS: list[list[str | None]] = [
    ["序号", "用风地点", "风量(m³/min)", None],
    ["", "", "需风量", "配风量"],
    ["1", "15216综采工作面", "1132.2", "1200"],
    ["2", "中央变电所", "159.9", "180"],
    ["3", "充电硐室", "100.0", "120"],
]
WIDTHS = [110, 420, 220, 220]


def _box(text: str, x0: float, y0: float, x1: float, y1: float, angle: float = 0.0) -> OcrBox:
    return OcrBox(text, 0.99, rotated_quad(x0, y0, x1, y1, angle, 1000, 1000))


@pytest.mark.parametrize("angle", [-3.0, -0.8, 0.0, 0.5, 2.5])
def test_skew_is_read_from_long_boxes_and_undone(angle: float) -> None:
    boxes = [_box(f"第{i}行文字内容很长", 100, 100 + 60 * i, 700, 130 + 60 * i, angle) for i in range(6)]
    got = skew_angle(boxes)
    assert got == pytest.approx(angle, abs=0.05)
    upright = Upright(got, 1000, 1000)
    placed = [upright.place(b) for b in boxes]
    assert all(p.height == pytest.approx(30, abs=1.5) for p in placed)
    assert [line_text(line) for line in group_lines(placed)] == [f"第{i}行文字内容很长" for i in range(6)]


def test_no_skew_from_too_few_or_absurd_boxes() -> None:
    assert skew_angle([_box("短", 0, 0, 30, 30)]) == 0.0
    steep = [_box("很长的一行文字内容", 100, 100 + 50 * i, 700, 130 + 50 * i, 25.0) for i in range(5)]
    assert skew_angle(steep) == 0.0


def test_lines_group_boxes_of_one_row_left_to_right() -> None:
    placed = [
        Placed("630.0", 0.9, 500, 102, 580, 132),
        Placed("按瓦斯涌出量计算:", 0.9, 100, 100, 480, 130),
        Placed("下一行", 0.9, 100, 160, 220, 190),
        Placed("工作面", 0.9, 120, 131, 200, 158),  # a wrapped cell line between two rows
    ]
    assert [line_text(line) for line in group_lines(placed)] == [
        "按瓦斯涌出量计算: 630.0",
        "工作面",
        "下一行",
    ]


def test_split_at_shares_characters_by_width() -> None:
    box = Placed("15216综采 630.0", 0.9, 0, 0, 160, 30)
    left, right = split_at(box, [90])
    assert (left.text, right.text) == ("15216综采", "630.0")
    assert split_at(box, []) == [box]


def test_clean_text_reads_x_between_numbers_as_times() -> None:
    assert clean_text(OcrBox("1.2×1.0006 X60 × 5.0", 1, ((0, 0),) * 4)).text == "1.2×1.0006×60 × 5.0"
    assert clean_text(OcrBox("X 60 × 3.0) = 209.9", 1, ((0, 0),) * 4)).text.startswith("×60")
    assert clean_text(OcrBox("max 30 m/s", 1, ((0, 0),) * 4)).text == "max 30 m/s"


@pytest.mark.parametrize("angle", [0.0, 0.7, -1.5])
def test_ruled_table_is_rebuilt_from_a_skewed_noisy_scan(angle: float) -> None:
    scan = synthetic_scan(ROWS, col_widths=WIDTHS, angle=angle, lines_above=["五、风量分配表示例标题文字"])
    scale = render_scale(595.0, 842.0, 200.0, 4000)
    page = layout_page(scan.image, scan.boxes, 4, scale)
    assert page.skew_deg == pytest.approx(angle, abs=0.2)
    (table,) = page.tables
    assert (table.page, table.index, table.n_rows, table.n_cols) == (4, 0, 5, 4)
    rows = table.rows()
    assert rows[0] == ["序号", "用风地点", "风量(m³/min)", None]  # the spanning header cell
    assert rows[1][2:] == ["需风量", "配风量"]
    assert rows[2] == ["1", "15216综采工作面", "1132.2", "1200"]
    assert rows[4] == ["3", "充电硐室", "100.0", "120"]
    x0, top, x1, bottom = table.bbox  # PDF points, like pdfplumber's
    assert x0 == pytest.approx(150 / scale, abs=6) and top == pytest.approx(400 / scale, abs=6)
    assert table.page_height == pytest.approx(2339 / scale, abs=1)
    lines = page.text.text.splitlines()
    assert lines[0] == "五、风量分配表示例标题文字"
    assert "1 15216综采工作面 1132.2 1200" in lines
    assert page.text.source == "ocr" and page.text.has_text


def test_box_across_a_drawn_border_is_split_and_decimal_point_repaired() -> None:
    rows: list[list[str | None]] = [
        ["地点", "需风量", "配风量"],
        ["中央变电所", "159.9", "180.0"],
        ["泵房", "209.9", "220.0"],
    ]
    scan = synthetic_scan(rows, col_widths=[300, 200, 200], lines_above=[])
    boxes = [b for b in scan.boxes if b.text not in ("159.9", "180.0", "220.0")]
    # one box reading two cells of row 2 (x 450…650 spans the border at x = 650 ± …), and a misread point
    y = 400 + 44 + 7
    boxes.append(OcrBox.from_rect("159.9 180.0", 0.95, 500, y, 800, y + 30))
    boxes.append(OcrBox.from_rect("220:0", 0.95, 820, y + 44, 880, y + 74))
    page = layout_page(scan.image, boxes, 1, 200 / 72)
    rows_got = page.tables[0].rows()
    assert rows_got[1] == ["中央变电所", "159.9", "180.0"]
    assert rows_got[2] == ["泵房", "209.9", "220.0"]


def test_page_without_ruling_has_lines_and_no_table() -> None:
    boxes = [
        OcrBox.from_rect(f"第{i}段正文内容", 0.97, 150, 200 + 70 * i, 600, 230 + 70 * i) for i in range(4)
    ]
    from PIL import Image

    page = layout_page(Image.new("RGB", (1654, 2339), "white"), boxes, 2, 200 / 72)
    assert page.tables == []
    assert page.text.text.splitlines() == [f"第{i}段正文内容" for i in range(4)]


def test_low_confidence_boxes_are_dropped() -> None:
    from PIL import Image

    boxes = [
        OcrBox.from_rect("可信文字", 0.9, 100, 100, 300, 130),
        OcrBox.from_rect("噪点", 0.2, 100, 200, 160, 230),
    ]
    page = layout_page(Image.new("RGB", (800, 800), "white"), boxes, 1, 2.0, min_score=0.5)
    assert page.text.text == "可信文字"


def test_render_scale_is_capped() -> None:
    assert render_scale(595, 842, 200, 4000) == pytest.approx(200 / 72)
    assert render_scale(14400, 14400, 200, 4000) * 14400 == pytest.approx(4000)


class _LineReader:
    """A fake engine whose recognition-only reading of a crop is scripted."""

    name = "fake"

    def __init__(self, text: str, score: float = 0.97) -> None:
        self.text, self.score = text, score
        self.crops: list[tuple[int, int]] = []

    def recognise(self, image: Image.Image) -> list[OcrBox]:
        return []

    def read_line(self, image: Image.Image) -> tuple[str, float]:
        self.crops.append(image.size)
        return self.text, self.score


def _page_with_enumerator_ink() -> tuple[Image.Image, list[OcrBox]]:
    from PIL import ImageDraw

    img = Image.new("RGB", (1200, 900), "white")
    ImageDraw.Draw(img).rectangle([150, 212, 190, 218], fill="black")  # the "一" the detector missed
    boxes = [
        OcrBox.from_rect(f"正文第{i}行的内容比较长", 0.98, 150, 300 + 60 * i, 900, 330 + 60 * i)
        for i in range(4)
    ]
    boxes.append(OcrBox.from_rect("编制依据", 0.99, 215, 200, 360, 230))
    return img, boxes


def test_a_missed_heading_enumerator_is_read_back() -> None:
    from vent_agent.documents.ocr.recover import recover_enumerators

    img, boxes = _page_with_enumerator_ink()
    engine = _LineReader("一、编制依据")
    out = recover_enumerators(img, boxes, engine, 0.0)
    assert out[-1].text == "一、编制依据" and out[-1].bbox[0] < 160
    assert out[:-1] == boxes[:-1] and len(engine.crops) == 1


@pytest.mark.parametrize(
    "reading,score", [("1630编制依据", 0.99), ("一、编制依据", 0.5), ("一、编制说明", 0.99)]
)
def test_a_reading_back_that_is_not_an_enumerator_is_ignored(reading: str, score: float) -> None:
    from vent_agent.documents.ocr.recover import recover_enumerators

    img, boxes = _page_with_enumerator_ink()
    assert recover_enumerators(img, boxes, _LineReader(reading, score), 0.0) == boxes


def test_no_reading_back_without_ink_in_the_gap() -> None:
    from PIL import Image

    from vent_agent.documents.ocr.recover import recover_enumerators

    _, boxes = _page_with_enumerator_ink()
    engine = _LineReader("一、编制依据")
    assert recover_enumerators(Image.new("RGB", (1200, 900), "white"), boxes, engine, 0.0) == boxes
    assert engine.crops == []
