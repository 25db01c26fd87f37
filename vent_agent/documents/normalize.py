"""Text normalisation at the document boundary: every page text and table cell read from a PDF, by the
text layer or by OCR, goes through :func:`clean_text` once, before anything parses it.

:func:`clean_text` returns the *display* text (what the page says, as a reader would copy it) and counts
what it changed:

- CJK radicals (U+2E80–U+2FDF: the CJK Radicals Supplement and the Kangxi Radicals) become the unified
  ideographs they stand for (``⼯`` U+2F2F → ``工``, ``⻛`` U+2EDB → ``风``). Office suites export them when a
  font's glyph for 工 is also its radical's. NFKC maps the Kangxi block but not the supplement, so the
  whole range is mapped by a table generated from the Unicode Character Database
  (``vent_agent/data/cjk_radicals.json``, property Equivalent_Unified_Ideograph; ``scripts/gen_cjk_radicals.py``);
- control characters (but line feed and tab; a carriage return becomes a line feed), format characters
  (zero-width space, soft hyphen, byte-order mark…), noncharacters (U+FDD0–U+FDEF, U+xxFFFE/U+xxFFFF),
  private-use code points and lone surrogates are removed;
- the rest is NFKC (compatibility ideographs, ligatures, ``㎥`` → ``m3``, ``Ⅱ`` → ``II``), except what the
  display keeps as written and the parser reads as it is: the full-width ASCII forms and the ideographic
  space (folded for parsing, below), the circled numbers (``①``, enumerators), the superscript and
  subscript digits of units and formulas (``m³``, ``CH₄``) and ``℃``.

Parsing folds the width on top of that with :func:`fold` (full-width ASCII → ASCII, one character for one
character, so offsets into folded text are offsets into the display text). There is no other
normalisation table: :func:`vent_agent.documents.plan.text_primitives.normalize` is :func:`fold`.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from functools import cache
from importlib import resources

REMOVED_KINDS = ("control", "format", "noncharacter", "private_use", "surrogate")
"""Kinds of code points :func:`clean_text` removes (their counts are keyed by these names)."""
MAPPED_KINDS = ("radical",)
"""Kinds of code points :func:`clean_text` maps to another character."""

_REMOVE: dict[str, re.Pattern[str]] = {
    "control": re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]"),
    "format": re.compile(
        r"[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]"
    ),
    "noncharacter": re.compile(
        "[\ufdd0-\ufdef"
        + "".join(f"{chr(p * 0x10000 + 0xFFFE)}{chr(p * 0x10000 + 0xFFFF)}" for p in range(17))
        + "]"
    ),
    "private_use": re.compile("[\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd]"),
    "surrogate": re.compile("[\ud800-\udfff]"),
}
_RADICAL = re.compile("[\u2e80-\u2fdf]")
_KEEP = "\uff01-\uff5e\u3000\u2460-\u24ff\u3251-\u325f\u32b1-\u32bf\u00b2\u00b3\u00b9\u2070-\u209f\u2103"
_NFKC_RUN = re.compile(f"[^{_KEEP}]+")

_FOLD = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)}
_FOLD.update({0x3000: 0x20, 0x2212: ord("-"), 0x00A0: 0x20, 0x2264: ord("≤"), 0x2266: ord("≤")})
_FOLD.update({0x2206: ord("Δ"), 0x2211: ord("Σ")})  # increment / n-ary sum signs read as Δ / Σ


@cache
def radical_table() -> dict[int, str]:
    """Code point → unified ideograph for every CJK radical of U+2E80–U+2FDF that has one (from
    ``vent_agent/data/cjk_radicals.json``)."""
    raw = resources.files("vent_agent").joinpath("data/cjk_radicals.json").read_text(encoding="utf-8")
    return {int(cp, 16): ideograph for cp, ideograph in json.loads(raw)["map"].items()}


def _nfkc(m: re.Match[str]) -> str:
    return unicodedata.normalize("NFKC", m.group(0))


def clean_text(text: str) -> tuple[str, Counter[str]]:
    """The display text of ``text`` and what was changed (see the module docstring).

    Returns ``(text, counts)``; ``counts`` has a key of :data:`REMOVED_KINDS` / :data:`MAPPED_KINDS` for
    each kind that occurred (code points removed or mapped). Line ends become ``\\n``.
    """
    counts: Counter[str] = Counter()
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if text.isascii():
        n = len(_REMOVE["control"].findall(text))
        if n:
            counts["control"] = n
            text = _REMOVE["control"].sub("", text)
        return text, counts
    radicals = len(_RADICAL.findall(text))
    if radicals:
        counts["radical"] = radicals
        text = text.translate(radical_table())
    for kind, pattern in _REMOVE.items():
        n = len(pattern.findall(text))
        if n:
            counts[kind] = n
            text = pattern.sub("", text)
    if not unicodedata.is_normalized("NFKC", text):
        text = _NFKC_RUN.sub(_nfkc, text)
    return text, counts


def clean_cell(text: str | None) -> str | None:
    """A table cell's display text (:func:`clean_text` without the counts); None stays None."""
    return None if text is None else clean_text(text)[0]


def fold(text: str) -> str:
    """The parsing fold of display text: full-width ASCII → ASCII, ideographic and no-break space →
    space, minus sign → ``-``, ``≦`` → ``≤``, the increment and n-ary sum signs (``∆``, ``∑``) → ``Δ``, ``Σ``.
    Length-preserving."""
    return text.translate(_FOLD)
