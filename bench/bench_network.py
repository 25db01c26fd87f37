"""Network solves against a direct sparse linear solve of the same size (a plain script, not a test).

Run: ``.venv/bin/python bench/bench_network.py [--repeats 15]``. Three cases, each the median of
``--repeats`` runs, each shown with its baseline: one ``scipy.sparse.linalg.spsolve`` of the same
network's node matrix (A·diag(1/R)·Aᵀ, the linear system one Newton iteration solves), so the ratio is
about the number of linear solves the case needs plus its Python overhead.

- the 495-branch benchmark network (tests/data/networks/C_data_mine), cold (target ≤ 50 ms);
- a what-if on it (a regulator of 20 % of its R in the branch carrying the most air), warm-started
  from the solved state
  (target ≤ 20 ms);
- a synthetic 2,000-branch grid network posed with a total airflow (target ≤ 200 ms).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse.linalg as spla

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._common import machine_line, print_table  # noqa: E402
from ventnet import Branch, Network, solve  # noqa: E402
from ventnet.changes import Change  # noqa: E402
from ventnet.compiled import compile_network  # noqa: E402
from ventnet.csv_topology import load_topology, pose  # noqa: E402
from ventnet.whatif import what_if  # noqa: E402

NETWORK_C = ROOT / "tests" / "data" / "networks" / "C_data_mine" / "topology.csv"


def median_ms(work: Callable[[], Any], repeats: int) -> float:
    """The median wall time of ``work`` over ``repeats`` runs (after one warm-up), ms."""
    work()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append((time.perf_counter() - start) * 1000.0)
    return statistics.median(times)


def linear_solve(network: Network) -> Callable[[], Any]:
    """One direct sparse solve of the network's node matrix (the baseline)."""
    compiled = compile_network(network)
    weight = 1.0 / (compiled.r + 1e-6)
    rhs = np.ones(len(compiled.unknown))

    def work() -> Any:
        return spla.spsolve(compiled.laplacian(weight), rhs)

    return work


def grid_network(columns: int = 40, rows: int = 25, seed: int = 7) -> Network:
    """A synthetic mine-like grid: airways east and north between ``columns × rows`` junctions, random
    R in 0.005–0.5 N·s²/m⁸, plus diagonals up to 2,000 branches; 100 m³/s from the south-west corner
    (no inflow) to the north-east (no outflow)."""
    rng = np.random.default_rng(seed)
    branches = []

    def node(i: int, j: int) -> str:
        return f"n{i}_{j}"

    for i in range(columns):
        for j in range(rows):
            if i + 1 < columns:
                branches.append((node(i, j), node(i + 1, j)))
            if j + 1 < rows:
                branches.append((node(i, j), node(i, j + 1)))
    extra = 2000 - len(branches)
    for _ in range(extra):
        i, j = int(rng.integers(0, columns - 1)), int(rng.integers(0, rows - 1))
        branches.append((node(i, j), node(i + 1, j + 1)))
    resistances = rng.uniform(0.005, 0.5, len(branches))
    built = [
        Branch(f"b{k}", a, b, float(r))
        for k, ((a, b), r) in enumerate(zip(branches, resistances, strict=True))
    ]
    return pose(built, 100.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()

    network_c = pose(load_topology(NETWORK_C), 100.0)
    solved = solve(network_c)
    busiest = max((b for b in network_c.branches if b.fan is None), key=lambda b: abs(solved.q[b.id]))
    change = [Change("set_regulator", busiest.id, added_resistance=busiest.resistance * 0.2)]
    grid = grid_network()
    cases = [
        ("495 分支网络解算（冷启动）", network_c, lambda: solve(network_c), 50.0),
        ("495 分支网络 what-if（热启动）", network_c, lambda: what_if(network_c, change, solved), 20.0),
        (f"{len(grid.branches)} 分支合成网络解算", grid, lambda: solve(grid), 200.0),
    ]
    rows = []
    for title, network, work, target in cases:
        result = work()
        after = result.after if hasattr(result, "after") else result
        elapsed = median_ms(work, args.repeats)
        baseline = median_ms(linear_solve(network), args.repeats)
        rows.append(
            (
                title,
                f"{elapsed:.1f}",
                f"{baseline:.2f}",
                f"{elapsed / baseline:.1f}×",
                after.iterations,
                f"≤ {target:.0f}",
                "是" if elapsed <= target else "否",
            )
        )
    print(machine_line())
    print_table(
        "通风网络解算耗时（中位数）与同规模稀疏线性求解之比",
        ("情形", "耗时 ms", "线性求解 ms", "比值", "迭代次数", "目标 ms", "达标"),
        rows,
    )


if __name__ == "__main__":
    main()
