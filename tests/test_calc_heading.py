"""Heading face methods (calc_tunnel_*): hand-checked worked examples (DOMAIN §2.2)."""

from __future__ import annotations

import pytest

from calc import (
    CalcInputError,
    calc_tunnel_air_volume_max,
    calc_tunnel_by_explosives,
    calc_tunnel_by_fan_intake,
    calc_tunnel_by_gas,
    calc_tunnel_by_vehicle,
    calc_tunnel_by_wind_speed,
    calc_tunnel_by_workers,
)


def test_gas_given_k():
    r = calc_tunnel_by_gas(gas_emission=0.8, k_gas=1.8)
    assert r.value == 144.0
    assert r.substituted == "Q = 100 × 0.80 × 1.8 = 144.0 m³/min"
    assert r.coefficients[0].valid_range == (1.5, 2.0) and r.warnings == []


def test_gas_default_k_is_1_75_and_out_of_range_warns():
    r = calc_tunnel_by_gas(gas_emission=1.0)
    assert r.coefficients[0].value == 1.75 and r.coefficients[0].origin == "default" and r.value == 175.0
    assert calc_tunnel_by_gas(gas_emission=1.0, k_gas=1.2).warnings


def test_explosives_is_linear_in_the_charge_not_a_cube_root():
    assert calc_tunnel_by_explosives(explosive_kg=24).value == 600.0
    assert calc_tunnel_by_explosives(explosive_kg=8).value == 200.0  # 25 × 8, not 25 × 8^(1/3) = 50
    assert calc_tunnel_by_explosives(explosive_kg=24).warnings == []


def test_fan_intake_coal_heading():
    r = calc_tunnel_by_fan_intake(fan_intake_q=420, fan_count=1, area=14.2, heading_type="coal")
    # 420 × 1 + 60 × 0.25 × 14.2 = 420 + 213 = 633
    assert r.value == 633.0
    assert r.substituted == "Q = 420 × 1 + 60 × 0.25 × 14.2 = 633.0 m³/min"
    assert "第183条" in r.source


@pytest.mark.parametrize(
    ("kind", "value"), [("rock", 413.4), ("岩巷", 413.4), ("half_coal", 489.0), ("半煤岩巷", 489.0)]
)
def test_fan_intake_minimum_speed_by_heading_type(kind, value):
    # rock: 300 + 60 × 0.15 × 12.6 = 413.4; half-coal: 300 + 60 × 0.25 × 12.6 = 489
    assert calc_tunnel_by_fan_intake(fan_intake_q=300, area=12.6, heading_type=kind).value == value


def test_fan_intake_warnings_for_three_fans_and_short_full_pressure_air():
    r = calc_tunnel_by_fan_intake(
        fan_intake_q=300, fan_count=3, area=12, heading_type="coal", full_pressure_q=800
    )
    assert r.value == 1080.0  # 300 × 3 + 60 × 0.25 × 12 = 900 + 180
    assert any("严禁 3 台及以上同时供风" in w for w in r.warnings)
    assert any("不大于局部通风机吸风量 900.0 m³/min" in w for w in r.warnings)
    fine = calc_tunnel_by_fan_intake(
        fan_intake_q=300, fan_count=2, area=12, heading_type="coal", full_pressure_q=900.1
    )
    assert fine.warnings == []


def test_workers():
    assert calc_tunnel_by_workers(workers=18).value == 72.0


def test_wind_speed_coal_and_rock():
    coal = calc_tunnel_by_wind_speed(area=14.2, heading_type="coal", required_q=633.0)
    assert (coal.lower, coal.upper) == (213.0, 3408.0) and coal.check is not None and coal.check.ok
    rock = calc_tunnel_by_wind_speed(area=12.6, heading_type="rock")
    assert (rock.lower, rock.upper, rock.value, rock.check) == (113.4, 3024.0, 113.4, None)


def test_wind_speed_too_little_air():
    r = calc_tunnel_by_wind_speed(area=14.2, heading_type="coal", required_q=200)
    assert r.check is not None and not r.check.ok and "不符合" in r.substituted


def test_vehicle_scalar_and_list():
    r = calc_tunnel_by_vehicle(vehicle_kw=70, vehicles=2)
    assert r.value == 560.0 and r.substituted == "Q = 4 × 2 × 70 = 560.0 m³/min"
    mixed = calc_tunnel_by_vehicle(vehicle_kw=[70, 55])
    assert mixed.value == 500.0 and mixed.substituted == "Q = 4 × (70 + 55) = 500.0 m³/min"
    with pytest.raises(CalcInputError) as err:
        calc_tunnel_by_vehicle(vehicle_kw=[70, 55], vehicles=3)
    assert err.value.param == "vehicles"


def test_max_coal_heading_fan_intake_governs():
    r = calc_tunnel_air_volume_max(
        gas_emission=0.8, k_gas=1.8, explosive_kg=0, fan_intake_q=420, fan_count=1, area=14.2,
        heading_type="coal", workers=18,
    )  # fmt: skip
    assert r.value == 633.0 and r.governing == "calc_tunnel_by_fan_intake"
    assert [m.method for m in r.methods] == [
        "calc_tunnel_by_gas",
        "calc_tunnel_by_fan_intake",
        "calc_tunnel_by_workers",
    ]
    assert r.checks[0].ok and (r.checks[0].lower, r.checks[0].upper) == (213.0, 3408.0)


def test_max_rock_heading_explosives_govern():
    r = calc_tunnel_air_volume_max(
        gas_emission=0.2, k_gas=1.5, explosive_kg=24, fan_intake_q=300, fan_count=1, area=12.6,
        heading_type="rock", workers=14,
    )  # fmt: skip
    assert r.value == 600.0 and r.governing == "calc_tunnel_by_explosives"
    fan = next(m for m in r.methods if m.method == "calc_tunnel_by_fan_intake")
    assert fan.value == 413.4
    assert (r.checks[0].lower, r.checks[0].upper) == (113.4, 3024.0)


def test_max_with_vehicles_only():
    r = calc_tunnel_air_volume_max(vehicle_kw=[70, 70], workers=5)
    assert r.value == 560.0 and r.governing == "calc_tunnel_by_vehicle" and r.checks == []
