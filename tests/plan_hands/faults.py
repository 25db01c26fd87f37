"""Seeded faults: the ten fault kinds of plan b (``tests/data/plan-2026-08-b.answers.json``), as
changes of a plan's *content* (:class:`~tests.plan_hands.model.PlanDoc`), so that every hand writes them.

Each fault is a :class:`Fault`: ``apply(plan)`` changes the plan in place and the fault says what a
review must find: ``(location, category, severity)``. :func:`seed_faults` applies them all (in an order
where each leaves the others' premises alone) and returns the expected findings.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass

from tests.plan_hands.model import AIR, Location, PlanDoc, f, q1


@dataclass(frozen=True)
class Fault:
    """One seeded fault: what it does (``what``), where (``location``; None for the whole plan), the
    category and severity a review must report, and the change itself."""

    kind: str
    location: str | None
    category: str
    severity: str
    what: str
    apply: Callable[[PlanDoc], None]

    @property
    def expected(self) -> tuple[str | None, str, str]:
        """``(location, category, severity)`` as the CLI's JSON findings carry them."""
        return (self.location, self.category, self.severity)


def _resize_speed(loc: Location) -> None:
    if loc.area is not None:
        loc.planned_speed = round(loc.allocated / AIR / loc.area, 2)


def wrong_method_result(name: str, key: str = "gas", slip: float = -30.0) -> Fault:
    """A method's written result differs from its own arithmetic (a digit slip: 144.0 written 114.0);
    the maximum is another method, so nothing else changes."""

    def apply(plan: PlanDoc) -> None:
        loc = plan.location(name)
        loc.method(key).result = q1(loc.method(key).result + slip)
        assert loc.required == loc.governing(), "the slip must not touch the governing method"

    return Fault("wrong_method_result", name, "calculation", "minor", "method result ≠ its arithmetic", apply)


def required_not_maximum(name: str, key: str = "gas") -> Fault:
    """The required Q taken is a smaller method's result, not the maximum; the allocation is sized on
    it (about 11 % above, to the next 50 m³/min) so it falls short of the true maximum."""

    def apply(plan: PlanDoc) -> None:
        loc = plan.location(name)
        loc.required = loc.method(key).result
        loc.allocated = float(-(-loc.required * 1.1 // 50) * 50)
        assert loc.allocated < loc.governing()
        _resize_speed(loc)

    return Fault("required_not_maximum", name, "calculation", "major", "required Q is not the maximum", apply)


def gas_emission_differs(name: str, value: float) -> Fault:
    """The plan's gas emission differs from the gas-grade report; its own gas method is consistent
    with the wrong figure (and stays below the governing method)."""

    def apply(plan: PlanDoc) -> None:
        loc = plan.location(name)
        loc.params = [(k, lab, f(value, 2) if k == "gas_emission" else v, u) for k, lab, v, u in loc.params]
        gas = loc.method("gas")
        gas.operands[1] = f(value, 2)
        gas.inputs[0] = (gas.inputs[0][0], f(value, 2), gas.inputs[0][2])
        gas.result = q1(100 * value * float(gas.operands[2]))
        assert loc.required == loc.governing()

    return Fault("gas_emission_differs", name, "data", "major", "gas emission ≠ gas-grade report", apply)


def location_missing(name: str) -> Fault:
    """A heading of the monthly mining plan is left out of the plan altogether."""

    def apply(plan: PlanDoc) -> None:
        plan.locations.remove(plan.location(name))

    return Fault("location_missing", name, "data", "major", "mining-plan location missing", apply)


def approval_missing(role: str = "批准") -> Fault:
    """The approval (批准) signature and its date are left blank: the plan is not in effect."""

    def apply(plan: PlanDoc) -> None:
        for s in plan.signoffs:
            if s.role == role:
                s.name, s.date = None, None

    return Fault("approval_missing", None, "form", "major", "批准 signature and date missing", apply)


def rock_heading_speed(name: str) -> Fault:
    """A rock heading's fan-intake method uses the coal minimum speed 0.25 m/s instead of 0.15 m/s."""

    def apply(plan: PlanDoc) -> None:
        loc = plan.location(name)
        m = loc.method("fan_intake")
        qf, n, _, _, s = m.operands
        m.formula = m.formula.replace("0.15", "0.25")
        m.operands[3] = "0.25"
        m.result = q1(float(qf) * float(n) + 60 * 0.25 * float(s))
        assert loc.required == loc.governing()

    return Fault("rock_heading_speed", name, "calculation", "minor", "rock heading with 0.25 m/s", apply)


def allocated_below_required(name: str, allocated: float) -> Fault:
    """The allocated Q falls below the location's (correct) required Q."""

    def apply(plan: PlanDoc) -> None:
        loc = plan.location(name)
        assert allocated < loc.required
        loc.allocated = allocated
        _resize_speed(loc)

    return Fault("allocated_below_required", name, "calculation", "major", "allocated < required", apply)


def required_in_other_unit(name: str) -> Fault:
    """The allocation table writes this location's required Q in another unit than its column's
    (m³/s in an m³/min column, m³/min in an m³/s column)."""

    def apply(plan: PlanDoc) -> None:
        plan.location(name).required_unit_slip = True

    return Fault("required_in_other_unit", name, "units", "minor", "required Q in the wrong unit", apply)


def ch4_over_limit(name: str, ch4: float) -> Fault:
    """The measured CH₄ in the return reaches 1.0 %: work must stop (规程 第192条)."""

    def apply(plan: PlanDoc) -> None:
        plan.location(name).ch4 = ch4

    return Fault("ch4_over_limit", name, "regulation", "critical", "CH₄ ≥ 1.0 % in the return", apply)


def sum_misstated(delta: float = 100.0) -> Fault:
    """ΣQ is written ``delta`` m³/min off the sum of the per-location required values (and the mine
    total follows the wrong sum)."""

    def apply(plan: PlanDoc) -> None:
        plan.resum()
        plan.stated_sum = q1(plan.stated_sum + delta)

    return Fault("sum_misstated", None, "calculation", "minor", "ΣQ ≠ sum of required Q", apply)


def demo_faults() -> list[Fault]:
    """The ten fault kinds of plan b at plan b's locations of the demo mine (ΣQ last: it sums the rest)."""
    return [
        wrong_method_result("15220运输顺槽掘进工作面"),
        required_not_maximum("15216综采工作面"),
        gas_emission_differs("15220回风顺槽掘进工作面", 1.10),
        location_missing("15222切眼掘进工作面"),
        approval_missing(),
        rock_heading_speed("二采区轨道下山掘进工作面"),
        allocated_below_required("中央变电所", 150.0),
        required_in_other_unit("井下爆炸材料库"),
        ch4_over_limit("15220回风顺槽掘进工作面", 1.05),
        sum_misstated(),
    ]


def seed_faults(plan: PlanDoc, faults: list[Fault]) -> PlanDoc:
    """A copy of ``plan`` with ``faults`` applied in order (``plan`` is left as it is)."""
    out = copy.deepcopy(plan)
    for fault in faults:
        fault.apply(out)
    if not any(x.kind == "sum_misstated" for x in faults):
        out.resum()
    return out
