"""Every applicable method of a coal face or a heading, the maximum, and the speed check beside it.

A method applies when its required inputs are given (not None); the explosives method also needs a
charge above 0 (no blasting → no method). Methods every location of the kind needs (gas, climate and
people at a face; gas, fan intake and people at a heading) that lack inputs are named in the result's
``not_computed``: the maximum is then a lower bound, not the requirement (docs/DOMAIN.md §2). The wind-speed bounds are checked on the maximum and reported
in ``checks``: they never enter the maximum. Units: m³/min.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from calc.builder import max_result
from calc.climate import calc_face_by_climate
from calc.common import PowerInput
from calc.face import (
    calc_face_by_co2,
    calc_face_by_explosives,
    calc_face_by_gas,
    calc_face_by_wind_speed,
    calc_face_by_workers,
)
from calc.heading import (
    calc_tunnel_by_explosives,
    calc_tunnel_by_fan_intake,
    calc_tunnel_by_gas,
    calc_tunnel_by_vehicle,
    calc_tunnel_by_wind_speed,
    calc_tunnel_by_workers,
)
from calc.result import CalcResult, MaxResult
from calc.tables import AQ1056, DEFAULT_TABLES, CoefficientTables
from calc.validate import non_negative


@dataclass(frozen=True)
class MethodSpec:
    """A method of a maximum: applies when every ``required`` input is given; ``optional`` ones are
    passed when given; ``skip_zero`` names an input whose value 0 means the method does not apply."""

    func: Callable[..., CalcResult]
    required: tuple[str, ...]
    optional: tuple[str, ...] = ()
    skip_zero: str | None = None
    always: bool = False
    """The method applies to every location of the kind (gas, climate, people, fan intake): missing
    inputs make the maximum incomplete. Other methods apply only when their input is given (CO₂,
    explosives, diesel vehicles)."""
    label_cn: str = ""


def _call(spec: MethodSpec, params: Mapping[str, Any], tables: CoefficientTables) -> CalcResult | None:
    if any(params[name] is None for name in spec.required):
        return None
    if spec.skip_zero is not None and non_negative(spec.skip_zero, params[spec.skip_zero]) == 0:
        return None
    kwargs = {name: params[name] for name in (*spec.required, *spec.optional) if params[name] is not None}
    return spec.func(**kwargs, tables=tables)


def missing_methods(specs: Sequence[MethodSpec], params: Mapping[str, Any]) -> list[str]:
    """The methods every location of the kind needs (``always``) whose inputs are missing, each as
    ``"name（中文）：缺少 input, input"``."""
    out = []
    for spec in specs:
        missing = [n for n in spec.required if params.get(n) is None]
        if spec.always and missing:
            out.append(f"{spec.func.__name__}（{spec.label_cn}）：缺少 {', '.join(missing)}")
    return out


def run_methods(
    specs: Sequence[MethodSpec], params: Mapping[str, Any], tables: CoefficientTables
) -> list[CalcResult]:
    """The results of every applicable method, in the order of ``specs``."""
    return [r for spec in specs if (r := _call(spec, params, tables)) is not None]


FACE_METHODS = (
    MethodSpec(
        calc_face_by_gas,
        ("gas_emission",),
        ("k_gas", "mining_method"),
        always=True,
        label_cn="按瓦斯涌出量计算",
    ),
    MethodSpec(calc_face_by_co2, ("co2_emission",), ("k_co2", "mining_method")),
    MethodSpec(
        calc_face_by_climate,
        ("mining_height", "roof_control_max", "roof_control_min"),
        ("face_length", "intake_temp", "v_climate", "k_h", "k_l", "top_coal_caving"),
        always=True,
        label_cn="按气象条件计算",
    ),
    MethodSpec(calc_face_by_workers, ("workers",), always=True, label_cn="按人数计算"),
    MethodSpec(calc_face_by_explosives, ("explosive_kg",), skip_zero="explosive_kg"),
)

HEADING_METHODS = (
    MethodSpec(calc_tunnel_by_gas, ("gas_emission",), ("k_gas",), always=True, label_cn="按瓦斯涌出量计算"),
    MethodSpec(calc_tunnel_by_explosives, ("explosive_kg",), skip_zero="explosive_kg"),
    MethodSpec(
        calc_tunnel_by_fan_intake,
        ("fan_intake_q", "area", "heading_type"),
        ("fan_count", "full_pressure_q"),
        always=True,
        label_cn="按局部通风机吸风量计算",
    ),
    MethodSpec(calc_tunnel_by_workers, ("workers",), always=True, label_cn="按人数计算"),
    MethodSpec(calc_tunnel_by_vehicle, ("vehicle_kw",), ("vehicles",)),
)


def calc_face_air_volume_max(
    *,
    gas_emission: float | None = None,
    k_gas: float | None = None,
    co2_emission: float | None = None,
    k_co2: float | None = None,
    mining_method: str | None = None,
    mining_height: float | None = None,
    roof_control_max: float | None = None,
    roof_control_min: float | None = None,
    face_length: float | None = None,
    intake_temp: float | None = None,
    v_climate: float | None = None,
    k_h: float | None = None,
    k_l: float | None = None,
    top_coal_caving: bool = False,
    workers: int | None = None,
    explosive_kg: float | None = None,
    dust_suppression: bool = False,
    descending: bool = False,
    tables: CoefficientTables = DEFAULT_TABLES,
) -> MaxResult:
    """Coal face required Q (m³/min): the maximum of every applicable method, and the speed check.

    Methods (each applies when its inputs are given): gas (``gas_emission``), CO₂ (``co2_emission``),
    climate AQ 1056 form (``mining_height`` + roof-control distances, with ``face_length``/``k_l`` and
    ``intake_temp``/``v_climate``), people (``workers``), explosives (``explosive_kg`` > 0). The older
    climate form is an alternative, not an extra method: check it with ``calc_face_by_climate_textbook``.
    With the face geometry, ``checks`` holds the speed bounds (``calc_face_by_wind_speed``) of the maximum.
    Raises CalcInputError for any invalid input of an applicable method, or when none applies.
    Source: 《煤矿安全规程》第159条 (the largest of the methods); AQ 1056-2008.
    """
    params = dict(locals())
    params.pop("tables")
    results = run_methods(FACE_METHODS, params, tables)
    checks = []
    if (
        results
        and mining_height is not None
        and roof_control_max is not None
        and roof_control_min is not None
    ):
        speed = calc_face_by_wind_speed(
            mining_height=mining_height,
            roof_control_max=roof_control_max,
            roof_control_min=roof_control_min,
            required_q=max(r.value for r in results),
            mining_method=mining_method,
            dust_suppression=dust_suppression,
            descending=descending,
            tables=tables,
        )
        checks = [speed.check] if speed.check else []
    return max_result(
        method="calc_face_air_volume_max",
        method_cn="采煤工作面需风量（取最大值）",
        results=results,
        inputs=params,
        source=f"{tables.article('air_per_person')}；{AQ1056}",
        checks=checks,
        not_computed=missing_methods(FACE_METHODS, params),
    )


def calc_tunnel_air_volume_max(
    *,
    gas_emission: float | None = None,
    k_gas: float | None = None,
    explosive_kg: float | None = None,
    fan_intake_q: float | None = None,
    fan_count: int | None = None,
    full_pressure_q: float | None = None,
    area: float | None = None,
    heading_type: str | None = None,
    workers: int | None = None,
    vehicle_kw: PowerInput | None = None,
    vehicles: int | None = None,
    tables: CoefficientTables = DEFAULT_TABLES,
) -> MaxResult:
    """Heading required Q (m³/min): the maximum of every applicable method, and the speed check.

    Methods: gas (``gas_emission``), explosives (``explosive_kg`` > 0), auxiliary-fan intake
    (``fan_intake_q`` + ``area`` + ``heading_type``), people (``workers``), diesel vehicles
    (``vehicle_kw``). With ``area`` and ``heading_type``, ``checks`` holds the speed bounds
    (``calc_tunnel_by_wind_speed``) of the maximum. Raises CalcInputError for any invalid input of an
    applicable method, or when none applies. Source: 《煤矿安全规程》第159条, 第183条; AQ 1056-2008.
    """
    params = dict(locals())
    params.pop("tables")
    results = run_methods(HEADING_METHODS, params, tables)
    checks = []
    if results and area is not None and heading_type is not None:
        speed = calc_tunnel_by_wind_speed(
            area=area, heading_type=heading_type, required_q=max(r.value for r in results), tables=tables
        )
        checks = [speed.check] if speed.check else []
    return max_result(
        method="calc_tunnel_air_volume_max",
        method_cn="掘进工作面需风量（取最大值）",
        results=results,
        inputs={k: v for k, v in params.items() if not isinstance(v, list | tuple)},
        source=f"{tables.article('air_per_person')}；{tables.article('aux_fan')}；{AQ1056}",
        checks=checks,
        not_computed=missing_methods(HEADING_METHODS, params),
    )
