"""Other ventilated roadways (其他用风巷道) of DOMAIN §2.4: wind speed by 表6 class, gas, diesel vehicles.

Units: m³/min, m², m/s, kW. Invalid input raises :class:`calc.errors.CalcInputError`.
"""

from __future__ import annotations

from calc import formatting as fmt
from calc.builder import coefficient
from calc.common import PowerInput, diesel_vehicles, gas_dilution
from calc.result import CalcResult, SpeedCheckResult
from calc.speed import speed_bounds
from calc.tables import DEFAULT_TABLES, CoefficientTables
from calc.validate import flag, positive, text


def roadway_speed(
    *,
    method: str,
    area: float,
    roadway_class: str,
    required_q: float | None,
    gas_free: bool,
    tables: CoefficientTables,
) -> SpeedCheckResult:
    """Speed bounds ``60·v_min·S ≤ Q ≤ 60·v_max·S`` of a roadway of a 表6 class (shared by chambers).

    ``gas_free`` lowers a trolley-locomotive roadway's minimum to 0.5 m/s. Raises CalcInputError for a
    non-positive area or an unknown class.
    """
    s = positive("area", area)
    key, row = tables.wind_speed.resolve("roadway_class", text("roadway_class", roadway_class))
    v_min = row.v_min
    warnings = []
    if flag("gas_free", gas_free):
        if row.v_min_gas_free is not None:
            v_min = row.v_min_gas_free
        else:
            warnings.append("gas_free 只降低架线电机车巷道的最低风速，对该类巷道不适用，已忽略")
    return speed_bounds(
        method=method,
        method_cn="按风速验算",
        tables=tables,
        class_label=f"{key} {row.name_cn}",
        v_min=v_min,
        v_max=row.v_max,
        area_lower=(s, fmt.coef(s)),
        area_upper=(s, fmt.coef(s)),
        required_q=required_q,
        inputs={"area": s, "roadway_class": key, "required_q": required_q, "gas_free": gas_free or None},
        warnings=warnings,
    )


def calc_other_by_wind_speed(
    *,
    area: float,
    roadway_class: str,
    required_q: float | None = None,
    gas_free: bool = False,
    tables: CoefficientTables = DEFAULT_TABLES,
) -> SpeedCheckResult:
    """Other roadway speed check by its 表6 class: ``60·v_min·S ≤ Q ≤ 60·v_max·S`` (m³/min).

    Classes (m/s): ``district_roadway`` 采区进、回风巷 and conveyor roadways 0.25–6; ``trolley_roadway``
    1.0–8 (0.5 with ``gas_free``); ``main_intake_return`` ≤ 8; ``other_walkway`` ≥ 0.15; shafts, drifts and
    air crossings as in 表6 (Chinese names accepted). ``value`` is the lower bound (0.0 without one); with
    ``required_q`` the result's ``check`` says whether it lies within. Raises CalcInputError for a
    non-positive area or an unknown class. Source: 《煤矿安全规程》第157条 表6.
    """
    return roadway_speed(
        method="calc_other_by_wind_speed",
        area=area,
        roadway_class=roadway_class,
        required_q=required_q,
        gas_free=gas_free,
        tables=tables,
    )


def calc_other_by_gas(
    *,
    gas_emission: float,
    k_gas: float,
    scope: str = "district",
    tables: CoefficientTables = DEFAULT_TABLES,
) -> CalcResult:
    """Other roadway by gas: ``Q = 100·q·k`` inside a district, ``Q = 133·q·k`` in main or wing returns.

    ``gas_emission`` q m³/min, ``k_gas`` the roadway's non-uniformity coefficient (no documented default:
    required), ``scope`` ``district`` (采区) or ``main_return`` (总回风巷/一翼回风巷).
    Raises CalcInputError for a negative q, k ≤ 0, or an unknown scope. Source: AQ 1056-2008.
    """
    scope_name, entry = tables.gas_factor_scope.resolve("scope", text("scope", scope))
    k = coefficient("k", k_gas, "k_gas", default=None, note="其他用风巷道")
    return gas_dilution(
        method="calc_other_by_gas",
        method_cn="按瓦斯涌出量计算",
        emission_param="gas_emission",
        emission_value=gas_emission,
        factor=entry.value,
        k=k,
        source=tables.gas_factor_scope.source,
        inputs={"scope": scope_name},
    )


def calc_other_by_vehicle(
    *,
    vehicle_kw: PowerInput,
    vehicles: int | None = None,
    tables: CoefficientTables = DEFAULT_TABLES,
) -> CalcResult:
    """Diesel roadway: ``Q = 4·ΣP`` (m³/min), 4 m³/min per kW over the most vehicles running at once.

    ``vehicle_kw``: one vehicle's power (kW) times ``vehicles`` (default 1), or a list of each vehicle's
    power. Raises CalcInputError for non-positive powers, a count < 1 or a count that contradicts the
    list. Source: 《煤矿安全规程》第159条.
    """
    return diesel_vehicles(
        method="calc_other_by_vehicle", vehicle_kw=vehicle_kw, vehicles=vehicles, tables=tables
    )
