"""Chamber (硐室) methods of DOMAIN §2.3: electro-mechanical chambers by heat, explosives store, charging.

Units: m³/min, kW, °C, m³, m². Invalid input raises :class:`calc.errors.CalcInputError`.
"""

from __future__ import annotations

from calc import formatting as fmt
from calc.builder import choice_coefficient, constant, make_result, max_result
from calc.common import PowerInput, total_power
from calc.result import CalcResult, MaxResult, SpeedCheckResult
from calc.roadway import roadway_speed
from calc.tables import AQ1056, DEFAULT_TABLES, PRACTICE, CoefficientTables
from calc.validate import non_negative, positive, text


def calc_chamber_by_equipment(
    *,
    power_kw: PowerInput,
    delta_t: float,
    theta: float | None = None,
    chamber_type: str | None = None,
    tables: CoefficientTables = DEFAULT_TABLES,
) -> CalcResult:
    """Electro-mechanical chamber by heat: ``Q = 3600·ΣW·θ / (ρ·c_p·60·Δt)`` (m³/min).

    ``power_kw`` ΣW: running power in kW (one total or a list per machine); ``delta_t`` Δt: return minus
    intake temperature, °C (> 0); ``theta`` θ: heat coefficient, default the midpoint for
    ``chamber_type`` (compressor 0.20–0.23, pump 0.01–0.03, substation 0.02–0.04, hoist 0.02–0.04; Chinese
    names such as 变电所/水泵房 accepted). ρ = 1.2 kg/m³, c_p = 1.0006 kJ/(kg·K). A result under 60 m³/min
    is warned about (small chambers get 60–80 m³/min by experience). Raises CalcInputError for
    non-positive power or Δt, θ ≤ 0, unknown chamber type, neither θ nor type.
    Source: AQ 1056-2008; the chamber must be in intake air (《煤矿安全规程》第187条).
    """
    total, power_text, _ = total_power("power_kw", power_kw, None, "power_kw")
    dt = positive("delta_t", delta_t)
    th = choice_coefficient(
        "θ",
        theta,
        "theta",
        tables.theta,
        "chamber_type",
        None if chamber_type is None else text("chamber_type", chamber_type),
    )
    c = tables.constants
    raw = 3600 * total * th.value / (c.air_density * c.air_heat_capacity * 60 * dt)
    small_lo, small_hi = c.small_chamber_q
    warnings = []
    if raw < small_lo:
        warnings.append(
            f"Q = {fmt.q(raw)} m³/min，小于 {fmt.num(small_lo)} m³/min：小型硐室按经验一般取 "
            f"{fmt.num(small_lo)}–{fmt.num(small_hi)} m³/min"
        )
    return make_result(
        raw=raw,
        method="calc_chamber_by_equipment",
        method_cn="按发热量计算",
        formula="Q = 3600·ΣW·θ / (ρ·c_p·60·Δt)",
        expression=(
            f"3600 × {power_text} × {fmt.num(th.value)} / "
            f"({fmt.coef(c.air_density)} × {fmt.coef(c.air_heat_capacity)} × 60 × {fmt.coef(dt)})"
        ),
        inputs={"power_kw": total, "delta_t": dt, "chamber_type": chamber_type},
        coefficients=[
            th,
            constant("ρ", c.air_density, "空气密度，kg/m³"),
            constant("c_p", c.air_heat_capacity, "空气定压比热，kJ/(kg·K)"),
        ],
        source=f"{AQ1056}；进风要求：{tables.article('chamber')}",
        warnings=warnings,
    )


def calc_chamber_by_wind_speed(
    *,
    area: float,
    roadway_class: str = "other_walkway",
    required_q: float | None = None,
    tables: CoefficientTables = DEFAULT_TABLES,
) -> SpeedCheckResult:
    """Chamber speed check as for other roadways: ``60·v_min·S ≤ Q ≤ 60·v_max·S`` (m³/min).

    ``roadway_class`` defaults to ``other_walkway`` (其他通风人行巷道, ≥ 0.15 m/s). Raises CalcInputError for
    a non-positive area or an unknown class. Source: 《煤矿安全规程》第157条 表6.
    """
    return roadway_speed(
        method="calc_chamber_by_wind_speed",
        area=area,
        roadway_class=roadway_class,
        required_q=required_q,
        gas_free=False,
        tables=tables,
    )


def _minimum(method: str, minimum: float, label: str, source: str) -> CalcResult:
    """The floor of a chamber's air volume as a method of its own (``按最低风量计算``)."""
    return make_result(
        raw=minimum,
        method=method,
        method_cn="按最低风量计算",
        formula="Q ≥ Q_min",
        expression="",
        substituted=f"{label}：Q = {fmt.q(minimum)} m³/min",
        inputs={},
        source=source,
    )


def calc_explosives_store(
    *, volume_m3: float, store_size: str, tables: CoefficientTables = DEFAULT_TABLES
) -> MaxResult:
    """Explosives store (爆炸材料库): the larger of ``Q = 4·V/60`` and the minimum (m³/min).

    ``volume_m3`` V: the store's total volume, m³ (4 air changes per hour); ``store_size`` ``large``
    (大型, ≥ 100 m³/min) or ``small``/``medium`` (小型/中型, ≥ 60 m³/min). Raises CalcInputError for a
    non-positive volume or an unknown size. Source: 《煤矿安全规程》第185条; minimum: practice.
    """
    v = positive("volume_m3", volume_m3)
    size, minimum = tables.store_minimum.resolve("store_size", text("store_size", store_size))
    changes = tables.constants.store_air_changes
    article = tables.article("explosives_store")
    by_volume: CalcResult = make_result(
        raw=changes * v / 60,
        method="calc_explosives_store.by_volume",
        method_cn="按库容计算",
        formula=f"Q = {fmt.num(changes)}·V/60",
        expression=f"{fmt.num(changes)} × {fmt.num(v)} / 60",
        inputs={"volume_m3": v},
        source=article,
    )
    floor = _minimum(
        "calc_explosives_store.minimum",
        minimum.value,
        f"{minimum.note}不小于 {fmt.num(minimum.value)} m³/min",
        PRACTICE,
    )
    return max_result(
        method="calc_explosives_store",
        method_cn="爆炸材料库需风量",
        results=[by_volume, floor],
        inputs={"volume_m3": v, "store_size": size},
        source=f"{article}；最小风量：{PRACTICE}",
    )


def calc_charging_chamber(*, h2_emission: float, tables: CoefficientTables = DEFAULT_TABLES) -> MaxResult:
    """Charging chamber (充电硐室): the larger of ``Q = 200·q_H₂`` and 100 m³/min.

    ``h2_emission`` q_H₂: hydrogen emission, m³/min (200 ↔ H₂ 0.5 %). Raises CalcInputError for a
    negative emission. Source: 《煤矿安全规程》第186条 (H₂ < 0.5 %); factor and minimum: practice.
    """
    q_h2 = non_negative("h2_emission", h2_emission)
    c = tables.constants
    article = tables.article("charging")
    by_h2: CalcResult = make_result(
        raw=c.h2_factor * q_h2,
        method="calc_charging_chamber.by_h2",
        method_cn="按氢气涌出量计算",
        formula=f"Q = {fmt.num(c.h2_factor)}·q_H2",
        expression=f"{fmt.num(c.h2_factor)} × {fmt.num(q_h2)}",
        inputs={"h2_emission": q_h2},
        source=f"{article}；{PRACTICE}",
    )
    floor = _minimum(
        "calc_charging_chamber.minimum",
        c.charging_min_q,
        f"不小于 {fmt.num(c.charging_min_q)} m³/min",
        PRACTICE,
    )
    return max_result(
        method="calc_charging_chamber",
        method_cn="充电硐室需风量",
        results=[by_h2, floor],
        inputs={"h2_emission": q_h2},
        source=f"{article}；{PRACTICE}",
    )
