"""The solver against closed forms (docs/DOMAIN.md §7): series, parallel Q_i ∝ 1/√R_i, the bridge's diagonal,
natural ventilation pressure, a fan meeting its system; and small fan networks, where it converges or
says it did not, never giving a wrong answer (checked against Kirchhoff's laws independently)."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.network_cases import bridge, driven, fan_loop, line
from ventnet import Branch, FanCurve, Network, NetworkError, NotConverged, Solution, solve
from ventnet.csv_topology import pose


def test_series_branches_carry_the_total_and_lose_r_q_squared() -> None:
    solution = solve(driven([line("1", "in", "m", 0.2), line("2", "m", "out", 0.3)], 20.0))
    assert solution.q == pytest.approx({"1": 20.0, "2": 20.0}, abs=1e-6)
    assert solution.h["1"] == pytest.approx(-0.2 * 400, abs=1e-6)
    assert solution.p["out"] == pytest.approx(0.5 * 400, abs=1e-6)


def test_parallel_branches_share_in_inverse_root_of_resistance() -> None:
    resistances = [0.1, 0.4, 0.9, 2.5]
    branches = [line(str(i), "in", "out", r) for i, r in enumerate(resistances)]
    solution = solve(driven(branches, 30.0))
    weights = [1 / math.sqrt(r) for r in resistances]
    for i, w in enumerate(weights):
        assert solution.q[str(i)] == pytest.approx(30.0 * w / sum(weights), abs=1e-5)
    drops = {round(solution.h[str(i)], 6) for i in range(4)}
    assert len(drops) == 1


@pytest.mark.parametrize(
    ("r1", "r2", "r4", "r5", "direction"),
    [(1.0, 2.0, 3.0, 1.0, 1), (1.0, 2.0, 1.0, 2.0, 0), (2.0, 1.0, 1.0, 3.0, -1)],
    ids=["R1R5<R2R4 flows b→c", "equal: no flow", "R1R5>R2R4 flows c→b"],
)
def test_a_bridge_diagonal_follows_r1r5_against_r2r4(
    r1: float, r2: float, r4: float, r5: float, direction: int
) -> None:
    solution = solve(bridge(r1, r2, r4, r5))
    q = solution.q["3"]
    if direction == 0:
        assert abs(q) <= 1e-3
    else:
        assert q * direction > 0.05
    assert (q < -1e-6) == ("3" in solution.reversed)


def test_natural_ventilation_pressure_drives_a_loop_without_a_fan() -> None:
    # a 300 m deep intake shaft and a return shaft of equal depth
    branches = (
        Branch("intake", "top_in", "bottom", 0.05),
        Branch("return", "bottom2", "top_out", 0.05),
        Branch("drift", "bottom", "bottom2", 0.1),
    )
    network = Network(
        branches,
        reference_nodes=frozenset({"top_in", "top_out"}),
        elevations={"top_in": 0.0, "bottom": -300.0, "bottom2": -300.0, "top_out": 0.0},
    )
    # with one density, the loop's natural pressure cancels and no air moves
    assert abs(solve(network).q["drift"]) <= 1e-3
    # a shaft open to the atmosphere at both ends, its air column's weight not balanced by the outside's:
    # H_N = ρ·g·Δz drives it down at √(H_N / R)
    shaft = Network(
        branches[:1], frozenset({"top_in", "bottom"}), elevations={"top_in": 0.0, "bottom": -300.0}
    )
    expected = math.sqrt(1.2 * 9.81 * 300 / 0.05)
    assert solve(shaft).q["intake"] == pytest.approx(expected, rel=1e-6)


def test_a_fan_meets_its_system_curve() -> None:
    fan = FanCurve(a0=3000.0, a1=10.0, a2=-1.0, q_min=30.0, q_max=90.0)
    solution = solve(fan_loop(fan, [0.2, 0.3]))
    # 0.5·Q² = 3000 + 10·Q − Q²  →  1.5·Q² − 10·Q − 3000 = 0
    expected = (10 + math.sqrt(100 + 4 * 1.5 * 3000)) / 3.0
    assert solution.q["fan"] == pytest.approx(expected, abs=1e-4)
    (point,) = solution.fans
    assert point.h_fan == pytest.approx(0.5 * expected**2, abs=1e-2)
    assert not point.rising and not point.off_range


def test_a_fan_outside_its_curve_or_on_its_rising_side_is_flagged() -> None:
    # a very resistive system pushes the operating point left of the curve's peak (Q = 20 m³/s)
    fan = FanCurve(a0=1000.0, a1=40.0, a2=-1.0, q_min=25.0, q_max=60.0)
    solution = solve(fan_loop(fan, [50.0]))
    (point,) = solution.fans
    assert point.q < 20.0 and point.rising and point.off_range


def test_an_unconverged_solve_is_an_error_never_a_result() -> None:
    with pytest.raises(NotConverged) as caught:
        solve(bridge(1.0, 2.0, 3.0, 1.0), max_iterations=1)
    assert caught.value.iterations == 1 and "未收敛" in str(caught.value)


@pytest.mark.parametrize(
    ("build", "words"),
    [
        (lambda: Network((), frozenset({"a"})), "没有分支"),
        (lambda: driven([line("1", "in", "in", 1.0)], 1.0), "始末节点相同"),
        (lambda: driven([line("1", "in", "out", -1.0)], 1.0), "风阻"),
        (lambda: driven([line("1", "in", "out", 1.0), line("1", "in", "out", 1.0)], 1.0), "重复"),
        (lambda: driven([line("1", "in", "m", 1.0), line("2", "x", "out", 1.0)], 1.0), "不连通"),
        (lambda: Network((line("1", "a", "b", 1.0),), frozenset({"z"})), "不在网络中"),
    ],
)
def test_networks_that_cannot_be_posed_are_refused_in_chinese(
    build: Callable[[], Network], words: str
) -> None:
    with pytest.raises(NetworkError, match=words):
        solve(build())


def _check_kirchhoff(network: Network, solution: Solution) -> None:
    """Both laws, checked on the answer alone: every non-reference node balances, every branch's drop
    is its law's at its flow."""
    balance: dict[str, float] = {}
    for b in network.branches:
        q = solution.q[b.id]
        balance[b.from_node] = balance.get(b.from_node, 0.0) - q
        balance[b.to_node] = balance.get(b.to_node, 0.0) + q
        fan = b.fan.pressure(q) if b.fan else 0.0
        law = b.resistance * q * abs(q) - fan
        assert solution.p[b.to_node] - solution.p[b.from_node] == pytest.approx(law, abs=0.1)
    for node, gained in balance.items():
        if node not in network.reference_nodes:
            assert abs(gained) <= 1e-3, node


@settings(max_examples=30, deadline=None)
@given(
    a0=st.floats(50.0, 3000.0),
    a1=st.floats(-20.0, 60.0),
    a2=st.floats(-5.0, -0.05),
    resistances=st.lists(st.floats(0.001, 5.0), min_size=1, max_size=4),
    fan_r=st.floats(0.0, 0.5),
)
def test_small_fan_networks_converge_to_a_true_answer_or_say_they_did_not(
    a0: float, a1: float, a2: float, resistances: list[float], fan_r: float
) -> None:
    network = fan_loop(FanCurve(a0, a1, a2), resistances, fan_r)
    try:
        solution = solve(network)
    except NotConverged:
        return  # said so: no answer is given

    _check_kirchhoff(network, solution)


def test_figures_no_airway_has_are_refused_and_a_hopeless_system_is_not_converged() -> None:
    # found by the OpenAPI fuzzer: resistances of 1e306 and a total airflow of 6.8e307 made a 500
    with pytest.raises(NetworkError, match="风阻"):
        driven([line("1", "in", "out", 3.2e306)], 1.0)
    with pytest.raises(NetworkError, match="总风量"):
        pose([line("1", "in", "out", 1.0)], 6.8e307)
    # the largest and smallest resistances accepted side by side: solved, or said not to be
    network = driven(
        [line("1", "in", "m", 1e6), line("2", "in", "m", 1e-196), line("3", "m", "out", 1.0)], 10.0
    )
    try:
        solution = solve(network)
    except NotConverged:
        return
    assert solution.q["2"] == pytest.approx(10.0, abs=1e-3)
