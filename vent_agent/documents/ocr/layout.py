"""Geometry of OCR boxes: the page's skew, boxes turned upright, and boxes grouped into text lines.

A scanned page is usually a little rotated (a fraction of a degree to a few degrees). The skew is read
from the boxes themselves: the detector's boxes follow the text's baseline, so the median angle of the
top edges of long boxes is the page's skew. Boxes are then rotated about the image's centre to an upright
frame (:class:`Upright`), where rows are horizontal and the grouping into lines and table rows needs no
further tolerance for the skew.

All coordinates are image pixels, y downwards. Angles are degrees, positive when the text runs
downwards to the right (clockwise on the screen).
"""

from __future__ import annotations

import math
import re
import statistics
from dataclasses import dataclass, replace

from vent_agent.documents.ocr.engine import OcrBox

MAX_SKEW_DEG = 10.0
"""A larger median angle is not taken for skew (rotated pages are a different problem)."""
_LONG_BOX = 3.0  # width / height ratio of the boxes whose angle counts


_TIMES_AS_X = re.compile(r"(?<=[\d)\s])\s*[xX]\s*(?=[\d(])|^[xX]\s*(?=\d)")


def clean_text(box: OcrBox) -> OcrBox:
    """The box with what OCR typically misreads in formulas put right: a multiplication sign read as
    the letter x between numbers (``1.0006 X60``, ``X 60`` at a line start) becomes ``×``."""
    text = _TIMES_AS_X.sub("×", box.text.strip())
    return box if text == box.text else replace(box, text=text)


def skew_angle(boxes: list[OcrBox]) -> float:
    """The page's skew in degrees from the top edges of long boxes; 0.0 when there are fewer than
    three such boxes or the median exceeds :data:`MAX_SKEW_DEG`."""
    angles = []
    for b in boxes:
        (x0, y0), (x1, y1) = b.quad[0], b.quad[1]
        width = math.hypot(x1 - x0, y1 - y0)
        height = math.hypot(b.quad[3][0] - x0, b.quad[3][1] - y0)
        if width >= _LONG_BOX * max(height, 1.0) and x1 > x0:
            angles.append(math.degrees(math.atan2(y1 - y0, x1 - x0)))
    if len(angles) < 3:
        return 0.0
    angle = statistics.median(angles)
    return angle if abs(angle) <= MAX_SKEW_DEG else 0.0


@dataclass(frozen=True)
class Placed:
    """An OCR box in the upright frame: its text, confidence and axis-aligned box (pixels)."""

    text: str
    score: float
    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    @property
    def cx(self) -> float:
        return (self.x0 + self.x1) / 2

    @property
    def cy(self) -> float:
        return (self.y0 + self.y1) / 2


@dataclass(frozen=True)
class Upright:
    """The rotation that undoes a skew of ``angle`` degrees about the centre of a ``width`` × ``height``
    image (the same rotation :func:`cv2.getRotationMatrix2D` builds for the image itself)."""

    angle: float
    width: int
    height: int

    def point(self, x: float, y: float) -> tuple[float, float]:
        """A point of the scanned image in the upright frame."""
        a = math.radians(self.angle)
        cx, cy = self.width / 2, self.height / 2
        dx, dy = x - cx, y - cy
        return cx + dx * math.cos(a) + dy * math.sin(a), cy - dx * math.sin(a) + dy * math.cos(a)

    def place(self, box: OcrBox) -> Placed:
        """The box in the upright frame, as an axis-aligned box."""
        pts = [self.point(x, y) for x, y in box.quad]
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        return Placed(box.text, box.score, min(xs), min(ys), max(xs), max(ys))


def _overlap(a0: float, a1: float, b0: float, b1: float) -> float:
    return max(0.0, min(a1, b1) - max(a0, b0))


def group_lines(boxes: list[Placed], min_overlap: float = 0.5) -> list[list[Placed]]:
    """Boxes grouped into lines, top to bottom, each line left to right.

    A box joins the line it overlaps vertically by at least ``min_overlap`` of the smaller height (the
    best such line among those still open); otherwise it starts a new line.
    """
    lines: list[list[Placed]] = []
    spans: list[tuple[float, float]] = []
    for b in sorted(boxes, key=lambda p: (p.cy, p.x0)):
        best, best_ratio = -1, min_overlap
        for i in range(len(lines) - 1, -1, -1):
            y0, y1 = spans[i]
            if y1 < b.y0 - b.height:  # lines are sorted by centre: older ones lie further up
                break
            ratio = _overlap(y0, y1, b.y0, b.y1) / max(min(y1 - y0, b.height), 1e-6)
            collides = any(_overlap(p.x0, p.x1, b.x0, b.x1) > 0.3 * b.height for p in lines[i])
            if ratio >= best_ratio and not collides:
                best, best_ratio = i, ratio
        if best < 0:
            lines.append([b])
            spans.append((b.y0, b.y1))
        else:
            lines[best].append(b)
            y0, y1 = spans[best]
            spans[best] = (min(y0, b.y0), max(y1, b.y1))
    order = sorted(range(len(lines)), key=lambda i: statistics.median(p.cy for p in lines[i]))
    return [sorted(lines[i], key=lambda p: p.x0) for i in order]


def line_text(line: list[Placed]) -> str:
    """The boxes of one line joined by single spaces, left to right."""
    return " ".join(p.text.strip() for p in sorted(line, key=lambda p: p.x0) if p.text.strip())
