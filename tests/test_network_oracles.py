"""The solver against the published solutions of two real mine networks (tests/data/networks, CC BY 4.0):
every branch's Q within 1e-3 m³/s of each of the three independent solutions, by Newton and by the
Hardy Cross fallback alike."""

from __future__ import annotations

import pytest

from tests.network_cases import benchmark, published
from ventnet import solve
from ventnet.compiled import compile_network
from ventnet.hardy_cross import hardy_cross
from ventnet.newton import H_TOLERANCE, Q_TOLERANCE, initial_state

NAMES = ["A_hongshagang_1", "C_data_mine"]


@pytest.mark.parametrize("name", NAMES)
def test_every_branch_matches_each_published_solution(name: str) -> None:
    solution = solve(benchmark(name))
    assert solution.converged and solution.method == "newton"
    assert solution.residual_q <= Q_TOLERANCE and solution.residual_h <= H_TOLERANCE
    assert solution.iterations <= 31  # the data set's own solvers needed 7–31
    for method, reference in published(name).items():
        assert reference.branches.keys() == solution.q.keys(), method
        worst = max(abs(solution.q[k] - q) for k, (q, _) in reference.branches.items())
        assert worst <= 1e-3, (method, worst)


@pytest.mark.parametrize("name", NAMES)
def test_pressures_and_drops_follow_the_published_sign_convention(name: str) -> None:
    solution = solve(benchmark(name))
    # within the data set's own pressure tolerance: its h and p for C differ from each other's by up to
    # 0.09 Pa (and a few of its reversed branches' h carry the sign of the written direction)
    for method, reference in published(name).items():
        assert max(abs(solution.h[k] - h) for k, (_, h) in reference.branches.items()) <= H_TOLERANCE, method
        assert max(abs(solution.p[k] - p) for k, p in reference.nodes.items()) <= H_TOLERANCE, method
    for branch in benchmark(name).branches:
        drop = solution.p[branch.from_node] - solution.p[branch.to_node]
        assert solution.h[branch.id] == pytest.approx(drop, abs=1e-9)
        if branch.fan is None:
            q = solution.q[branch.id]
            assert drop == pytest.approx(-branch.total_resistance * q * abs(q), abs=1e-3)


def test_reversed_branches_are_those_published_negative() -> None:
    solution = solve(benchmark("C_data_mine"))
    negative = sorted(k for k, (q, _) in published("C_data_mine")["node"].branches.items() if q < 0)
    assert sorted(solution.reversed) == negative and len(negative) == 10


def test_fans_of_the_larger_network_run_on_their_falling_side() -> None:
    solution = solve(benchmark("C_data_mine"))
    assert {fan.branch_id for fan in solution.fans} == {"27", "35", "849"}
    assert not any(fan.rising or fan.off_range for fan in solution.fans)


@pytest.mark.parametrize("name", NAMES)
def test_hardy_cross_fallback_reaches_the_same_flows(name: str) -> None:
    network = benchmark(name)
    compiled = compile_network(network)
    state = hardy_cross(compiled, initial_state(compiled))
    assert state.converged
    reference = published(name)["loop"].branches
    worst = max(abs(state.q[i] - reference[network.branches[k].id][0]) for i, k in enumerate(compiled.free))
    assert worst <= 1e-3


def test_a_warm_start_from_the_solution_converges_at_once() -> None:
    network = benchmark("C_data_mine")
    first = solve(network)
    again = solve(network, warm=first)
    assert again.iterations <= 2
    assert max(abs(again.q[k] - q) for k, q in first.q.items()) <= 1e-4
