"""Unit helpers: m³/s ↔ m³/min, and air volume ↔ wind speed over a section.

Plans write air volumes in m³/min; some tables and instruments give m³/s (1 m³/s = 60 m³/min).
Every helper raises :class:`calc.errors.CalcInputError` for a negative, non-finite or non-numeric input
(and for a non-positive area).
"""

from __future__ import annotations

from calc.validate import non_negative, positive

SECONDS_PER_MINUTE = 60.0


def m3s_to_m3min(q_m3s: float) -> float:
    """An air volume in m³/s as m³/min (× 60)."""
    return non_negative("q_m3s", q_m3s) * SECONDS_PER_MINUTE


def m3min_to_m3s(q_m3min: float) -> float:
    """An air volume in m³/min as m³/s (÷ 60)."""
    return non_negative("q_m3min", q_m3min) / SECONDS_PER_MINUTE


def q_from_speed(wind_speed: float, area: float) -> float:
    """The air volume in m³/min of a wind speed (m/s) over a section (m²): ``Q = 60·v·S``."""
    return SECONDS_PER_MINUTE * non_negative("wind_speed", wind_speed) * positive("area", area)


def speed_from_q(q_m3min: float, area: float) -> float:
    """The mean wind speed in m/s of an air volume (m³/min) over a section (m²): ``v = Q / (60·S)``."""
    return non_negative("q_m3min", q_m3min) / (SECONDS_PER_MINUTE * positive("area", area))
