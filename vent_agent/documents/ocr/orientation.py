"""Turning a page scanned sideways or upside down upright before its text is laid out.

A scanner or a phone stores a page the way it was fed: a landscape table page often comes out turned
90°, a page fed the wrong way round 180°. Read as it lies, such a page gives text the parser cannot use
(columns read as lines, characters recognised upside down), and a page read wrongly must not be taken
for a page read. The page's orientation is read from the engine's own first pass:

- **sideways**: most of the text boxes are taller than wide (a line of horizontal text turned 90° is a
  tall, thin box). The page is read again turned 90° each way and the reading with the more text
  recognised with confidence (Σ score × characters) is kept;
- **upside down**: the boxes are wide but recognised with low confidence (mean score below
  :data:`LOW_MEAN_SCORE`); the page is read again turned 180° and that reading is kept when its mean
  score is clearly higher.

Only a page that looks turned costs more engine passes (two for sideways, one for a doubtful page); an
upright page with a confident reading is read once. Coordinates stay those of the image returned: the
upright page.
"""

from __future__ import annotations

import statistics

from PIL import Image

from vent_agent.documents.ocr.engine import OcrBox, OcrEngine

TALL_RATIO = 1.5
"""A box whose height is over this times its width is a line of text turned 90° (or a single glyph)."""
SIDEWAYS_SHARE = 0.5
"""The share of a page's boxes (those of two characters or more) that must be tall to call it sideways."""
LOW_MEAN_SCORE = 0.85
"""A page of wide boxes whose mean score is below this may be upside down: it is read turned 180° too."""
BETTER_BY = 0.1
"""The mean score a 180° reading must gain to be taken over the page as it lies."""
_MIN_BOXES = 5


def _is_tall(box: OcrBox) -> bool:
    x0, y0, x1, y1 = box.bbox
    return (y1 - y0) > TALL_RATIO * max(x1 - x0, 1.0)


def sideways(boxes: list[OcrBox]) -> bool:
    """Whether most of ``boxes`` (those with two characters or more) are tall: the page lies turned 90°."""
    lines = [b for b in boxes if len(b.text.strip()) >= 2]
    if len(lines) < _MIN_BOXES:
        return False
    return sum(_is_tall(b) for b in lines) > SIDEWAYS_SHARE * len(lines)


def confident_text(boxes: list[OcrBox]) -> float:
    """Σ score × characters of ``boxes`` that are not tall: how much text a reading recognised well."""
    return sum(b.score * len(b.text.strip()) for b in boxes if not _is_tall(b))


def mean_score(boxes: list[OcrBox]) -> float:
    """The mean engine score of ``boxes`` (0 for none)."""
    return statistics.fmean(b.score for b in boxes) if boxes else 0.0


def _turned(image: Image.Image, degrees: int) -> Image.Image:
    """``image`` turned ``degrees`` counter-clockwise (90, 180, 270), the canvas resized to fit."""
    method = {90: Image.Transpose.ROTATE_90, 180: Image.Transpose.ROTATE_180, 270: Image.Transpose.ROTATE_270}
    return image.transpose(method[degrees])


def upright_orientation(
    image: Image.Image, boxes: list[OcrBox], engine: OcrEngine
) -> tuple[int, Image.Image, list[OcrBox]]:
    """The page upright: ``(degrees turned counter-clockwise, image, boxes)``; ``(0, image, boxes)`` when
    the page already reads upright (see the module docstring). ``boxes`` are the engine's reading of
    ``image`` as it lies; the engine's errors propagate."""
    if sideways(boxes):
        readings = [(d, _turned(image, d)) for d in (90, 270)]
        scored = [(d, turned, engine.recognise(turned)) for d, turned in readings]
        degrees, turned, turned_boxes = max(scored, key=lambda r: confident_text(r[2]))
        if confident_text(turned_boxes) > confident_text(boxes):
            return degrees, turned, turned_boxes
        return 0, image, boxes
    if len(boxes) >= _MIN_BOXES and mean_score(boxes) < LOW_MEAN_SCORE:
        turned = _turned(image, 180)
        turned_boxes = engine.recognise(turned)
        if sideways(turned_boxes):
            return 0, image, boxes
        if mean_score(turned_boxes) >= mean_score(boxes) + BETTER_BY:
            return 180, turned, turned_boxes
    return 0, image, boxes
