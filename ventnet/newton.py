"""Node-pressure Newton with a backtracking line search (docs/DOMAIN.md §7).

Unknowns are the free branches' flows Q and the unknown nodes' pressures p; the equations are
Kirchhoff's node law ``A·Q + s = 0`` and each branch's law ``g(Q) = p(to) − p(from)``. Eliminating ΔQ
leaves one sparse symmetric system per iteration in the node pressures,
``(A·D⁻¹·Aᵀ)·Δp = A·D⁻¹·r − b`` with ``D = dg/dQ``; the step is then damped until a weighted residual
norm falls (Armijo). Branches with no flow get a floor on ``D`` so the matrix stays regular.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ventnet.compiled import Compiled, FloatArray

Q_TOLERANCE = 1e-4
"""Largest last flow change at convergence, m³/s (the published benchmark's rule)."""

H_TOLERANCE = 0.1
"""Largest branch (hence loop) pressure residual at convergence, Pa."""

MAX_ITERATIONS = 1000
"""Iteration budget of one solve."""

_SLOPE_FLOOR_Q = 1e-6  # m³/s: a flowless branch's slope is taken as at this flow
_SLOPE_FLOOR = 1e-9  # Pa per m³/s


@dataclass
class Iterate:
    """A state of the iteration: free-branch flows ``q`` (m³/s), all nodes' pressures ``p`` (Pa), and
    where it stands: iterations spent, the largest node imbalance (m³/s) and branch residual (Pa), and
    whether the stopping rule was met."""

    q: FloatArray
    p: FloatArray
    iterations: int = 0
    residual_q: float = float("inf")
    residual_h: float = float("inf")
    converged: bool = False


def initial_state(net: Compiled) -> Iterate:
    """A start from the linearised network: each branch's law taken as ``k·Q − h_fan(0) − h_N`` with one
    reference flow for ``k``, solved once; a cold start that already balances every node."""
    supply = net.supply[net.unknown]
    q_ref = max(float(np.sum(np.abs(supply))) / 2.0, 1.0)
    fan = net.a0 > 0
    if np.any(fan):
        q_ref = max(q_ref, float(np.max(np.sqrt(net.a0[fan] / (net.r[fan] + np.abs(net.a2[fan]) + 1e-12)))))
    k = (net.r + np.abs(net.a2)) * q_ref + 1e-6
    lift = net.a0 + net.hn
    p = np.zeros(len(net.node_ids))
    p[net.unknown] = net.solve_nodes(1.0 / k, -(supply + net.incidence @ (lift / k)))
    q = (net.drops(p) + lift) / k
    return Iterate(q=q, p=p)


def newton(net: Compiled, start: Iterate, max_iterations: int = MAX_ITERATIONS) -> Iterate:
    """Newton iterations from ``start`` until the stopping rule holds (``converged``) or the budget is
    spent or the line search stalls (not ``converged``); never raises on non-convergence."""
    q = start.q.copy()
    p = start.p.copy()
    state = Iterate(q=q, p=p)
    b, r = net.imbalance(q), net.branch_law(q) - net.drops(p)
    for iteration in range(1, max_iterations + 1):
        slope = np.maximum(net.branch_slope(q), 2.0 * net.r * _SLOPE_FLOOR_Q + _SLOPE_FLOOR)
        weight = 1.0 / slope
        try:
            dp_unknown = net.solve_nodes(weight, net.incidence @ (weight * r) - b)
        except ArithmeticError:  # a numerically singular matrix: this method cannot go on
            return state
        if not np.all(np.isfinite(dp_unknown)):
            return state
        dp = np.zeros_like(p)
        dp[net.unknown] = dp_unknown
        dq = weight * (net.drops(dp) - r)
        merit = _merit(b, r, weight)
        alpha = 1.0
        while True:
            q_new, p_new = q + alpha * dq, p + alpha * dp
            b_new, r_new = net.imbalance(q_new), net.branch_law(q_new) - net.drops(p_new)
            if _merit(b_new, r_new, weight) <= (1.0 - 1e-4 * alpha) * merit or alpha < 1e-6:
                break
            alpha *= 0.5
        q, p, b, r = q_new, p_new, b_new, r_new
        state = Iterate(
            q=q,
            p=p,
            iterations=iteration,
            residual_q=_max_abs(b),
            residual_h=_max_abs(r),
        )
        step = _max_abs(alpha * dq)
        if step <= Q_TOLERANCE and state.residual_h <= H_TOLERANCE and state.residual_q <= Q_TOLERANCE:
            state.converged = True
            return state
        if alpha < 1e-6:
            return state
    return state


def _merit(b: FloatArray, r: FloatArray, weight: FloatArray) -> float:
    return float(b @ b + (weight * r) @ (weight * r))


def _max_abs(values: FloatArray) -> float:
    return float(np.max(np.abs(values))) if len(values) else 0.0
