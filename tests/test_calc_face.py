"""Coal face methods: hand-checked worked examples (DOMAIN §2.1)."""

from __future__ import annotations

from typing import TypedDict

import pytest

from calc import (
    calc_effective_area,
    calc_face_air_volume_max,
    calc_face_by_climate,
    calc_face_by_climate_textbook,
    calc_face_by_co2,
    calc_face_by_explosives,
    calc_face_by_gas,
    calc_face_by_wind_speed,
    calc_face_by_workers,
    calc_standby_face,
)


class FaceGeometry(TypedDict):
    """The sizes every face method takes (m), so ``**FACE_GEOMETRY`` is typed key by key."""

    mining_height: float
    roof_control_max: float
    roof_control_min: float


FACE_GEOMETRY: FaceGeometry = {"mining_height": 3.2, "roof_control_max": 5.8, "roof_control_min": 4.6}


def coef(result, symbol):
    return next(c for c in result.coefficients if c.symbol == symbol)


def test_gas_given_k_as_the_plan_writes_it():
    r = calc_face_by_gas(gas_emission=4.2, k_gas=1.5, mining_method="综采")
    # 100 × 4.2 × 1.5 = 630
    assert r.value == 630.0
    assert r.substituted == "Q = 100 × 4.20 × 1.5 = 630.0 m³/min"
    assert r.method == "calc_face_by_gas" and r.method_cn == "按瓦斯涌出量计算"
    k = coef(r, "k")
    assert (k.origin, k.valid_range) == ("given", (1.2, 1.6))
    assert r.warnings == []
    assert "AQ 1056-2008" in r.source


@pytest.mark.parametrize(("method", "k"), [("综采", 1.4), ("炮采", 1.7), ("水采", 2.5), ("blasting", 1.7)])
def test_gas_default_k_is_the_midpoint_of_the_mining_method(method, k):
    r = calc_face_by_gas(gas_emission=2.0, mining_method=method)
    assert coef(r, "k").value == k and coef(r, "k").origin == "default"
    assert r.value == pytest.approx(200 * k)


def test_gas_k_outside_the_mining_method_range_warns():
    r = calc_face_by_gas(gas_emission=4.2, k_gas=1.1, mining_method="综采")
    assert r.value == 462.0  # 100 × 4.2 × 1.1
    assert any("超出其规定范围 1.2–1.6" in w for w in r.warnings)


def test_gas_k_without_mining_method_is_checked_against_the_whole_table():
    assert calc_face_by_gas(gas_emission=1.0, k_gas=2.8).warnings == []
    assert calc_face_by_gas(gas_emission=1.0, k_gas=3.5).warnings


def test_co2():
    r = calc_face_by_co2(co2_emission=0.8, k_co2=1.5, mining_method="综采")
    # 67 × 0.8 × 1.5 = 80.4
    assert r.value == 80.4
    assert r.substituted == "Q = 67 × 0.80 × 1.5 = 80.4 m³/min"


def test_climate_demo_face_with_the_plans_coefficients():
    r = calc_face_by_climate(
        **FACE_GEOMETRY, face_length=220, intake_temp=19.0, v_climate=1.0, k_h=1.2, k_l=1.35
    )
    # S = 3.2 × (5.8 + 4.6)/2 = 16.64; Q = 60 × 0.7 × 1.0 × 16.64 × 1.2 × 1.35 = 42 × 16.64 × 1.62 = 1132.1856
    assert r.value == 1132.2
    assert r.unrounded == pytest.approx(1132.1856)
    assert r.substituted == (
        "S = 3.2 × (5.8 + 4.6) / 2 = 16.640 m²; Q = 60 × 0.7 × 1.0 × 16.640 × 1.2 × 1.35 = 1132.2 m³/min"
    )
    assert {c.symbol: c.origin for c in r.coefficients} == {
        "70%": "table",
        "v": "given",
        "k_h": "given",
        "k_l": "given",
    }
    # 19 °C is within 5 % of the 20 °C row edge: said so (docs/DOMAIN.md §2), nothing else
    assert r.warnings == ["v：intake_temp 19 在分档界限 20 的 5 % 以内（相邻一档的系数不同，Q 随之改变）"]


def test_climate_coefficients_from_the_tables():
    r = calc_face_by_climate(**FACE_GEOMETRY, face_length=220, intake_temp=19.0)
    assert r.value == 1132.2
    assert (coef(r, "v").value, coef(r, "v").origin) == (1.0, "table")
    assert (coef(r, "k_h").value, coef(r, "k_h").origin) == (1.2, "table")
    kl = coef(r, "k_l")
    assert (kl.value, kl.origin, kl.valid_range) == (1.35, "default", (1.3, 1.4))


@pytest.mark.parametrize(
    ("temp", "v", "origin"),
    [(-5.0, 1.0, "table"), (19.9, 1.0, "table"), (20.0, 1.25, "default"), (22.9, 1.25, "default"),
     (23.0, 1.25, "default"), (23.01, 1.65, "default"), (26.0, 1.65, "default")],
)  # fmt: skip
def test_climate_speed_by_intake_temperature(temp, v, origin):
    r = calc_face_by_climate(**FACE_GEOMETRY, intake_temp=temp, k_l=1.0)
    assert (coef(r, "v").value, coef(r, "v").origin) == (v, origin)


@pytest.mark.parametrize(
    ("height", "k_h"), [(1.8, 1.0), (1.99, 1.0), (2.0, 1.1), (2.5, 1.1), (2.51, 1.2), (6.0, 1.2)]
)
def test_climate_k_h_by_mining_height(height, k_h):
    r = calc_face_by_climate(mining_height=height, roof_control_max=5, roof_control_min=4, v_climate=1, k_l=1)
    assert coef(r, "k_h").value == k_h


def test_climate_top_coal_caving_takes_the_highest_k_h():
    r = calc_face_by_climate(
        mining_height=1.8, roof_control_max=5, roof_control_min=4, v_climate=1, k_l=1, top_coal_caving=True
    )
    assert coef(r, "k_h").value == 1.2


@pytest.mark.parametrize(
    ("length", "k_l"),
    [
        (10, 0.8),
        (14.99, 0.8),
        (15, 0.85),
        (79.9, 0.85),
        (80, 0.85),
        (80.01, 1.0),
        (120, 1.0),
        (120.01, 1.1),
        (150, 1.1),
        (150.01, 1.2),
        (180, 1.2),
        (180.1, 1.35),
    ],
)
def test_climate_k_l_by_face_length(length, k_l):
    """docs/DOMAIN.md §2: a row "a–b" includes b; "<15" is strict."""
    r = calc_face_by_climate(**FACE_GEOMETRY, face_length=length, v_climate=1.0)
    assert coef(r, "k_l").value == k_l


@pytest.mark.parametrize(
    ("temp", "row"),
    [(19.99, (1.0, 1.0)), (20.0, (1.0, 1.5)), (23.0, (1.0, 1.5)), (23.01, (1.5, 1.8)), (26.0, (1.5, 1.8))],
)
def test_climate_v_row_by_intake_temperature(temp, row):
    r = calc_face_by_climate(**FACE_GEOMETRY, face_length=100, intake_temp=temp)
    assert coef(r, "v").valid_range == row


@pytest.mark.parametrize(("length", "edge"), [(175, 180.0), (185, 180.0), (78, 80.0), (100, None)])
def test_climate_key_near_a_row_edge_says_so(length, edge):
    r = calc_face_by_climate(**FACE_GEOMETRY, face_length=length, v_climate=1.0)
    assert coef(r, "k_l").near_edge == edge
    assert any("分档界限" in w for w in r.warnings) == (edge is not None)


def test_climate_given_k_l_that_contradicts_the_face_length_warns():
    r = calc_face_by_climate(**FACE_GEOMETRY, face_length=220, v_climate=1.0, k_l=1.1)
    assert any("k_l = 1.1 超出其规定范围" in w for w in r.warnings)


def test_climate_hot_intake_needs_a_given_speed_and_warns():
    from calc import CalcInputError

    with pytest.raises(CalcInputError) as err:
        calc_face_by_climate(**FACE_GEOMETRY, face_length=100, intake_temp=27.0)
    assert err.value.param == "intake_temp"
    r = calc_face_by_climate(**FACE_GEOMETRY, face_length=100, intake_temp=27.0, v_climate=1.8)
    assert any("26 °C" in w for w in r.warnings)


def test_climate_textbook_form_warns_that_the_older_form_was_used():
    r = calc_face_by_climate_textbook(q_base=700, k_h=1.2, k_l=1.3, k_t=1.1)
    # 700 × 1.2 × 1.3 × 1.1 = 1201.2
    assert r.value == 1201.2
    assert r.substituted == "Q = 700 × 1.2 × 1.3 × 1.1 = 1201.2 m³/min"
    assert any("旧式公式" in w for w in r.warnings)


def test_workers():
    r = calc_face_by_workers(workers=38)
    assert r.value == 152.0 and r.substituted == "Q = 4 × 38 = 152.0 m³/min"
    assert r.source == "《煤矿安全规程》（2025版）第159条"


def test_explosives_notes_the_10a_variant_only_as_a_warning():
    r = calc_face_by_explosives(explosive_kg=24)
    assert r.value == 600.0 and r.substituted == "Q = 25 × 24 = 600.0 m³/min"
    assert any("10·A" in w and "240.0" in w for w in r.warnings)


def test_effective_area():
    r = calc_effective_area(**FACE_GEOMETRY)
    # 0.7 × 5.8 × 3.2 = 12.992; 0.7 × 4.6 × 3.2 = 10.304; mean 11.648
    assert (r.s_max, r.s_min, r.value, r.unit) == (12.992, 10.304, 11.648, "m²")


def test_wind_speed_bounds_of_the_demo_face():
    r = calc_face_by_wind_speed(**FACE_GEOMETRY, required_q=1132.2)
    # 60 × 0.25 × 12.992 = 194.88; 60 × 4 × 10.304 = 2472.96
    assert (r.lower, r.upper, r.value) == (194.9, 2473.0, 194.9)
    assert r.check is not None and r.check.ok
    assert "60 × 0.25 × 12.992 = 194.9 ≤ Q ≤ 60 × 4 × 10.304 = 2473.0" in r.substituted
    assert "第157条" in r.source


def test_wind_speed_five_metres_for_fully_mechanised_with_dust_suppression():
    r = calc_face_by_wind_speed(**FACE_GEOMETRY, mining_method="综采", dust_suppression=True)
    assert r.v_max == 5 and r.upper == 3091.2  # 60 × 5 × 10.304
    other = calc_face_by_wind_speed(**FACE_GEOMETRY, mining_method="炮采", dust_suppression=True)
    assert other.v_max == 4 and other.warnings


def test_wind_speed_descending_ventilation_needs_one_metre_per_second():
    r = calc_face_by_wind_speed(**FACE_GEOMETRY, descending=True, required_q=700)
    assert r.v_min == 1.0 and r.lower == 779.5  # 60 × 1.0 × 12.992 = 779.52
    assert r.check is not None and not r.check.ok
    assert any("低于下限 779.5 m³/min" in w for w in r.warnings)


def test_wind_speed_near_a_bound_warns():
    r = calc_face_by_wind_speed(**FACE_GEOMETRY, required_q=2400)
    assert r.check is not None and r.check.ok
    assert any("在上限 2473.0 m³/min 的 5 % 以内" in w for w in r.check.warnings)


def test_standby_face_is_half_the_working_face():
    r = calc_standby_face(working_face_q=1132.2)
    assert r.value == 566.1 and r.substituted == "Q = 0.5 × 1132.2 = 566.1 m³/min"
    low = calc_standby_face(working_face_q=1000, standby_ratio=0.4)
    assert low.value == 400.0 and any("超出其规定范围 0.5–1.0" in w for w in low.warnings)


def test_max_takes_the_largest_and_checks_speed_beside_it():
    r = calc_face_air_volume_max(
        gas_emission=4.2, k_gas=1.5, co2_emission=0.8, k_co2=1.5, mining_method="综采",
        **FACE_GEOMETRY, face_length=220, intake_temp=19.0, workers=38,
    )  # fmt: skip
    assert r.value == 1132.2 and r.governing == "calc_face_by_climate"
    assert [m.value for m in r.methods] == [630.0, 80.4, 1132.2, 152.0]
    assert r.substituted == "Q = max(630.0, 80.4, 1132.2, 152.0) = 1132.2 m³/min（按气象条件计算）"
    assert len(r.checks) == 1 and r.checks[0].ok and (r.checks[0].lower, r.checks[0].upper) == (194.9, 2473.0)
    assert all(m.method != "calc_face_by_wind_speed" for m in r.methods)


def test_max_with_blasting_and_without_geometry_has_no_check():
    r = calc_face_air_volume_max(gas_emission=1.0, mining_method="炮采", workers=20, explosive_kg=30)
    assert r.governing == "calc_face_by_explosives" and r.value == 750.0
    assert r.checks == []
    assert any(w.startswith("[按炸药量计算]") for w in r.warnings)


def test_max_skips_explosives_without_blasting():
    r = calc_face_air_volume_max(workers=10, explosive_kg=0)
    assert [m.method for m in r.methods] == ["calc_face_by_workers"]


def test_a_maximum_over_some_methods_names_the_ones_not_computed():
    """docs/DOMAIN.md §2: gas only (climate and people lack inputs) is a lower bound, not the requirement."""
    from calc import calc_face_air_volume_max

    r = calc_face_air_volume_max(gas_emission=4.2, k_gas=1.5)
    assert r.value == 630.0 and not r.complete
    assert [n.split("（")[0] for n in r.not_computed] == ["calc_face_by_climate", "calc_face_by_workers"]
    assert "mining_height" in r.not_computed[0]
    assert r.warnings[0].startswith("计算不完整：以下方法缺少输入未计算")
    assert "不是需风量" in r.substituted
    full = calc_face_air_volume_max(
        gas_emission=4.2, k_gas=1.5, workers=38, **FACE_GEOMETRY, face_length=220, intake_temp=19.0
    )
    assert full.complete and full.not_computed == [] and "不是需风量" not in full.substituted


def test_a_heading_without_fan_data_is_incomplete():
    from calc import calc_tunnel_air_volume_max

    r = calc_tunnel_air_volume_max(gas_emission=1.0, k_gas=1.8, workers=20)
    assert [n.split("（")[0] for n in r.not_computed] == ["calc_tunnel_by_fan_intake"]
