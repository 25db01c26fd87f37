"""Coefficient tables as data: look-ups, overrides, editions, the registry, rounding and formatting."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

import calc
from calc import CALCULATORS, DEFAULT_TABLES, CalcInputError, calc_face_by_gas, calc_tunnel_by_wind_speed
from calc.formatting import num, round_half_up

SPEC_NAMES = {
    "calc_face_by_gas", "calc_face_by_co2", "calc_face_by_climate", "calc_face_by_climate_textbook",
    "calc_face_by_workers", "calc_face_by_explosives", "calc_face_by_wind_speed", "calc_face_air_volume_max",
    "calc_standby_face", "calc_tunnel_by_gas", "calc_tunnel_by_explosives", "calc_tunnel_by_fan_intake",
    "calc_tunnel_by_workers", "calc_tunnel_by_wind_speed", "calc_tunnel_by_vehicle", "calc_tunnel_air_volume_max",
    "calc_chamber_by_equipment", "calc_chamber_by_wind_speed", "calc_explosives_store", "calc_charging_chamber",
    "calc_other_by_wind_speed", "calc_other_by_gas", "calc_other_by_vehicle", "calc_effective_area",
    "calc_total_air_volume", "calc_gas_emission_from_wind",
}  # fmt: skip


def test_registry_holds_every_calculator_under_its_name():
    assert set(CALCULATORS) == SPEC_NAMES
    for name, func in CALCULATORS.items():
        assert func.__name__ == name and getattr(calc, name) is func
        assert func.__doc__ and "Source" in func.__doc__ and "Raises" in func.__doc__


def test_every_parameter_is_in_the_glossary():
    import inspect

    for func in CALCULATORS.values():
        for name, param in inspect.signature(func).parameters.items():
            assert param.kind is inspect.Parameter.KEYWORD_ONLY
            assert name == "tables" or name in calc.PARAMS


def test_override_a_range_changes_the_default_and_the_check():
    tables = DEFAULT_TABLES.override({"k_gas_face": {"entries": {"综采": {"low": 1.3, "high": 1.5}}}})
    r = calc_face_by_gas(gas_emission=1.0, mining_method="综采", tables=tables)
    assert r.coefficients[0].value == 1.4 and r.coefficients[0].valid_range == (1.3, 1.5)
    assert calc_face_by_gas(gas_emission=1.0, k_gas=1.25, mining_method="综采", tables=tables).warnings
    # the default instance is untouched
    assert DEFAULT_TABLES.k_gas_face.entries["综采"].low == 1.2


def test_override_wind_speed_class_and_edition():
    tables = DEFAULT_TABLES.override(
        {"regulation_edition": "2016", "wind_speed": {"classes": {"rock_heading": {"v_min": 0.2}}}}
    )
    r = calc_tunnel_by_wind_speed(area=10, heading_type="rock", tables=tables)
    assert r.lower == 120.0
    assert r.source.startswith("《煤矿安全规程》（2016版）第136条")


def test_invalid_overrides_are_refused():
    with pytest.raises(ValidationError):
        DEFAULT_TABLES.override({"k_mine": {"entries": {"forcing": {"low": 1.3, "high": 1.2}}}})
    with pytest.raises(ValidationError):
        DEFAULT_TABLES.override({"k_gas_heading": {"default": 2.5}})
    with pytest.raises(ValidationError):
        DEFAULT_TABLES.override({"unknown_table": 1})


def test_unknown_edition_names_the_setting():
    tables = DEFAULT_TABLES.override({"regulation_edition": "1999"})
    with pytest.raises(CalcInputError) as err:
        calc.calc_face_by_workers(workers=3, tables=tables)
    assert err.value.param == "regulation_edition"


def test_tables_carry_their_sources():
    for name in ("k_gas_face", "v_climate", "k_h", "k_l", "theta", "k_mine", "wind_speed"):
        assert getattr(DEFAULT_TABLES, name).source
    assert DEFAULT_TABLES.article("wind_speed") == "《煤矿安全规程》（2025版）第157条"


def test_band_lookup_beyond_the_last_band():
    assert DEFAULT_TABLES.v_climate.lookup(26.0) is not None
    assert DEFAULT_TABLES.v_climate.lookup(26.01) is None


@pytest.mark.parametrize(
    ("x", "d", "out"), [(0.25, 1, 0.3), (0.35, 1, 0.4), (1132.1856, 1, 1132.2), (2.675, 2, 2.68)]
)
def test_round_half_up(x, d, out):
    assert round_half_up(x, d) == out


@pytest.mark.parametrize(
    ("x", "kw", "out"),
    [(4.2, {"decimals": 2}, "4.20"), (800.0, {}, "800"), (1.0, {"min_decimals": 1}, "1.0"), (1.0006, {}, "1.0006"),
     (-0.0, {}, "0")],
)  # fmt: skip
def test_num(x, kw, out):
    assert num(x, **kw) == out
