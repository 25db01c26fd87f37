"""How the network's texts write figures (vent_agent/network/figures.py): whole m³/min and wind speeds to
two decimals, with more decimals where the rounded figure would contradict the comparison it stands in."""

from __future__ import annotations

from vent_agent.network.figures import air, air_change, beside, speed


def test_a_figure_next_to_its_limit_gets_the_decimals_that_keep_it_on_its_side() -> None:
    assert speed(0.2483, 0.25) == "0.248" and speed(0.2499, 0.25) == "0.2499"
    assert speed(6.003, 6.0) == "6.003" and speed(0.2, 0.25) == "0.20" and speed(0.25, 0.25) == "0.25"
    assert beside(299.6, 300.0, 0) == "299.6" and beside(299.4, 300.0, 0) == "299"


def test_an_air_volume_is_whole_and_a_reversed_one_keeps_its_sign() -> None:
    assert air(1203.94) == "1204" and air(1573.0) == "1573" and air(-0.3) == "0"
    assert air(-0.3, 0.0) == "-0.3" and air(-176.6, 0.0) == "-177" and air(-0.00006, 0.0) == "-0.0001"
    assert air(-1e-12, 0.0) == "0" and speed(0.2499999999, 0.25) == "0.25"  # no closer than 1e-6: on it


def test_a_change_is_the_difference_of_the_figures_written() -> None:
    # 1203.6 → 1573.4 is 369.8, but written 1204 → 1573 it reads as +369
    before, after = air(1203.6), air(1573.4)
    assert (before, after, air_change(before, after)) == ("1204", "1573", "+369")
    assert air_change("5", "-0.3") == "-5.3" and air_change("5", "5") == "0"
