"""Coal face by climate (气象条件): the AQ 1056-2008 form and the older textbook form (DOMAIN §2.1).

Units: m³/min, m, m², m/s, °C. Invalid input raises :class:`calc.errors.CalcInputError`.
"""

from __future__ import annotations

from calc import formatting as fmt
from calc.builder import band_coefficient, coefficient, constant, make_result
from calc.result import CalcResult
from calc.tables import AQ1056, DEFAULT_TABLES, CoefficientTables
from calc.validate import flag, number, ordered_pair, positive

HOT_INTAKE_C = 26.0
"""Above this face intake temperature the AQ 1056 speed table ends and shifts must be shortened."""


def calc_face_by_climate(
    *,
    mining_height: float,
    roof_control_max: float,
    roof_control_min: float,
    face_length: float | None = None,
    intake_temp: float | None = None,
    v_climate: float | None = None,
    k_h: float | None = None,
    k_l: float | None = None,
    top_coal_caving: bool = False,
    tables: CoefficientTables = DEFAULT_TABLES,
) -> CalcResult:
    """Coal face by climate, AQ 1056 form: ``Q = 60·0.70·v·S·k_h·k_l`` (m³/min).

    S = ``mining_height`` × mean of ``roof_control_max`` and ``roof_control_min`` (m², the gross face
    section; 0.70 is the effective-section coefficient, applied once, here).
    v (m/s): ``v_climate`` or by ``intake_temp`` (<20 °C → 1.0; 20–23 → 1.0–1.5, midpoint 1.25;
    23–26 → 1.5–1.8, midpoint 1.65). k_h: given or by height (<2.0 m → 1.0; 2.0–2.5 → 1.1; >2.5 m or
    ``top_coal_caving`` → 1.2). k_l: given or by ``face_length`` (<15 m → 0.8; 15–80 → 0.85; 80–120 → 1.0;
    120–150 → 1.1; 150–180 → 1.2; >180 → 1.35 within 1.30–1.40). Given coefficients are checked against
    the table row of their key and warned about outside it.
    Raises CalcInputError: non-positive sizes, min > max distance, a coefficient missing together with its
    key, an intake temperature beyond 26 °C without v. Source: AQ 1056-2008 (k_l ranges: practice).
    """
    h = positive("mining_height", mining_height)
    l_max = positive("roof_control_max", roof_control_max)
    l_min = positive("roof_control_min", roof_control_min)
    ordered_pair("roof_control_min", l_min, "roof_control_max", l_max)
    temp = None if intake_temp is None else number("intake_temp", intake_temp)
    length = None if face_length is None else positive("face_length", face_length)
    v = band_coefficient("v", v_climate, "v_climate", tables.v_climate, "intake_temp", temp, "°C")
    if flag("top_coal_caving", top_coal_caving):
        top = tables.k_h.bands[-1]
        note = f"放顶煤开采 → {top.label}：{fmt.span(top.coef.low, top.coef.high)}"
        kh = coefficient(
            "k_h", k_h, "k_h", default=top.coef, origin="table", note=note, source=tables.k_h.source
        )
    else:
        kh = band_coefficient("k_h", k_h, "k_h", tables.k_h, "mining_height", h, "m")
    kl = band_coefficient("k_l", k_l, "k_l", tables.k_l, "face_length", length, "m")
    factor = tables.constants.climate_factor
    s = h * (l_max + l_min) / 2
    warnings = []
    if temp is not None and temp > HOT_INTAKE_C:
        warnings.append(
            f"进风温度 {fmt.num(temp)} °C 高于 {fmt.num(HOT_INTAKE_C)} °C：超出 AQ 1056 风速选取表的范围；"
            "采掘工作面空气温度超过 26 °C 时必须缩短超温地点工作人员的工作时间（《煤矿安全规程》（2016版）第655条）"
        )
    return make_result(
        raw=60 * factor * v.value * s * kh.value * kl.value,
        method="calc_face_by_climate",
        method_cn="按气象条件计算",
        formula="Q = 60·0.70·v·S·k_h·k_l, S = h·(L_max + L_min)/2",
        preamble=[f"S = {fmt.coef(h)} × ({fmt.coef(l_max)} + {fmt.coef(l_min)}) / 2 = {fmt.area(s)} m²"],
        expression=(
            f"60 × {fmt.coef(factor)} × {fmt.coef(v.value)} × {fmt.area(s)} × "
            f"{fmt.coef(kh.value)} × {fmt.coef(kl.value)}"
        ),
        inputs={
            "mining_height": h,
            "roof_control_max": l_max,
            "roof_control_min": l_min,
            "face_length": length,
            "intake_temp": temp,
            "top_coal_caving": top_coal_caving or None,
        },
        coefficients=[
            constant("70%", factor, "有效通风断面系数", AQ1056),
            v,
            kh,
            kl,
        ],
        source=AQ1056,
        warnings=warnings,
    )


def calc_face_by_climate_textbook(
    *,
    q_base: float,
    k_h: float,
    k_l: float,
    k_t: float,
    tables: CoefficientTables = DEFAULT_TABLES,
) -> CalcResult:
    """Coal face by climate, older textbook form: ``Q = Q_base·K_h·K_l·K_t`` (m³/min).

    ``q_base`` the base air volume (m³/min) and the plan's own height, length and temperature
    coefficients, all > 0. Still found in many mine documents: accepted, and the result always warns that
    the older form was used (AQ 1056-2008 uses :func:`calc.climate.calc_face_by_climate`).
    Raises CalcInputError for a non-positive base or coefficient (``tables`` unused, kept for a uniform
    signature).
    Source: older textbook form (pre-AQ 1056-2008).
    """
    base = positive("q_base", q_base)
    given = (("k_h", k_h), ("k_l", k_l), ("k_t", k_t))
    coefs = [coefficient(symbol, value, symbol, default=None, note="计划所取系数") for symbol, value in given]
    product = base
    for c in coefs:
        product *= c.value
    return make_result(
        raw=product,
        method="calc_face_by_climate_textbook",
        method_cn="按气象条件计算（旧式）",
        formula="Q = Q_base·K_h·K_l·K_t",
        expression=" × ".join([fmt.num(base), *(fmt.coef(c.value) for c in coefs)]),
        inputs={"q_base": base},
        coefficients=coefs,
        source=f"旧式公式；现行公式：{AQ1056}",
        warnings=["采用了旧式公式 Q = Q_base·K_h·K_l·K_t；AQ 1056-2008 的公式为 Q = 60·0.70·v·S·k_h·k_l"],
    )
