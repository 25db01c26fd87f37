"""Hardy Cross loop iterations, the fallback when Newton stalls (docs/DOMAIN.md §7).

The loops are the fundamental cycles of a spanning tree of least resistance (each chord closes one;
the reference nodes count as one node, the atmosphere). Flows start balanced at every node and stay so;
each sweep corrects every loop in turn by ``ΔQ = −Σσ·g(Q) / Σ dg/dQ``.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ventnet.compiled import Compiled
from ventnet.newton import _SLOPE_FLOOR, _SLOPE_FLOOR_Q, H_TOLERANCE, MAX_ITERATIONS, Q_TOLERANCE, Iterate

_GROUND = -1


def hardy_cross(net: Compiled, start: Iterate, max_iterations: int = MAX_ITERATIONS) -> Iterate:
    """Loop iterations from ``start``'s chord flows until the stopping rule holds or the budget is spent;
    never raises on non-convergence (the state says ``converged=False``)."""
    reference = set(range(len(net.node_ids))) - set(net.unknown.tolist())
    ground = [(_GROUND if i in reference else i) for i in range(len(net.node_ids))]
    graph: nx.MultiGraph[int] = nx.MultiGraph()
    for j, (a, b) in enumerate(zip(net.frm.tolist(), net.to.tolist(), strict=True)):
        graph.add_edge(ground[a], ground[b], key=j, weight=float(net.r[j]))
    tree = nx.minimum_spanning_tree(graph, weight="weight")
    in_tree = np.zeros(len(net.frm), dtype=bool)
    for _, _, j in tree.edges(keys=True):
        in_tree[j] = True
    loops = _loops(net, tree, in_tree, ground)
    q = _balanced(net, start.q, in_tree)
    state = Iterate(q=q, p=start.p.copy())
    for iteration in range(1, max_iterations + 1):
        largest_step = 0.0
        largest_residual = 0.0
        for members, signs in loops:
            flows = q[members]
            residual = float(signs @ _law(net, members, flows))
            slope = float(np.sum(np.maximum(_slope(net, members, flows), _floor(net, members))))
            step = -residual / slope
            q[members] = flows + signs * step
            largest_step = max(largest_step, abs(step))
            largest_residual = max(largest_residual, abs(residual))
        state = Iterate(q=q, p=state.p, iterations=iteration)
        if largest_step <= Q_TOLERANCE and largest_residual <= H_TOLERANCE:
            state.p = _pressures(net, tree, q, ground)
            state.residual_q = float(np.max(np.abs(net.imbalance(q)), initial=0.0))
            state.residual_h = float(np.max(np.abs(net.branch_law(q) - net.drops(state.p)), initial=0.0))
            state.converged = state.residual_h <= H_TOLERANCE and state.residual_q <= Q_TOLERANCE
            return state
    state.residual_q = float(np.max(np.abs(net.imbalance(q)), initial=0.0))
    state.residual_h = largest_residual
    return state


def _law(net: Compiled, members: np.ndarray, q: np.ndarray) -> np.ndarray:
    r, a0, a1, a2, hn = net.r[members], net.a0[members], net.a1[members], net.a2[members], net.hn[members]
    return np.asarray(r * q * np.abs(q) - (a0 + a1 * q + a2 * q * q) - hn)


def _slope(net: Compiled, members: np.ndarray, q: np.ndarray) -> np.ndarray:
    return np.asarray(2.0 * net.r[members] * np.abs(q) - net.a1[members] - 2.0 * net.a2[members] * q)


def _floor(net: Compiled, members: np.ndarray) -> np.ndarray:
    return np.asarray(2.0 * net.r[members] * _SLOPE_FLOOR_Q + _SLOPE_FLOOR)


def _loops(
    net: Compiled, tree: nx.MultiGraph[int], in_tree: np.ndarray, ground: list[int]
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each chord's fundamental loop, oriented along the chord: (free-branch positions, ±1 signs)."""
    parent: dict[int, tuple[int, int]] = {}
    depth: dict[int, int] = {}
    for component in nx.connected_components(tree):
        root = _GROUND if _GROUND in component else min(component)
        depth[root] = 0
        for a, b, j in nx.dfs_labeled_edges(nx.Graph(tree.subgraph(component)), source=root):
            if j == "forward" and a != b:
                key = next(iter(tree.get_edge_data(a, b)))
                parent[b] = (a, key)
                depth[b] = depth[a] + 1
    loops = []
    for chord in np.flatnonzero(~in_tree):
        members = [int(chord)]
        signs = [1.0]
        a, b = ground[net.to[chord]], ground[net.frm[chord]]
        up: list[tuple[int, float]] = []
        down: list[tuple[int, float]] = []
        while a != b:  # walk the tree from the chord's end back to its start
            if depth[a] >= depth[b]:
                pa, j = parent[a]
                up.append((j, 1.0 if ground[net.frm[j]] == a else -1.0))
                a = pa
            else:
                pb, j = parent[b]
                down.append((j, 1.0 if ground[net.to[j]] == b else -1.0))
                b = pb
        for j, sign in up + down[::-1]:
            members.append(j)
            signs.append(sign)
        loops.append((np.array(members, dtype=np.int64), np.array(signs)))
    return loops


def _balanced(net: Compiled, q_start: np.ndarray, in_tree: np.ndarray) -> np.ndarray:
    """Flows that keep the chords' flows and satisfy every node's balance through the tree."""
    q = q_start.copy()
    tree_cols = np.flatnonzero(in_tree)
    chord_cols = np.flatnonzero(~in_tree)
    rhs = -(net.supply[net.unknown] + net.incidence[:, chord_cols] @ q[chord_cols])
    tree_matrix = sp.csc_matrix(net.incidence[:, tree_cols])
    try:
        q[tree_cols] = spla.spsolve(tree_matrix, rhs)
    except RuntimeError as exc:
        raise ArithmeticError(f"树枝风量方程组奇异：{exc}") from exc
    return q


def _pressures(net: Compiled, tree: nx.MultiGraph[int], q: np.ndarray, ground: list[int]) -> np.ndarray:
    """Node pressures from the atmosphere (0 Pa) along the tree: ``p(to) = p(from) + g(Q)``."""
    law = net.branch_law(q)
    at: dict[int, float] = {_GROUND: 0.0}
    for a, b in nx.bfs_edges(tree, _GROUND):
        j = next(iter(tree.get_edge_data(a, b)))
        at[b] = at[a] + (law[j] if ground[net.frm[j]] == a else -law[j])
    return np.array([at.get(g, 0.0) for g in ground])
