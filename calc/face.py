"""Coal face (采煤工作面) methods of DOMAIN §2.1, except the climate forms (:mod:`calc.climate`).

Units: air volumes m³/min, emissions m³/min, lengths m, areas m², speeds m/s. Every function takes its
arguments by keyword and a ``tables`` (:class:`calc.tables.CoefficientTables`, default
:data:`calc.tables.DEFAULT_TABLES`); invalid input raises :class:`calc.errors.CalcInputError`.
"""

from __future__ import annotations

from calc import formatting as fmt
from calc.builder import choice_coefficient, coefficient, constant, make_result
from calc.common import by_explosives, gas_dilution, per_person
from calc.result import CalcResult, EffectiveAreaResult, SpeedCheckResult
from calc.speed import speed_bounds
from calc.tables import AQ1056, DEFAULT_TABLES, PRACTICE, CoefficientTables
from calc.validate import flag, non_negative, ordered_pair, positive, text


def calc_face_by_gas(
    *,
    gas_emission: float,
    k_gas: float | None = None,
    mining_method: str | None = None,
    tables: CoefficientTables = DEFAULT_TABLES,
) -> CalcResult:
    """Coal face by gas: ``Q = 100·q·k`` (m³/min).

    ``gas_emission`` q: absolute CH₄ emission of the face return, m³/min (the ventilation-borne part
    where gas is drained). ``k_gas``: non-uniformity coefficient; when omitted, the midpoint of the
    ``mining_method`` range (综采 1.2–1.6 → 1.4, 炮采 1.4–2.0 → 1.7, 水采 2.0–3.0 → 2.5); a given k is
    checked against that range (or the whole table without a mining method) and warned about outside it.
    Raises CalcInputError: negative/NaN q, k ≤ 0, unknown mining method, neither k nor mining method.
    Source: AQ 1056-2008 (ranges: practice).
    """
    k = choice_coefficient("k", k_gas, "k_gas", tables.k_gas_face, "mining_method", mining_method)
    return gas_dilution(
        method="calc_face_by_gas",
        method_cn="按瓦斯涌出量计算",
        emission_param="gas_emission",
        emission_value=gas_emission,
        factor=tables.constants.gas_factor,
        k=k,
        source=tables.k_gas_face.source,
        inputs={"mining_method": mining_method},
    )


def calc_face_by_co2(
    *,
    co2_emission: float,
    k_co2: float | None = None,
    mining_method: str | None = None,
    tables: CoefficientTables = DEFAULT_TABLES,
) -> CalcResult:
    """Coal face by CO₂: ``Q = 67·q_CO₂·k`` (m³/min); k as for gas (:func:`calc_face_by_gas`).

    Raises CalcInputError as :func:`calc_face_by_gas`. Source: AQ 1056-2008.
    """
    k = choice_coefficient("k", k_co2, "k_co2", tables.k_co2_face, "mining_method", mining_method)
    return gas_dilution(
        method="calc_face_by_co2",
        method_cn="按二氧化碳涌出量计算",
        emission_param="co2_emission",
        emission_value=co2_emission,
        factor=tables.constants.co2_factor,
        k=k,
        source=tables.k_co2_face.source,
        inputs={"mining_method": mining_method},
    )


def calc_face_by_workers(*, workers: int, tables: CoefficientTables = DEFAULT_TABLES) -> CalcResult:
    """Coal face by people: ``Q = 4·N`` (m³/min), N the most people at the face at once.

    Raises CalcInputError for a negative or fractional N. Source: 《煤矿安全规程》第159条.
    """
    return per_person(method="calc_face_by_workers", workers=workers, tables=tables)


def calc_face_by_explosives(*, explosive_kg: float, tables: CoefficientTables = DEFAULT_TABLES) -> CalcResult:
    """Coal face by explosives: ``Q = 25·A`` (m³/min), A the largest single-blast charge in kg.

    The 10·A variant of one source is reported as a warning only. Raises CalcInputError for a negative A.
    Source: AQ 1056-2008.
    """
    return by_explosives(
        method="calc_face_by_explosives", explosive_kg=explosive_kg, tables=tables, note_variant=True
    )


def effective_sections(
    mining_height: float, roof_control_max: float, roof_control_min: float, tables: CoefficientTables
) -> tuple[float, float, list[str]]:
    """S_eff,max and S_eff,min (m²) = 0.7 × roof-control distance × mining height, and the worked steps.

    Raises CalcInputError for a non-positive size or a minimum distance above the maximum.
    """
    h = positive("mining_height", mining_height)
    l_max = positive("roof_control_max", roof_control_max)
    l_min = positive("roof_control_min", roof_control_min)
    ordered_pair("roof_control_min", l_min, "roof_control_max", l_max)
    c = tables.constants.effective_section
    s_max, s_min = c * l_max * h, c * l_min * h
    steps = [
        f"S_eff,max = {fmt.coef(c)} × {fmt.coef(l_max)} × {fmt.coef(h)} = {fmt.area(s_max)} m²",
        f"S_eff,min = {fmt.coef(c)} × {fmt.coef(l_min)} × {fmt.coef(h)} = {fmt.area(s_min)} m²",
    ]
    return s_max, s_min, steps


def calc_effective_area(
    *,
    mining_height: float,
    roof_control_max: float,
    roof_control_min: float,
    tables: CoefficientTables = DEFAULT_TABLES,
) -> EffectiveAreaResult:
    """A coal face's effective sections (m², rounded to 0.001): S_eff = 0.7 × roof-control distance ×
    mining height at the largest and the smallest distance; ``value`` is their mean (the face's section in
    allocation tables). Raises CalcInputError for non-positive sizes or min > max. Source: practice.
    """
    s_max, s_min, steps = effective_sections(mining_height, roof_control_max, roof_control_min, tables)
    c = tables.constants.effective_section
    return make_result(
        raw=(s_max + s_min) / 2,
        method="calc_effective_area",
        method_cn="有效断面计算",
        formula="S_eff = 0.7·L·h; S_mean = (S_eff,max + S_eff,min)/2",
        expression=f"({fmt.area(s_max)} + {fmt.area(s_min)}) / 2",
        preamble=steps,
        lhs="S_mean",
        unit="m²",
        decimals=fmt.AREA_DECIMALS,
        inputs={
            "mining_height": mining_height,
            "roof_control_max": roof_control_max,
            "roof_control_min": roof_control_min,
        },
        coefficients=[constant("c_eff", c, "有效通风断面系数", PRACTICE)],
        source=PRACTICE,
        cls=EffectiveAreaResult,
        s_max=fmt.round_half_up(s_max, fmt.AREA_DECIMALS),
        s_min=fmt.round_half_up(s_min, fmt.AREA_DECIMALS),
    )


def calc_face_by_wind_speed(
    *,
    mining_height: float,
    roof_control_max: float,
    roof_control_min: float,
    required_q: float | None = None,
    mining_method: str | None = None,
    dust_suppression: bool = False,
    descending: bool = False,
    tables: CoefficientTables = DEFAULT_TABLES,
) -> SpeedCheckResult:
    """Coal face speed check: ``60·v_min·S_eff,max ≤ Q ≤ 60·v_max·S_eff,min`` (m³/min).

    v_min 0.25 m/s (1.0 for descending ventilation, 第171条); v_max 4 m/s, 5 m/s for a 综采 face with
    ``dust_suppression`` (coal-seam water injection and shearer spraying). ``value`` is the lower bound;
    with ``required_q`` the result's ``check`` says whether it lies within. Raises CalcInputError for
    non-positive sizes, min > max distance, unknown mining method, non-bool switches.
    Source: 《煤矿安全规程》第157条 表6 (第171条 for descending ventilation).
    """
    s_max, s_min, steps = effective_sections(mining_height, roof_control_max, roof_control_min, tables)
    label, row = tables.wind_speed.resolve("roadway_class", "coal_face_heading")
    method_name = None
    if mining_method is not None:
        method_name, _ = tables.k_gas_face.resolve("mining_method", text("mining_method", mining_method))
    warnings = []
    v_max = row.v_max
    class_label = f"{label} {row.name_cn}"
    if flag("dust_suppression", dust_suppression):
        if method_name == "综采" and row.v_max_dust is not None:
            v_max = row.v_max_dust
            class_label += f"；综采工作面采取降尘措施：v_max {fmt.num(v_max)}"
        else:
            warnings.append("降尘措施只对综采工作面将最高风速提高到 5 m/s：按 4 m/s 验算")
    v_min = row.v_min
    if flag("descending", descending):
        v_min = tables.constants.descending_v_min
        warnings.append(
            f"下行通风：最低风速 v_min 取 {fmt.coef(v_min)} m/s（{tables.article('descending')}）"
        )
    return speed_bounds(
        method="calc_face_by_wind_speed",
        method_cn="按风速验算",
        tables=tables,
        class_label=class_label,
        v_min=v_min,
        v_max=v_max,
        area_lower=(s_max, fmt.area(s_max)),
        area_upper=(s_min, fmt.area(s_min)),
        required_q=required_q,
        inputs={
            "mining_height": mining_height,
            "roof_control_max": roof_control_max,
            "roof_control_min": roof_control_min,
            "required_q": required_q,
            "mining_method": mining_method,
            "dust_suppression": dust_suppression,
            "descending": descending,
        },
        preamble=steps,
        warnings=warnings,
    )


def calc_standby_face(
    *,
    working_face_q: float,
    standby_ratio: float | None = None,
    tables: CoefficientTables = DEFAULT_TABLES,
) -> CalcResult:
    """Standby face: ``Q = 0.5·Q_working`` (m³/min), at least 50 % of the working face's required Q.

    ``standby_ratio`` overrides 0.5 (documented range 0.5–1.0; a ratio below 0.5 is warned about).
    Raises CalcInputError for a negative Q or a non-positive ratio. Source: practice.
    """
    q_working = non_negative("working_face_q", working_face_q)
    ratio = coefficient(
        "ratio", standby_ratio, "standby_ratio", default=tables.constants.standby_ratio, source=PRACTICE
    )
    return make_result(
        raw=ratio.value * q_working,
        method="calc_standby_face",
        method_cn="按备用工作面计算",
        formula="Q = 50%·Q工作面",
        expression=f"{fmt.num(ratio.value)} × {fmt.q(q_working)}",
        inputs={"working_face_q": q_working},
        coefficients=[ratio],
        source=f"{PRACTICE}；{AQ1056}",
    )
