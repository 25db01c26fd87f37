"""Helpers of the calc-verifier's rule modules: calculator evidence, further PDF cells a finding compares,
a stated air volume in m³/min, and whether a coefficient the plan chose stands."""

from __future__ import annotations

import calc
from calc.result import CalcResult
from vent_agent.documents.plan.model import Figure, MethodStatement, SourceRef
from vent_agent.review.findings import Evidence
from vent_agent.review.judgement.arith import close
from vent_agent.review.rule_common import pdf_evidence


def calc_ev(method: str, substituted: str) -> Evidence:
    """Evidence for a calculator call: the method and its formula with the figures substituted."""
    return Evidence(kind="calc", detail={"method": method, "substituted": substituted})


def cells(*refs: tuple[SourceRef | None, str]) -> list[Evidence]:
    """PDF evidence for further cells or lines a finding compares (beside its main figure)."""
    return [ev for ref, what in refs if (ev := pdf_evidence(ref, what)) is not None]


def stated_q(fig: Figure | None) -> float | None:
    """A stated air volume in m³/min (a figure written in m³/s is converted)."""
    if fig is None:
        return None
    return calc.m3s_to_m3min(fig.value) if fig.unit and "/s" in fig.unit else fig.value


def plan_coefficient_stands(calc_m: CalcResult, m: MethodStatement, stated: float) -> bool:
    """True when the only difference between the plan's result and calc's is a coefficient calc took by
    default (its range's midpoint) where the plan chose another value inside the range (docs/DOMAIN.md §5: a
    coefficient the plan chose inside its range stands). The plan's value is one of its substituted
    operands within the range that, put in place of the default, gives the plan's result (±0.5 %)."""
    for coef in calc_m.coefficients:
        if coef.origin != "default" or coef.valid_range is None or not coef.value:
            continue
        low, high = coef.valid_range
        for operand in m.operands:
            if low <= operand <= high and close(calc_m.value * operand / coef.value, stated):
                return True
    return False
