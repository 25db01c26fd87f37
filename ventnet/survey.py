"""Resistance from a survey (风阻反演, 通风阻力测定 per AQ 1056-2008): from flows measured on some
branches and pressure drops on some, estimate every branch's R by regularised least squares.

Unknowns are every branch's flow and every node's pressure; the rows are the measurements (each
weighted by its standard error), Kirchhoff's node law and p = 0 at the reference nodes (weighted
heavily), and a weak pull (``regularisation``) towards a prior state, the solve with the network's
present resistances, which keeps the system regular where the data say nothing. Then
``R = |h| / Q²`` where ``h = p(from) − p(to)``. A branch's R is determined when both its flow and its
drop lie in the row space of the measurement and law rows alone (the prior then does not matter);
others are reported as undetermined, their estimate only the prior's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ventnet.errors import NetworkError, quoted
from ventnet.network import Network
from ventnet.solve import solve

LAW_WEIGHT = 1e3
"""Weight of Kirchhoff's node law and the reference pressures against the measurements."""


@dataclass(frozen=True)
class SurveyFit:
    """Estimated resistances: ``resistance`` branch id → R (N·s²/m⁸) for the ordinary branches,
    ``determined``/``undetermined`` the ids whose R the data fix or leave to the prior, ``residual`` the
    root-mean-square of the weighted measurement misfits (1 ≈ within the stated errors), ``q`` and ``h``
    the fitted flows (m³/s) and drops (Pa)."""

    resistance: dict[str, float]
    determined: tuple[str, ...]
    undetermined: tuple[str, ...]
    residual: float
    q: dict[str, float]
    h: dict[str, float]


def fit_resistances(
    network: Network,
    measured_q: Mapping[str, float],
    measured_h: Mapping[str, float],
    q_error: float = 0.05,
    h_error: float = 1.0,
    regularisation: float = 1e-3,
) -> SurveyFit:
    """Estimate R from measured flows ``measured_q`` (branch id → m³/s, standard error ``q_error``) and
    drops ``measured_h`` (branch id → ``p(from) − p(to)`` Pa, standard error ``h_error``).

    Raises :class:`NetworkError` (Chinese) for a measurement on an unknown branch, no measurement at all,
    or errors that are not positive; :class:`~ventnet.errors.NotConverged` when the prior solve fails.
    """
    ids = [b.id for b in network.branches]
    unknown_ids = sorted((set(measured_q) | set(measured_h)) - set(ids))
    if unknown_ids:
        raise NetworkError(f"测定数据中的分支 {quoted(', '.join(unknown_ids))} 不在网络中")
    if not measured_q and not measured_h:
        raise NetworkError("没有测定数据（风量或阻力）")
    if not (q_error > 0 and h_error > 0 and regularisation > 0):
        raise NetworkError("测定误差与正则化系数须为正数")
    prior = solve(network)
    nodes = sorted(prior.p)
    col_of_node = {node: len(ids) + i for i, node in enumerate(nodes)}
    size = len(ids) + len(nodes)
    law_rows, data_rows, targets = _law_rows(network, col_of_node), [], []
    for i, branch_id in enumerate(ids):
        if branch_id in measured_q:
            data_rows.append({i: 1.0 / q_error})
            targets.append(measured_q[branch_id] / q_error)
        if branch_id in measured_h:
            b = network.branches[i]
            data_rows.append(
                {col_of_node[b.from_node]: 1.0 / h_error, col_of_node[b.to_node]: -1.0 / h_error}
            )
            targets.append(measured_h[branch_id] / h_error)
    data = _matrix(data_rows, size)
    laws = _matrix([row for row, _ in law_rows], size)
    law_targets = np.array([target for _, target in law_rows])
    x_prior = np.array([prior.q[k] for k in ids] + [prior.p[n] for n in nodes])
    system = sp.vstack([laws * LAW_WEIGHT, data, sp.identity(size) * regularisation]).tocsr()
    rhs = np.concatenate([law_targets * LAW_WEIGHT, np.array(targets), x_prior * regularisation])
    normal = (system.T @ system).tocsc()
    x = spla.spsolve(normal, system.T @ rhs)
    misfit = np.asarray(data @ x) - np.array(targets)
    q = {k: float(x[i]) for i, k in enumerate(ids)}
    h = {b.id: float(x[col_of_node[b.from_node]] - x[col_of_node[b.to_node]]) for b in network.branches}
    known = _determined(sp.vstack([laws, data]).toarray(), network, col_of_node)
    resistance = {
        b.id: abs(h[b.id]) / q[b.id] ** 2 for b in network.branches if b.fan is None and abs(q[b.id]) > 1e-9
    }
    determined = tuple(k for k in resistance if k in known)
    undetermined = tuple(k for k in ids if k not in determined)
    rms = float(np.sqrt(np.mean(misfit**2))) if len(misfit) else 0.0
    return SurveyFit(resistance, determined, undetermined, rms, q, h)


def _law_rows(network: Network, col_of_node: dict[str, int]) -> list[tuple[dict[int, float], float]]:
    """Node balance at each non-reference node, p = 0 at the references, joined nodes at one pressure."""
    rows: dict[str, dict[int, float]] = {}
    for i, b in enumerate(network.branches):
        rows.setdefault(b.from_node, {})[i] = -1.0
        rows.setdefault(b.to_node, {})[i] = 1.0
    out: list[tuple[dict[int, float], float]] = []
    joined = {n: network.joined[n] for n in network.joined}
    for node, row in rows.items():
        if node in network.reference_nodes or node in joined:
            continue
        partners = [n for n, target in joined.items() if target == node]
        merged = dict(row)
        for partner in partners:
            for col, value in rows.get(partner, {}).items():
                merged[col] = merged.get(col, 0.0) + value
        out.append((merged, -network.injections.get(node, 0.0)))
    for node in network.reference_nodes:
        out.append(({col_of_node[node]: 1.0}, 0.0))
    for node, target in joined.items():
        out.append(({col_of_node[node]: 1.0, col_of_node[target]: -1.0}, 0.0))
    return out


def _matrix(rows: list[dict[int, float]], size: int) -> sp.csr_matrix:
    r = [i for i, row in enumerate(rows) for _ in row]
    c = [col for row in rows for col in row]
    v = [value for row in rows for value in row.values()]
    return sp.csr_matrix((v, (r, c)), shape=(len(rows), size))


def _determined(rows: np.ndarray, network: Network, col_of_node: dict[str, int]) -> set[str]:
    """Branches whose flow and drop are fixed by ``rows`` alone (orthogonal to their null space)."""
    _, singular, vt = la.svd(rows, full_matrices=True)
    rank = int(np.sum(singular > singular[0] * 1e-10)) if len(singular) else 0
    null = vt[rank:].T
    out = set()
    for i, b in enumerate(network.branches):
        flow = null[i]
        drop = null[col_of_node[b.from_node]] - null[col_of_node[b.to_node]]
        if np.max(np.abs(flow), initial=0.0) < 1e-8 and np.max(np.abs(drop), initial=0.0) < 1e-8:
            out.add(b.id)
    return out
