"""Wind-speed bounds as air-volume bounds (表6 of 《煤矿安全规程》 第157条), shared by every location kind."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from calc import formatting as fmt
from calc.builder import InputValue, bound_check, constant, make_result
from calc.result import Coefficient, SpeedCheckResult
from calc.tables import CoefficientTables
from calc.validate import non_negative

AreaText = tuple[float, str]
"""An area in m² and how the worked formula writes it."""


def speed_bounds(
    *,
    method: str,
    method_cn: str,
    tables: CoefficientTables,
    class_label: str,
    v_min: float | None,
    v_max: float | None,
    area_lower: AreaText,
    area_upper: AreaText,
    required_q: float | None,
    inputs: Mapping[str, InputValue],
    preamble: Sequence[str] = (),
    extra_coefficients: Sequence[Coefficient] = (),
    warnings: Sequence[str] = (),
) -> SpeedCheckResult:
    """The bounds ``60·v_min·S_lower ≤ Q ≤ 60·v_max·S_upper`` in m³/min (a None speed gives no bound).

    ``area_lower`` is the section the minimum speed is checked on (a face's largest effective section),
    ``area_upper`` the one for the maximum (its smallest). ``value`` is the lower bound (0.0 without one);
    with ``required_q`` the result carries the :class:`BoundCheck` of it. Bounds are rounded to 0.1.
    Raises CalcInputError for a negative or non-finite ``required_q``.
    """
    source = f"{tables.article('wind_speed')} {tables.wind_speed.source}"
    lower: float | None = None
    upper: float | None = None
    parts = []
    if v_min is not None:
        lower = fmt.round_half_up(60 * v_min * area_lower[0])
        parts.append(f"60 × {fmt.num(v_min)} × {area_lower[1]} = {fmt.q(lower)} ≤ Q")
    if v_max is not None:
        upper = fmt.round_half_up(60 * v_max * area_upper[0])
        parts.append(f"{'' if parts else 'Q '}≤ 60 × {fmt.num(v_max)} × {area_upper[1]} = {fmt.q(upper)}")
    bounds_text = " ".join(parts) if parts else "Q：该类巷道无风速上下限"
    formula = "60·v_min·S ≤ Q ≤ 60·v_max·S"
    check = None
    text = bounds_text
    if required_q is not None:
        value = non_negative("required_q", required_q)
        check = bound_check(
            "wind_speed",
            value,
            lower,
            upper,
            formula=formula,
            source=source,
            near=tables.constants.near_bound,
        )
        text += f"; Q 需 = {fmt.q(value)}：{'符合' if check.ok else '不符合'}《煤矿安全规程》要求"
    coefficients = [
        constant(symbol, v, f"{class_label}（m/s）", tables.wind_speed.source)
        for symbol, v in (("v_min", v_min), ("v_max", v_max))
        if v is not None
    ]
    return make_result(
        raw=lower if lower is not None else 0.0,
        method=method,
        method_cn=method_cn,
        formula=formula,
        expression="",
        substituted="; ".join([*preamble, text]),
        inputs=inputs,
        coefficients=[*extra_coefficients, *coefficients],
        source=source,
        warnings=[*warnings, *(check.warnings if check else [])],
        cls=SpeedCheckResult,
        lower=lower,
        upper=upper,
        v_min=v_min,
        v_max=v_max,
        check=check,
    )
