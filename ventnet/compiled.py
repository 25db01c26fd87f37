"""A network in arrays: node indices (joined nodes share one), the incidence of the branches whose flow
is unknown, their resistances, fan coefficients and natural pressures, and the air each node receives
from fixed-quantity branches and injections. Both iteration methods work on this form."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.sparse.csgraph import connected_components

from ventnet.errors import NetworkError, quoted
from ventnet.network import Network

FloatArray = np.ndarray


@dataclass(frozen=True)
class Compiled:
    """The arrays of one network.

    Nodes are numbered ``0…n−1`` (``node_ids``; a joined node takes its partner's number); ``unknown``
    are the numbers whose pressure is solved for (all but the reference nodes). Free branches (unknown
    flow) are ``free`` (positions in ``network.branches``) with ends ``frm``/``to``, resistance ``r``
    (N·s²/m⁸), fan coefficients ``a0``/``a1``/``a2`` (zero without a fan) and natural pressure ``hn``
    (Pa). ``supply`` (m³/s per node) is what enters each node from injections and fixed-quantity branches.
    ``incidence`` is the unknown-node × free-branch matrix: −1 at a branch's ``from``, +1 at its ``to``.
    """

    network: Network
    node_ids: tuple[str, ...]
    node_of: dict[str, int]
    unknown: np.ndarray
    free: np.ndarray
    fixed: np.ndarray
    frm: np.ndarray
    to: np.ndarray
    r: FloatArray
    a0: FloatArray
    a1: FloatArray
    a2: FloatArray
    hn: FloatArray
    supply: FloatArray
    incidence: sp.csr_matrix
    pattern: LaplacianPattern

    def laplacian(self, weight: FloatArray) -> sp.csc_matrix:
        """``A·diag(weight)·Aᵀ`` over the unknown nodes, assembled on a fixed sparsity pattern."""
        return self.pattern.assemble(weight)

    def solve_nodes(self, weight: FloatArray, rhs: FloatArray) -> FloatArray:
        """``x`` with ``A·diag(weight)·Aᵀ·x = rhs`` (weights positive: the matrix is symmetric positive
        definite, so SuperLU runs in symmetric mode on a minimum-degree ordering without pivoting).
        Raises ArithmeticError when the matrix is numerically singular."""
        try:
            factor = spla.splu(
                self.laplacian(weight),
                permc_spec="MMD_AT_PLUS_A",
                diag_pivot_thresh=0.0,
                options={"SymmetricMode": True},
            )
        except RuntimeError as exc:  # SuperLU: "Factor is exactly singular"
            raise ArithmeticError(f"节点风压方程组奇异：{exc}") from exc
        return np.asarray(factor.solve(rhs))

    def branch_law(self, q: FloatArray) -> FloatArray:
        """``g(Q) = R·Q·|Q| − h_fan(Q) − h_N`` of each free branch, Pa: equals ``p(to) − p(from)`` at a
        solution."""
        return np.asarray(self.r * q * np.abs(q) - (self.a0 + self.a1 * q + self.a2 * q * q) - self.hn)

    def branch_slope(self, q: FloatArray) -> FloatArray:
        """``dg/dQ`` of each free branch, Pa per m³/s (negative only on a fan's rising side)."""
        return np.asarray(2.0 * self.r * np.abs(q) - self.a1 - 2.0 * self.a2 * q)

    def imbalance(self, q: FloatArray) -> FloatArray:
        """Air gained by each unknown node (inflow − outflow + supply), m³/s; zero at a solution."""
        n = len(self.node_ids)
        gained = np.bincount(self.to, weights=q, minlength=n) - np.bincount(self.frm, weights=q, minlength=n)
        return np.asarray((gained + self.supply)[self.unknown])

    def drops(self, p: FloatArray) -> FloatArray:
        """``p(to) − p(from)`` of each free branch for node pressures ``p`` (all nodes), Pa."""
        return np.asarray(p[self.to] - p[self.frm])


def compile_network(network: Network) -> Compiled:
    """The array form of ``network``.

    Raises :class:`NetworkError` when a part of the network reaches no reference node through branches
    of unknown flow (its pressures would be undetermined), or when fixed quantities and injections
    into such a part cannot balance.
    """
    names = list(dict.fromkeys(n for b in network.branches for n in (b.from_node, b.to_node)))
    joined = network.joined

    def root(node: str) -> str:
        if node not in joined:
            return node
        seen = {node}
        while node in joined:
            node = joined[node]
            if node in seen:
                break
            seen.add(node)
        return node

    node_of: dict[str, int] = {}
    representatives: list[str] = []
    for name in names:
        rep = root(name)
        if rep not in node_of:
            node_of[rep] = len(representatives)
            representatives.append(rep)
        node_of[name] = node_of[rep]
    n = len(representatives)
    reference = {node_of[name] for name in network.reference_nodes}
    unknown = np.array([i for i in range(n) if i not in reference], dtype=np.int64)

    branches = network.branches
    free = np.array([k for k, b in enumerate(branches) if b.fixed_q is None], dtype=np.int64)
    fixed = np.array([k for k, b in enumerate(branches) if b.fixed_q is not None], dtype=np.int64)
    frm = np.array([node_of[branches[k].from_node] for k in free], dtype=np.int64)
    to = np.array([node_of[branches[k].to_node] for k in free], dtype=np.int64)
    if np.any(frm == to):
        bad = branches[int(free[np.argmax(frm == to)])].id
        raise NetworkError(f"分支 {quoted(bad)} 的两端被并为同一节点")
    r = np.array([branches[k].total_resistance for k in free], dtype=float)
    fans = [branches[k].running_fan for k in free]
    a0 = np.array([f.a0 if f else 0.0 for f in fans])
    a1 = np.array([f.a1 if f else 0.0 for f in fans])
    a2 = np.array([f.a2 if f else 0.0 for f in fans])
    hn = (
        np.array([network.natural_pressure(branches[k]) for k in free])
        if network.elevations
        else np.zeros(len(free))
    )

    supply = np.zeros(n)
    for node, q in network.injections.items():
        supply[node_of[node]] += q
    for k in fixed:
        b = branches[k]
        q = float(b.carried_q or 0.0)
        supply[node_of[b.from_node]] -= q
        supply[node_of[b.to_node]] += q

    _check_grounded(n, reference, frm, to, representatives)
    row_of = np.full(n, -1, dtype=np.int64)
    row_of[unknown] = np.arange(len(unknown))
    cols = np.arange(len(free))
    rows = np.concatenate([row_of[frm], row_of[to]])
    data = np.concatenate([-np.ones(len(free)), np.ones(len(free))])
    columns = np.concatenate([cols, cols])
    keep = rows >= 0
    incidence = sp.csr_matrix(
        (data[keep], (rows[keep], columns[keep])), shape=(len(unknown), len(free)), dtype=float
    )
    return Compiled(
        pattern=LaplacianPattern.build(row_of[frm], row_of[to], len(unknown)),
        network=network,
        node_ids=tuple(representatives),
        node_of=node_of,
        unknown=unknown,
        free=free,
        fixed=fixed,
        frm=frm,
        to=to,
        r=r,
        a0=a0,
        a1=a1,
        a2=a2,
        hn=hn,
        supply=supply,
        incidence=incidence,
    )


@dataclass(frozen=True)
class LaplacianPattern:
    """Where each free branch's weight lands in the node matrix ``A·diag(w)·Aᵀ`` (CSC), so each Newton
    iteration only sums weights into a fixed pattern instead of multiplying sparse matrices."""

    size: int
    indices: np.ndarray
    indptr: np.ndarray
    slot: np.ndarray
    branch: np.ndarray
    sign: FloatArray

    @staticmethod
    def build(row_from: np.ndarray, row_to: np.ndarray, size: int) -> LaplacianPattern:
        """The pattern for branches between unknown-node rows ``row_from``→``row_to`` (−1: a reference)."""
        branch = np.arange(len(row_from))
        pairs = [
            (row_from, row_from, branch, 1.0),
            (row_to, row_to, branch, 1.0),
            (row_from, row_to, branch, -1.0),
            (row_to, row_from, branch, -1.0),
        ]
        rows, cols, owners, signs = [], [], [], []
        for r, c, b, sign in pairs:
            keep = (r >= 0) & (c >= 0)
            rows.append(r[keep])
            cols.append(c[keep])
            owners.append(b[keep])
            signs.append(np.full(int(keep.sum()), sign))
        row, col = np.concatenate(rows), np.concatenate(cols)
        keys, slot = np.unique(col * size + row, return_inverse=True)
        indptr = np.searchsorted(keys // size, np.arange(size + 1))
        return LaplacianPattern(
            size, keys % size, indptr, slot, np.concatenate(owners), np.concatenate(signs)
        )

    def assemble(self, weight: FloatArray) -> sp.csc_matrix:
        """The matrix for branch weights ``weight``."""
        data = np.bincount(self.slot, weights=self.sign * weight[self.branch], minlength=len(self.indices))
        return sp.csc_matrix((data, self.indices, self.indptr), shape=(self.size, self.size))


def _check_grounded(n: int, reference: set[int], frm: np.ndarray, to: np.ndarray, names: list[str]) -> None:
    graph = sp.coo_matrix((np.ones(len(frm)), (frm, to)), shape=(n, n))
    _, labels = connected_components(graph, directed=False)
    grounded = {int(labels[i]) for i in reference}
    stranded = [i for i in range(n) if int(labels[i]) not in grounded]
    if stranded:
        shown = quoted(", ".join(names[i] for i in stranded[:5]))
        raise NetworkError(f"节点 {shown} 所在部分与大气（参考节点）不连通，风压无法确定")
