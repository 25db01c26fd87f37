"""Networks for the solver's tests: the benchmark networks copied in tests/data/networks (CC BY 4.0, see
its README) with their published solutions, and small closed-form networks built in code."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from ventnet import Branch, FanCurve, Network
from ventnet.csv_topology import load_topology, pose

NETWORKS = Path(__file__).parent / "data" / "networks"

TOTAL_AIRFLOW = {"A_hongshagang_1": 151.295, "C_data_mine": 100.0}
"""The total airflow each benchmark network is posed with, m³/s (its README's table)."""


@dataclass(frozen=True)
class Published:
    """One published solution: branch id → (q m³/s, h Pa) and node id → p Pa."""

    branches: dict[str, tuple[float, float]]
    nodes: dict[str, float]


def benchmark(name: str) -> Network:
    """A benchmark network posed with its total airflow."""
    return pose(load_topology(NETWORKS / name / "topology.csv"), TOTAL_AIRFLOW[name])


def published(name: str) -> dict[str, Published]:
    """The published solutions of a benchmark network by method (``loop``, ``node``, ``dcp``)."""
    out: dict[str, Published] = {}
    with (NETWORKS / name / "solutions.csv").open(encoding="utf-8-sig") as f:
        for row in csv.DictReader(f):
            entry = out.setdefault(row["method"], Published({}, {}))
            entry.branches[row["edge_id"]] = (float(row["q_m3_s"]), float(row["h_Pa"]))
    with (NETWORKS / name / "pressures.csv").open(encoding="utf-8-sig") as f:
        for row in csv.DictReader(f):
            out[row["method"]].nodes[row["node_id"]] = float(row["p_Pa"])
    return out


def line(branch_id: str, a: str, b: str, r: float) -> Branch:
    """An ordinary branch a→b of resistance r (N·s²/m⁸)."""
    return Branch(branch_id, a, b, r)


def driven(branches: list[Branch], total: float, inlet: str = "in", outlet: str = "out") -> Network:
    """``total`` m³/s entering at ``inlet`` (atmosphere) and leaving at ``outlet``."""
    return Network(tuple(branches), reference_nodes=frozenset({inlet}), injections={outlet: -total})


def bridge(r1: float, r2: float, r4: float, r5: float, r3: float = 1.0) -> Network:
    """The bridge of docs/DOMAIN.md §7: 1(a→b), 2(a→c), 4(b→d), 5(c→d), diagonal 3 (b→c); 10 m³/s a→d."""
    return driven(
        [
            line("1", "a", "b", r1),
            line("2", "a", "c", r2),
            line("3", "b", "c", r3),
            line("4", "b", "d", r4),
            line("5", "c", "d", r5),
        ],
        10.0,
        inlet="a",
        outlet="d",
    )


def fan_loop(fan: FanCurve, resistances: list[float], fan_r: float = 0.0) -> Network:
    """A fan in a surface-to-surface circuit: atmosphere → roadways in series → fan → atmosphere,
    the roadways split into two parallel pairs where four are given."""
    branches = [Branch("fan", "f", "atm_out", fan_r, fan=fan, kind="fan")]
    if len(resistances) == 4:
        branches += [
            line("r1", "atm_in", "m", resistances[0]),
            line("r2", "atm_in", "m", resistances[1]),
            line("r3", "m", "f", resistances[2]),
            line("r4", "m", "f", resistances[3]),
        ]
    else:
        nodes = ["atm_in"] + [f"n{i}" for i in range(1, len(resistances))] + ["f"]
        branches += [line(f"r{i}", nodes[i], nodes[i + 1], r) for i, r in enumerate(resistances)]
    return Network(tuple(branches), reference_nodes=frozenset({"atm_in", "atm_out"}))
