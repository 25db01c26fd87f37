"""Figures with units in a text, and the figures an article of the regulation states, so that a number
quoted next to a citation can be checked against the clause (e.g. "采煤工作面最高允许风速 4 m/s" against
the row 采煤工作面、掘进中的煤巷和半煤岩巷 of 表6, 第157条).

Units read: m/s, m³/min, m³, m, min, h, d, %, ppm, °C, kW (also ``m3/min``, ``米/秒``, ``℃``, ``％``);
ppm and % are one quantity (1 % = 10 000 ppm).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vent_agent.kb.regulation_tables import RegTable
from vent_agent.kb.regulations import Article

_UNIT_ALIASES = {
    "m/s": "m/s",
    "米/秒": "m/s",
    "m³/min": "m³/min",
    "m3/min": "m³/min",
    "立方米/分钟": "m³/min",
    "m³": "m³",
    "m3": "m³",
    "立方米": "m³",
    "%": "%",
    "％": "%",
    "ppm": "ppm",
    "℃": "°C",
    "°C": "°C",
    "°c": "°C",
    "度": "°C",
    "kW": "kW",
    "kw": "kW",
    "千瓦": "kW",
    "min": "min",
    "分钟": "min",
    "m": "m",
    "米": "m",
    "h": "h",
    "小时": "h",
    "天": "d",
    "d": "d",
}
_UNIT_RX = (
    r"m/s|米/秒|m³/min|m3/min|立方米/分钟|m³|m3|立方米|ppm|%|％|℃|°C|°c|kW|kw|千瓦|min|分钟|小时|天"
    r"|m(?![a-zA-Z³3/])|米(?!/)"
)
NUMBER = r"\d+(?:\.\d+)?"
QUANTITY = re.compile(
    rf"(?<![\d.])(?P<a>{NUMBER})\s*(?:(?P<ua>{_UNIT_RX})\s*)?"
    rf"(?:(?:[~～\-–—]|至|到)\s*(?P<b>{NUMBER})\s*)?(?P<unit>{_UNIT_RX})"
)
# Words before a figure that make it a measured or computed value, not one quoted from a clause.
MEASURED_CUES = (
    "实测",
    "测得",
    "当前",
    "目前",
    "现为",
    "监测",
    "读数",
    "实际",
    "计算",
    "设计",
    "配风",
    "测点",
    "平均",
    "记录",
)
# Words before a figure that make it a limit quoted from a clause.
LIMIT_CUES = (
    "规定",
    "允许",
    "不得",
    "不超过",
    "不低于",
    "不小于",
    "不大于",
    "最高",
    "最低",
    "上限",
    "下限",
    "限值",
    "应",
    "须",
    "达到",
    "超过",
    "低于",
    "以上",
    "以下",
    "以内",
    "范围",
    "要求",
)
# Words that pick a column of a limit table (表6: 最低 / 最高).
COLUMN_CUES = {
    "最高": ("最高", "最大", "上限", "不得超过", "不超过", "不大于", "超过"),
    "最低": ("最低", "最小", "下限", "不得低于", "不低于", "不小于", "低于"),
}


@dataclass(frozen=True)
class Quantity:
    """A figure as written: ``value`` in ``unit`` (normalised: ``m/s``, ``%``…), its span; a range
    ``0.25~4 m/s`` gives two quantities."""

    value: float
    unit: str
    start: int
    end: int
    text: str


def unit_of(text: str) -> str:
    """The normalised unit of a spelling (``m3/min`` → ``m³/min``); unknown spellings unchanged."""
    return _UNIT_ALIASES.get(text, _UNIT_ALIASES.get(text.lower(), text))


def find_quantities(text: str) -> list[Quantity]:
    """Every figure with a unit in ``text``, in order (both ends of a range)."""
    out: list[Quantity] = []
    for m in QUANTITY.finditer(text):
        unit = unit_of(m.group("unit"))
        out.append(
            Quantity(
                float(m.group("a")),
                unit_of(m.group("ua")) if m.group("ua") else unit,
                m.start("a"),
                m.end("a"),
                m.group(0),
            )
        )
        if m.group("b"):
            out.append(Quantity(float(m.group("b")), unit, m.start("b"), m.end("b"), m.group(0)))
    return out


def same_value(a: float, unit_a: str, b: float, unit_b: str) -> bool:
    """True when two figures are equal, ppm and % converted (24 ppm = 0.0024 %)."""
    if unit_a == unit_b:
        return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))
    if {unit_a, unit_b} == {"ppm", "%"}:
        pa = a if unit_a == "ppm" else a * 10000
        pb = b if unit_b == "ppm" else b * 10000
        return abs(pa - pb) <= 1e-6 * max(1.0, abs(pa))
    return False


def _comparable(unit_a: str, unit_b: str) -> bool:
    return unit_a == unit_b or {unit_a, unit_b} == {"ppm", "%"}


@dataclass(frozen=True)
class Stated:
    """A figure an article states: ``value`` in ``unit``; ``where``: the paragraph or the row's text;
    ``row``/``column``: the table cell it comes from (None for a paragraph)."""

    value: float
    unit: str
    where: str
    row: str | None = None
    column: str | None = None


def article_figures(article: Article) -> list[Stated]:
    """Every figure with a unit the article states: in its paragraphs, and in its tables (the unit of a
    cell from its column header)."""
    out: list[Stated] = []
    for p in article.paragraphs:
        prev = 0
        for q in find_quantities(p):
            out.append(Stated(q.value, q.unit, p, column=column_cue(p[prev : q.start])))
            prev = q.end
    for table in article.tables:
        for r, row in enumerate(table.rows):
            for c in range(1, len(table.columns)):
                v = table.value(r, c)
                unit = table.units[c] if c < len(table.units) else None
                if v is not None and unit:
                    out.append(Stated(v, unit, table.row_text(r), row[0], table.columns[c]))
    return out


def row_names(table: RegTable, row: int) -> list[str]:
    """The names a row label stands for, for finding it in a text: the label, its coordinated parts
    (``采煤工作面``; ``采区进、回风巷`` → ``采区进风巷``, ``采区回风巷``) and ``…进风的井筒`` as ``…进风井``;
    parts shorter than 3 characters are left out (too ambiguous; a whole label such as ``风桥`` is kept)."""
    label = table.rows[row][0]
    spelled = re.sub(r"([\u4e00-\u9fff]{0,4}?)进、回(风[巷井])", r"\1进\2、\1回\2", label)
    names = [label, spelled, *re.split(r"[、，,和及与]", spelled)]
    names += [re.sub(r"([进回])风的井筒", r"\1风井", n) for n in names]
    return [n for n in dict.fromkeys(x.strip() for x in names) if len(n) >= 3 or n == label]


def matching_rows(article: Article, text: str) -> tuple[list[tuple[RegTable, int]], list[str]]:
    """The table rows of ``article`` whose name appears in ``text``, and the names found: those with the
    longest name found (``总回风巷`` picks 总进风巷和总回风巷, not a row named only 回风巷); none when no
    name appears."""
    best: list[tuple[RegTable, int]] = []
    names: list[str] = []
    best_len = 0
    for table in article.tables:
        for r in range(len(table.rows)):
            found = [n for n in row_names(table, r) if n in text]
            if not found:
                continue
            longest = max(found, key=len)
            if len(longest) > best_len:
                best, names, best_len = [(table, r)], [longest], len(longest)
            elif len(longest) == best_len:
                best.append((table, r))
                names.append(longest)
    return best, names


def column_cue(text_before: str) -> str | None:
    """The table column the words just before a figure point to (``最高``/``最低``), or None."""
    found: list[tuple[int, str]] = []
    for column, cues in COLUMN_CUES.items():
        for cue in cues:
            pos = text_before.rfind(cue)
            if pos >= 0:
                found.append((pos + len(cue), column))
    return max(found)[1] if found else None


def is_measured(text_before: str) -> bool:
    """True when the words before a figure make it a measured or computed value (the last cue wins)."""
    last_measured = max((text_before.rfind(c) for c in MEASURED_CUES), default=-1)
    last_limit = max((text_before.rfind(c) for c in LIMIT_CUES), default=-1)
    return last_measured >= 0 and last_measured > last_limit


@dataclass(frozen=True)
class FigureCheck:
    """A quoted figure not stated by the clause: the ``quantity``, the figures the clause gives for it
    (``expected``, same unit) and ``scope`` (the 表6 row and column it was checked against, or the article)."""

    quantity: Quantity
    expected: tuple[float, ...]
    scope: str


def check_figures(article: Article, text: str) -> list[FigureCheck]:
    """The figures quoted in ``text`` (the words around a citation of ``article``) that the article does
    not state. A figure is checked only when it is quoted as a limit (not measured or computed, see
    :func:`is_measured`) and the article states figures in that unit; when ``text`` names a row of the
    article's table, against that row (and the column its words point to) and the paragraphs that name
    the same place."""
    stated = article_figures(article)
    rows, names = matching_rows(article, text)
    out: list[FigureCheck] = []
    prev_end = 0
    for q in find_quantities(text):
        before = text[prev_end : q.start]
        prev_end = q.end
        if is_measured(before) or not any(_comparable(s.unit, q.unit) for s in stated):
            continue
        pool = stated
        scope = article.label
        if rows:
            labels = {t.rows[r][0] for t, r in rows}
            column = column_cue(before)
            fits = [s for s in stated if column is None or s.column in (column, None)]
            in_rows = [s for s in fits if s.row in labels]
            in_text = [s for s in fits if s.row is None and any(n in s.where for n in names)]
            if in_rows:
                pool = in_rows + in_text
                scope = f"{article.label} {rows[0][0].label}“{'、'.join(sorted(labels))}”" + (
                    f"（{column}）" if column else ""
                )
        candidates = [s for s in pool if _comparable(s.unit, q.unit)]
        if not candidates:
            continue
        if not any(same_value(q.value, q.unit, s.value, s.unit) for s in candidates):
            expected = tuple(
                sorted({s.value for s in candidates if s.unit == q.unit} or {s.value for s in candidates})
            )
            out.append(FigureCheck(q, expected, scope))
    return out
