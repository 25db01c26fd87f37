"""Chambers (DOMAIN §2.3) and other roadways (§2.4): hand-checked worked examples."""

from __future__ import annotations

import pytest

from calc import (
    calc_chamber_by_equipment,
    calc_chamber_by_wind_speed,
    calc_charging_chamber,
    calc_explosives_store,
    calc_other_by_gas,
    calc_other_by_vehicle,
    calc_other_by_wind_speed,
)


def test_heat_substation():
    r = calc_chamber_by_equipment(power_kw=800, theta=0.02, delta_t=5.0, chamber_type="substation")
    # 3600 × 800 × 0.02 / (1.2 × 1.0006 × 60 × 5) = 57600 / 360.216 = 159.904
    assert r.value == 159.9
    assert r.substituted == "Q = 3600 × 800 × 0.02 / (1.2 × 1.0006 × 60 × 5.0) = 159.9 m³/min"
    assert "第187条" in r.source and r.warnings == []


def test_heat_pump_room():
    r = calc_chamber_by_equipment(power_kw=1260, theta=0.01, delta_t=3.0, chamber_type="主排水泵房")
    # 45360 / 216.1296 = 209.87
    assert r.value == 209.9


@pytest.mark.parametrize(
    ("kind", "theta"), [("compressor", 0.215), ("水泵房", 0.02), ("变电所", 0.03), ("hoist", 0.03)]
)
def test_heat_default_theta_by_chamber_type(kind, theta):
    r = calc_chamber_by_equipment(power_kw=100, delta_t=4, chamber_type=kind)
    assert r.coefficients[0].value == theta and r.coefficients[0].origin == "default"


def test_heat_list_of_powers_theta_outside_range_and_small_chamber():
    r = calc_chamber_by_equipment(power_kw=[200, 100], theta=0.05, delta_t=4, chamber_type="pump")
    # 3600 × 300 × 0.05 / (1.2 × 1.0006 × 60 × 4) = 54000 / 288.1728 = 187.39
    assert r.value == 187.4 and "3600 × (200 + 100) × 0.05" in r.substituted
    assert any("超出其规定范围 0.01–0.03" in w for w in r.warnings)
    small = calc_chamber_by_equipment(power_kw=100, theta=0.02, delta_t=5)
    assert small.value == 20.0 and any("60–80" in w for w in small.warnings)


def test_chamber_wind_speed_defaults_to_other_walkways():
    r = calc_chamber_by_wind_speed(area=10.0, required_q=160)
    assert (r.lower, r.upper) == (90.0, None) and r.check is not None and r.check.ok


def test_explosives_store_medium_by_volume():
    r = calc_explosives_store(volume_m3=1200, store_size="中型")
    assert r.value == 80.0 and r.governing == "calc_explosives_store.by_volume"
    assert r.methods[0].substituted == "Q = 4 × 1200 / 60 = 80.0 m³/min"
    assert r.methods[1].value == 60.0 and "中型库不小于 60 m³/min" in r.methods[1].substituted
    assert "第185条" in r.source


def test_explosives_store_large_minimum_governs():
    r = calc_explosives_store(volume_m3=1200, store_size="large")
    assert r.value == 100.0 and r.governing == "calc_explosives_store.minimum"


def test_charging_chamber():
    r = calc_charging_chamber(h2_emission=0.2)
    assert [m.value for m in r.methods] == [40.0, 100.0] and r.value == 100.0
    assert calc_charging_chamber(h2_emission=0.8).value == 160.0
    assert "第186条" in r.source


@pytest.mark.parametrize(
    ("cls", "area", "lower", "upper"),
    [("采区进风巷", 12.4, 186.0, 4464.0), ("district_roadway", 10, 150.0, 3600.0), ("输送机巷", 10, 150.0, 3600.0),
     ("trolley_roadway", 10, 600.0, 4800.0), ("总回风巷", 20, None, 9600.0), ("other_walkway", 10, 90.0, None),
     ("风桥", 5, None, 3000.0), ("岩巷", 10, 90.0, 2400.0)],
)  # fmt: skip
def test_other_wind_speed_by_roadway_class(cls, area, lower, upper):
    r = calc_other_by_wind_speed(area=area, roadway_class=cls)
    assert (r.lower, r.upper) == (lower, upper)
    assert r.value == (lower or 0.0)


def test_other_wind_speed_gas_free_trolley_roadway():
    r = calc_other_by_wind_speed(area=10, roadway_class="trolley_roadway", gas_free=True)
    assert r.lower == 300.0 and r.warnings == []
    ignored = calc_other_by_wind_speed(area=10, roadway_class="district_roadway", gas_free=True)
    assert ignored.lower == 150.0 and ignored.warnings


def test_other_wind_speed_demo_diesel_roadway_check():
    r = calc_other_by_wind_speed(area=12.4, roadway_class="采区进风巷", required_q=560.0)
    assert r.check is not None and r.check.ok
    assert "60 × 0.25 × 12.4 = 186.0 ≤ Q ≤ 60 × 6 × 12.4 = 4464.0" in r.substituted


def test_other_gas_district_and_main_return():
    assert calc_other_by_gas(gas_emission=1.0, k_gas=1.2).value == 120.0
    r = calc_other_by_gas(gas_emission=1.0, k_gas=1.2, scope="总回风巷")
    assert r.value == 159.6 and r.substituted == "Q = 133 × 1.00 × 1.2 = 159.6 m³/min"


def test_other_vehicle():
    r = calc_other_by_vehicle(vehicle_kw=70, vehicles=2)
    assert r.value == 560.0 and r.method == "calc_other_by_vehicle"
    assert r.substituted == "Q = 4 × 2 × 70 = 560.0 m³/min"
