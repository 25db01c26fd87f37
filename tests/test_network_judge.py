"""Judging a solved network (vent_agent/network/judge.py): each kind of finding on a network built for
it, with its clause; and the demo mine's own local fans starved by a what-if."""

from __future__ import annotations

import re
from dataclasses import replace

from tests.network_cases import bridge
from vent_agent.kb.thresholds import ThresholdTable
from vent_agent.network.device_effect import changes_for
from vent_agent.network.fan_stop import mine_what_if
from vent_agent.network.judge import NetworkFinding, judge_solution, judge_what_if
from vent_agent.network.requests import demo_mine_network
from ventnet import Branch, FanCurve, Network, solve
from ventnet.changes import Change
from ventnet.whatif import what_if

TABLE = ThresholdTable.load("2025")


def _kinds(findings: list[NetworkFinding]) -> dict[str, list[NetworkFinding]]:
    out: dict[str, list[NetworkFinding]] = {}
    for f in findings:
        out.setdefault(f.kind, []).append(f)
    return out


def test_short_air_and_wind_speeds_are_judged_with_their_clauses() -> None:
    branches = (
        Branch("face", "in", "m", 0.5, area=10.0, roadway_class="采煤工作面", required_q=12.0),
        Branch("fast", "m", "out", 0.001, area=1.0, roadway_class="采区回风巷"),
    )
    network = Network(branches, frozenset({"in"}), injections={"out": -10.0})
    kinds = _kinds(judge_solution(network, solve(network), TABLE))
    (short,) = kinds["short_air"]
    assert (
        short.branch == "face"
        and round(short.value or 0) == 600
        and short.limit == 720
        and "第159条" in short.clause
    )
    (high,) = kinds["wind_high"]  # 10 m³/s through 1 m²: 10 m/s against 6 m/s
    assert high.branch == "fast" and "第157条" in high.clause and "超过最高" in high.message


def test_a_fan_on_its_rising_side_and_off_its_range_is_named() -> None:
    fan = FanCurve(a0=1000.0, a1=40.0, a2=-1.0, q_min=25.0, q_max=60.0)
    network = Network(
        (Branch("fan", "f", "out", 0.0, fan=fan, kind="fan"), Branch("r", "in", "f", 50.0)),
        frozenset({"in", "out"}),
    )
    kinds = _kinds(judge_solution(network, solve(network), TABLE))
    assert [f.branch for f in kinds["fan_rising"]] == ["fan"] and [
        f.branch for f in kinds["fan_off_range"]
    ] == ["fan"]


def test_starving_the_local_fans_intake_is_judged_by_article_183() -> None:
    # the demo mine's east-wing intake carries 31.2 m³/s to three local fans drawing 30.1: a regulator
    # in it leaves them less than they draw
    network = demo_mine_network()
    choked = network.branch("EC-DYJF").resistance + 5.0
    result = what_if(network, [Change("set_resistance", "EC-DYJF", resistance=choked)])
    kinds = _kinds(judge_what_if(result, TABLE))
    (starved,) = kinds["aux_fan_intake"]
    assert starved.branch == "DY-JF" and "第183条" in starved.clause and "循环风" in starved.message
    assert "不能按其定风量供风" in starved.message  # the fixed quantity shown is not delivered
    assert starved.value is not None and starved.limit is not None and starved.value < starved.limit
    # the through-flow now runs back from the return: a diagonal branch flipped
    assert result.flipped == ("DY-LF",) and [f.branch for f in kinds["diagonal_flip"]] == ["DY-LF"]


def test_a_fan_the_air_runs_back_through_is_warned_of() -> None:
    fan = FanCurve(a0=-100.0, a1=0.0, a2=-0.5)
    network = Network(
        (Branch("fan", "f", "out", 0.1, fan=fan, kind="fan"), Branch("r", "in", "f", 0.5)),
        frozenset({"in", "out"}),
    )
    (reversed_fan,) = _kinds(judge_solution(network, solve(network), TABLE))["fan_reversed"]
    assert reversed_fan.branch == "fan" and "风流反向通过风机" in reversed_fan.message
    assert "a0 < 0" in reversed_fan.message and reversed_fan.value is not None and reversed_fan.value < 0


def test_a_fan_whose_curve_cannot_hold_the_system_is_flagged_reversed() -> None:
    # a0 < 0: the fan cannot push against any resistance, the air runs back through it
    network = Network(
        (Branch("F", "A", "B", 0.1, fan=FanCurve(-100.0, 0.0, -0.5), kind="fan"), Branch("R", "B", "C", 0.5)),
        frozenset({"A", "C"}),
    )
    (point,) = solve(network).fans
    assert point.q < 0 and point.reversed and point.to_json()["reversed"] is True


def test_a_stopped_local_fan_draws_nothing_from_its_intake() -> None:
    # the east wing's three local fans draw 30.1 m³/s of its 31.2: with one stopped they draw 19.2 of
    # the 20.3 left, and no recirculation is judged from the stopped one's draw
    result = what_if(demo_mine_network(), [Change("stop_fan", "JF-15220-YS")])
    kinds = _kinds(judge_what_if(result, TABLE))
    assert "aux_fan_intake" not in kinds and [f.branch for f in kinds["short_air"]] == ["15220-YS"]


def test_a_reversed_branch_is_judged_as_reversed_not_as_short_of_its_plan() -> None:
    network = bridge(1.0, 2.0, 3.0, 1.0)  # R1·R5 < R2·R4: the diagonal runs b→c
    planned = [replace(b, required_q=100.0) if b.id == "3" else b for b in network.branches]
    result = what_if(network.with_branches(planned), [Change("set_resistance", "5", resistance=7.0)])
    assert result.flipped == ("3",)
    kinds = {f.kind for f in judge_what_if(result, TABLE) if f.branch == "3"}
    assert kinds == {"diagonal_flip"}
    (flip,) = [f for f in judge_what_if(result, TABLE) if f.branch == "3"]
    assert "计划风量 6000 m³/min 的风流已反向" in flip.message


def test_stopping_the_main_fan_cuts_the_local_fans_and_says_what_the_rules_require() -> None:
    network = demo_mine_network()
    result, findings, notes = mine_what_if(
        network, [Change("stop_fan", "FD-01")], solve(network), TABLE, ("2号（F2）",)
    )
    stopped = {c.branch for c in result.changes if c.action == "stop_fan"}
    local = {b.id for b in network.branches if b.kind == "local_fan"}
    assert local and stopped == {"FD-01"} | local and "切断电源" in notes[0]
    # nothing drives the air any more: no local fan pushes air out through the stopped main fan
    assert max(abs(q) for q in result.after.q.values()) <= 1e-3
    kinds = _kinds(findings)
    (withdraw,) = kinds["main_fan_stopped"]
    (standby,) = kinds["main_fan_standby"]
    assert "第180条" in withdraw.clause and "撤至" in withdraw.message
    assert "第177条" in standby.clause and "2号（F2）须在 10 min 内开动" in standby.message
    assert "reversed" not in kinds and "aux_fan_intake" not in kinds
    # a main fan still running elsewhere: the local fans keep running
    kept, _, none = mine_what_if(network, [Change("open_door", "FM-01")], solve(network), TABLE)
    assert none == [] and all(b.carried_q for b in kept.network.branches if b.kind == "local_fan")


def _one_branch(flow: float, area: float) -> Network:
    """A district return (表6: 0.25–6 m/s) carrying ``flow`` m³/s through ``area`` m²."""
    branch = Branch("r", "in", "out", 0.5, area=area, roadway_class="采区回风巷")
    return Network((branch,), frozenset({"in"}), injections={"out": -flow})


def test_a_wind_speed_next_to_its_limit_is_written_on_the_side_of_it_it_is_judged() -> None:
    # 0.2483 and 6.003 m/s: at two decimals 0.25 and 6.00, the limits themselves
    for flow, area, kind, written in ((2.483, 10.0, "wind_low", "0.248"), (6.003, 1.0, "wind_high", "6.003")):
        network = _one_branch(flow, area)
        (finding,) = _kinds(judge_solution(network, solve(network), TABLE))[kind]
        m = re.search(r"风速 ([\d.]+) m/s (低于最低|超过最高)允许风速 ([\d.]+) m/s", finding.message)
        assert m, finding.message
        shown, limit = float(m[1]), float(m[3])
        assert m[1] == written and (shown < limit if kind == "wind_low" else shown > limit), finding.message
    # away from the limit, two decimals as the console writes a wind speed
    network = _one_branch(2.0, 10.0)
    (low,) = _kinds(judge_solution(network, solve(network), TABLE))["wind_low"]
    assert "风速 0.20 m/s 低于" in low.message


def test_every_what_if_of_the_demo_mines_devices_writes_its_air_in_whole_m3_per_min() -> None:
    network = demo_mine_network()
    baseline = solve(network)
    devices = [b for b in network.branches if b.kind in ("door", "regulator") or b.fan or b.fixed_q]
    messages = [
        f.message
        for branch in devices
        for change in changes_for(branch)
        for f in mine_what_if(network, [change], baseline, TABLE)[1]
    ]
    figures = [(x, m) for m in messages for x in re.findall(r"(-?[\d.]+) m³/min", m)]
    assert len(figures) > 50
    # whole, but for a flow turned round that whole would write as 0: its sign kept (16 → -0.1)
    odd = [(x, m) for x, m in figures if not re.fullmatch(r"-?\d+", x)]
    assert all(abs(float(x)) < 0.5 and "风流反向" in m for x, m in odd), odd
    assert not [m for m in messages if "m³/s" in m]  # one unit for air: the fans' and reversals' too
