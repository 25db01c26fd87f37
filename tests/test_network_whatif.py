"""What-if changes, diagonal branches, regulator sizing and resistance from a survey (ventnet)."""

from __future__ import annotations

import math

import pytest

from tests.network_cases import bridge, driven, fan_loop, line
from ventnet import Branch, FanCurve, Network, NetworkError, solve
from ventnet.changes import CLOSED_DOOR_RESISTANCE, Change, apply_changes
from ventnet.diagonal import diagonal_branches
from ventnet.regulator import size_regulator, window_area
from ventnet.survey import fit_resistances
from ventnet.whatif import what_if


def test_only_the_bridge_diagonal_is_diagonal() -> None:
    network = bridge(1.0, 2.0, 3.0, 1.0)
    assert diagonal_branches(network, solve(network)) == ["3"]
    assert diagonal_branches(network, solve(network), among=["1", "2"]) == []


def test_raising_r5_past_the_balance_flips_the_diagonal() -> None:
    network = bridge(1.0, 2.0, 3.0, 1.0)  # R1·R5 = 1 < R2·R4 = 6: b→c
    result = what_if(network, [Change("set_resistance", "5", resistance=7.0)])  # 7 > 6: c→b
    assert result.before.q["3"] > 0 > result.after.q["3"]
    assert result.flipped == ("3",) and result.diagonal_flips == ("3",)
    row = {r["id"]: r for r in result.to_json()["branches"]}["3"]
    assert row["dq"] == pytest.approx(row["q"] - row["q_before"])


def test_closing_a_door_sends_its_air_to_the_parallel_branch() -> None:
    network = driven([Branch("door", "in", "out", 0.5, kind="door"), line("other", "in", "out", 0.5)], 20.0)
    result = what_if(network, [Change("close_door", "door")])
    assert result.before.q["door"] == pytest.approx(10.0, abs=1e-5)
    # the closed door leaks as R = 2000: Q_door/Q_other = √(0.5 / 2000.5)
    share = math.sqrt(0.5 / (0.5 + CLOSED_DOOR_RESISTANCE))
    assert result.after.q["door"] == pytest.approx(20.0 * share / (1 + share), abs=1e-4)
    reopened = what_if(result.network, [Change("open_door", "door")], result.after)
    assert reopened.after.q["door"] == pytest.approx(10.0, abs=1e-4)


def test_stopping_and_starting_a_fan() -> None:
    network = fan_loop(FanCurve(3000.0, 0.0, -1.0), [0.5])
    stopped = what_if(network, [Change("stop_fan", "fan")])
    assert abs(stopped.after.q["fan"]) <= 1e-3 and stopped.after.fans == ()
    started = what_if(stopped.network, [Change("start_fan", "fan")])
    assert started.after.q["fan"] == pytest.approx(math.sqrt(3000 / 1.5), abs=1e-4)
    stronger = what_if(network, [Change("change_fan", "fan", fan=FanCurve(6000.0, 0.0, -1.0))])
    assert stronger.after.q["fan"] == pytest.approx(math.sqrt(6000 / 1.5), abs=1e-4)


def test_holing_through_a_heading_and_removing_it() -> None:
    network = driven([line("1", "in", "m", 1.0), line("2", "m", "out", 1.0)], 10.0)
    holed = what_if(network, [Change("add_branch", "new", resistance=1.0, from_node="in", to_node="out")])
    # two parallel paths of R 2 and R 1: Q ∝ 1/√R
    share_new = 1.0 / (1.0 + 1.0 / math.sqrt(2.0))
    assert holed.after.q["new"] == pytest.approx(10.0 * share_new, abs=1e-4)
    assert {r["id"]: r["q_before"] for r in holed.to_json()["branches"]}["new"] is None
    removed = what_if(holed.network, [Change("remove_branch", "new")])
    assert "new" not in removed.after.q and removed.after.q["1"] == pytest.approx(10.0, abs=1e-5)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (Change("close_door", "nowhere"), "没有分支"),
        (Change("stop_fan", "1"), "没有风机"),
        (Change("set_regulator", "1"), "没有调节风窗"),
        (Change("add_branch", "1", resistance=1.0, from_node="in", to_node="m"), "已存在"),
        (Change("add_branch", "x"), "from"),
    ],
)
def test_changes_that_do_not_apply_are_refused_in_chinese(change: Change, words: str) -> None:
    network = driven([line("1", "in", "m", 1.0), line("2", "m", "out", 1.0)], 10.0)
    with pytest.raises(NetworkError, match=words):
        apply_changes(network, [change])


def test_changes_read_from_json_and_refuse_unknown_actions() -> None:
    change = Change.from_json({"action": "change_fan", "branch": 7, "fan": {"a0": 100, "a2": -1}})
    assert change.branch == "7" and change.fan == FanCurve(100.0, 0.0, -1.0)
    with pytest.raises(NetworkError, match="未知的调整动作"):
        Change.from_json({"action": "explode", "branch": "1"})
    with pytest.raises(NetworkError, match="不是有限数"):
        Change.from_json({"action": "set_regulator", "branch": "1", "added_resistance": "x"})


def test_a_regulator_brings_its_branch_to_the_target_and_its_window_follows_the_formula() -> None:
    branches = [
        Branch("a", "in", "out", 0.5, area=10.0),
        Branch("b", "in", "out", 0.5, area=10.0),
    ]
    network = driven(branches, 20.0)
    sizing = size_regulator(network, "a", 6.0)
    assert sizing.after.q["a"] == pytest.approx(6.0, abs=1e-6)
    assert sizing.after.q["b"] == pytest.approx(14.0, abs=1e-6)
    # equal drops: (0.5 + ΔR)·6² = 0.5·14²
    assert sizing.added_resistance == pytest.approx(0.5 * 196 / 36 - 0.5, rel=1e-6)
    assert sizing.pressure_drop == pytest.approx(sizing.added_resistance * 36, rel=1e-6)
    h = sizing.pressure_drop
    small = 6.0 * 10.0 / (0.65 * 6.0 + 0.84 * 10.0 * math.sqrt(h))
    assert sizing.window_area == pytest.approx(small)
    assert window_area(30.0, 10.0, 1.0) == pytest.approx(30.0 * 10.0 / (30.0 + 0.759 * 10.0 * 1.0))
    with pytest.raises(NetworkError, match="只能减少风量"):
        size_regulator(network, "a", 12.0)


def test_survey_recovers_resistances_and_names_what_it_cannot_determine() -> None:
    truth = bridge(1.0, 2.0, 3.0, 1.0, r3=0.5)
    solved = solve(truth)
    prior = bridge(2.0, 2.0, 2.0, 2.0, r3=2.0)
    full = fit_resistances(prior, {k: solved.q[k] for k in "123"}, {k: solved.h[k] for k in "12345"})
    for k, r in {"1": 1.0, "2": 2.0, "3": 0.5, "4": 3.0, "5": 1.0}.items():
        assert full.resistance[k] == pytest.approx(r, rel=1e-5)
    assert set(full.determined) == set("12345") and full.residual < 1e-3
    partial = fit_resistances(prior, {"1": solved.q["1"]}, {"1": solved.h["1"]})
    assert partial.resistance["1"] == pytest.approx(1.0, rel=1e-6)
    assert partial.determined == ("1",) and set(partial.undetermined) == set("2345")
    with pytest.raises(NetworkError, match="不在网络中"):
        fit_resistances(prior, {"9": 1.0}, {})


def test_a_network_with_a_fan_off_reaches_no_reference_through_the_fan() -> None:
    network = Network((line("1", "a", "b", 1.0),), frozenset({"a", "b"}))
    assert solve(network).q["1"] == pytest.approx(0.0, abs=1e-6)


def test_closing_a_closed_door_is_accepted_and_said_so() -> None:
    network = driven([Branch("door", "in", "out", 0.5, kind="door"), line("other", "in", "out", 0.5)], 20.0)
    closed = what_if(network, [Change("close_door", "door")])
    assert closed.notes == ()
    again = what_if(closed.network, [Change("close_door", "door")], closed.after)
    assert again.network is closed.network and len(again.notes) == 1
    assert "已处于关闭状态" in again.notes[0] and again.to_json()["notes"] == list(again.notes)
    assert again.after.q["door"] == pytest.approx(closed.after.q["door"], abs=1e-6)
    opened = what_if(network, [Change("open_door", "door")])
    assert "已处于打开状态" in opened.notes[0]


def test_a_door_change_needs_a_door_and_a_regulator_change_a_regulator() -> None:
    airway = line("airway", "in", "out", 0.5)  # no kind, no added resistance: neither facility
    topology_door = Branch("adjusted", "in", "out", 0.5, added_resistance=0.08)  # a CSV's adjust_r
    network = driven([airway, topology_door], 20.0)
    for change, words in (
        (Change("close_door", "airway"), "没有风门"),
        (Change("set_regulator", "airway", added_resistance=1.0), "没有调节风窗"),
        (Change("add_door", "adjusted"), "已有风门"),
    ):
        with pytest.raises(NetworkError, match=words):
            apply_changes(network, [change])
    assert apply_changes(network, [Change("close_door", "adjusted")]).branch("adjusted").added_resistance == (
        CLOSED_DOOR_RESISTANCE
    )
    # a new door in the airway: closed, it leaks as a closed door does
    added = what_if(network, [Change("add_door", "airway")])
    assert added.network.branch("airway").added_resistance == CLOSED_DOOR_RESISTANCE
    assert added.after.q["airway"] < 1.0 < added.before.q["airway"]


def test_removing_the_branches_to_the_surface_is_refused_as_cutting_the_network_off() -> None:
    branches = [
        line("shaft_a", "top_a", "m", 0.5),
        line("shaft_b", "top_b", "m", 0.5),
        line("main", "m", "f", 1.0),
        Branch("fan", "f", "top_out", 0.0, fan=FanCurve(3000.0, 0.0, -1.0), kind="fan"),
    ]
    network = Network(tuple(branches), frozenset({"top_a", "top_b", "top_out"}))
    # one intake shaft of two removed: its surface node goes, the other carries the air
    one = what_if(network, [Change("remove_branch", "shaft_a")])
    assert one.after.q["shaft_b"] == pytest.approx(one.after.q["fan"], abs=1e-4) and one.after.q["fan"] > 0
    for removed, words in ((["shaft_a", "shaft_b"], "没有进风"), (["fan"], "没有回风"), (["main"], "相通")):
        with pytest.raises(NetworkError, match=f"与地面不再连通：{'.*' if words == '相通' else ''}{words}"):
            apply_changes(network, [Change("remove_branch", k) for k in removed])


def test_a_door_posed_as_a_door_is_closed_with_any_added_resistance() -> None:
    door = Branch("door", "in", "out", 0.5, kind="door", added_resistance=800.0)
    network = driven([door, line("other", "in", "out", 0.5)], 20.0)
    result = what_if(network, [Change("close_door", "door")])
    assert result.network.branch("door").added_resistance == 800.0 and "关闭" in result.notes[0]


def test_stopping_a_stopped_fan_and_starting_a_running_one_are_said_so() -> None:
    network = fan_loop(FanCurve(3000.0, 0.0, -1.0), [0.5])
    assert "已在运行" in what_if(network, [Change("start_fan", "fan")]).notes[0]
    stopped = what_if(network, [Change("stop_fan", "fan")])
    assert "已停止" in what_if(stopped.network, [Change("stop_fan", "fan")]).notes[0]


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (Change("close_door", "fan"), "是主要通风机，不是风门"),
        (Change("open_door", "fan"), "stop_fan"),
        (Change("close_door", "local"), "局部通风机"),
        (Change("close_door", "reg"), "是调节风窗，不是风门"),
        (Change("set_regulator", "fan", added_resistance=10.0), "不能设置调节风窗"),
        (Change("set_regulator", "local", added_resistance=10.0), "不能设置调节风窗"),
    ],
)
def test_a_change_that_does_not_fit_its_branch_is_refused(change: Change, words: str) -> None:
    branches = (
        Branch("fan", "f", "atm_out", 0.0, fan=FanCurve(3000.0, 0.0, -1.0), kind="fan"),
        Branch("reg", "atm_in", "m", 0.5, kind="regulator", added_resistance=1.0),
        Branch("r", "m", "f", 0.5),
        Branch("local", "m", "h", 0.0, fixed_q=2.0, kind="local_fan"),
        Branch("heading", "h", "f", 1.0, kind="heading"),
    )
    network = Network(branches, frozenset({"atm_in", "atm_out"}))
    with pytest.raises(NetworkError, match=words):
        apply_changes(network, [change])


def test_stopping_a_local_fan_leaves_its_heading_without_air_and_starting_it_restores_it() -> None:
    branches = (
        Branch("fan", "f", "atm_out", 0.0, fan=FanCurve(3000.0, 0.0, -1.0), kind="fan"),
        Branch("r", "atm_in", "m", 0.5),
        Branch("bypass", "m", "f", 0.5),
        Branch("local", "m", "h", 0.0, fixed_q=2.0, kind="local_fan"),
        Branch("heading", "h", "f", 1.0, kind="heading"),
    )
    network = Network(branches, frozenset({"atm_in", "atm_out"}))
    stopped = what_if(network, [Change("stop_fan", "local")])
    assert stopped.before.q["heading"] == pytest.approx(2.0) and stopped.after.q["heading"] == 0.0
    started = what_if(stopped.network, [Change("start_fan", "local")], stopped.after)
    assert started.after.q["heading"] == pytest.approx(2.0) and started.notes == ()
