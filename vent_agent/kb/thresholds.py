"""Regulation thresholds of 《煤矿安全规程》 as data, keyed by edition (docs/DOMAIN.md §3).

The data lives in ``vent_agent/data/thresholds.json``:

- ``wind_speed``: 表6 of 第157条 (井巷中的允许风流速度) row by row, as the table prints it (row label,
  minimum and maximum in m/s, ``null`` where the table leaves the cell empty), plus the table's notes
  (ladder shafts, gas-free trolley roadways, dust-suppressed fully mechanised faces) as variants;
- ``thresholds``: every other limit (air composition 第156条, intake temperature 第158条, air per person
  and per kW 第159条, series ventilation 第169条, main and auxiliary fans 第177/178/183/184条, gas
  第192/193/194/197条, and two provisions the shipped 2025 text lacks: the 2016 edition's 第172条 (main
  return 0.75 %) and 第655条 (heat));
- ``article_map``: the 2025 ↔ 2016 article numbers (docs/DOMAIN.md §3). Each record gives its article in one
  edition; the loader derives the other edition's number from the map, so ``ThresholdTable.load("2016")``
  carries the same limits with the 2016 numbers (:mod:`vent_agent.kb.aliases` serves the same map to the
  knowledge base);
- ``edition_aliases``: other names of an edition (``"2022"``, the 2022 amendment of the 2016 edition,
  numbers its articles as 2016 does), accepted wherever an edition is given.

Every threshold writes its comparison out: ``breach_op`` is the comparison under which a measured value
is in breach (“达到1.0%” → ``">="`` 1.0; a minimum wind speed 0.25 m/s → ``"<"`` 0.25; “不超过0.5%” →
``">"`` 0.5). ``warn_at`` is an optional early-warning value under the same comparison (*practice*: a
mine may override it).
"""

from __future__ import annotations

import json
import operator
from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from vent_agent.review.findings import Severity

BreachOp = Literal[">=", ">", "<=", "<"]

DATA_PATH = Path(__file__).resolve().parent.parent / "data" / "thresholds.json"
WIND_SPEED = "wind_speed"
REGULATION_TITLE = "《煤矿安全规程》"

_OPS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    ">": operator.gt,
    "<=": operator.le,
    "<": operator.lt,
}
# The allowed side of each breach comparison, as an engineer writes it in a limit column.
_ALLOWED: dict[str, str] = {">=": "<", ">": "≤", "<=": ">", "<": "≥"}
OP_SYMBOLS: dict[str, str] = {">=": "≥", ">": ">", "<=": "≤", "<": "<"}


def op_holds(value: float, op: BreachOp, limit: float) -> bool:
    """True when ``value <op> limit`` (e.g. ``op_holds(1.0, ">=", 1.0)`` is True)."""
    return _OPS[op](value, limit)


def is_upper_limit(op: BreachOp) -> bool:
    """True for a maximum (breach above: ``>``/``>=``), False for a minimum (breach below)."""
    return op in (">", ">=")


def allowed_text(op: BreachOp, limit: float, unit: str = "") -> str:
    """The allowed side as text: breach ``">="`` 1.0 % → ``"< 1.0 %"``; breach ``"<"`` 0.25 → ``"≥ 0.25 m/s"``."""
    return f"{_ALLOWED[op]} {fmt_number(limit, unit)} {unit}".rstrip()


def breach_text(op: BreachOp, limit: float, unit: str = "") -> str:
    """The breach condition as text: ``">="`` 1.0 % → ``"≥ 1.0 %"``."""
    return f"{OP_SYMBOLS[op]} {fmt_number(limit, unit)} {unit}".rstrip()


def fmt_number(x: float, unit: str = "") -> str:
    """A figure as the regulation writes it: ``6.0`` → ``6``, ``0.25`` → ``0.25``; whole percentages
    below 10 keep one decimal (``1.0`` %, as in “达到1.0%”)."""
    if unit == "%" and float(x).is_integer() and abs(x) < 10:
        return f"{x:.1f}"
    return f"{x:g}"


class Threshold(BaseModel):
    """One limit of the regulation in one edition.

    - ``key``: edition-independent identifier (``ch4_return_stop``, ``wind_speed.min.district_roadway``);
    - ``quantity``: glossary name of what is measured (``wind_speed`` m/s, ``ch4``/``co2``/``o2`` %,
      ``co`` ppm, ``temperature`` °C, ``air_per_person`` m³/min per person, ``air_per_kw`` m³/min per kW,
      ``running`` 1/0, …);
    - ``applies_to``: the roadway / location classes or device kinds it applies to (表6 row label, its
      id and its parts for wind speeds; ``采掘工作面回风巷``, ``机电设备硐室``, ``主要通风机`` …);
    - ``limit`` in ``unit``; ``breach_op``: a measured ``value`` is in breach when ``value breach_op limit``;
    - ``warn_at``: optional early-warning value under the same comparison (practice);
    - ``action``: what the regulation requires when breached (Chinese); ``severity`` as in docs/DOMAIN.md §5;
    - ``edition``, ``article`` (number in that edition, None when the edition's text has no number for the
      provision), ``article_aliases`` (the same provision's number in ``alias_edition``);
    - ``clause``: excerpt of the article text; ``table_row``: the 表6 row label for wind speeds.
    """

    model_config = ConfigDict(frozen=True)

    key: str
    quantity: str
    applies_to: tuple[str, ...]
    limit: float
    unit: str
    breach_op: BreachOp
    warn_at: float | None = None
    action: str
    severity: Severity
    edition: str
    article: int | None
    article_aliases: tuple[int, ...] = ()
    alias_edition: str | None = None
    clause: str = ""
    table_row: str | None = None
    note: str = ""

    def breached(self, value: float) -> bool:
        """True when ``value`` is in breach of this limit (``value breach_op limit``)."""
        return op_holds(value, self.breach_op, self.limit)

    def warned(self, value: float) -> bool:
        """True when ``value`` has crossed ``warn_at`` (same comparison) without being in breach."""
        return (
            self.warn_at is not None
            and op_holds(value, self.breach_op, self.warn_at)
            and not self.breached(value)
        )

    @property
    def is_upper(self) -> bool:
        """True for a maximum, False for a minimum."""
        return is_upper_limit(self.breach_op)

    def allowed_text(self) -> str:
        """The allowed side as text, e.g. ``"< 1.0 %"`` or ``"≥ 0.25 m/s"``."""
        return allowed_text(self.breach_op, self.limit, self.unit)

    def article_label(self) -> str:
        """``《煤矿安全规程》（2025版）第157条``; for a provision the edition's text does not number, the
        other edition's number with that edition (``《煤矿安全规程》（2016版）第655条``)."""
        if self.article is not None:
            return article_label(self.edition, self.article)
        if self.alias_edition and self.article_aliases:
            return article_label(self.alias_edition, self.article_aliases[0])
        return f"{REGULATION_TITLE}（{self.edition}版）"


def article_label(edition: str, article: int | None = None) -> str:
    """``《煤矿安全规程》（2025版）第157条`` (without ``article``: ``《煤矿安全规程》（2025版）``)."""
    base = f"{REGULATION_TITLE}（{edition}版）"
    return base if article is None else f"{base}第{article}条"


class ThresholdTable:
    """All thresholds of one edition, with look-ups by key, quantity and class.

    Build with :meth:`load` (cached per edition and path). Raises ``ValueError`` for an unknown edition.
    """

    def __init__(
        self, edition: str, label: str, note: str, thresholds: Iterable[Threshold], aliases: dict[int, int]
    ):
        self.edition = edition
        self.label = label
        self.note = note
        self.thresholds: tuple[Threshold, ...] = tuple(thresholds)
        self._by_key = {t.key: t for t in self.thresholds}
        self._aliases = aliases  # number in the other edition -> number in this edition

    # -- construction ---------------------------------------------------------------------------------

    @classmethod
    def load(cls, edition: str | None = None, path: Path | None = None) -> ThresholdTable:
        """The table of ``edition`` (default: the data's default, ``"2025"``; an alias such as ``"2022"``
        gives the edition it names, ``"2016"``) from ``path`` (default: the shipped ``thresholds.json``).
        Raises ``ValueError`` when the edition is not in the data."""
        path = path or DATA_PATH
        if edition is not None:
            edition = _read(path).get("edition_aliases", {}).get(edition, edition)
        return _load(edition, path)

    @staticmethod
    def editions(path: Path | None = None) -> list[str]:
        """The editions the data provides (``["2025", "2016"]``)."""
        return list(_read(path or DATA_PATH)["editions"])

    # -- look-ups -------------------------------------------------------------------------------------

    def get(self, key: str) -> Threshold:
        """The threshold with ``key``; raises ``KeyError`` when there is none."""
        return self._by_key[key]

    def lookup(self, quantity: str, applies_to: str | None = None) -> list[Threshold]:
        """Thresholds of ``quantity`` applying to the class ``applies_to`` (all classes when None), most
        restrictive first (lowest maximum, highest minimum)."""
        found = [
            t
            for t in self.thresholds
            if t.quantity == quantity and (applies_to is None or applies_to in t.applies_to)
        ]
        return sorted(found, key=lambda t: (not t.is_upper, t.limit if t.is_upper else -t.limit))

    def for_class(self, applies_to: str) -> list[Threshold]:
        """Every threshold applying to ``applies_to`` (any quantity), in data order."""
        return [t for t in self.thresholds if applies_to in t.applies_to]

    def wind_speed_limits(self, roadway_class: str) -> tuple[Threshold | None, Threshold | None]:
        """(minimum, maximum) wind-speed thresholds of a 表6 class (m/s); either may be None where the
        table sets no bound. Raises ``KeyError`` for a class the table does not know."""
        found = self.lookup(WIND_SPEED, roadway_class)
        if not found:
            raise KeyError(f"unknown roadway class for 表6: {roadway_class!r}")
        lower = next((t for t in found if not t.is_upper), None)
        upper = next((t for t in found if t.is_upper), None)
        return lower, upper

    def roadway_classes(self) -> list[str]:
        """Every class name (and row id) the wind-speed table knows, in table order."""
        seen: dict[str, None] = {}
        for t in self.thresholds:
            if t.quantity == WIND_SPEED:
                seen.update(dict.fromkeys(t.applies_to))
        return list(seen)

    def wind_speed_rows(self) -> list[tuple[str, float | None, float | None]]:
        """表6 as (row label, minimum, maximum) in table order (m/s; None for an empty cell)."""
        rows: dict[str, list[float | None]] = {}
        for t in self.thresholds:
            if t.quantity == WIND_SPEED and t.table_row:
                bounds = rows.setdefault(t.table_row, [None, None])
                bounds[1 if t.is_upper else 0] = t.limit
        return [(row, lo, hi) for row, (lo, hi) in rows.items()]

    # -- articles -------------------------------------------------------------------------------------

    def article_label(self, article: int | None = None) -> str:
        """``《煤矿安全规程》（2025版）第157条`` for this edition (without ``article``: the edition alone)."""
        return article_label(self.edition, article)

    def resolve_article(self, number: int) -> int | None:
        """This edition's number for an article given in either edition (an alias is accepted); None when
        the number is neither this edition's (as used by a threshold) nor a known alias."""
        if any(t.article == number for t in self.thresholds):
            return number
        return self._aliases.get(number)


# -- loading ------------------------------------------------------------------------------------------


@lru_cache(maxsize=8)
def _read(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


@lru_cache(maxsize=8)
def _load(edition: str | None, path: Path) -> ThresholdTable:
    data = _read(path)
    edition = edition or data["default_edition"]
    if edition not in data["editions"]:
        raise ValueError(f"unknown regulation edition {edition!r}; known: {', '.join(data['editions'])}")
    amap = data["article_map"]
    forward = {int(a): int(b) for a, b in amap["pairs"]}  # amap["from"] -> amap["to"]
    numbers = {amap["from"]: forward, amap["to"]: {b: a for a, b in forward.items()}}

    def articles(given: dict[str, int]) -> dict[str, int]:
        """Complete ``{edition: number}`` through the article map."""
        out = {ed: int(n) for ed, n in given.items()}
        for ed, n in list(out.items()):
            other = amap["to"] if ed == amap["from"] else amap["from"]
            if other not in out and n in numbers[ed]:
                out[other] = numbers[ed][n]
        return out

    def make(rec: dict[str, Any]) -> Threshold:
        nums = articles(rec["article"])
        others = {ed: n for ed, n in nums.items() if ed != edition}
        alias_edition = next(iter(others), None)
        fields = {k: v for k, v in rec.items() if k != "article"}
        return Threshold(
            **fields,
            edition=edition,
            article=nums.get(edition),
            article_aliases=tuple(others.values()),
            alias_edition=alias_edition,
        )

    records = [*_wind_speed_records(data["wind_speed"]), *data["thresholds"]]
    thresholds = [make(rec) for rec in records]
    keys = [t.key for t in thresholds]
    if len(keys) != len(set(keys)):
        raise ValueError("duplicate threshold keys in thresholds data")
    info = data["editions"][edition]
    other_numbers = numbers.get(edition, {})
    aliases = {other: own for own, other in other_numbers.items()}
    return ThresholdTable(edition, info["label"], info.get("note", ""), thresholds, aliases)


def _wind_speed_records(ws: dict[str, Any]) -> list[dict[str, Any]]:
    """Expand 表6 rows and variants into one record per bound (min → ``"<"``, max → ``">"``)."""
    margin = float(ws.get("warn_margin", 0.0))
    out: list[dict[str, Any]] = []
    for row in [*ws["rows"], *ws["variants"]]:
        label = row.get("row")
        applies = tuple(dict.fromkeys([*([label] if label else []), row["id"], *row["classes"]]))
        for bound, op, factor in (("min", "<", 1 + margin), ("max", ">", 1 - margin)):
            limit = row.get(bound)
            if limit is None:
                continue
            clause = row.get("clause") or _table6_clause(label, row.get("min"), row.get("max"))
            if row.get("footnote"):
                clause += f"（注：{row['footnote']}）"
            out.append(
                {
                    "key": f"{WIND_SPEED}.{bound}.{row['id']}",
                    "quantity": WIND_SPEED,
                    "applies_to": applies,
                    "limit": limit,
                    "unit": "m/s",
                    "breach_op": op,
                    "warn_at": round(limit * factor, 3) if margin else None,
                    "action": ws["action_min" if bound == "min" else "action_max"],
                    "severity": ws["severity"],
                    "article": ws["article"],
                    "clause": clause,
                    "table_row": label,
                    "note": "" if label else "表6注",
                }
            )
    return out


def _table6_clause(row: str, lo: float | None, hi: float | None) -> str:
    lo_text = f"最低{fmt_number(lo)}m/s" if lo is not None else "最低—"
    hi_text = f"最高{fmt_number(hi)}m/s" if hi is not None else "最高—"
    return f"表6 井巷中的允许风流速度：{row}，{lo_text}，{hi_text}。"
