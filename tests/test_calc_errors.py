"""Invalid input raises CalcInputError naming the parameter; nothing is clamped silently."""

from __future__ import annotations

import math

import pytest

from calc import (
    CalcInputError,
    calc_chamber_by_equipment,
    calc_effective_area,
    calc_explosives_store,
    calc_face_air_volume_max,
    calc_face_by_climate,
    calc_face_by_gas,
    calc_face_by_workers,
    calc_gas_emission_from_wind,
    calc_other_by_gas,
    calc_other_by_wind_speed,
    calc_standby_face,
    calc_total_air_volume,
    calc_tunnel_air_volume_max,
    calc_tunnel_by_fan_intake,
    calc_tunnel_by_wind_speed,
)

GEOMETRY = {"mining_height": 3.2, "roof_control_max": 5.8, "roof_control_min": 4.6}

CASES = [
    (calc_face_by_gas, {"gas_emission": -1.0, "k_gas": 1.5}, "gas_emission"),
    (calc_face_by_gas, {"gas_emission": math.nan, "k_gas": 1.5}, "gas_emission"),
    (calc_face_by_gas, {"gas_emission": math.inf, "k_gas": 1.5}, "gas_emission"),
    (calc_face_by_gas, {"gas_emission": True, "k_gas": 1.5}, "gas_emission"),
    (calc_face_by_gas, {"gas_emission": "4.2", "k_gas": 1.5}, "gas_emission"),
    (calc_face_by_gas, {"gas_emission": 4.2, "k_gas": 0}, "k_gas"),
    (calc_face_by_gas, {"gas_emission": 4.2, "k_gas": -1.5}, "k_gas"),
    (calc_face_by_gas, {"gas_emission": 4.2}, "k_gas"),
    (calc_face_by_gas, {"gas_emission": 4.2, "mining_method": "手采"}, "mining_method"),
    (calc_face_by_workers, {"workers": -1}, "workers"),
    (calc_face_by_workers, {"workers": 3.5}, "workers"),
    (calc_face_by_workers, {"workers": False}, "workers"),
    (calc_face_by_climate, {**GEOMETRY, "mining_height": 0, "v_climate": 1, "k_l": 1}, "mining_height"),
    (
        calc_face_by_climate,
        {**GEOMETRY, "roof_control_min": 6.0, "v_climate": 1, "k_l": 1},
        "roof_control_min",
    ),
    (calc_face_by_climate, {**GEOMETRY, "k_l": 1}, "v_climate"),
    (calc_face_by_climate, {**GEOMETRY, "v_climate": 1}, "k_l"),
    (calc_face_by_climate, {**GEOMETRY, "v_climate": 1, "k_l": 1, "top_coal_caving": 1}, "top_coal_caving"),
    (calc_effective_area, {**GEOMETRY, "roof_control_max": math.nan}, "roof_control_max"),
    (calc_standby_face, {"working_face_q": -5}, "working_face_q"),
    (calc_tunnel_by_fan_intake, {"fan_intake_q": 300, "area": 0, "heading_type": "coal"}, "area"),
    (calc_tunnel_by_fan_intake, {"fan_intake_q": 300, "area": 12, "heading_type": "sand"}, "heading_type"),
    (
        calc_tunnel_by_fan_intake,
        {"fan_intake_q": 300, "area": 12, "heading_type": "coal", "fan_count": 0},
        "fan_count",
    ),
    (calc_tunnel_by_wind_speed, {"area": -3, "heading_type": "rock"}, "area"),
    (calc_tunnel_by_wind_speed, {"area": 3, "heading_type": "rock", "required_q": -1}, "required_q"),
    (calc_chamber_by_equipment, {"power_kw": 800, "delta_t": 0, "theta": 0.02}, "delta_t"),
    (calc_chamber_by_equipment, {"power_kw": 800, "delta_t": 5}, "theta"),
    (calc_chamber_by_equipment, {"power_kw": 800, "delta_t": 5, "chamber_type": "kitchen"}, "chamber_type"),
    (calc_chamber_by_equipment, {"power_kw": [], "delta_t": 5, "theta": 0.02}, "power_kw"),
    (calc_chamber_by_equipment, {"power_kw": [100, -1], "delta_t": 5, "theta": 0.02}, "power_kw[1]"),
    (calc_explosives_store, {"volume_m3": 1200, "store_size": "huge"}, "store_size"),
    (calc_explosives_store, {"volume_m3": 0, "store_size": "large"}, "volume_m3"),
    (calc_other_by_wind_speed, {"area": 10, "roadway_class": "highway"}, "roadway_class"),
    (calc_other_by_wind_speed, {"area": 10, "roadway_class": ""}, "roadway_class"),
    (calc_other_by_gas, {"gas_emission": 1, "k_gas": 1.2, "scope": "nowhere"}, "scope"),
    (calc_total_air_volume, {"location_qs": [], "k_mine": 1.2}, "location_qs"),
    (calc_total_air_volume, {"location_qs": {"a": -1.0}, "k_mine": 1.2}, "location_qs[a]"),
    (calc_total_air_volume, {"location_qs": [1.0], "fan_mode": "mixed"}, "fan_mode"),
    (calc_total_air_volume, {"location_qs": [1.0], "k_mine": 1.2, "capacity": 0}, "capacity"),
    (calc_gas_emission_from_wind, {"wind_speed": 1, "area": 10, "ch4_return": 101}, "ch4_return"),
    (
        calc_gas_emission_from_wind,
        {"wind_speed": 1, "area": 10, "ch4_return": 0.3, "location_kind": "x"},
        "location_kind",
    ),
    (
        calc_gas_emission_from_wind,
        {"wind_speed": 1, "area": 10, "ch4_return": 0.3, "daily_output": 0},
        "daily_output",
    ),
    (calc_face_air_volume_max, {}, "inputs"),
    (calc_face_air_volume_max, {"workers": 10, "explosive_kg": -2}, "explosive_kg"),
    (calc_tunnel_air_volume_max, {"gas_emission": 1.0, "k_gas": math.nan}, "k_gas"),
]


@pytest.mark.parametrize(("func", "kwargs", "param"), CASES, ids=[f"{c[0].__name__}-{c[2]}" for c in CASES])
def test_invalid_input_raises_a_typed_error_naming_the_parameter(func, kwargs, param):
    with pytest.raises(CalcInputError) as err:
        func(**kwargs)
    assert err.value.param == param
    assert isinstance(err.value, ValueError)
    assert str(err.value).startswith(param)


def test_error_to_dict():
    with pytest.raises(CalcInputError) as err:
        calc_face_by_gas(gas_emission=-1.0, k_gas=1.5)
    assert err.value.to_dict() == {
        "error": "参数 gas_emission=-1.0 无效：不能小于 0",
        "param": "gas_emission",
        "reason": "不能小于 0",
    }
    assert str(err.value) == "gas_emission=-1.0：不能小于 0"


def test_positional_arguments_are_refused():
    with pytest.raises(TypeError):
        calc_face_by_workers(38)  # type: ignore[call-arg]  # the wrong call under test
