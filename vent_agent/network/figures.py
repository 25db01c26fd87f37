"""How the network's texts write their figures (the what-if's findings, a clicked device's 调整影响): an air
volume in whole m³/min and a wind speed to two decimals, as the console and the monitoring texts write them
(:data:`~vent_agent.upstream.models.QUANTITY_DIGITS`), except where the figure so rounded would contradict
the verdict it stands in: a figure compared with a limit is written with as many more decimals as it takes
to stand on the limit's side it is on (a wind speed of 0.248 m/s below 0.25 m/s is ``0.248``, not ``0.25``),
and a flow judged reversed keeps its sign (−0.3 m³/min is ``-0.3``, not ``-0``)."""

from __future__ import annotations

from vent_agent.upstream.models import QUANTITY_DIGITS

AIR_DIGITS = QUANTITY_DIGITS["air_volume"]
"""Decimals of an air volume in m³/min (0: ``1573``)."""
SPEED_DIGITS = QUANTITY_DIGITS["wind_speed"]
"""Decimals of a wind speed in m/s (2: ``0.24``)."""
EXTRA_DIGITS = 6
"""At most this many decimals more than the quantity's, to set a figure apart from its limit (a figure
closer to it than that is written at the finest of them)."""


def _side(x: float, limit: float) -> int:
    return (x > limit) - (x < limit)


def beside(value: float, limit: float, digits: int) -> str:
    """``value`` at ``digits`` decimals, or at the fewest more (up to :data:`EXTRA_DIGITS` more) at which
    the written figure stands on the same side of ``limit`` as ``value`` does, or equals it when ``value``
    does: ``beside(0.2483, 0.25, 2)`` → ``"0.248"``, ``beside(0.2, 0.25, 2)`` → ``"0.20"``,
    ``beside(-0.3, 0, 0)`` → ``"-0.3"``; a value closer to the limit than the finest of them is taken as
    on it (at ``digits``). Never a negative zero."""
    side = _side(value, limit)
    for more in range(digits, digits + EXTRA_DIGITS + 1):
        text = f"{value:.{more}f}"
        if _side(float(text), limit) == side:
            return _unsigned_zero(text)
    return _unsigned_zero(f"{value:.{digits}f}")


def _unsigned_zero(text: str) -> str:
    return text.removeprefix("-") if float(text) == 0 else text


def air(q_m3min: float, limit: float | None = None) -> str:
    """An air volume (m³/min) in whole m³/min, or, compared with ``limit`` (m³/min), with the decimals it
    takes to stand on its side of it (:func:`beside`): ``air(1203.94)`` → ``"1204"``, ``air(-0.3, 0)`` →
    ``"-0.3"``. Never a negative zero."""
    if limit is not None:
        return beside(q_m3min, limit, AIR_DIGITS)
    return _unsigned_zero(f"{q_m3min:.{AIR_DIGITS}f}")


def speed(v: float, limit: float) -> str:
    """A wind speed (m/s) compared with ``limit`` (m/s): two decimals, more where those would put it on
    the limit (:func:`beside`): ``speed(0.2483, 0.25)`` → ``"0.248"``."""
    return beside(v, limit, SPEED_DIGITS)


def air_change(before: str, after: str) -> str:
    """The change between two written air volumes, from the figures as written (so that it is their
    difference), signed, at the finer of their decimals: ``air_change("1204", "1573")`` → ``"+369"``."""
    digits = max(_decimals(before), _decimals(after))
    delta = round(float(after) - float(before), digits)
    text = f"{delta:+.{digits}f}"
    return "0" if float(text) == 0 else text


def _decimals(text: str) -> int:
    return len(text.partition(".")[2])
