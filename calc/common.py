"""Methods shared by several location kinds: gas dilution, people, explosives, diesel vehicles, power sums."""

from __future__ import annotations

from collections.abc import Sequence

from calc import formatting as fmt
from calc.builder import InputValue, make_result
from calc.errors import CalcInputError
from calc.result import CalcResult, Coefficient
from calc.tables import AQ1056, CoefficientTables
from calc.validate import count, non_negative, numbers, positive

PowerInput = float | Sequence[float]
"""One power in kW, or a list of powers (one per machine or vehicle) to be summed."""


def gas_dilution(
    *,
    method: str,
    method_cn: str,
    emission_param: str,
    emission_value: float,
    factor: float,
    k: Coefficient,
    source: str,
    inputs: dict[str, InputValue],
    warnings: Sequence[str] = (),
) -> CalcResult:
    """``Q = factor·q·k`` (factor = 1 ÷ allowed concentration: 100 CH₄, 133 CH₄ in main returns, 67 CO₂)."""
    q = non_negative(emission_param, emission_value)
    return make_result(
        raw=factor * q * k.value,
        method=method,
        method_cn=method_cn,
        formula=f"Q = {fmt.num(factor)}·q·k",
        expression=f"{fmt.num(factor)} × {fmt.emission(q)} × {fmt.coef(k.value)}",
        inputs={emission_param: q, **inputs},
        coefficients=[k],
        source=source,
        warnings=warnings,
    )


def per_person(
    *,
    method: str,
    workers: int,
    tables: CoefficientTables,
    param: str = "workers",
    method_cn: str = "按人数计算",
) -> CalcResult:
    """``Q = 4·N``, N (``param``) the most people at the location at once [R 第159条]."""
    n = count(param, workers)
    per = tables.constants.air_per_person
    return make_result(
        raw=per * n,
        method=method,
        method_cn=method_cn,
        formula=f"Q = {fmt.num(per)}·N",
        expression=f"{fmt.num(per)} × {n}",
        inputs={param: n},
        source=tables.article("air_per_person"),
    )


def by_explosives(
    *, method: str, explosive_kg: float, tables: CoefficientTables, note_variant: bool
) -> CalcResult:
    """``Q = 25·A``, A the largest single-blast charge in kg [AQ 1056]; ``note_variant`` notes 10·A."""
    a = non_negative("explosive_kg", explosive_kg)
    c = tables.constants
    warnings = []
    if note_variant and a > 0:
        warnings.append(
            f"有资料采用 Q = {fmt.num(c.explosive_factor_variant)}·A"
            f"（= {fmt.q(c.explosive_factor_variant * a)} m³/min）：此处不采用，计划采用该式的应予指出"
        )
    return make_result(
        raw=c.explosive_factor * a,
        method=method,
        method_cn="按炸药量计算",
        formula=f"Q = {fmt.num(c.explosive_factor)}·A",
        expression=f"{fmt.num(c.explosive_factor)} × {fmt.num(a)}",
        inputs={"explosive_kg": a},
        source=AQ1056,
        warnings=warnings,
    )


def total_power(param: str, value: PowerInput, units: int | None, units_param: str) -> tuple[float, str, int]:
    """ΣP in kW from one power (× ``units`` when given) or from a list of powers; its written form; the count.

    Raises CalcInputError for a bad power, a bad count, or a count that contradicts the list.
    """
    if isinstance(value, Sequence) and not isinstance(value, str):
        powers = numbers(param, value, positive)
        if units is not None and count(units_param, units) != len(powers):
            raise CalcInputError(units_param, f"与 {param} 所列 {len(powers)} 个功率值的台数不符", units)
        text = " + ".join(fmt.num(p) for p in powers)
        return sum(powers), (f"({text})" if len(powers) > 1 else text), len(powers)
    power = positive(param, value)
    if units is None:
        return power, fmt.num(power), 1
    n = count(units_param, units, minimum=1)
    return n * power, f"{n} × {fmt.num(power)}", n


def diesel_vehicles(
    *, method: str, vehicle_kw: PowerInput, vehicles: int | None, tables: CoefficientTables
) -> CalcResult:
    """``Q = 4·ΣP``: 4 m³/min per kW over the most diesel vehicles running at once [R 第159条]."""
    total, text, n = total_power("vehicle_kw", vehicle_kw, vehicles, "vehicles")
    per = tables.constants.air_per_kw
    shown = ", ".join(fmt.num(p) for p in vehicle_kw) if isinstance(vehicle_kw, Sequence) else vehicle_kw
    return make_result(
        raw=per * total,
        method=method,
        method_cn="按胶轮车功率计算",
        formula=f"Q = {fmt.num(per)}·ΣP",
        expression=f"{fmt.num(per)} × {text}",
        inputs={"vehicle_kw": shown, "vehicles": n, "total_kw": total},
        source=tables.article("air_per_person"),
    )
