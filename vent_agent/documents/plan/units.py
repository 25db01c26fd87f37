"""Units as plans write them, and the one conversion of flows to m³/min.

Plans write air volumes in m³/min, m³/s or m³/h, in many spellings (``m³/min``, ``m3/min``, ``m^3/s``,
``立方米/分``, ``m³·min⁻¹`` …), in a column header or in the cell itself. :func:`canonical_unit` maps a
spelling to one of the canonical units below; :func:`flow_figure` converts a flow to m³/min once, when
it is read, and keeps the unit as written in ``Figure.unit_written``. Rules never convert again.
"""

from __future__ import annotations

import re

from vent_agent.documents.plan.model import Figure, SourceRef
from vent_agent.documents.plan.text_primitives import DASHES, normalize

M3MIN = "m³/min"
M3S = "m³/s"
M3H = "m³/h"
FLOW_UNITS = {M3MIN: 1.0, M3S: 60.0, M3H: 1.0 / 60.0}
"""Factor from each flow unit to m³/min (1 m³/s = 60 m³/min; 1 m³/h = 1/60 m³/min)."""

_SPELLINGS: list[tuple[str, str]] = [
    (M3MIN, r"m\^?[³3]\s*/\s*min|m\^?[³3]·min[-⁻]1|立方米?\s*/\s*分钟?|方\s*/\s*分钟?|m[³3]\s*/\s*分钟?"),
    (M3S, r"m\^?[³3]\s*/\s*s(?:ec)?|m\^?[³3]·s[-⁻]1|立方米?\s*/\s*秒|方\s*/\s*秒|m[³3]\s*/\s*秒"),
    (
        M3H,
        r"m\^?[³3]\s*/\s*h|m\^?[³3]·h[-⁻]1|立方米?\s*/\s*(?:小?时)|方\s*/\s*(?:小?时)|m[³3]\s*/\s*(?:小?时)",
    ),
    ("m/s", r"m\s*/\s*s|米\s*/\s*秒|m·s[-⁻]1"),
    ("m/min", r"m\s*/\s*min|米\s*/\s*分钟?"),
    ("m/h", r"m\s*/\s*h|米\s*/\s*小?时"),
    ("m²", r"m\^?[²2]|平方米|㎡"),
    ("m³", r"m\^?[³3]|立方米"),
    ("℃", r"℃|°\s*C|摄氏度"),
    ("%", r"%|％"),
    ("kW", r"kW|KW|千瓦"),
    ("kg", r"kg|千克|公斤"),
    ("m", r"m|米"),
]
_UNIT_RES = [
    (u, re.compile(rf"^(?:{p})$", re.IGNORECASE if u not in ("m", "m/s") else 0)) for u, p in _SPELLINGS
]
KNOWN_UNITS = {u for u, _ in _SPELLINGS}
UNIT_TEXT = "|".join(f"(?:{p})" for u, p in _SPELLINGS if u not in ("m", "kW", "kg"))
"""A regex alternative matching any unit spelling that names a flow, a speed, an area, a volume, a
temperature or a percentage (not the bare ``m``)."""


def canonical_unit(text: str | None) -> str | None:
    """The canonical unit of a spelling (``m3/s`` → ``m³/s``, ``立方米/分`` → ``m³/min``, ``m2`` → ``m²``);
    the text itself (spaces removed) when it is no known spelling; None for None or blank."""
    if not text:
        return None
    t = re.sub(r"\s+", "", text).replace("％", "%")
    if not t:
        return None
    for unit, rx in _UNIT_RES:
        if rx.match(t):
            return unit
    return t


_LOST_SUPERSCRIPT = {"m/min": M3MIN, "m/s": M3S, "m/h": M3H, "m": "m²"}


def unit_for(quantity: str, unit: str | None) -> str | None:
    """The unit of a figure of a known quantity (``flow``, ``area`` or other), repairing a superscript
    lost in extraction: in a flow column ``m/s`` can only be m³/s (and ``m/min`` m³/min, ``m/h``
    m³/h); in an area column ``m`` is m². Other units are returned unchanged."""
    if unit is None:
        return None
    if quantity == "flow" and unit in ("m/min", "m/s", "m/h"):
        return _LOST_SUPERSCRIPT[unit]
    if quantity == "area" and unit == "m":
        return "m²"
    return unit


def is_flow(unit: str | None) -> bool:
    """Whether a canonical unit is a flow (m³/min, m³/s, m³/h)."""
    return unit in FLOW_UNITS


def to_m3min(value: float, unit: str | None) -> float:
    """A flow in ``unit`` (canonical; None = already m³/min) as m³/min."""
    return value * FLOW_UNITS.get(unit or M3MIN, 1.0)


def flow_figure(value: float, written: str | None, ref: SourceRef, *, upper: float | None = None) -> Figure:
    """A flow figure in m³/min from a value in the unit ``written`` (any spelling; None: no unit
    written, taken as m³/min and the reading marked ``inferred`` unless it already is less sure)."""
    unit = canonical_unit(written)
    if unit is not None and not is_flow(unit):
        unit = None
    if unit is None and ref.confidence == "exact":
        ref = ref.model_copy(update={"confidence": "inferred"})
    factor = FLOW_UNITS.get(unit or M3MIN, 1.0)
    return Figure(
        value=round(value * factor, 6),
        unit=M3MIN,
        ref=ref,
        unit_written=unit if unit not in (None, M3MIN) else None,
        upper=round(upper * factor, 6) if upper is not None else None,
    )


def read_figure(
    value: float, written: str | None, ref: SourceRef, *, flow: bool = False, upper: float | None = None
) -> Figure:
    """A figure as read: a flow (``flow=True``, or a flow unit written) through :func:`flow_figure`;
    anything else with its unit in canonical spelling (``m2`` → ``m²``)."""
    unit = canonical_unit(written)
    if flow or is_flow(unit):
        return flow_figure(value, written, ref, upper=upper)
    return Figure(value=value, unit=unit, ref=ref, upper=upper)


_QTY_RE = re.compile(
    r"^(?P<a>[+-]?\d+(?:\.\d+)?)(?:(?:~|～|〜|–|—|-|至|到)(?P<b>\d+(?:\.\d+)?))?(?P<unit>[^\d].*)?$"
)


def parse_quantity(cell: str | None) -> tuple[float, float | None, str | None] | None:
    """A cell or token as (value, upper end of a range or None, unit written or None): ``1,200``,
    ``1 200``, ``１２００`` → 1200; ``1.5–1.8`` / ``1.5~1.8`` → (1.5, 1.8); ``1.33m³/s`` → (1.33, None,
    ``m³/s``); ``0.37%`` → (0.37, None, ``%``). None for dashes, blanks, text and several numbers."""
    if cell is None:
        return None
    s = re.sub(r"\s+", "", normalize(cell))
    if s in DASHES:
        return None
    s = re.sub(r"(?<=\d),(?=\d{3}(?:\D|$))", "", s)
    m = _QTY_RE.match(s)
    if not m:
        return None
    unit = m.group("unit")
    if unit is not None:
        unit = unit.strip("()（）")
        if re.search(r"\d", unit) and not re.fullmatch(r"m\^?[²³23].*", unit):
            return None
        if canonical_unit(unit) not in KNOWN_UNITS:
            return None  # trailing text that is no unit: not a figure
    a, b = float(m.group("a")), m.group("b")
    upper = float(b) if b is not None else None
    if upper is not None and upper < a:
        return None
    return a, upper, unit


def infer_column_units(columns: dict[str, list[tuple[Figure, float | None]]]) -> dict[str, str]:
    """Flow columns written without any unit, checked against the plan's own figures: each column is a
    list of (figure read as m³/min, the same location's required air volume from its calculation or
    None). When at least two rows and two thirds of those compared are 60 times too small (or too
    large), the column was written in m³/s (or m³/h). Returns column → unit found."""
    out: dict[str, str] = {}
    for name, pairs in columns.items():
        ratios = [
            ref / fig.value
            for fig, ref in pairs
            if ref and fig.value > 0 and fig.unit_written is None and fig.ref.confidence != "exact"
        ]
        for unit, factor in ((M3S, 60.0), (M3H, 1 / 60.0)):
            near = [r for r in ratios if 0.8 * factor <= r <= 1.25 * factor]
            if len(near) >= 2 and len(near) * 3 >= 2 * len(ratios):
                out[name] = unit
    return out


def convert_figure(fig: Figure, unit: str) -> Figure:
    """A flow figure read as m³/min that was in fact written in ``unit``: converted, ``inferred``."""
    factor = FLOW_UNITS[unit]
    ref = fig.ref.model_copy(update={"confidence": "inferred"})
    upper = round(fig.upper * factor, 6) if fig.upper is not None else None
    return Figure(value=round(fig.value * factor, 6), unit=M3MIN, ref=ref, unit_written=unit, upper=upper)
