"""Text helpers of the plan parser: normalisation, numbers, units, dates, location names, and a
page-aware view of the whole document's text.

Normalisation is the parsing fold of :mod:`vent_agent.documents.normalize` (full-width ASCII
``：，（）％＝`` and the ideographic space to their half-width forms, one character for one character, so
offsets into normalised text are offsets into the original); the text it folds was cleaned once at
extraction (radicals, control characters, NFKC).
"""

from __future__ import annotations

import bisect
import datetime as _dt
import re
from collections import Counter
from dataclasses import dataclass, field

from vent_agent.documents.normalize import fold
from vent_agent.documents.pdf_text import ExtractedPdf
from vent_agent.kb.numerals import cn_to_int

CJK = r"\u4e00-\u9fff"
NUM = r"(?<![A-Za-z_\d.])-?\d+(?:\.\d+)?"
"""A number not glued to a preceding letter or digit (``Q15216`` is a name, not 15216)."""
NUM_RE = re.compile(NUM + r"(?:\s*%)?")
UNIT_RE = re.compile(
    r"\s*(m\s*\^?[³3]\s*/\s*min|m\s*\^?[³3]\s*/\s*s|m\s*\^?[³3]\s*/\s*h|立方米?\s*/\s*(?:分钟?|秒|小?时)"
    r"|m\s*/\s*s|m\s*\^?[²2]|m\s*\^?[³3]|kW|kg|℃|°C|%|m|人|台|辆)",
)
DASHES = {"", "—", "——", "–", "-", "--", "/", "／", "无", "…", "...", "－"}

_DATE_RE = re.compile(r"(\d{4})\s*[年./\-]\s*(\d{1,2})\s*[月./\-]\s*(\d{1,2})\s*日?")
_MONTH_RE = re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月")
_PAGE_NO_RE = re.compile(
    r"^(?:第\s*\d+\s*页(?:\s*[,，/]?\s*共\s*\d+\s*页)?|[-—\s]*\d{1,3}[-—\s]*|\d+\s*/\s*\d+|page\s*\d+(?:\s*of\s*\d+)?)$",
    re.IGNORECASE,
)


def normalize(text: str) -> str:
    """The parsing fold (:func:`vent_agent.documents.normalize.fold`): full-width ASCII → half-width,
    ideographic/no-break space → space, minus sign → ``-``, ``∆``/``∑`` → ``Δ``/``Σ``. Length-preserving."""
    return fold(text)


def squeeze(text: str) -> str:
    """Collapse whitespace runs to one space, and drop spaces next to a CJK character
    (``15216 综采工作面`` → ``15216综采工作面``, ``Q 需`` → ``Q需``)."""
    text = re.sub(r"\s+", " ", normalize(text)).strip()
    return re.sub(rf"(?<=[{CJK}])\s+|\s+(?=[{CJK}])", "", text)


def name_key(name: str) -> str:
    """The comparison key of a location name: normalised, all whitespace and trailing punctuation
    removed. Two spellings of one place have the same key."""
    key = re.sub(r"\s+", "", normalize(name))
    return key.strip(".,;:。、")


_CORE_SUFFIX = re.compile(r"(?:备用)?(?:掘进)?(?:工作面|工作|迎头|面)$")


def location_core(name: str) -> str:
    """The name without generic suffixes (``15220运输顺槽掘进工作面`` → ``15220运输顺槽``), for a
    looser match when names are abbreviated in one document."""
    key = name_key(name)
    core = _CORE_SUFFIX.sub("", key)
    return core or key


def match_name(name: str, candidates: list[str]) -> str | None:
    """The candidate naming the same location as ``name``: equal keys first, then equal cores when
    exactly one candidate has that core. None when nothing (or more than one) matches."""
    key = name_key(name)
    for c in candidates:
        if name_key(c) == key:
            return c
    core = location_core(name)
    hits = [c for c in candidates if location_core(c) == core]
    return hits[0] if len(hits) == 1 else None


def parse_number(cell: str | None) -> float | None:
    """A table cell as a number: ``1132.2``, ``1,200``, ``0.37%`` (→ 0.37); None for dashes, blanks and
    anything that is not a single number."""
    if cell is None:
        return None
    s = re.sub(r"\s+", "", normalize(cell))
    if s in DASHES:
        return None
    s = s.rstrip("%")
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", s):
        s = s.replace(",", "")
    try:
        return float(s)
    except ValueError:
        return None


def operand_value(token: str) -> float:
    """A number token of an expression; ``70%`` → 0.7."""
    t = token.replace(" ", "")
    return float(t[:-1]) / 100.0 if t.endswith("%") else float(t)


def numbers(text: str) -> list[float]:
    """Every number of an expression in order, percentages as fractions (``60 × 70% × 1.0`` →
    [60, 0.7, 1.0])."""
    return [operand_value(m.group(0)) for m in NUM_RE.finditer(normalize(text))]


def normalize_unit(unit: str | None) -> str | None:
    """``m3/min`` → ``m³/min``, ``m2`` → ``m²``; other units as written; None stays None."""
    if not unit:
        return None
    u = re.sub(r"\s+", "", normalize(unit))
    u = re.sub(r"^m[\^]?3", "m³", u)
    u = re.sub(r"^m[\^]?2$", "m²", u)
    return u or None


def unit_after(text: str, pos: int) -> str | None:
    """The unit written right after position ``pos`` (after a number), if any."""
    m = UNIT_RE.match(text, pos)
    return normalize_unit(m.group(1)) if m else None


_ZERO_LOOKALIKES = str.maketrans("ＯO", "〇〇")
"""Letters a scan or a typist puts for 〇 in a year written in Chinese numerals."""
_CN_DATE_RE = re.compile(
    r"([〇零○Ｏ一二三四五六七八九]{4})年([一二三四五六七八九十]{1,3})月([一二三四五六七八九十]{1,3})日"
)
_SHORT_DATE_RE = re.compile(r"(?<![\d年./\-])(\d{1,2})月(\d{1,2})日")
_DATE_FORM = (
    r"\d{4}\s*[年./\-]\s*\d{1,2}\s*[月./\-]\s*\d{1,2}\s*日?"
    r"|(?<![\d年./\-])\d{1,2}\s*月\s*\d{1,2}\s*日"
    r"|[〇零○一二三四五六七八九]{4}\s*年\s*[一二三四五六七八九十]{1,3}\s*月\s*[一二三四五六七八九十]{1,3}\s*日"
)
DATE_TEXT = re.compile(_DATE_FORM)
"""Any written date form :func:`all_dates` reads (for cutting dates out of a text)."""


def _iso(y: int, m: int, d: int) -> str | None:
    try:
        return _dt.date(y, m, d).isoformat()
    except ValueError:
        return None


def all_dates(text: str | None, plan_month: str | None = None) -> list[str]:
    """Every valid date of ``text`` in order, ISO: ``2026年7月25日``, ``2026.7.25``, ``2026-07-25``,
    ``2026/7/25`` (whitespace anywhere), ``二〇二六年七月二十五日``, and ``7月25日`` when the plan's month
    (``YYYY-MM``) is given: the year of the plan month, or the year before for a month more than six
    months after it (a January plan signed 12月25日)."""
    if not text:
        return []
    s = re.sub(r"\s+", "", normalize(text))
    found: list[tuple[int, str | None]] = []
    for m in _DATE_RE.finditer(s):
        found.append((m.start(), _iso(int(m.group(1)), int(m.group(2)), int(m.group(3)))))
    for m in _CN_DATE_RE.finditer(s):
        y = cn_to_int(m.group(1).translate(_ZERO_LOOKALIKES))
        found.append((m.start(), _iso(y, cn_to_int(m.group(2)), cn_to_int(m.group(3)))))
    if plan_month and re.fullmatch(r"\d{4}-\d{2}", plan_month):
        year, month = int(plan_month[:4]), int(plan_month[5:])
        for m in _SHORT_DATE_RE.finditer(s):
            mm = int(m.group(1))
            found.append((m.start(), _iso(year - 1 if mm > month + 6 else year, mm, int(m.group(2)))))
    return [d for _, d in sorted(found) if d]


def parse_date(text: str | None, plan_month: str | None = None) -> str | None:
    """The first date in ``text`` as ISO ``YYYY-MM-DD`` (the forms of :func:`all_dates`); None when
    there is none or it is not a calendar date."""
    dates = all_dates(text, plan_month)
    return dates[0] if dates else None


_CN_DIGITS = {
    "〇": "0",
    "零": "0",
    "一": "1",
    "二": "2",
    "三": "3",
    "四": "4",
    "五": "5",
    "六": "6",
    "七": "7",
    "八": "8",
    "九": "9",
}
_CN_MONTH = re.compile(r"([〇零一二三四五六七八九]{4})\s*年\s*(十[一二]?|[一二三四五六七八九])\s*月")


def _cn_month(m: re.Match[str]) -> str:
    """``二〇二六年九月`` → ``2026年9月`` (a year digit by digit, a month as a numeral up to 十二)."""
    year = "".join(_CN_DIGITS[c] for c in m.group(1))
    month = m.group(2)
    number = (
        10 + (int(_CN_DIGITS[month[1]]) if len(month) > 1 else 0)
        if month[0] == "十"
        else int(_CN_DIGITS[month])
    )
    return f"{year}年{number}月"


def parse_month(text: str) -> str | None:
    """The first ``YYYY 年 M 月`` (or ``YYYY-MM``, or ``二〇二六年九月``) of ``text`` as ``YYYY-MM``."""
    s = _CN_MONTH.sub(_cn_month, normalize(text))
    m = _MONTH_RE.search(s) or re.search(r"(?<!\d)(\d{4})[-./](\d{1,2})(?![\d.\-/])", s)
    if not m or not 1 <= int(m.group(2)) <= 12:
        return None
    return f"{int(m.group(1)):04d}-{int(m.group(2)):02d}"


@dataclass
class Line:
    """One non-blank line of the document, normalised, with its 1-based page."""

    text: str
    page: int
    soft_end: bool = True  # the raw line ended without a space (a wrap inside a word or number)


@dataclass
class TextDoc:
    """The document's lines joined by ``\\n`` with a map from offsets back to pages, so a block of
    text that straddles a page break reads as one and still knows where each figure was."""

    lines: list[Line]
    text: str = ""
    starts: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        pos = 0
        for line in self.lines:
            self.starts.append(pos)
            pos += len(line.text) + 1
        self.text = "\n".join(line.text for line in self.lines)

    def line_at(self, offset: int) -> int:
        """Index of the line holding ``offset``."""
        return max(0, bisect.bisect_right(self.starts, offset) - 1)

    def page_at(self, offset: int) -> int:
        """1-based page of the character at ``offset`` (1 for an empty document)."""
        if not self.lines:
            return 1
        return self.lines[min(self.line_at(offset), len(self.lines) - 1)].page

    def span(self, first_line: int, end_line: int) -> tuple[int, int]:
        """Offsets (start, end) of lines ``first_line`` … ``end_line - 1``."""
        if first_line >= len(self.lines):
            return len(self.text), len(self.text)
        start = self.starts[first_line]
        end = self.starts[end_line] - 1 if end_line < len(self.lines) else len(self.text)
        return start, max(start, end)


def _running_lines(pages: list[list[str]]) -> set[str]:
    """Lines repeated at the head or foot of most pages (running headers and footers)."""
    if len(pages) < 3:
        return set()
    counts: Counter[str] = Counter()
    for lines in pages:
        edge = {re.sub(r"\d+", "#", x) for x in lines[:2] + lines[-2:]}
        counts.update(edge)
    return {x for x, n in counts.items() if n >= max(3, (len(pages) * 2 + 2) // 3)}


_THOUSANDS = re.compile(
    r"(?<![\d.,])\d{1,3}(?:,\d{3})+(?=\.\d|\s*(?:m|立方|万|人|kW|kg|%|℃))"
    rf"|(?<=[{CJK}])\d{{1,3}}(?:,\d{{3}})+(?=\s*$)"
    rf"|(?:(?<=[{CJK}\s×÷=:])|^)[1-9]\d{{0,2}}(?:,\d{{3}})+(?![\d.]|,\d)"
)


def join_thousands(text: str) -> str:
    """Drop thousands separators from numbers written ``1,132.2`` or ``6,075 m³/min`` (a decimal part
    or a unit must follow, or the line end after a CJK label (``能力7,600``, its unit wrapped), so that
    a list ``max(630,152)`` is left alone); or a number after a CJK label, a blank, ``×``/``÷``/``=`` or at
    a line start, in groups of three (``总进风量 6,280，``, ``4×1,200÷60``, ``计划配风1,250（断面…``)."""
    return _THOUSANDS.sub(lambda m: m.group(0).replace(",", ""), text)


def build_doc(extracted: ExtractedPdf) -> TextDoc:
    """The document's lines: normalised, blank lines, page numbers and running headers/footers dropped."""
    raw_pages = [[join_thousands(normalize(x)) for x in p.text.splitlines()] for p in extracted.pages]
    raw_pages = [[x for x in lines if x.strip()] for lines in raw_pages]
    running = _running_lines([[x.strip() for x in lines] for lines in raw_pages])
    out: list[Line] = []
    for page_text, lines in zip(extracted.pages, raw_pages, strict=True):
        for i, raw in enumerate(lines):
            x = raw.strip()
            at_edge = i < 2 or i >= len(lines) - 2
            if at_edge and _PAGE_NO_RE.match(x):
                continue
            if page_text.page > 1 and at_edge and re.sub(r"\d+", "#", x) in running:
                continue
            out.append(Line(text=x, page=page_text.page, soft_end=not raw[-1:].isspace()))
    return TextDoc(out)
