"""The registry of plan methods: every way a plan calculates a location's required air volume (需风量),
in one place, read by the reader, the recomputation, the rules and the plausibility checks.

Each :class:`PlanMethod` says

- ``key``: the normalised method key carried by :class:`~vent_agent.documents.plan.model.MethodStatement`;
- ``labels``: how plans write the method's label (a regular expression: ``按瓦斯涌出量计算``, ``按CH₄``…);
  the first method whose labels match a label names it, so more specific methods come first;
- ``symbols``: the formula's symbols as plans write them (lower case) → the plan input each gives
  (``q`` → ``gas_emission``): a substituted formula ``Q = 100 × q × k = 100 × 4.2 × 1.5`` fills inputs;
- ``inputs``: the plan inputs the method needs, whose plausibility is checked;
- ``kind``: the location kind a block calculated only by this method is (a standby method makes a standby
  face), or None when the method does not tell the kind;
- ``calculator``: how the matching calc/ result is named (the suffix of its method, ``_by_gas``, or the
  name of the kind's calculator, ``standby_face``), or None when calc/ has no such method.

Units and sources are the calculators' (calc/, docs/CALC.md, docs/DOMAIN.md §2). Adding a method is one
entry here plus its calculator and tests (docs/RECIPES.md); :func:`registered` adds one for a test.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from vent_agent.documents.plan.model import LocationKind

_GAS = {"q": "gas_emission", "qch4": "gas_emission", "q瓦斯": "gas_emission", "k": "k_gas", "kch4": "k_gas"}
_CLIMATE_K = {"k采高": "k_h", "kh": "k_h", "k面长": "k_l", "kl": "k_l", "k温": "k_t", "kt": "k_t"}


@dataclass(frozen=True)
class PlanMethod:
    """One method of calculating a location's required air volume (see the module docstring)."""

    key: str
    labels: str
    symbols: dict[str, str] = field(default_factory=dict)
    inputs: tuple[str, ...] = ()
    kind: LocationKind | None = None
    calculator: str | None = None


METHODS: list[PlanMethod] = [
    PlanMethod("standby", r"备用", kind="standby_face", calculator="standby_face"),
    PlanMethod("h2", r"氢气|H2|H₂", {"q": "h2_emission", "qh2": "h2_emission"}, ("h2_emission",), "charging", "charging"),
    PlanMethod("co2", r"二氧化碳|CO2|CO₂", {"q": "co2_emission", "qco2": "co2_emission", "k": "k_co2", "kco2": "k_co2"},
               ("co2_emission", "k_co2"), calculator="_by_co2"),
    PlanMethod("gas", r"瓦斯|CH4|CH₄|沼气|甲烷", _GAS, ("gas_emission", "k_gas"), calculator="_by_gas"),
    PlanMethod("climate", r"气象|气候|温度", {"v": "v_climate", **_CLIMATE_K}, kind="coal_face", calculator="_by_climate"),
    PlanMethod("workers", r"人数|人员", {"n": "workers"}, ("workers",), calculator="_by_workers"),
    PlanMethod("explosives", r"炸药|爆破|火药", {"a": "explosive_kg"}, ("explosive_kg",), calculator="_by_explosives"),
    PlanMethod("fan_intake", r"局部通风机|局扇|吸风量|通风机",
               {"qf": "fan_intake_q", "q局": "fan_intake_q", "q扇": "fan_intake_q", "i": "fan_count", "s": "area"},
               ("fan_intake_q", "fan_count", "area"), "heading", "_by_fan_intake"),
    PlanMethod("vehicle", r"胶轮车|车辆|柴油|机车|胶轮", kind="diesel_roadway", calculator="_by_vehicle"),
    PlanMethod("heat", r"发热|散热|热量",
               {"σw": "power_kw", "∑w": "power_kw", "w": "power_kw", "θ": "theta", "δt": "delta_t", "△t": "delta_t"},
               ("power_kw", "theta", "delta_t"), "chamber_heat", "_by_equipment"),
    PlanMethod("volume", r"库容|容积|换气", {"v": "volume_m3"}, ("volume_m3",), "explosives_store", "explosives_store"),
    PlanMethod("min_q", r"最低|最小|最少|经验"),
]  # fmt: skip
"""The methods, most specific label first (a 备用 face's ``按回采工作面瓦斯…`` is a standby method)."""

CLIMATE_TEXTBOOK = PlanMethod("climate_textbook", r"$^", dict(_CLIMATE_K), kind="coal_face")
"""The climate method written with a temperature coefficient instead of a speed (``Q = Q基 × k温 × …``):
no label of its own, told from the formula (:func:`method_key`)."""
_TEXTBOOK = re.compile(r"[Kk]\s*(?:t|T|温)|Q\s*(?:基|0)")


def method_key(label: str, expression: str = "") -> str:
    """The key of the method a label names (``按瓦斯涌出量计算`` → ``gas``; ``other`` when none):
    the climate method written with a temperature coefficient is ``climate_textbook``."""
    for method in METHODS:
        if re.search(method.labels, label):
            if method.key == "climate" and _TEXTBOOK.search(
                expression.split("=")[1] if "=" in expression else ""
            ):
                return CLIMATE_TEXTBOOK.key
            return method.key
    return "other"


def method(key: str) -> PlanMethod | None:
    """The registered method of ``key`` (None for ``other`` or an unknown key)."""
    if key == CLIMATE_TEXTBOOK.key:
        return CLIMATE_TEXTBOOK
    return next((m for m in METHODS if m.key == key), None)


def symbol_input(key: str, symbol: str) -> str | None:
    """The plan input the formula symbol ``symbol`` (as written) of method ``key`` gives, or None."""
    found = method(key)
    return found.symbols.get(symbol.lower().replace("₄", "4").replace("₂", "2")) if found else None


def kind_of(key: str) -> LocationKind | None:
    """The location kind a block calculated by method ``key`` is, or None when the method does not say."""
    found = method(key)
    return found.kind if found else None


def calculator(key: str) -> str | None:
    """How calc/ names the result of method ``key`` (a method suffix or a kind's calculator), or None."""
    found = method(key)
    return found.calculator if found else None


def inputs_of(key: str) -> tuple[str, ...]:
    """The plan inputs method ``key`` needs (for the plausibility checks); empty when none are known."""
    found = method(key)
    return found.inputs if found else ()


@contextmanager
def registered(extra: PlanMethod, *, before: str | None = None) -> Iterator[PlanMethod]:
    """``extra`` in the registry for the duration of the ``with`` block (first, or before the method
    ``before``): for tests of a new method. Restores the registry afterwards."""
    saved = list(METHODS)
    at = next((i for i, m in enumerate(METHODS) if m.key == before), 0) if before else 0
    METHODS.insert(at, extra)
    try:
        yield extra
    finally:
        METHODS[:] = saved
