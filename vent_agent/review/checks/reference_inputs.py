"""Plan inputs contradicted by the mine's reference data, for the calc-verifier (docs/DOMAIN.md §5).

Recomputation never inherits a wrong input: where a plan's input is contradicted by the reference data
beyond the data-checker's tolerance, the calc-verifier recomputes the location with the least demanding
compliant value — the gas-grade report's emission, the operating procedure's face length, mining height,
roof-control distances and headcount, and for the climate method's wind speed the lower bound of the
AQ 1056 band at the surveyed intake temperature. Only contradictions that lower the requirement are
replaced (a plan figure above the reference is on the safe side). The tolerances and the matching of
names are the data-checker's (:mod:`vent_agent.review.checks.data_rules`), so the two reviewers agree.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from vent_agent.documents.plan.model import LocationPlan
from vent_agent.documents.plan.text_primitives import match_name
from vent_agent.review.checks.data_rules import (
    PROCEDURE_FIELDS,
    TOOLS,
    climate_min_v,
    within,
)
from vent_agent.review.judgement.recompute import plan_diesel_kw
from vent_agent.review.reference import MonthlyReference
from vent_agent.review.rules import FIGURE_TOLERANCE, GAS_TOLERANCE

SYMBOLS = {
    "gas_emission": ("q", "m³/min"),
    "face_length": ("L", "m"),
    "mining_height": ("h", "m"),
    "roof_control_max": ("L_max", "m"),
    "roof_control_min": ("L_min", "m"),
    "workers": ("N", "人"),
    "v_climate": ("v", "m/s"),
    "diesel_kw": ("ΣP", "kW"),
}
"""Plan input → the symbol and unit the recomputation note writes it with."""


@dataclass(frozen=True)
class ReferenceInput:
    """One plan input replaced by its reference figure in the recomputation.

    ``name`` the plan input (``gas_emission``), ``label`` its Chinese name, ``given`` the plan's value,
    ``reference`` the least demanding compliant value (same unit, ``unit``), ``source`` the document
    it comes from (瓦斯等级鉴定报告, 工作面作业规程, 测风报表（AQ 1056-2008）), ``tool`` the MCP tool
    serving it and ``key`` the reference data's name for the location.
    """

    name: str
    label: str
    given: float
    reference: float
    unit: str
    source: str
    tool: str
    key: str

    @property
    def symbol(self) -> str:
        """The symbol of the input in a recomputation note (``q``, ``L``, ``v``)."""
        return SYMBOLS.get(self.name, (self.name, ""))[0]

    def as_dict(self) -> dict[str, Any]:
        """The replacement as a JSON-able dict (stored on the location's recomputation)."""
        return {**asdict(self), "symbol": self.symbol}


def contradicted_inputs(loc: LocationPlan, ref: MonthlyReference | None) -> list[ReferenceInput]:
    """The inputs of ``loc`` the reference data contradicts on the side that lowers the requirement,
    each with the figure to recompute with; empty without reference data. Units as the plan's inputs
    (m³/min, m, persons, m/s)."""
    if ref is None:
        return []
    out: list[ReferenceInput] = []
    gas = loc.inputs.get("gas_emission")
    key = match_name(loc.name, list(ref.gas_report)) if TOOLS["gas"] not in ref.gaps else None
    if gas is not None and key is not None:
        report = ref.gas_report[key]
        if gas.value < report and not within(gas.value, report, GAS_TOLERANCE):
            out.append(
                ReferenceInput("gas_emission", "瓦斯绝对涌出量", gas.value, report, "m³/min", "瓦斯等级鉴定报告", TOOLS["gas"], key)
            )  # fmt: skip
    key = match_name(loc.name, list(ref.face_procedures)) if TOOLS["procedure"] not in ref.gaps else None
    if key is not None:
        proc = ref.face_procedures[key]
        for name, attr, label, unit in PROCEDURE_FIELDS:
            fig, want = loc.inputs.get(name), getattr(proc, attr)
            if fig is None or want is None or fig.value >= want or within(fig.value, want, FIGURE_TOLERANCE):
                continue
            if name == "roof_control_min":  # a smaller minimum distance does not lower the requirement
                continue
            out.append(
                ReferenceInput(name, label, fig.value, want, unit, "工作面作业规程", TOOLS["procedure"], key)
            )
    out += _climate(loc, ref)
    out += _diesel(loc, ref)
    return out


def _diesel(loc: LocationPlan, ref: MonthlyReference) -> list[ReferenceInput]:
    """The vehicles' power below the mine's vehicle register for the roadway (第159条: 4 m³/min per kW of
    the most vehicles running at once)."""
    given = plan_diesel_kw(loc)
    key = match_name(loc.name, list(ref.diesel_kw)) if TOOLS["survey"] not in ref.gaps else None
    if given is None or key is None:
        return []
    want = ref.diesel_kw[key]
    if given >= want or within(given, want, FIGURE_TOLERANCE):
        return []
    return [
        ReferenceInput("diesel_kw", "同时运行车辆总功率", given, want, "kW", "车辆台账", TOOLS["survey"], key)
    ]


def _climate(loc: LocationPlan, ref: MonthlyReference) -> list[ReferenceInput]:
    """The climate method's wind speed below the AQ 1056 band at the surveyed intake temperature."""
    v = loc.inputs.get("v_climate")
    if v is None or not any(m.method == "climate" for m in loc.methods) or TOOLS["survey"] in ref.gaps:
        return []
    key = match_name(loc.name, list(ref.air_survey))
    survey = ref.air_survey.get(key) if key else None
    if survey is None or survey.temp is None or key is None:
        return []
    need = climate_min_v(survey.temp)
    if v.value + 1e-9 >= need:
        return []
    source = f"测风报表（进风温度 {survey.temp:g} ℃，AQ 1056-2008）"
    return [ReferenceInput("v_climate", "气象条件风速", v.value, need, "m/s", source, TOOLS["survey"], key)]
