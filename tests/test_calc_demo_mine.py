"""The 2026-08 inputs of the demo mine (``plan_inputs_2026_08``) give the required Q of the correct plan."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypedDict

import pytest

from calc import (
    CalcResult,
    calc_chamber_by_equipment,
    calc_charging_chamber,
    calc_explosives_store,
    calc_face_air_volume_max,
    calc_other_by_vehicle,
    calc_other_by_wind_speed,
    calc_standby_face,
    calc_total_air_volume,
    calc_tunnel_air_volume_max,
)

# A copy of ``plan_inputs_2026_08`` of the demo mine (vent_agent/data/demo_mine.json), so that the figures
# the test checks are written out here. ``test_copy_matches_the_shipped_demo_mine`` keeps the two in step.
INPUTS: list[dict[str, Any]] = [
    {
        "name": "15216综采工作面",
        "kind": "coal_face",
        "mining": "综采",
        "gas_emission": 4.2,
        "k_gas": 1.5,
        "co2_emission": 0.8,
        "k_co2": 1.5,
        "intake_temp": 19.0,
        "v_climate": 1.0,
        "mining_height": 3.2,
        "face_length": 220,
        "k_l": 1.35,
        "k_h": 1.2,
        "roof_control_max": 5.8,
        "roof_control_min": 4.6,
        "workers": 38,
        "allocated_q": 1200,
        "planned_speed": None,
    },
    {"name": "15218工作面", "kind": "standby_face", "of": "15216综采工作面", "allocated_q": 580},
    {
        "name": "15220运输顺槽掘进工作面",
        "kind": "heading",
        "rock": "coal",
        "gas_emission": 0.8,
        "k_gas": 1.8,
        "explosive_kg": 0,
        "fan_intake_q": 420,
        "fan_count": 1,
        "fan_model": "FBD-No6.3/2×30",
        "area": 14.2,
        "workers": 18,
        "allocated_q": 650,
    },
    {
        "name": "15220回风顺槽掘进工作面",
        "kind": "heading",
        "rock": "coal",
        "gas_emission": 1.6,
        "k_gas": 1.8,
        "explosive_kg": 0,
        "fan_intake_q": 420,
        "fan_count": 1,
        "fan_model": "FBD-No6.3/2×30",
        "area": 13.8,
        "workers": 16,
        "allocated_q": 640,
    },
    {
        "name": "15222切眼掘进工作面",
        "kind": "heading",
        "rock": "coal",
        "gas_emission": 0.6,
        "k_gas": 1.8,
        "explosive_kg": 0,
        "fan_intake_q": 300,
        "fan_count": 1,
        "fan_model": "FBD-No5.6/2×15",
        "area": 12.0,
        "workers": 14,
        "allocated_q": 500,
    },
    {
        "name": "二采区轨道下山掘进工作面",
        "kind": "heading",
        "rock": "rock",
        "gas_emission": 0.2,
        "k_gas": 1.5,
        "explosive_kg": 24,
        "fan_intake_q": 300,
        "fan_count": 1,
        "fan_model": "FBD-No5.6/2×15",
        "area": 12.6,
        "workers": 14,
        "allocated_q": 620,
    },
    {
        "name": "中央变电所",
        "kind": "chamber_heat",
        "power_kw": 800,
        "theta": 0.02,
        "delta_t": 5.0,
        "allocated_q": 180,
    },
    {
        "name": "主排水泵房",
        "kind": "chamber_heat",
        "power_kw": 1260,
        "theta": 0.01,
        "delta_t": 3.0,
        "allocated_q": 220,
    },
    {
        "name": "井下爆炸材料库",
        "kind": "explosives_store",
        "volume_m3": 1200,
        "size": "中型",
        "allocated_q": 100,
    },
    {"name": "充电硐室", "kind": "charging", "h2_emission": 0.2, "allocated_q": 120},
    {
        "name": "15216辅运起坡段",
        "kind": "diesel_roadway",
        "roadway_class": "采区进风巷",
        "vehicles": 2,
        "vehicle_kw": 70,
        "area": 12.4,
        "allocated_q": 600,
    },
]


class MineFigures(TypedDict):
    """The mine-wide figures of the demo plan's total (k, people underground, capacity m³/min)."""

    k_mine: float
    max_people_underground: int
    ventilation_capacity_q: float


MINE: MineFigures = {"k_mine": 1.18, "max_people_underground": 420, "ventilation_capacity_q": 7600.0}
DEMO_FILE = Path(__file__).parents[1] / "vent_agent" / "data" / "demo_mine.json"

EXPECTED = {
    "15216综采工作面": (1132.2, "calc_face_by_climate"),
    "15218工作面": (566.1, "calc_standby_face"),
    "15220运输顺槽掘进工作面": (633.0, "calc_tunnel_by_fan_intake"),
    "15220回风顺槽掘进工作面": (627.0, "calc_tunnel_by_fan_intake"),
    "15222切眼掘进工作面": (480.0, "calc_tunnel_by_fan_intake"),
    "二采区轨道下山掘进工作面": (600.0, "calc_tunnel_by_explosives"),
    "中央变电所": (159.9, "calc_chamber_by_equipment"),
    "主排水泵房": (209.9, "calc_chamber_by_equipment"),
    "井下爆炸材料库": (80.0, "calc_explosives_store.by_volume"),
    "充电硐室": (100.0, "calc_charging_chamber.minimum"),
    "15216辅运起坡段": (560.0, "calc_other_by_vehicle"),
}


def required(rec: dict[str, Any], done: dict[str, CalcResult]) -> CalcResult:
    """The required-Q calculation of one demo record (its kind picks the calculator)."""
    kind = rec["kind"]
    if kind == "coal_face":
        face_keys = ("gas_emission", "k_gas", "co2_emission", "k_co2", "mining_height", "roof_control_max",
                     "roof_control_min", "face_length", "intake_temp", "v_climate", "k_h", "k_l", "workers")  # fmt: skip
        return calc_face_air_volume_max(mining_method=rec["mining"], **{k: rec[k] for k in face_keys})
    if kind == "standby_face":
        return calc_standby_face(working_face_q=done[rec["of"]].value)
    if kind == "heading":
        heading_keys = (
            "gas_emission",
            "k_gas",
            "explosive_kg",
            "fan_intake_q",
            "fan_count",
            "area",
            "workers",
        )
        return calc_tunnel_air_volume_max(heading_type=rec["rock"], **{k: rec[k] for k in heading_keys})
    if kind == "chamber_heat":
        return calc_chamber_by_equipment(power_kw=rec["power_kw"], theta=rec["theta"], delta_t=rec["delta_t"])
    if kind == "explosives_store":
        return calc_explosives_store(volume_m3=rec["volume_m3"], store_size=rec["size"])
    if kind == "charging":
        return calc_charging_chamber(h2_emission=rec["h2_emission"])
    assert kind == "diesel_roadway"
    return calc_other_by_vehicle(vehicle_kw=rec["vehicle_kw"], vehicles=rec["vehicles"])


@pytest.fixture(scope="module")
def results() -> dict[str, CalcResult]:
    done: dict[str, CalcResult] = {}
    for rec in INPUTS:
        done[rec["name"]] = required(rec, done)
    return done


@pytest.mark.parametrize("name", list(EXPECTED))
def test_required_q_of_every_location(results, name):
    value, governing = EXPECTED[name]
    r = results[name]
    assert r.value == value
    assert getattr(r, "governing", r.method) == governing


def test_every_location_is_covered():
    assert {rec["name"] for rec in INPUTS} == set(EXPECTED)


def test_allocated_air_covers_the_requirement_and_speeds_hold(results):
    for rec in INPUTS:
        assert rec["allocated_q"] >= results[rec["name"]].value, rec["name"]
        checks = getattr(results[rec["name"]], "checks", [])
        assert all(c.ok for c in checks), rec["name"]


def test_coal_face_with_table_coefficients_gives_the_same_requirement():
    face = INPUTS[0]
    r = calc_face_air_volume_max(
        gas_emission=face["gas_emission"], k_gas=face["k_gas"], mining_method=face["mining"],
        mining_height=face["mining_height"], roof_control_max=face["roof_control_max"],
        roof_control_min=face["roof_control_min"], face_length=face["face_length"], intake_temp=face["intake_temp"],
        workers=face["workers"],
    )  # fmt: skip
    climate = next(m for m in r.methods if m.method == "calc_face_by_climate")
    assert r.value == 1132.2
    assert {c.symbol: (c.value, c.origin) for c in climate.coefficients if c.symbol in ("k_h", "k_l")} == {
        "k_h": (1.2, "table"),
        "k_l": (1.35, "default"),
    }


def test_heading_by_gas_of_15220_transport():
    heading = next(r for r in INPUTS if r["name"] == "15220运输顺槽掘进工作面")
    r = calc_tunnel_air_volume_max(gas_emission=heading["gas_emission"], k_gas=heading["k_gas"])
    assert r.methods[0].substituted == "Q = 100 × 0.80 × 1.8 = 144.0 m³/min"


def test_rock_heading_fan_intake_uses_the_rock_minimum(results):
    r = results["二采区轨道下山掘进工作面"]
    fan = next(m for m in r.methods if m.method == "calc_tunnel_by_fan_intake")
    assert fan.value == 413.4 and fan.substituted == "Q = 300 × 1 + 60 × 0.15 × 12.6 = 413.4 m³/min"


def test_diesel_roadway_speed_check_by_its_class():
    rec = INPUTS[-1]
    r = calc_other_by_wind_speed(area=rec["area"], roadway_class=rec["roadway_class"], required_q=560.0)
    assert (r.lower, r.upper) == (186.0, 4464.0) and r.check is not None and r.check.ok


def test_mine_total(results):
    mine = MINE
    r = calc_total_air_volume(
        location_qs={name: res.value for name, res in results.items()},
        k_mine=mine["k_mine"],
        fan_mode="抽出式",
        max_people_underground=mine["max_people_underground"],
        capacity=mine["ventilation_capacity_q"],
    )
    assert r.inputs["sum_q"] == 5148.1 and r.value == 6074.8 and r.checks[0].ok


@pytest.mark.skipif(not DEMO_FILE.exists(), reason="vent_agent/data/demo_mine.json not present")
def test_copy_matches_the_shipped_demo_mine():
    demo = json.loads(DEMO_FILE.read_text(encoding="utf-8"))
    assert demo["plan_inputs_2026_08"] == INPUTS
    assert {key: demo["mine"][key] for key in MINE} == MINE
