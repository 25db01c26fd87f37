"""Recomputing a plan location's required air volume with :mod:`calc`, from the plan's own inputs.

The plan's stated coefficients (k, v, k_h, k_l, θ…) are passed as given, so calc checks them against
their documented ranges; rule-fixed coefficients (the minimum speed of a heading's fan-intake method, the
multipliers) come from calc's tables. Each location kind maps to the methods of docs/DOMAIN.md §2.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import calc
from calc.result import BoundCheck, CalcResult, Coefficient, MaxResult
from vent_agent.documents.plan.model import LocationPlan

ROADWAY_CLASS_HINTS: tuple[tuple[str, str], ...] = (
    ("总进风", "main_intake_return"),
    ("总回风", "main_intake_return"),
    ("翼回风", "main_intake_return"),
    ("翼进风", "main_intake_return"),
    ("主要回风", "main_intake_return"),
    ("主要进风", "main_intake_return"),
    ("架线", "trolley_roadway"),
    ("电机车", "trolley_roadway"),
    ("人行", "other_walkway"),
    ("联络巷", "other_walkway"),
)
MAIN_RETURN_HINTS: tuple[tuple[str, str], ...] = (
    ("总回风", "main_return"),
    ("翼回风", "main_return"),
    ("主要回风", "main_return"),
)
"""A roadway whose gas is diluted to 0.75 % CH₄ (总回风巷 or 一翼回风巷): Q = 133·q·k (AQ 1056-2008)."""
CHAMBER_HINTS: tuple[tuple[str, str], ...] = (
    ("空压机", "compressor"),
    ("泵房", "pump"),
    ("水泵", "pump"),
    ("变电", "substation"),
    ("绞车", "hoist"),
    ("提升机", "hoist"),
)
STORE_SIZES = {"大型": "large", "中型": "medium", "小型": "small"}


class Unrecomputable(Exception):
    """The location lacks the inputs for a recomputation; ``str(exc)`` says which, in Chinese (it is the
    reason of the review's ``calc.unrecomputable`` finding)."""


def missing_inputs(names: list[str]) -> str:
    """``缺少核算参数：power_kw（硐室运行设备总功率 ΣW（或各台功率列表））、delta_t（…）``: each input by its
    glossary name and its Chinese label (:data:`calc.PARAMS`)."""
    shown = [f"{n}（{calc.PARAMS[n].label_cn}）" if n in calc.PARAMS else n for n in names]
    return "缺少核算参数：" + "、".join(shown)


def _inputs(loc: LocationPlan) -> dict[str, float]:
    return {k: f.value for k, f in loc.inputs.items()}


def _pick(values: dict[str, float], *names: str) -> dict[str, Any]:
    return {n: values[n] for n in names if n in values}


def _as_int(values: dict[str, float], *names: str) -> None:
    for n in names:
        if n in values:
            values[n] = int(round(values[n]))


def hint(text: str, hints: tuple[tuple[str, str], ...]) -> str | None:
    return next((v for key, v in hints if key in text), None)


def roadway_class(loc: LocationPlan) -> str:
    """The wind-speed class of an other roadway from its name and kind label (default: district
    intake/return or conveyor roadway, 0.25–6 m/s)."""
    return hint(loc.name + loc.kind_label, ROADWAY_CLASS_HINTS) or "district_roadway"


def combine(
    location_methods: list[CalcResult], checks: list[BoundCheck] | None = None, name: str = ""
) -> MaxResult:
    """A :class:`MaxResult` over the given method results (the largest governs)."""
    if not location_methods:
        raise Unrecomputable("没有可核算的方法")
    best = max(location_methods, key=lambda r: r.value)
    return MaxResult(
        value=best.value,
        method="max",
        method_cn=f"{name}需风量取各方法最大值",
        formula="Q = max(" + ", ".join(r.method_cn for r in location_methods) + ")",
        substituted=f"Q = max({', '.join(f'{r.value:.1f}' for r in location_methods)}) = {best.value:.1f} m³/min",
        source=best.source,
        methods=location_methods,
        governing=best.method,
        checks=checks or [],
        warnings=[w for r in location_methods for w in r.warnings],
    )


def _coal_face(loc: LocationPlan, v: dict[str, float], _ctx: dict[str, float]) -> MaxResult:
    _as_int(v, "workers")
    args = _pick(
        v,
        "gas_emission",
        "k_gas",
        "co2_emission",
        "k_co2",
        "mining_height",
        "roof_control_max",
        "roof_control_min",
        "face_length",
        "intake_temp",
        "v_climate",
        "k_h",
        "k_l",
        "workers",
        "explosive_kg",
    )
    return calc.calc_face_air_volume_max(mining_method=_mining_method(loc), **args)


def _mining_method(loc: LocationPlan) -> str | None:
    text = loc.name + loc.kind_label
    return next((m for m in ("综采", "炮采", "水采") if m in text), None)


def _heading(loc: LocationPlan, v: dict[str, float], _ctx: dict[str, float]) -> MaxResult:
    _as_int(v, "workers", "fan_count", "vehicles")
    args = _pick(
        v,
        "gas_emission",
        "k_gas",
        "explosive_kg",
        "fan_intake_q",
        "fan_count",
        "area",
        "workers",
        "vehicle_kw",
        "vehicles",
    )
    if args.get("explosive_kg") == 0:
        args.pop("explosive_kg")
    # a heading whose rock is not stated is taken as rock, whose bounds are the widest (v_min 0.15 m/s):
    # what the plan does not say must lose findings, never make them
    return calc.calc_tunnel_air_volume_max(heading_type=loc.rock or "rock", **args)


def _standby(loc: LocationPlan, v: dict[str, float], ctx: dict[str, float]) -> MaxResult:
    working_q = ctx.get((loc.standby_of or "").replace(" ", ""))
    if working_q is None:
        method = next((m for m in loc.methods if m.method == "standby" and m.operands), None)
        if method is None:
            raise Unrecomputable("备用工作面未注明所备用的工作面及其需风量")
        working_q = method.operands[-1]
    return combine([calc.calc_standby_face(working_face_q=working_q)], name=loc.name)


def _chamber(loc: LocationPlan, v: dict[str, float], _ctx: dict[str, float]) -> MaxResult:
    args = _pick(v, "power_kw", "theta", "delta_t")
    methods = [calc.calc_chamber_by_equipment(chamber_type=hint(loc.name, CHAMBER_HINTS), **args)]
    return combine(methods, name=loc.name)


def _explosives_store(loc: LocationPlan, v: dict[str, float], _ctx: dict[str, float]) -> MaxResult:
    text = " ".join([loc.name, loc.kind_label, *(m.expression for m in loc.methods)])
    size = next((s for key, s in STORE_SIZES.items() if key in text), "small")
    return combine([calc.calc_explosives_store(volume_m3=v["volume_m3"], store_size=size)], name=loc.name)


def _charging(loc: LocationPlan, v: dict[str, float], _ctx: dict[str, float]) -> MaxResult:
    return combine([calc.calc_charging_chamber(h2_emission=v["h2_emission"])], name=loc.name)


def plan_diesel_kw(loc: LocationPlan) -> float | None:
    """The diesel power (kW) the plan counts as running at once on ``loc``: its inputs (one vehicle's
    power × the vehicles, one when not stated), else what its vehicle method multiplies by 4
    (``Q = 4 × ΣP = 4 × 70`` → 70); None when the plan calculates no vehicles."""
    if "vehicle_kw" in loc.inputs:
        count = loc.inputs["vehicles"].value if "vehicles" in loc.inputs else 1.0
        return loc.inputs["vehicle_kw"].value * count
    method = next((m for m in loc.methods if m.method == "vehicle" and len(m.operands) >= 2), None)
    if method is None or method.operands[0] != 4:
        return None
    total = 1.0
    for x in method.operands[1:]:
        total *= x
    return total


def _roadway(loc: LocationPlan, v: dict[str, float], _ctx: dict[str, float]) -> MaxResult:
    methods: list[CalcResult] = []
    if "diesel_kw" not in v and "vehicle_kw" not in v and (total := plan_diesel_kw(loc)) is not None:
        v["diesel_kw"] = total  # only the method's ΣP was written
    if "diesel_kw" in v:  # the vehicles' total power from the mine's register (reference_inputs)
        methods.append(calc.calc_other_by_vehicle(vehicle_kw=v["diesel_kw"]))
    elif "vehicle_kw" in v:
        _as_int(v, "vehicles")
        methods.append(calc.calc_other_by_vehicle(**_pick(v, "vehicle_kw", "vehicles")))
    if "gas_emission" in v and "k_gas" in v:
        scope = hint(loc.name + loc.kind_label, MAIN_RETURN_HINTS) or "district"
        methods.append(calc.calc_other_by_gas(gas_emission=v["gas_emission"], k_gas=v["k_gas"], scope=scope))
    if "area" not in v:
        return combine(methods, name=loc.name)
    cls = roadway_class(loc)
    if not methods:  # no other method: the minimum speed gives the requirement
        methods.append(calc.calc_other_by_wind_speed(area=v["area"], roadway_class=cls))
    best = max(m.value for m in methods)
    speed = calc.calc_other_by_wind_speed(area=v["area"], roadway_class=cls, required_q=best)
    return combine(methods, [speed.check] if speed.check else [], name=loc.name)


RECOMPUTERS: dict[str, Callable[[LocationPlan, dict[str, float], dict[str, float]], MaxResult]] = {
    "coal_face": _coal_face,
    "heading": _heading,
    "standby_face": _standby,
    "chamber_heat": _chamber,
    "explosives_store": _explosives_store,
    "charging": _charging,
    "diesel_roadway": _roadway,
    "other_roadway": _roadway,
}


def recompute_location(
    loc: LocationPlan, required_by_location: dict[str, float], overrides: dict[str, float] | None = None
) -> MaxResult:
    """Recompute ``loc``'s required Q (m³/min). ``required_by_location`` holds the recomputed values of
    locations already done (normalised names), for standby faces; ``overrides`` replaces plan inputs
    by name (``{"v_climate": 1.5}``, see :func:`recompute_compliant`).

    Raises :class:`Unrecomputable` (unknown kind, missing inputs) or :class:`calc.errors.CalcInputError`.
    """
    fn = RECOMPUTERS.get(loc.kind)
    if fn is None:
        raise Unrecomputable(f"未识别的用风地点类别「{loc.kind_label or loc.kind}」")
    try:
        return fn(loc, _inputs(loc) | dict(overrides or {}), required_by_location)
    except KeyError as exc:
        raise Unrecomputable(missing_inputs([str(exc.args[0])])) from exc
    except TypeError as exc:  # a calculator called without a required input: its names, not Python's text
        names = re.findall(r"'(\w+)'", str(exc)) if "missing" in str(exc) else []
        raise Unrecomputable(missing_inputs(names) if names else "核算参数不全或类型不对") from exc


COEFFICIENT_INPUTS: dict[tuple[str, str], str] = {
    ("calc_face_by_climate", "v"): "v_climate",
    ("calc_face_by_climate", "k_h"): "k_h",
    ("calc_face_by_climate", "k_l"): "k_l",
    ("calc_face_by_gas", "k"): "k_gas",
    ("calc_face_by_co2", "k"): "k_co2",
    ("calc_tunnel_by_gas", "k"): "k_gas",
    ("calc_other_by_gas", "k"): "k_gas",
    ("calc_chamber_by_equipment", "θ"): "theta",
}
"""(method, coefficient symbol) → the plan input that sets it."""
KEY_LABELS = {
    "intake_temp": ("进风温度", "℃"),
    "face_length": ("工作面长度", "m"),
    "mining_height": ("采高", "m"),
}
"""The input a coefficient's table row is chosen by (calc's ``Coefficient.key``, :attr:`Adjustment.key`)
→ its Chinese label and unit, as findings and reports state it."""


@dataclass(frozen=True)
class Adjustment:
    """A plan coefficient outside its range, replaced in the recomputation (docs/DOMAIN.md §5).

    ``given`` the plan's value, ``compliant`` the nearest bound of ``low``–``high`` (the least demanding
    compliant value), ``default`` the range's midpoint; ``q_compliant``/``q_default`` the location's
    required Q (m³/min) with each; ``note`` the table row (``intake_temp 23.5 °C → 23–26 °C …``).
    """

    method: str
    method_cn: str
    symbol: str
    given: float
    compliant: float
    default: float
    low: float
    high: float
    q_compliant: float
    q_default: float
    note: str = ""
    key: str | None = None
    key_value: float | None = None

    def as_dict(self) -> dict[str, Any]:
        """The adjustment as a JSON-able dict (stored on the location's recomputation)."""
        return asdict(self)

    @property
    def lowers(self) -> bool:
        """True when the plan's value is below the range (it lowers the requirement)."""
        return self.given < self.low


def _out_of_range(result: MaxResult) -> list[tuple[CalcResult, Coefficient, str, tuple[float, float]]]:
    """The plan's coefficients outside their documented range: (method result, coefficient, its input
    name, the range)."""
    out = []
    for r in result.methods or [result]:
        for c in r.coefficients:
            name = COEFFICIENT_INPUTS.get((r.method, c.symbol))
            valid = c.valid_range
            if name and c.origin == "given" and valid and not valid[0] <= c.value <= valid[1]:
                out.append((r, c, name, valid))
    return out


def recompute_compliant(
    loc: LocationPlan, required_by_location: dict[str, float], inputs: dict[str, float] | None = None
) -> tuple[MaxResult, MaxResult, list[Adjustment]]:
    """``loc`` recomputed as the plan states it and as the review judges it: the plan inputs contradicted
    by reference data replaced by ``inputs`` (``{"gas_emission": 1.6}``, see
    :func:`vent_agent.review.checks.reference_inputs.contradicted_inputs`), then every plan coefficient outside
    its range replaced by the nearest bound (never inherited, docs/DOMAIN.md §5).

    Returns (as stated, compliant, adjustments); with nothing replaced the first two are the same result
    and the list is empty. Raises as :func:`recompute_location`.
    """
    stated = recompute_location(loc, required_by_location)
    base = dict(inputs or {})
    judged = recompute_location(loc, required_by_location, base) if base else stated
    bad = _out_of_range(judged)
    if not bad:
        return stated, judged, []
    nearest = {n: min(max(c.value, low), high) for _, c, n, (low, high) in bad}
    midpoint = {n: round(sum(valid) / 2, 6) for _, _, n, valid in bad}
    compliant = recompute_location(loc, required_by_location, base | nearest)
    at_default = recompute_location(loc, required_by_location, base | midpoint)
    adjustments = [
        Adjustment(
            method=r.method,
            method_cn=r.method_cn,
            symbol=c.symbol,
            given=c.value,
            compliant=nearest[n],
            default=midpoint[n],
            low=valid[0],
            high=valid[1],
            q_compliant=compliant.value,
            q_default=at_default.value,
            note=c.note,
            key=c.key,
            key_value=c.key_value,
        )
        for r, c, n, valid in bad
    ]
    return stated, compliant, adjustments


def normalise_name(name: str) -> str:
    """A location name without spaces, for matching across sections."""
    return re.sub(r"\s+", "", name)


__all__ = [
    "Adjustment",
    "Unrecomputable",
    "combine",
    "normalise_name",
    "recompute_compliant",
    "recompute_location",
]
