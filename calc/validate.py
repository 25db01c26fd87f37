"""Input validation shared by every calculator.

Each helper returns the value in its canonical Python type or raises
:class:`calc.errors.CalcInputError` naming the parameter. Bools are rejected where numbers are expected
(``True`` is not ``1``), and so are NaN, infinities and non-numbers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from numbers import Real
from typing import Any

from calc.errors import CalcInputError

MAX_MAGNITUDE = 1e9
"""No input of a ventilation calculation is larger (m³/min, kW, m³, kg…): beyond it, it is a typo."""


def kind_cn(value: Any) -> str:
    """What ``value`` is, in Chinese, for an error message (``文字`` for a str, ``true/false`` for a bool)."""
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, str | bytes):
        return "文字"
    if isinstance(value, Mapping):
        return "键值表"
    if isinstance(value, Sequence):
        return "列表"
    return type(value).__name__


def number(name: str, value: Any, *, minimum: float | None = None, strict: bool = False) -> float:
    """A finite real number; ``minimum`` is a lower bound (exclusive when ``strict``).

    Raises CalcInputError for bools, non-numbers, NaN, ±inf, magnitudes above ``MAX_MAGNITUDE`` and
    values below the bound.
    """
    if value is None:
        raise CalcInputError(name, "必须给出")
    if isinstance(value, bool) or not isinstance(value, Real):
        raise CalcInputError(name, f"应为数字，而不是{kind_cn(value)}", value)
    result = float(value)
    if not math.isfinite(result):
        raise CalcInputError(name, "应为有限的数（不能是 NaN 或无穷大）", value)
    if abs(result) > MAX_MAGNITUDE:
        raise CalcInputError(name, f"数值大得不合理（绝对值超过 {MAX_MAGNITUDE:g}）", value)
    if minimum is not None:
        if strict and result <= minimum:
            raise CalcInputError(name, f"应大于 {minimum:g}", value)
        if not strict and result < minimum:
            raise CalcInputError(name, f"不能小于 {minimum:g}", value)
    return result


def positive(name: str, value: Any) -> float:
    """A finite number > 0 (areas, heights, powers, temperature differences…)."""
    return number(name, value, minimum=0.0, strict=True)


def non_negative(name: str, value: Any) -> float:
    """A finite number ≥ 0 (emissions, charges…)."""
    return number(name, value, minimum=0.0)


def percent(name: str, value: Any) -> float:
    """A concentration in % by volume: finite, 0 ≤ value ≤ 100."""
    result = non_negative(name, value)
    if result > 100.0:
        raise CalcInputError(name, "浓度（%）不能大于 100", value)
    return result


def count(name: str, value: Any, *, minimum: int = 0) -> int:
    """A whole number ≥ ``minimum`` (people, fans, vehicles); integral floats such as 38.0 are accepted."""
    result = number(name, value, minimum=float(minimum))
    if not result.is_integer():
        raise CalcInputError(name, "应为整数", value)
    return int(result)


def flag(name: str, value: Any) -> bool:
    """A bool (switches such as ``dust_suppression``)."""
    if not isinstance(value, bool):
        raise CalcInputError(name, f"应为 true 或 false，而不是{kind_cn(value)}", value)
    return value


def text(name: str, value: Any) -> str:
    """A non-empty string (kinds, classes, methods)."""
    if not isinstance(value, str) or not value.strip():
        raise CalcInputError(name, "应为非空的文字", value)
    return value.strip()


def numbers(name: str, values: Any, check: Any = non_negative) -> list[float]:
    """A non-empty sequence of numbers, each validated by ``check`` (named ``name[i]``)."""
    if isinstance(values, str | bytes) or not isinstance(values, Sequence) or not values:
        raise CalcInputError(name, "应为非空的数字列表", values)
    return [check(f"{name}[{i}]", item) for i, item in enumerate(values)]


def named_numbers(name: str, values: Any) -> dict[str, float]:
    """Non-negative numbers by name, from a mapping or a plain sequence (named ``#1``, ``#2``…)."""
    if isinstance(values, Mapping):
        if not values:
            raise CalcInputError(name, "不能为空", values)
        return {str(key): non_negative(f"{name}[{key}]", item) for key, item in values.items()}
    return {f"#{i + 1}": item for i, item in enumerate(numbers(name, values))}


def ordered_pair(lo_name: str, lo: float, hi_name: str, hi: float) -> None:
    """Raise unless ``lo <= hi`` (e.g. the smallest and the largest roof-control distance)."""
    if lo > hi:
        raise CalcInputError(lo_name, f"不能大于 {hi_name}（{hi:g}）", lo)
