"""OCR in horizontal strips: the strips cover the page, and every text line is read once, whole, from the
strip that owns it, wherever the strips' edges cut the page."""

from __future__ import annotations

import math

import pytest

from vent_agent.documents.ocr.engine import OcrBox
from vent_agent.documents.ocr.strips import OVERLAP_PX, STRIP_PX, recognise_in_strips, shifted, strips


@pytest.mark.parametrize("height", [1, 600, STRIP_PX, STRIP_PX + 1, 1984, 2000, 2339, 3000, 4000, 9000])
def test_strips_cover_the_page_and_own_each_row_once(height: int) -> None:
    cut = strips(height)
    assert cut[0].top == 0 and cut[-1].bottom == height
    assert cut[0].own_top == -math.inf and cut[-1].own_bottom == math.inf
    assert all(s.bottom - s.top <= STRIP_PX for s in cut)
    if height <= STRIP_PX:
        assert len(cut) == 1
    for upper, lower in zip(cut, cut[1:], strict=False):
        assert lower.top < upper.bottom and upper.bottom - lower.top >= OVERLAP_PX  # they overlap enough
        assert upper.own_bottom == lower.own_top  # what one gives up the next owns
        # a strip owns only rows at least half the overlap away from its cut edges
        assert (
            upper.own_bottom <= upper.bottom - OVERLAP_PX / 2 and lower.own_top >= lower.top + OVERLAP_PX / 2
        )


def test_an_a4_page_at_the_engines_scale_is_read_in_two_strips() -> None:
    assert len(strips(1984)) == 2


def _page_lines(height: int, line_px: int, gap_px: int, offset: int) -> list[tuple[str, int, int]]:
    """Text lines (text, top, bottom) down a page of ``height`` rows."""
    lines: list[tuple[str, int, int]] = []
    y = offset
    while y + line_px <= height:
        lines.append((f"第{len(lines)}行", y, y + line_px))
        y += line_px + gap_px
    return lines


def _fake_strip_reader(lines: list[tuple[str, int, int]]):
    """``recognise_rows`` of an engine that reads every line a strip shows, a cut one as its visible part
    with a mangled text, in the strip's own pixels."""

    def read(top: int, bottom: int) -> list[OcrBox]:
        boxes = []
        for text, y0, y1 in lines:
            if y1 <= top or y0 >= bottom:
                continue
            whole = y0 >= top and y1 <= bottom
            seen0, seen1 = max(y0, top) - top, min(y1, bottom) - top
            boxes.append(OcrBox.from_rect(text if whole else text + "(cut)", 0.9, 100, seen0, 900, seen1))
        return boxes

    return read


@pytest.mark.parametrize("line_px", [12, 30, 60, OVERLAP_PX // 2 - 1])
@pytest.mark.parametrize("offset", range(0, 80, 9))
@pytest.mark.parametrize("height", [1984, 2339, 4000])
def test_every_line_is_read_once_and_whole(height: int, line_px: int, offset: int) -> None:
    lines = _page_lines(height, line_px, gap_px=7, offset=offset)
    boxes = list(recognise_in_strips(height, _fake_strip_reader(lines)))
    assert [b.text for b in boxes] == [text for text, _, _ in lines]
    assert [b.bbox[1::2] for b in boxes] == [(float(y0), float(y1)) for _, y0, y1 in lines]


def test_a_page_of_one_strip_is_read_in_one_call() -> None:
    calls: list[tuple[int, int]] = []

    def read(top: int, bottom: int) -> list[OcrBox]:
        calls.append((top, bottom))
        return [OcrBox.from_rect("只有一行", 0.9, 0, 10, 50, 30)]

    assert [b.text for b in recognise_in_strips(900, read)] == ["只有一行"]
    assert calls == [(0, 900)]


def test_shifted_moves_then_scales() -> None:
    box = OcrBox.from_rect("风量", 0.8, 10, 20, 30, 40)
    moved = shifted(box, 100, scale_x=2.0, scale_y=0.5)
    assert moved.bbox == (20.0, 60.0, 60.0, 70.0) and (moved.text, moved.score) == ("风量", 0.8)


@pytest.mark.parametrize(("strip_px", "overlap_px"), [(100, 0), (100, 100), (100, 150), (100, -5)])
def test_an_overlap_that_leaves_no_strip_is_refused(strip_px: int, overlap_px: int) -> None:
    with pytest.raises(ValueError, match="overlap"):
        strips(5000, strip_px, overlap_px)
