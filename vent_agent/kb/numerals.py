"""Article numbers of 《煤矿安全规程》 in every form they are written: ``第一百五十七条`` (Chinese numerals),
``第157条``, ``157条``, ``article 157``, lists and ranges (``第192、193条``, ``第177–178条``,
``第一百九十二条、第一百九十三条和第一百九十四条``) and an edition in front (``2016版第136条``,
``《煤矿安全规程》（2022年修订）第一百三十六条``).

Pure functions, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_DIGITS = {
    "零": 0,
    "〇": 0,
    "○": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_UNITS = {"十": 10, "百": 100, "千": 1000}
CN_NUM = "零〇○一二两三四五六七八九十百千"
_SMALL = "零一二三四五六七八九"

# One number: Arabic (ASCII or full-width) or Chinese numerals.
NUM = rf"(?:[0-9０-９]+|[{CN_NUM}]+)"
_SEP = r"\s*(?:、|，|,|和|及|与|或者|或|至|到|~|～|－|-|–|—)\s*"
_RANGE_SEP = {"至", "到", "~", "～", "－", "-", "–", "—"}
# An edition written before an article: 2016版 / 2016年版 / （2022年修订） / 2025 edition.
EDITION = r"(?P<ed>(?:19|20)\d{2})\s*(?:年)?\s*(?:版|修订版|修订|修正|edition)"
# 第N条 with optional list/range continuations (each item with or without its own 第/条).
ARTICLE_RUN = re.compile(
    rf"第\s*(?P<first>{NUM})\s*(?:条)?(?P<rest>(?:{_SEP}(?:第\s*)?{NUM}\s*(?:条)?)*)"
    rf"(?<=条)"
)
_BARE = re.compile(r"(?<![0-9０-９.\-])(?P<n>[0-9０-９]{1,4})\s*条")
_ENGLISH = re.compile(r"(?<![A-Za-z])(?:article|art\.?)\s*(?P<n>\d{1,4})(?!\d)", re.IGNORECASE)
_EDITION_RE = re.compile(EDITION)


def cn_to_int(text: str) -> int:
    """Chinese (or Arabic, also full-width) numerals to an int: ``一百五十七`` → 157, ``十二`` → 12,
    ``一百零五`` → 105, ``一五七`` → 157 (digit by digit), ``１５７`` → 157.

    Raises ValueError for an empty string or a character that is not a numeral.
    """
    s = text.strip().translate(str.maketrans("０１２３４５６７８９", "0123456789"))
    if not s:
        raise ValueError("empty numeral")
    if s.isdigit():
        return int(s)
    if any(c not in _DIGITS and c not in _UNITS for c in s):
        raise ValueError(f"not a numeral: {text!r}")
    if not any(c in _UNITS for c in s):  # digit by digit: 一五七
        return int("".join(str(_DIGITS[c]) for c in s))
    total, digit = 0, None
    for c in s:
        if c in _DIGITS:
            digit = _DIGITS[c]
        else:
            total += (1 if digit is None else digit) * _UNITS[c]
            digit = None
    return total + (digit or 0)


def int_to_cn(n: int) -> str:
    """An int 0–9999 in Chinese numerals as the regulation writes article numbers: 157 → ``一百五十七``,
    10 → ``十``, 105 → ``一百零五``, 110 → ``一百一十``. Raises ValueError outside 0–9999."""
    if not 0 <= n <= 9999:
        raise ValueError(f"out of range: {n}")
    if n == 0:
        return "零"
    parts: list[str] = []
    zero = False
    for value, unit in ((1000, "千"), (100, "百"), (10, "十"), (1, "")):
        d = n // value % 10
        if d == 0:
            zero = bool(parts)
            continue
        if zero:
            parts.append("零")
            zero = False
        parts.append(_SMALL[d] + unit)
    out = "".join(parts)
    return out[1:] if out.startswith("一十") else out


def article_heading(n: int) -> str:
    """``第一百五十七条`` for 157."""
    return f"第{int_to_cn(n)}条"


@dataclass(frozen=True)
class ArticleRef:
    """An article reference found in a text: the numbers it names (a range expanded), the edition
    written with it (``"2016"``, ``"2022"``… as written; None when none), and its span."""

    numbers: tuple[int, ...]
    edition: str | None
    start: int
    end: int
    text: str


def _numbers(match_text: str) -> list[int]:
    """The numbers of one 第…条 run, a range (``177–178``) expanded (at most 20 wide)."""
    tokens = re.findall(rf"{NUM}|{_SEP}", match_text)
    out: list[int] = []
    pending_range = False
    for tok in tokens:
        t = tok.strip()
        if t in _RANGE_SEP:
            pending_range = True
            continue
        try:
            n = cn_to_int(t)
        except ValueError:
            pending_range = False
            continue
        if pending_range and out and 0 < n - out[-1] <= 20:
            out.extend(range(out[-1] + 1, n + 1))
        else:
            out.append(n)
        pending_range = False
    return list(dict.fromkeys(out))


def _edition_before(text: str, start: int, window: int = 24) -> str | None:
    """An edition written just before ``start`` (``2016版``, ``（2022年修订）``), in the same sentence."""
    head = text[max(0, start - window) : start]
    head = re.split(r"[。；;！？\n]", head)[-1]
    found = list(_EDITION_RE.finditer(head))
    return found[-1].group("ed") if found else None


def find_article_refs(text: str, *, bare: bool = False, english: bool = False) -> list[ArticleRef]:
    """Every ``第N条`` reference in ``text`` (Chinese or Arabic numerals, lists and ranges), with the
    edition written just before it. ``bare``: also ``157条`` without 第; ``english``: also
    ``article 157`` / ``art. 157``. In text order; spans do not overlap."""
    refs: list[ArticleRef] = []
    taken: list[tuple[int, int]] = []
    for m in ARTICLE_RUN.finditer(text):
        nums = _numbers(m.group(0))
        if nums:
            refs.append(
                ArticleRef(tuple(nums), _edition_before(text, m.start()), m.start(), m.end(), m.group(0))
            )
            taken.append(m.span())
    extra = ([_BARE] if bare else []) + ([_ENGLISH] if english else [])
    for rx in extra:
        for m in rx.finditer(text):
            if any(a <= m.start() < b for a, b in taken):
                continue
            n = cn_to_int(m.group("n"))
            refs.append(ArticleRef((n,), _edition_before(text, m.start()), m.start(), m.end(), m.group(0)))
            taken.append(m.span())
    return sorted(refs, key=lambda r: r.start)
