"""Text detection in overlapping horizontal strips, so that the detector's memory is bounded by a strip
rather than by the page.

A text detector's activations grow with the pixels it is given: on an A4 page at 200 dpi (1408×1984 px
at detection) RapidOCR's detector allocated about 390 MiB at once. Run on strips of at most
:data:`STRIP_PX` rows, it allocates for one strip at a time, at the same resolution, so the boxes are
found at the same scale as on the whole page (a smaller detection input instead lost or merged lines
of a 150-dpi scan).

Strips overlap by :data:`OVERLAP_PX` rows. Each strip *owns* the rows from the middle of its overlap
with the strip above to the middle of its overlap with the strip below (the first and last strips
own up to the page's edges), and a box is kept from the strip that owns the middle row of the box. A
text line less than ``OVERLAP_PX / 2`` high that a strip's edge cuts has its middle outside that strip's
rows, and lies whole in the neighbouring strip, which owns it; so every line is read once, whole.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from vent_agent.documents.ocr.engine import OcrBox

STRIP_PX = 1152
"""Rows of one strip at most (px of the image given to the detector)."""
OVERLAP_PX = 160
"""Rows two neighbouring strips share (px): twice the tallest text line that is always read whole."""
MIN_STRIP_PX = 768
"""Rows of one strip at least, so that RapidOCR's detector (which enlarges an image whose shorter side
is under 736 px) reads every strip at the page's own scale."""


@dataclass(frozen=True)
class Strip:
    """Rows ``top``…``bottom`` (exclusive) of the page, of which the strip owns ``own_top``…``own_bottom``."""

    top: int
    bottom: int
    own_top: float
    own_bottom: float

    def owns(self, box: OcrBox) -> bool:
        """True when the middle row of ``box`` (in page pixels) lies in the rows this strip owns."""
        _, y0, _, y1 = box.bbox
        middle = (y0 + y1) / 2
        return self.own_top <= middle < self.own_bottom


def strips(height: int, strip_px: int = STRIP_PX, overlap_px: int = OVERLAP_PX) -> list[Strip]:
    """The strips that cover ``height`` rows: one when ``height <= strip_px``, otherwise the fewest of
    equal height (at least :data:`MIN_STRIP_PX`, at most ``strip_px``) that overlap by ``overlap_px``.

    Raises ValueError unless ``0 < overlap_px < strip_px``.
    """
    if not 0 < overlap_px < strip_px:
        raise ValueError(f"overlap {overlap_px} px must be positive and under the strip's {strip_px} px")
    if height <= strip_px:
        return [Strip(0, height, -math.inf, math.inf)]
    count = math.ceil((height - overlap_px) / (strip_px - overlap_px))
    rows = max(min(MIN_STRIP_PX, strip_px), math.ceil((height + (count - 1) * overlap_px) / count))
    step = rows - overlap_px
    tops = [min(i * step, height - rows) for i in range(count)]
    result = []
    for i, top in enumerate(tops):
        bottom = min(top + rows, height)
        own_top = -math.inf if i == 0 else (top + tops[i - 1] + rows) / 2
        own_bottom = math.inf if i == count - 1 else (bottom + tops[i + 1]) / 2
        result.append(Strip(top, bottom, own_top, own_bottom))
    return result


def shifted(box: OcrBox, dy: float, scale_x: float = 1.0, scale_y: float = 1.0) -> OcrBox:
    """``box`` moved down by ``dy`` px, then its coordinates multiplied by ``scale_x``/``scale_y``."""

    def move(point: tuple[float, float]) -> tuple[float, float]:
        return point[0] * scale_x, (point[1] + dy) * scale_y

    a, b, c, d = box.quad
    return OcrBox(box.text, box.score, (move(a), move(b), move(c), move(d)))


def recognise_in_strips(
    height: int,
    recognise_rows: Callable[[int, int], list[OcrBox]],
    *,
    strip_px: int = STRIP_PX,
    overlap_px: int = OVERLAP_PX,
) -> Iterator[OcrBox]:
    """The boxes of a page ``height`` px high, read strip by strip: ``recognise_rows(top, bottom)``
    reads rows ``top``…``bottom`` and returns boxes in that strip's pixels; each box is moved to page
    pixels and kept only from the strip that owns it (see the module docstring)."""
    for strip in strips(height, strip_px, overlap_px):
        for box in recognise_rows(strip.top, strip.bottom):
            moved = shifted(box, strip.top)
            if strip.owns(moved):
                yield moved
