"""Regulator sizing (调节风窗): the added resistance that brings a branch to a target flow, the pressure
it must take, and the window's area.

Window area (张国枢 主编《通风安全学》, 中国矿业大学出版社, 调节风窗面积): with the roadway's net area
S (m²), the flow through it Q (m³/s) and the regulator's pressure drop h_w = ΔR·Q² (Pa),
``S_w = Q·S / (0.65·Q + 0.84·S·√h_w)`` when ``S_w/S ≤ 0.5``, else ``S_w = Q·S / (Q + 0.759·S·√h_w)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from scipy.optimize import brentq

from ventnet.errors import NetworkError, quoted
from ventnet.network import Network
from ventnet.solution import Solution
from ventnet.solve import solve

_MAX_ADDED = 1e7  # N·s²/m⁸: past this a regulator is a wall


@dataclass(frozen=True)
class RegulatorSizing:
    """The regulator for ``branch`` to carry ``target_q`` (m³/s), set in ``regulator_branch``:
    ``added_resistance`` ΔR (N·s²/m⁸), ``pressure_drop`` h_w = ΔR·Q² across it (Pa), ``window_area``
    S_w (m², None where the regulator branch's area is unknown), and the network's ``before`` and
    ``after`` solutions (what the regulator does to the rest)."""

    branch: str
    regulator_branch: str
    target_q: float
    added_resistance: float
    pressure_drop: float
    window_area: float | None
    before: Solution
    after: Solution


def window_area(q: float, area: float, pressure_drop: float) -> float:
    """The regulator window's area S_w (m²) for flow ``q`` (m³/s) through a roadway of net area ``area``
    (m²) with drop ``pressure_drop`` (Pa), by the textbook formula of the module docstring."""
    q = abs(q)
    root = math.sqrt(max(pressure_drop, 0.0))
    small = q * area / (0.65 * q + 0.84 * area * root) if q > 0 else 0.0
    if small / area <= 0.5:
        return small
    return q * area / (q + 0.759 * area * root)


def size_regulator(
    network: Network,
    branch: str,
    target_q: float,
    regulator_branch: str | None = None,
    before: Solution | None = None,
) -> RegulatorSizing:
    """The added resistance in ``regulator_branch`` (default: ``branch`` itself) that brings ``branch``
    to ``target_q`` (m³/s, > 0, in the branch's current direction), found by bracketing and Brent's
    method on warm-started solves.

    Raises :class:`NetworkError` (Chinese) when the target is not below the branch's present flow (a
    regulator only takes air away) or cannot be reached, and
    :class:`~ventnet.errors.NotConverged` when a solve does not converge.
    """
    base = before if before is not None else solve(network)
    regulated = network.branch(regulator_branch or branch)
    network.branch(branch)
    present = abs(base.q[branch])
    if not (math.isfinite(target_q) and 0 < target_q < present):
        raise NetworkError(
            f"调节风窗只能减少风量：分支 {quoted(branch)} 现有风量 {present:.3f} m³/s，目标 {target_q} m³/s 须为小于它的正数"
        )
    last = {"solution": base}

    def gap(added: float) -> float:
        trial = replace(regulated, added_resistance=regulated.added_resistance + added)
        changed = network.with_branches(trial if b.id == trial.id else b for b in network.branches)
        last["solution"] = solve(changed, warm=last["solution"])
        return abs(last["solution"].q[branch]) - target_q

    high = max(regulated.total_resistance, 1e-3)
    while gap(high) > 0:
        high *= 10.0
        if high > _MAX_ADDED:
            raise NetworkError(
                f"在分支 {quoted(regulated.id)} 设调节风窗无法使分支 {quoted(branch)} 的风量降到 {target_q} m³/s"
            )
    added = float(brentq(gap, 0.0, high, xtol=1e-9, rtol=1e-10))
    gap(added)
    after = last["solution"]
    flow = abs(after.q[regulated.id])
    drop = added * flow * flow
    area = window_area(flow, regulated.area, drop) if regulated.area else None
    return RegulatorSizing(branch, regulated.id, target_q, added, drop, area, base, after)
