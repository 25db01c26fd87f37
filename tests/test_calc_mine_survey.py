"""Mine total (DOMAIN §2.5), survey back-calculation (§2.6) and unit helpers."""

from __future__ import annotations

import pytest

from calc import (
    CalcInputError,
    calc_gas_emission_from_wind,
    calc_total_air_volume,
    m3min_to_m3s,
    m3s_to_m3min,
    q_from_speed,
    speed_from_q,
)

DEMO_QS = {
    "15216综采工作面": 1132.2, "15218工作面": 566.1, "15220运输顺槽掘进工作面": 633.0,
    "15220回风顺槽掘进工作面": 627.0, "15222切眼掘进工作面": 480.0, "二采区轨道下山掘进工作面": 600.0,
    "中央变电所": 159.9, "主排水泵房": 209.9, "井下爆炸材料库": 80.0, "充电硐室": 100.0, "15216辅运起坡段": 560.0,
}  # fmt: skip


def test_total_demo_mine():
    r = calc_total_air_volume(
        location_qs=DEMO_QS, k_mine=1.18, fan_mode="抽出式", max_people_underground=420, capacity=7600
    )
    # ΣQ = 5148.1; 5148.1 × 1.18 = 6074.758; 4 × 420 × 1.18 = 1982.4 (docs/DOMAIN.md §2.5)
    assert r.value == 6074.8 and r.governing == "calc_total_air_volume.by_locations"
    assert [m.value for m in r.methods] == [6074.8, 1982.4]
    assert r.methods[1].substituted == "Q_mine = 4 × 420 × 1.18 = 1982.4 m³/min"
    assert r.methods[0].substituted.endswith("= 5148.1 m³/min; Q_mine = 5148.1 × 1.18 = 6074.8 m³/min")
    assert r.checks[0].ok and r.checks[0].upper == 7600.0
    assert r.inputs["sum_q"] == 5148.1


def test_total_people_govern_and_capacity_exceeded():
    r = calc_total_air_volume(
        location_qs=[100.0, 200.0], k_mine=1.2, max_people_underground=100, capacity=390
    )
    # 4 × 100 × 1.2 = 480 > (100 + 200) × 1.2 = 360
    assert r.value == 480.0 and r.governing == "calc_total_air_volume.by_people"
    assert not r.checks[0].ok and any("Q_mine = 480.0 m³/min，高于上限 390.0 m³/min" in w for w in r.warnings)


def test_total_k_mine_default_and_range_by_fan_mode():
    r = calc_total_air_volume(location_qs=[1000.0], fan_mode="forcing")
    assert r.methods[0].coefficients[0].value == 1.275 and r.value == 1275.0
    bad = calc_total_air_volume(location_qs=[1000.0], k_mine=1.18, fan_mode="压入式")
    assert any("k_mine = 1.18 超出其规定范围 1.25–1.3" in w for w in bad.warnings)
    with pytest.raises(CalcInputError) as err:
        calc_total_air_volume(location_qs=[1000.0])
    assert err.value.param == "k_mine"


def test_survey_back_calculation_of_the_demo_face():
    r = calc_gas_emission_from_wind(
        wind_speed=1.74, area=11.6, ch4_return=0.37, ch4_intake=0.02, location_kind="coal_face"
    )
    # Q = 60 × 1.74 × 11.6 = 1211.04; q = 1211.04 × 0.35 / 100 = 4.2386
    assert r.air_q == 1211.0 and r.value == 4.24 and r.ventilation_emission == 4.24
    assert r.high_gas is False and r.high_gas_reasons == []
    assert "q = 1211.0 × (0.37 − 0.02) / 100 = 4.24 m³/min" in r.substituted


def test_survey_drained_relative_emission_and_high_gas_mine():
    r = calc_gas_emission_from_wind(
        wind_speed=8.0, area=20.0, ch4_return=0.5, drained=12.0, daily_output=5000, location_kind="mine"
    )
    # Q = 9600; q = 48; total = 60; relative = 1440 × 60 / 5000 = 17.28
    assert (r.air_q, r.ventilation_emission, r.value, r.relative_emission) == (9600.0, 48.0, 60.0, 17.28)
    assert r.high_gas is True and len(r.high_gas_reasons) == 2
    assert r.high_gas_reasons == [
        "矿井瓦斯绝对涌出量 60.00 m³/min > 40 m³/min",
        "矿井瓦斯相对涌出量 17.28 m³/t > 10 m³/t",
    ]


@pytest.mark.parametrize(
    ("kind", "q_vent", "high"), [("heading", 3.01, True), ("heading", 3.0, False), ("采煤工作面", 5.2, True)]
)
def test_survey_high_gas_thresholds_are_strict(kind, q_vent, high):
    # area 10, speed 1 → Q = 600 m³/min; C = q / 6 %
    r = calc_gas_emission_from_wind(wind_speed=1.0, area=10.0, ch4_return=q_vent / 6, location_kind=kind)
    assert r.high_gas is high


def test_survey_return_at_the_limit_warns_and_inverted_concentrations_fail():
    r = calc_gas_emission_from_wind(wind_speed=1.0, area=10.0, ch4_return=1.05, ch4_intake=0.03)
    assert any("第192条" in w for w in r.warnings) and r.high_gas is None
    with pytest.raises(CalcInputError) as err:
        calc_gas_emission_from_wind(wind_speed=1.0, area=10.0, ch4_return=0.1, ch4_intake=0.2)
    assert err.value.param == "ch4_return"


def test_units():
    assert m3s_to_m3min(1.33) == pytest.approx(79.8)
    assert m3min_to_m3s(80.0) == pytest.approx(1.3333, abs=1e-4)
    assert q_from_speed(0.77, 14.2) == pytest.approx(656.04)
    assert speed_from_q(650, 14.2) == pytest.approx(0.763, abs=1e-3)
    with pytest.raises(CalcInputError):
        m3s_to_m3min(-1)
    with pytest.raises(CalcInputError):
        speed_from_q(100, 0)
