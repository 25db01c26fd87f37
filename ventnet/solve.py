"""Solve a network: Newton first, Hardy Cross if Newton stalls, an error if neither converges."""

from __future__ import annotations

import numpy as np

from ventnet.compiled import Compiled, compile_network
from ventnet.errors import NotConverged
from ventnet.hardy_cross import hardy_cross
from ventnet.network import Network
from ventnet.newton import MAX_ITERATIONS, Iterate, initial_state, newton
from ventnet.solution import FanPoint, Solution


def solve(network: Network, warm: Solution | None = None, max_iterations: int = MAX_ITERATIONS) -> Solution:
    """The steady flows and pressures of ``network`` (docs/DOMAIN.md §7).

    ``warm`` (an earlier solution of a similar network, e.g. before a what-if change) seeds the flows and
    pressures of the branches and nodes it knows. The stopping rule is |ΔQ| ≤ 1e-4 m³/s and |Δh| ≤ 0.1 Pa
    within ``max_iterations`` (Newton and the Hardy Cross fallback share the budget).

    Raises :class:`~ventnet.errors.NetworkError` for a network that cannot be posed and
    :class:`~ventnet.errors.NotConverged` when no method converges: an unconverged state is never a result.
    """
    net = compile_network(network)
    methods = "牛顿节点风压法"
    try:
        cold: Iterate | None = None
        if warm is None:
            start = cold = initial_state(net)
        else:
            start = _warm_start(net, warm)
        state = newton(net, start, max_iterations)
    except _NUMERIC_FAILURES:  # a singular or overflowing system: said so, never a 500
        raise NotConverged(0, float("inf"), float("inf"), methods) from None
    spent = state.iterations
    method = "newton"
    if not state.converged and spent < max_iterations:
        methods += "、Hardy Cross 回路法"
        try:
            fallback = hardy_cross(net, cold or initial_state(net), max_iterations - spent)
        except _NUMERIC_FAILURES:
            raise NotConverged(spent, state.residual_q, state.residual_h, methods) from None
        spent += fallback.iterations
        if fallback.converged:
            state, method = fallback, "hardy_cross"
    if not state.converged:
        raise NotConverged(spent, state.residual_q, state.residual_h, methods)
    return _solution(net, state, spent, method)


_NUMERIC_FAILURES = (ArithmeticError, ValueError, np.linalg.LinAlgError)
"""What a numerically hopeless network raises inside the linear algebra (a singular factorisation is
raised as an ArithmeticError by :meth:`~ventnet.compiled.Compiled.solve_nodes`)."""


def _warm_start(net: Compiled, warm: Solution) -> Iterate:
    """The earlier solution's flows and pressures where it knows the branch or node, the cold start's
    elsewhere (a branch or node a change added)."""
    ids = [net.network.branches[k].id for k in net.free]
    if all(i in warm.q for i in ids) and all(node in warm.p for node in net.node_ids):
        q = np.array([warm.q[i] for i in ids])
        p = np.array([warm.p[node] for node in net.node_ids])
    else:
        cold = initial_state(net)
        q = np.array([warm.q.get(i, cold.q[j]) for j, i in enumerate(ids)])
        p = np.array([warm.p.get(node, cold.p[j]) for j, node in enumerate(net.node_ids)])
    p[np.setdiff1d(np.arange(len(p)), net.unknown)] = 0.0
    return Iterate(q=q, p=p)


def _solution(net: Compiled, state: Iterate, iterations: int, method: str) -> Solution:
    network = net.network
    branches = network.branches
    q_of: dict[str, float] = {}
    for i, k in enumerate(net.free):
        q_of[branches[k].id] = float(state.q[i])
    for k in net.fixed:
        q_of[branches[k].id] = float(branches[k].carried_q or 0.0)
    pressure = {name: float(state.p[index]) for name, index in net.node_of.items()}
    q = {b.id: q_of[b.id] for b in branches}
    h = {b.id: pressure[b.from_node] - pressure[b.to_node] for b in branches}
    fans = []
    for b in branches:
        if b.running_fan is None or b.fan is None:
            continue
        flow = q[b.id]
        below = b.fan.q_min is not None and flow < b.fan.q_min
        above = b.fan.q_max is not None and flow > b.fan.q_max
        fans.append(FanPoint(b.id, flow, b.fan.pressure(flow), below or above, b.fan.slope(flow) > 0))
    ordered = dict(sorted(pressure.items(), key=lambda item: _natural(item[0])))
    return Solution(True, iterations, state.residual_q, state.residual_h, method, q, h, ordered, tuple(fans))


def _natural(name: str) -> tuple[int, int, str]:
    return (0, int(name), "") if name.isdigit() else (1, 0, name)
