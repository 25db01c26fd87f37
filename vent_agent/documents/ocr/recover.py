"""Recovering the enumerator of a heading or list item that the text detector missed.

Text detectors find long runs of text well but sometimes miss a short, thin mark standing at the start
of a line: the ``一、`` of ``一、编制依据``, a ``(3)``. The parser needs those marks to tell section
headings from body text. When a line's first box starts to the right of the page's left text margin and
there is ink in the gap, the gap and the box are read again as one line (recognition only); the new
reading is kept when it is the old text with an enumerator in front.

Coordinates are pixels of the engine's image.
"""

from __future__ import annotations

import re
import statistics

import numpy as np
from PIL import Image

from vent_agent.documents.ocr.engine import LineReader, OcrBox, OcrEngine
from vent_agent.documents.ocr.layout import Upright, group_lines

ENUMERATOR = re.compile(
    r"^\s*(?:[一二三四五六七八九十]{1,3}\s*[、.．]|[(（]\s*[一二三四五六七八九十\d]{1,3}\s*[)）]|\d{1,2}\s*[、.．)）])\s*"
)
_MIN_INK = 0.02  # share of dark pixels in the gap that counts as "something is written there"


def read_line(engine: OcrEngine, crop: Image.Image) -> tuple[str, float]:
    """One line crop read by the engine: its recognition-only ``read_line`` when it has one, else the
    boxes of ``recognise`` joined left to right (mean score)."""
    if isinstance(engine, LineReader):
        return engine.read_line(crop)
    boxes = sorted(engine.recognise(crop), key=lambda b: b.bbox[0])
    if not boxes:
        return "", 0.0
    return "".join(b.text for b in boxes), statistics.mean(b.score for b in boxes)


def recover_enumerators(
    image: Image.Image, boxes: list[OcrBox], engine: OcrEngine, angle: float
) -> list[OcrBox]:
    """``boxes`` with missed leading enumerators read back in (see the module docstring). ``image`` is
    the page the boxes were found on, ``angle`` its skew (degrees)."""
    if len(boxes) < 3:
        return boxes
    width, height = image.size
    upright = Upright(angle, width, height)
    placed = [upright.place(b) for b in boxes]
    index = {id(p): i for i, p in enumerate(placed)}
    firsts = [line[0] for line in group_lines(placed)]
    margin = statistics.median_low(sorted(p.x0 for p in firsts)[: max(3, len(firsts) // 3)])
    gray = np.asarray(image.convert("L"))
    threshold = min(128, int(np.percentile(gray, 5)) + 60)
    out = list(boxes)
    for first in firsts:
        h = first.height
        if not (0.5 * h <= first.x0 - margin <= 4 * h):
            continue
        box = boxes[index[id(first)]]
        x0, y0, x1, y1 = box.bbox
        gap_x0 = max(0, int(x0 - (first.x0 - margin) - 0.3 * h))
        gap = gray[max(0, int(y0)) : min(height, int(y1)), gap_x0 : max(gap_x0, int(x0))]
        if gap.size == 0 or (gap < threshold).mean() < _MIN_INK:
            continue
        pad = 0.1 * h
        crop = image.crop((gap_x0, max(0, y0 - pad), min(width, x1 + pad), min(height, y1 + pad)))
        text, score = read_line(engine, crop)
        text, old = text.strip(), box.text.strip()
        m = ENUMERATOR.match(text)
        if m and score >= 0.8 and re.sub(r"\s+", "", text[m.end() :]) == re.sub(r"\s+", "", old):
            (_, ty0), (qx1, qy1), (qx2, qy2), (_, by1) = box.quad
            quad = ((float(gap_x0), ty0), (qx1, qy1), (qx2, qy2), (float(gap_x0), by1))
            out[index[id(first)]] = OcrBox(text=text, score=min(score, box.score), quad=quad)
    return out
