"""Number formatting and rounding, as engineers write worked formulas.

Rounding is half-up on the decimal representation (``round_half_up(0.25, 1) == 0.3``), not Python's
banker's rounding. Air volumes are rounded to 0.1 m³/min, areas to 0.001 m², emissions to 0.01 m³/min.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

Q_DECIMALS = 1
AREA_DECIMALS = 3
EMISSION_DECIMALS = 2


def round_half_up(x: float, decimals: int = Q_DECIMALS) -> float:
    """``x`` rounded half-up to ``decimals`` places (``x`` finite)."""
    return float(Decimal(repr(x)).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP))


def num(x: float, decimals: int | None = None, *, min_decimals: int = 0) -> str:
    """``x`` as written in a worked formula.

    With ``decimals``: fixed (``num(4.2, 2) == "4.20"``). Without: the shortest form up to six decimals,
    padded to ``min_decimals`` (``num(800) == "800"``, ``num(1.0, min_decimals=1) == "1.0"``).
    """
    if decimals is not None:
        return f"{round_half_up(x, decimals):.{decimals}f}"
    text = f"{x:.6f}".rstrip("0").rstrip(".")
    if text == "-0":
        text = "0"
    if min_decimals:
        whole, _, frac = text.partition(".")
        text = f"{whole}.{frac.ljust(min_decimals, '0')}"
    return text


def coef(x: float) -> str:
    """A coefficient or a speed: at least one decimal (``1.5``, ``1.35``, ``1.0``, ``0.25``)."""
    return num(x, min_decimals=1)


def q(x: float) -> str:
    """An air volume in m³/min, one decimal (``1132.2``)."""
    return num(x, Q_DECIMALS)


def emission(x: float) -> str:
    """A gas emission in m³/min, two decimals (``4.20``)."""
    return num(x, EMISSION_DECIMALS)


def area(x: float) -> str:
    """A derived area in m², three decimals (``16.640``)."""
    return num(x, AREA_DECIMALS)


def span(lo: float, hi: float) -> str:
    """A range ``lo–hi`` (``1.2–1.6``), or one value when both ends are equal."""
    return coef(lo) if lo == hi else f"{coef(lo)}–{coef(hi)}"
