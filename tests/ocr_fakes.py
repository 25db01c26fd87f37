"""Fakes for the OCR tests: a scripted OCR engine, and synthetic "scans" (ruled tables drawn with
Pillow, rotated and speckled) with the boxes a real engine would return for them.

No fonts are needed: the fake engine knows the text; the image only carries the ruling, the speckle and
the skew that the layout has to cope with.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from PIL import Image, ImageDraw

from vent_agent.documents.ocr.engine import OcrBox, Point


@dataclass
class FakeEngine:
    """Returns ``pages[i]`` for the i-th call (or ``[]``); records the image sizes; raises on the calls
    listed in ``fail_on`` (0-based)."""

    pages: list[list[OcrBox]] = field(default_factory=list)
    fail_on: set[int] = field(default_factory=set)
    name: str = "fake-ocr"
    calls: list[tuple[int, int]] = field(default_factory=list)

    def recognise(self, image: Image.Image) -> list[OcrBox]:
        n = len(self.calls)
        self.calls.append(image.size)
        if n in self.fail_on:
            raise RuntimeError("engine crashed")
        return self.pages[n] if n < len(self.pages) else []


def rotate_point(x: float, y: float, angle: float, w: int, h: int) -> tuple[float, float]:
    """Where (x, y) lands when a ``w`` × ``h`` image is skewed by ``angle`` degrees (text running
    downwards to the right for a positive angle)."""
    a = math.radians(angle)
    cx, cy = w / 2, h / 2
    dx, dy = x - cx, y - cy
    return cx + dx * math.cos(a) - dy * math.sin(a), cy + dx * math.sin(a) + dy * math.cos(a)


def rotated_quad(
    x0: float, y0: float, x1: float, y1: float, angle: float, w: int, h: int
) -> tuple[Point, Point, Point, Point]:
    """The corners of the box (x0, y0)–(x1, y1) as an engine gives them (top-left, top-right,
    bottom-right, bottom-left), each where :func:`rotate_point` puts it."""
    tl, tr, br, bl = (rotate_point(x, y, angle, w, h) for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1)))
    return tl, tr, br, bl


@dataclass
class SyntheticScan:
    """A page image and the boxes an engine would find on it."""

    image: Image.Image
    boxes: list[OcrBox]


def synthetic_scan(
    rows: list[list[str | None]],
    *,
    col_widths: list[int],
    row_height: int = 44,
    origin: tuple[int, int] = (150, 400),
    lines_above: Sequence[str] = (),
    size: tuple[int, int] = (1654, 2339),
    angle: float = 0.0,
    speckle: float = 0.004,
    seed: int = 7,
) -> SyntheticScan:
    """A ruled table (``None`` in ``rows`` continues the cell to its left: no border drawn between them)
    below some text lines, skewed by ``angle`` degrees and speckled; text heights are 30 px."""
    w, h = size
    img = Image.new("L", size, 255)
    draw = ImageDraw.Draw(img)
    x0, y0 = origin
    xs = [x0]
    for cw in col_widths:
        xs.append(xs[-1] + cw)
    ys = [y0 + r * row_height for r in range(len(rows) + 1)]
    boxes: list[tuple[str, float, float, float, float]] = []
    for i, text in enumerate(lines_above):
        ty = y0 - 80 * (len(lines_above) - i)
        boxes.append((text, x0, ty, x0 + 32 * len(text), ty + 30))
    for y in ys:
        draw.line([(xs[0], y), (xs[-1], y)], fill=0, width=3)
    for r, row in enumerate(rows):
        c = 0
        while c < len(row):
            span = 1
            while c + span < len(row) and row[c + span] is None:
                span += 1
            left, right = xs[c], xs[c + span]
            draw.line([(left, ys[r]), (left, ys[r + 1])], fill=0, width=3)
            text = row[c] or ""
            if text:
                tw = min(right - left - 12, 30 * len(text))
                cx, cy = (left + right) / 2, (ys[r] + ys[r + 1]) / 2
                boxes.append((text, cx - tw / 2, cy - 15, cx + tw / 2, cy + 15))
            c += span
        draw.line([(xs[-1], ys[r]), (xs[-1], ys[r + 1])], fill=0, width=3)
    rng = random.Random(seed)
    pixels = img.load()
    assert pixels is not None
    for _ in range(int(w * h * speckle)):
        pixels[rng.randrange(w), rng.randrange(h)] = rng.choice((0, 90, 160))
    if angle:
        img = img.rotate(-angle, resample=Image.Resampling.BILINEAR, fillcolor=255, center=(w / 2, h / 2))
    quads = []
    for text, bx0, by0, bx1, by1 in boxes:
        quads.append(OcrBox(text=text, score=0.98, quad=rotated_quad(bx0, by0, bx1, by1, angle, w, h)))
    return SyntheticScan(img.convert("RGB"), quads)
