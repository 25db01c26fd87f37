"""Is a page's text layer text? A score of the raw layer, before normalisation.

A PDF can carry a text layer that is not the page's text: an invisible layer (text render mode 3) laid
over a scan by a tool that had no usable font mapping, so it gives private-use glyph codes; a layer whose
bytes were decoded with the wrong code page (UTF-8 or GBK read as cp1252/Latin-1: ``é…é£Ž``, ``ÅäµÆ``);
replacement characters. Such a page is OCR'd like a page without a text layer (``garbage_text_layer``).

:func:`score_layer` counts, over the non-blank characters of the raw layer:

- *good*: CJK ideographs (unified, extension A, compatibility), CJK and full-width punctuation, digits,
  ASCII letters and punctuation, and the symbols plans use (``m³ ℃ × ≤ Δ Σ ·`` …);
- *bad*: private-use code points, U+FFFD, noncharacters, control characters, CJK radicals, and Latin-1 /
  cp1252 letters and signs that Chinese text does not use (the mark of mojibake);
- the rest (Greek, Latin extended, other symbols…) is neutral.

``score`` = good / (good + bad), 1.0 for an empty layer. A layer is garbage when ``score`` is below
:data:`GARBAGE_BELOW` and it has at least :data:`MIN_BAD` bad characters: a good layer with a few radicals
or control characters (which the normaliser repairs) stays text.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

GARBAGE_BELOW = 0.6
"""A layer whose share of good characters is below this is garbage."""
MIN_BAD = 5
"""…and only when it has at least this many bad characters (a short label is not judged)."""

_GOOD = re.compile(
    r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"  # CJK ideographs
    r"\u3000-\u303f\uff00-\uffef"  # CJK punctuation, full-width forms
    r"\x21-\x7e"  # ASCII letters, digits, punctuation
    r"\u00b0\u00b1\u00b2\u00b3\u00b7\u00d7\u00f7\u2103\u2109\u2160-\u217f\u2460-\u24ff"  # ° ± ² ³ · × ÷ ℃ Ⅱ ①
    r"\u2010-\u2027\u2030\u2032\u2033\u2190-\u21ff\u2200-\u22ff\u2080-\u208e\u2070-\u207e"  # — “” … ‰ ′ ← ∑ ≤ ₄
    r"\u0391-\u03a9\u03b1-\u03c9\u3200-\u33ff\u25a0-\u25ff]"  # Greek, enclosed CJK, ㎥, ■ □
)
_BAD = {
    "private_use": re.compile("[\ue000-\uf8ff\U000f0000-\U0010ffff]"),
    "replacement": re.compile("\ufffd"),
    "noncharacter": re.compile("[\ufdd0-\ufdef\ufffe\uffff]"),
    "control": re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]"),
    "radical": re.compile("[\u2e80-\u2fdf]"),
    # Latin-1 / cp1252 letters and signs of mojibake (° ± ² ³ · × ÷ are plans' own and count as good)
    "mojibake": re.compile(
        "[\u00a1-\u00af\u00b4-\u00b6\u00b8-\u00d6\u00d8-\u00f6\u00f8-\u00ff\u0152\u0153\u0160\u0161"
        "\u0178\u017d\u017e\u0192\u02c6\u02dc\u20ac\u2122]"
    ),
}


class LayerQuality(BaseModel):
    """The score of one page's raw text layer: ``good`` and ``bad`` character counts, ``bad_kinds`` (count
    per kind: private_use, replacement, noncharacter, control, radical, mojibake), ``score`` (0…1) and
    ``garbage`` (the page is OCR'd instead of read)."""

    good: int = 0
    bad: int = 0
    bad_kinds: dict[str, int] = Field(default_factory=dict)
    score: float = 1.0
    garbage: bool = False

    def reason_cn(self) -> str:
        """What is wrong with a garbage layer, in Chinese (for the progress message and the report)."""
        return f"文字层为乱码（有效字符占 {self.score:.0%}；{describe_bad(self.bad_kinds)}）"


_KIND_CN = {
    "private_use": "私用区字符",
    "replacement": "替换字符",
    "mojibake": "编码错乱字符",
    "radical": "部首字符",
    "control": "控制字符",
    "noncharacter": "非字符",
}


def describe_bad(kinds: dict[str, int]) -> str:
    """``私用区字符 812 个、控制字符 3 个``: bad-character counts in Chinese, most first."""
    top = sorted(((k, n) for k, n in kinds.items() if n), key=lambda kv: -kv[1])
    return "、".join(f"{_KIND_CN.get(k, k)} {n} 个" for k, n in top)


def score_layer(text: str) -> LayerQuality:
    """Score a page's raw text layer (see the module docstring)."""
    good = len(_GOOD.findall(text))
    kinds = {kind: n for kind, pattern in _BAD.items() if (n := len(pattern.findall(text)))}
    bad = sum(kinds.values())
    score = good / (good + bad) if good + bad else 1.0
    return LayerQuality(
        good=good,
        bad=bad,
        bad_kinds=kinds,
        score=round(score, 4),
        garbage=score < GARBAGE_BELOW and bad >= MIN_BAD,
    )


class PageRead(BaseModel):
    """How one page was read, for the review's record: ``source`` (text, ocr, none), ``ocr_reason``
    (no_text_layer, garbage_text_layer), the score of its raw text layer and its bad characters, what
    the normalisation removed or mapped (``cleaned``), and for an OCR'd page how sure the engine was."""

    page: int
    source: str
    ocr_reason: str | None = None
    layer_score: float | None = None
    layer_bad: dict[str, int] = Field(default_factory=dict)
    cleaned: dict[str, int] = Field(default_factory=dict)
    ocr_confidence: float | None = None
    """OCR'd pages: the mean engine score of the boxes holding figures (0…1)."""
    low_confidence: bool = False
    """An OCR'd page read below the page floor (:func:`low_confidence`): its figures are not judged."""


PAGE_FLOOR = 0.85
"""An OCR'd page whose figure boxes score below this on average is read with low confidence."""
UNREAD_SHARE = 0.25
"""…or one where more than this share of the figure boxes fell below the figure floor (left out)."""


def low_confidence(confidence: float | None, figure_boxes: int, figures_unread: int) -> bool:
    """Whether an OCR'd page was read with low confidence: its figures' mean score below
    :data:`PAGE_FLOOR`, or more than :data:`UNREAD_SHARE` of them left out as unsure."""
    if confidence is not None and confidence < PAGE_FLOOR:
        return True
    return figure_boxes > 0 and figures_unread > UNREAD_SHARE * figure_boxes
