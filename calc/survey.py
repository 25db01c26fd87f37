"""Back-calculation of gas emission from an air survey (测风报表反算), DOMAIN §2.6.

Units: wind speed m/s, area m², concentrations % by volume, emissions m³/min, output t/d, relative
emission m³/t. Invalid input raises :class:`calc.errors.CalcInputError`.
"""

from __future__ import annotations

from calc import formatting as fmt
from calc.builder import make_result
from calc.errors import CalcInputError
from calc.result import GasEmissionResult
from calc.tables import DEFAULT_TABLES, CoefficientTables
from calc.validate import non_negative, percent, positive, text

LOCATION_KINDS = {
    "mine": "mine",
    "矿井": "mine",
    "coal_face": "coal_face",
    "采煤工作面": "coal_face",
    "heading": "heading",
    "掘进工作面": "heading",
}
"""Location kinds the high-gas thresholds apply to, with Chinese aliases."""
KIND_CN = {"mine": "矿井", "coal_face": "采煤工作面", "heading": "掘进工作面"}
"""The Chinese name of each location kind, as the high-gas reasons write it."""

RETURN_LIMIT_PERCENT = 1.0
"""CH₄ in a district or face return reaching this (%) stops work [R 第192条]."""


def _high_gas(
    kind: str | None, total: float, relative: float | None, tables: CoefficientTables
) -> tuple[bool | None, list[str]]:
    t = tables.high_gas
    if kind is None:
        return None, []
    by_kind: dict[str, list[tuple[str, float | None, float, str]]] = {
        "mine": [
            ("绝对", total, t.mine_absolute, "m³/min"),
            ("相对", relative, t.mine_relative, "m³/t"),
        ],
        "coal_face": [("绝对", total, t.face_absolute, "m³/min")],
        "heading": [("绝对", total, t.heading_absolute, "m³/min")],
    }
    limits = by_kind[kind]
    reasons = [
        f"{KIND_CN[kind]}瓦斯{what}涌出量 {fmt.emission(value)} {unit} > {fmt.num(limit)} {unit}"
        for what, value, limit, unit in limits
        if value is not None and value > limit
    ]
    return bool(reasons), reasons


def calc_gas_emission_from_wind(
    *,
    wind_speed: float,
    area: float,
    ch4_return: float,
    ch4_intake: float = 0.0,
    drained: float = 0.0,
    daily_output: float | None = None,
    location_kind: str | None = None,
    tables: CoefficientTables = DEFAULT_TABLES,
) -> GasEmissionResult:
    """Absolute CH₄ emission from a survey: ``Q = 60·v·S``, ``q = Q·(C_return − C_intake)/100`` (m³/min).

    ``wind_speed`` v m/s and ``area`` S m² of the return station; ``ch4_return``/``ch4_intake`` in %
    (the /100 turns % into a fraction); ``drained`` m³/min adds the drained gas to the total (``value``);
    ``daily_output`` t/d gives the relative emission ``1440·q_total/output`` m³/t. ``location_kind``
    (``mine``/``coal_face``/``heading``) classifies: high-gas when a mine's relative emission > 10 m³/t or
    absolute > 40 m³/min, a heading's absolute > 3 m³/min, a face's > 5 m³/min. A return concentration
    reaching 1.0 % is warned about (except for ``mine``). Raises CalcInputError: negative or non-finite values, a concentration
    over 100 % or a return below the intake, non-positive area or output, unknown location kind.
    Source: 《煤矿瓦斯等级鉴定办法》 (classification); emission arithmetic as DOMAIN §2.6.
    """
    v = non_negative("wind_speed", wind_speed)
    s = positive("area", area)
    c_ret = percent("ch4_return", ch4_return)
    c_in = percent("ch4_intake", ch4_intake)
    if c_ret < c_in:
        raise CalcInputError("ch4_return", f"不能低于进风流浓度 ch4_intake（{fmt.num(c_in)} %）", c_ret)
    q_drained = non_negative("drained", drained)
    output = None if daily_output is None else positive("daily_output", daily_output)
    kind = None if location_kind is None else LOCATION_KINDS.get(text("location_kind", location_kind))
    if location_kind is not None and kind is None:
        raise CalcInputError(
            "location_kind", f"未知的判定对象；可选：{'/'.join(LOCATION_KINDS)}", location_kind
        )
    air_q = 60 * v * s
    q_vent = air_q * (c_ret - c_in) / 100
    total = q_vent + q_drained
    relative = None if output is None else 1440 * total / output
    high_gas, reasons = _high_gas(kind, total, relative, tables)
    steps = [
        f"Q = 60 × {fmt.num(v)} × {fmt.coef(s)} = {fmt.q(air_q)} m³/min",
        f"q = {fmt.q(air_q)} × ({fmt.num(c_ret)} − {fmt.num(c_in)}) / 100 = {fmt.emission(q_vent)} m³/min",
    ]
    total_text = (
        f"q_total = {fmt.emission(q_vent)} + {fmt.emission(q_drained)} = {fmt.emission(total)} m³/min"
    )
    if output is not None and relative is not None:
        total_text += (
            f"; q_rel = 1440 × {fmt.emission(total)} / {fmt.num(output)} = {fmt.emission(relative)} m³/t"
        )
    warnings = []
    if c_ret >= RETURN_LIMIT_PERCENT and kind != "mine":
        warnings.append(
            f"回风流 CH₄ 浓度 {fmt.num(c_ret)} % 达到 {fmt.num(RETURN_LIMIT_PERCENT, 1)} %：必须停止工作，"
            f"撤出人员（{tables.article('return_gas')}）"
        )
    return make_result(
        raw=total,
        method="calc_gas_emission_from_wind",
        method_cn="按测风报表反算瓦斯涌出量",
        formula="Q = 60·v·S; q = Q·(C_return − C_intake)/100; q_total = q + q_drained; q_rel = 1440·q_total/A",
        expression="",
        substituted="; ".join([*steps, total_text]),
        decimals=fmt.EMISSION_DECIMALS,
        inputs={
            "wind_speed": v,
            "area": s,
            "ch4_return": c_ret,
            "ch4_intake": c_in,
            "drained": q_drained,
            "daily_output": output,
            "location_kind": kind,
        },
        source=tables.high_gas.source,
        warnings=warnings,
        cls=GasEmissionResult,
        air_q=fmt.round_half_up(air_q),
        ventilation_emission=fmt.round_half_up(q_vent, fmt.EMISSION_DECIMALS),
        drained=q_drained,
        relative_emission=None if relative is None else fmt.round_half_up(relative, fmt.EMISSION_DECIMALS),
        high_gas=high_gas,
        high_gas_reasons=reasons,
    )
