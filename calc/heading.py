"""Heading face (掘进工作面) methods of DOMAIN §2.2; the spec names them ``calc_tunnel_*``.

``heading_type`` is ``coal`` (煤巷), ``half_coal`` (半煤岩巷) or ``rock`` (岩巷). Units: m³/min, m², m/s, kW,
kg. Invalid input raises :class:`calc.errors.CalcInputError`.
"""

from __future__ import annotations

from calc import formatting as fmt
from calc.builder import coefficient, constant, make_result
from calc.common import PowerInput, by_explosives, diesel_vehicles, gas_dilution, per_person
from calc.result import CalcResult, SpeedCheckResult
from calc.speed import speed_bounds
from calc.tables import AQ1056, DEFAULT_TABLES, PRACTICE, CoefficientTables, SpeedClass
from calc.validate import count, non_negative, positive, text

MAX_FANS_PER_HEADING = 2
"""严禁使用3台以上局部通风机同时向1个掘进工作面供风 [R 第183条（九）]."""


def heading_speed_class(heading_type: str, tables: CoefficientTables) -> tuple[str, str, SpeedClass]:
    """The canonical heading type, its 表6 class name and row (rock 0.15–4 m/s, coal/half-coal 0.25–4).

    Raises CalcInputError("heading_type") for an unknown type.
    """
    kind, speed_class = tables.heading_class("heading_type", text("heading_type", heading_type))
    _, row = tables.wind_speed.resolve("heading_type", speed_class)
    return kind, speed_class, row


def calc_tunnel_by_gas(
    *, gas_emission: float, k_gas: float | None = None, tables: CoefficientTables = DEFAULT_TABLES
) -> CalcResult:
    """Heading by gas: ``Q = 100·q·k`` (m³/min); q absolute CH₄ emission m³/min, k 1.5–2.0 (default 1.75).

    Raises CalcInputError for a negative q or k ≤ 0; a k outside 1.5–2.0 is warned about.
    Source: AQ 1056-2008 (k range: practice).
    """
    rng = tables.k_gas_heading
    k = coefficient(
        "k", k_gas, "k_gas", default=rng, note=f"掘进工作面：{fmt.span(rng.low, rng.high)}", source=PRACTICE
    )
    return gas_dilution(
        method="calc_tunnel_by_gas",
        method_cn="按瓦斯涌出量计算",
        emission_param="gas_emission",
        emission_value=gas_emission,
        factor=tables.constants.gas_factor,
        k=k,
        source=f"{AQ1056}；系数 k：{PRACTICE}",
        inputs={},
    )


def calc_tunnel_by_explosives(
    *, explosive_kg: float, tables: CoefficientTables = DEFAULT_TABLES
) -> CalcResult:
    """Heading by explosives: ``Q = 25·A`` (m³/min), A the largest single-blast charge in kg.

    (Not 25·A^(1/3), which some public code uses.) Raises CalcInputError for a negative A.
    Source: AQ 1056-2008.
    """
    return by_explosives(
        method="calc_tunnel_by_explosives", explosive_kg=explosive_kg, tables=tables, note_variant=False
    )


def calc_tunnel_by_fan_intake(
    *,
    fan_intake_q: float,
    area: float,
    heading_type: str,
    fan_count: int = 1,
    full_pressure_q: float | None = None,
    tables: CoefficientTables = DEFAULT_TABLES,
) -> CalcResult:
    """Heading by auxiliary-fan intake: ``Q = Q_fan·I + 60·v_min·S`` (m³/min).

    ``fan_intake_q`` Q_fan m³/min per fan, ``fan_count`` I, ``area`` S m² of the roadway between the fan
    and the return opening, v_min 0.15 m/s (rock) or 0.25 (coal, half-coal). Warns when 3 or more fans
    serve the heading, and when ``full_pressure_q`` (the full-pressure air at the fan site) does not exceed
    the fans' intake. Raises CalcInputError for non-positive Q_fan or S, I < 1, unknown heading type.
    Source: 《煤矿安全规程》第183条; AQ 1056-2008.
    """
    q_fan = positive("fan_intake_q", fan_intake_q)
    s = positive("area", area)
    n = count("fan_count", fan_count, minimum=1)
    kind, speed_class, row = heading_speed_class(heading_type, tables)
    v_min = row.v_min if row.v_min is not None else 0.0
    article = tables.article("aux_fan")
    warnings = []
    if n > MAX_FANS_PER_HEADING:
        warnings.append(f"{n} 台局部通风机向同一掘进工作面供风：严禁 3 台及以上同时供风（{article}（九））")
    if full_pressure_q is not None and non_negative("full_pressure_q", full_pressure_q) <= q_fan * n:
        warnings.append(
            f"安装地点全风压供风量 {fmt.q(full_pressure_q)} m³/min 不大于局部通风机吸风量 "
            f"{fmt.q(q_fan * n)} m³/min（{article}）"
        )
    return make_result(
        raw=q_fan * n + 60 * v_min * s,
        method="calc_tunnel_by_fan_intake",
        method_cn="按局部通风机吸风量计算",
        formula="Q = Q_f·I + 60·v_min·S",
        expression=f"{fmt.num(q_fan)} × {n} + 60 × {fmt.num(v_min)} × {fmt.coef(s)}",
        inputs={
            "fan_intake_q": q_fan,
            "fan_count": n,
            "area": s,
            "heading_type": kind,
            "full_pressure_q": full_pressure_q,
        },
        coefficients=[
            constant("v_min", v_min, f"{speed_class} {row.name_cn}（m/s）", tables.wind_speed.source)
        ],
        source=f"{article}；{AQ1056}",
        warnings=warnings,
    )


def calc_tunnel_by_workers(*, workers: int, tables: CoefficientTables = DEFAULT_TABLES) -> CalcResult:
    """Heading by people: ``Q = 4·N`` (m³/min), N the most people at the heading at once.

    Raises CalcInputError for a negative or fractional N. Source: 《煤矿安全规程》第159条.
    """
    return per_person(method="calc_tunnel_by_workers", workers=workers, tables=tables)


def calc_tunnel_by_wind_speed(
    *,
    area: float,
    heading_type: str,
    required_q: float | None = None,
    tables: CoefficientTables = DEFAULT_TABLES,
) -> SpeedCheckResult:
    """Heading speed check: ``60·v_min·S ≤ Q ≤ 60·4·S`` (m³/min), v_min 0.15 rock / 0.25 coal, half-coal.

    ``value`` is the lower bound; with ``required_q`` the result's ``check`` says whether it lies within.
    Raises CalcInputError for a non-positive area or an unknown heading type.
    Source: 《煤矿安全规程》第157条 表6.
    """
    s = positive("area", area)
    kind, speed_class, row = heading_speed_class(heading_type, tables)
    return speed_bounds(
        method="calc_tunnel_by_wind_speed",
        method_cn="按风速验算",
        tables=tables,
        class_label=f"{speed_class} {row.name_cn}",
        v_min=row.v_min,
        v_max=row.v_max,
        area_lower=(s, fmt.coef(s)),
        area_upper=(s, fmt.coef(s)),
        required_q=required_q,
        inputs={"area": s, "heading_type": kind, "required_q": required_q},
    )


def calc_tunnel_by_vehicle(
    *,
    vehicle_kw: PowerInput,
    vehicles: int | None = None,
    tables: CoefficientTables = DEFAULT_TABLES,
) -> CalcResult:
    """Heading by diesel vehicles: ``Q = 4·ΣP`` (m³/min), 4 m³/min per kW of the most vehicles at once.

    ``vehicle_kw``: one vehicle's power (kW) times ``vehicles`` (default 1), or a list of each vehicle's
    power. The older practice 4·n·P·K·1.36 is not used. Raises CalcInputError for non-positive powers, a
    count < 1 or a count that contradicts the list. Source: 《煤矿安全规程》第159条.
    """
    return diesel_vehicles(
        method="calc_tunnel_by_vehicle", vehicle_kw=vehicle_kw, vehicles=vehicles, tables=tables
    )
