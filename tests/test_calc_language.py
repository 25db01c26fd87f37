"""Every message the calculators give a user is Chinese: each result warning, each input error's reason,
and no English word in the notes, sources and worked formulas beyond identifiers, symbols and units.

Each calculator of ``calc.CALCULATORS`` is run on valid inputs, on inputs chosen to raise every kind of
warning (coefficients outside their range, values beyond or near a bound, an incomplete maximum…) and on
mutations of its valid inputs (negative, zero, NaN, text, a bool, an unknown kind…) that raise
:class:`calc.CalcInputError`. The scan asserts on what it collected, so an English message added later
fails it; it also checks it saw enough of each kind, so an empty scan cannot pass.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from typing import Any

from calc import CALCULATORS, DEFAULT_TABLES, PARAMS, CalcInputError
from calc.result import CalcResult, GasEmissionResult, MaxResult, SpeedCheckResult

CJK = re.compile(r"[\u4e00-\u9fff]")
WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[_.,][A-Za-z0-9]+)*")
SYMBOLS = {
    # formula symbols, units and chemical formulae as the worked formulas write them
    "Q", "q", "k", "v", "S", "N", "A", "I", "h", "L", "W", "P", "V", "K", "C", "c", "t",
    "k_h", "k_l", "K_h", "K_l", "K_t", "k_mine", "Q_mine", "Q_base", "Q_f", "Q_min", "q_H2", "q_CO2",
    "S_eff", "S_mean", "S_eff,max", "S_eff,min", "L_max", "L_min", "v_min", "v_max", "c_eff", "c_p",
    "C_return", "C_intake", "q_total", "q_drained", "q_rel", "max", "min", "m", "s", "kg", "kW", "kJ",
    "CH", "CO", "H", "AQ", "NaN",
}  # fmt: skip
IDENTIFIERS = (
    set(PARAMS)
    | set(CALCULATORS)
    | {"true", "false", "given", "table", "default", "inputs", "regulation_edition"}
    | set(DEFAULT_TABLES.wind_speed.classes)
    | set(DEFAULT_TABLES.wind_speed.aliases)
    | set(DEFAULT_TABLES.heading_types)
    | set(DEFAULT_TABLES.heading_aliases)
    | {
        k
        for t in (DEFAULT_TABLES.k_gas_face, DEFAULT_TABLES.theta, DEFAULT_TABLES.k_mine)
        for k in t.choices()
    }
    | set(DEFAULT_TABLES.store_minimum.choices())
    | set(DEFAULT_TABLES.gas_factor_scope.choices())
    | {"mine", "coal_face", "heading"}
)

GEOMETRY = {"mining_height": 3.2, "roof_control_max": 5.8, "roof_control_min": 4.6}
VALID: dict[str, dict[str, Any]] = {
    "calc_face_by_gas": {"gas_emission": 4.2, "mining_method": "综采"},
    "calc_face_by_co2": {"co2_emission": 0.8, "mining_method": "综采"},
    "calc_face_by_climate": {**GEOMETRY, "face_length": 220, "intake_temp": 19.0},
    "calc_face_by_climate_textbook": {"q_base": 700, "k_h": 1.2, "k_l": 1.3, "k_t": 1.1},
    "calc_face_by_workers": {"workers": 38},
    "calc_face_by_explosives": {"explosive_kg": 24},
    "calc_face_by_wind_speed": {**GEOMETRY, "required_q": 1132.2, "mining_method": "综采"},
    "calc_face_air_volume_max": {
        "gas_emission": 4.2, "mining_method": "综采", **GEOMETRY, "face_length": 220, "intake_temp": 19.0,
        "workers": 38, "explosive_kg": 24,
    },
    "calc_standby_face": {"working_face_q": 1132.2},
    "calc_effective_area": GEOMETRY,
    "calc_tunnel_by_gas": {"gas_emission": 0.8},
    "calc_tunnel_by_explosives": {"explosive_kg": 24},
    "calc_tunnel_by_fan_intake": {"fan_intake_q": 300, "area": 12.6, "heading_type": "rock"},
    "calc_tunnel_by_workers": {"workers": 14},
    "calc_tunnel_by_wind_speed": {"area": 12.6, "heading_type": "rock", "required_q": 600},
    "calc_tunnel_by_vehicle": {"vehicle_kw": [70, 55]},
    "calc_tunnel_air_volume_max": {
        "gas_emission": 0.2, "k_gas": 1.5, "explosive_kg": 24, "fan_intake_q": 300, "area": 12.6,
        "heading_type": "rock", "workers": 14, "vehicle_kw": 70, "vehicles": 2,
    },
    "calc_chamber_by_equipment": {"power_kw": 800, "delta_t": 5, "chamber_type": "pump"},
    "calc_chamber_by_wind_speed": {"area": 10, "required_q": 160},
    "calc_explosives_store": {"volume_m3": 1200, "store_size": "large"},
    "calc_charging_chamber": {"h2_emission": 0.2},
    "calc_other_by_wind_speed": {"area": 10, "roadway_class": "district_roadway", "required_q": 600},
    "calc_other_by_gas": {"gas_emission": 1.0, "k_gas": 1.2, "scope": "main_return"},
    "calc_other_by_vehicle": {"vehicle_kw": 70, "vehicles": 2},
    "calc_total_air_volume": {
        "location_qs": {"面": 1132.2, "掘": 633.0}, "fan_mode": "抽出式", "max_people_underground": 100,
        "capacity": 5000,
    },
    "calc_gas_emission_from_wind": {
        "wind_speed": 1.74, "area": 11.6, "ch4_return": 0.37, "ch4_intake": 0.02, "daily_output": 3000,
        "location_kind": "coal_face",
    },
}  # fmt: skip
"""Valid inputs of every calculator (the scan mutates them)."""

WARNING_CASES: list[tuple[str, dict[str, Any]]] = [
    ("calc_face_by_gas", {"gas_emission": 4.2, "k_gas": 9.0, "mining_method": "综采"}),
    ("calc_face_by_gas", {"gas_emission": 4.2, "k_gas": 9.0}),
    ("calc_face_by_co2", {"co2_emission": 0.8, "k_co2": 0.5, "mining_method": "炮采"}),
    ("calc_face_by_climate", {**GEOMETRY, "face_length": 175, "intake_temp": 19.0}),
    ("calc_face_by_climate", {**GEOMETRY, "face_length": 220, "intake_temp": 27.0, "v_climate": 1.8}),
    ("calc_face_by_climate", {**GEOMETRY, "face_length": 220, "v_climate": 3.0, "k_l": 1.1, "k_h": 2.0}),
    ("calc_face_by_climate", {**GEOMETRY, "v_climate": 1.0, "k_l": 1.0, "k_h": 1.0, "top_coal_caving": True}),
    ("calc_face_by_climate_textbook", VALID["calc_face_by_climate_textbook"]),
    ("calc_face_by_explosives", {"explosive_kg": 24}),
    ("calc_face_by_wind_speed", {**GEOMETRY, "mining_method": "炮采", "dust_suppression": True}),
    ("calc_face_by_wind_speed", {**GEOMETRY, "descending": True, "required_q": 700}),
    ("calc_face_by_wind_speed", {**GEOMETRY, "required_q": 2400}),
    ("calc_face_by_wind_speed", {**GEOMETRY, "required_q": 9000}),
    ("calc_face_by_wind_speed", {**GEOMETRY, "required_q": 195}),
    ("calc_face_air_volume_max", {"gas_emission": 4.2, "k_gas": 9.0}),
    ("calc_face_air_volume_max", {"gas_emission": 40.0, "mining_method": "水采", **GEOMETRY, "v_climate": 1.0, "k_l": 1.0, "workers": 38}),
    ("calc_standby_face", {"working_face_q": 1000, "standby_ratio": 0.4}),
    ("calc_tunnel_by_gas", {"gas_emission": 1.0, "k_gas": 9.0}),
    (
        "calc_tunnel_by_fan_intake",
        {"fan_intake_q": 300, "fan_count": 3, "area": 12, "heading_type": "coal", "full_pressure_q": 800},
    ),
    ("calc_tunnel_by_wind_speed", {"area": 12.6, "heading_type": "coal", "required_q": 50}),
    ("calc_tunnel_air_volume_max", {"gas_emission": 30.0, "k_gas": 9.0, "area": 3.0, "heading_type": "coal"}),
    ("calc_chamber_by_equipment", {"power_kw": [200, 100], "theta": 0.05, "delta_t": 4, "chamber_type": "pump"}),
    ("calc_chamber_by_equipment", {"power_kw": 100, "theta": 0.5, "delta_t": 5}),
    ("calc_chamber_by_wind_speed", {"area": 10, "required_q": 50}),
    ("calc_other_by_wind_speed", {"area": 10, "roadway_class": "district_roadway", "gas_free": True}),
    ("calc_other_by_wind_speed", {"area": 10, "roadway_class": "trolley_roadway", "required_q": 10000}),
    ("calc_other_by_wind_speed", {"area": 10, "roadway_class": "other_walkway", "required_q": 91}),
    ("calc_total_air_volume", {"location_qs": [1000.0], "k_mine": 1.18, "fan_mode": "压入式", "capacity": 1200}),
    ("calc_total_air_volume", {"location_qs": [1000.0], "k_mine": 2.0, "max_people_underground": 300}),
    ("calc_gas_emission_from_wind", {"wind_speed": 1.0, "area": 10.0, "ch4_return": 1.05, "location_kind": "heading"}),
    (
        "calc_gas_emission_from_wind",
        {"wind_speed": 8.0, "area": 20.0, "ch4_return": 0.5, "drained": 12.0, "daily_output": 5000,
         "location_kind": "矿井"},
    ),
]  # fmt: skip
"""Inputs that make each calculator warn (coefficients out of range, bounds, older forms…)."""

ERROR_CASES: list[tuple[str, dict[str, Any]]] = [
    ("calc_face_by_gas", {"gas_emission": 4.2}),
    ("calc_face_by_climate", {**GEOMETRY, "face_length": 100, "intake_temp": 27.0}),
    ("calc_face_by_climate", {**GEOMETRY, "k_l": 1.0}),
    ("calc_face_by_climate", {**GEOMETRY, "roof_control_min": 6.0, "v_climate": 1.0, "k_l": 1.0}),
    ("calc_face_air_volume_max", {}),
    ("calc_tunnel_air_volume_max", {}),
    ("calc_tunnel_by_vehicle", {"vehicle_kw": [70, 55], "vehicles": 3}),
    ("calc_chamber_by_equipment", {"power_kw": 800, "delta_t": 5}),
    ("calc_total_air_volume", {"location_qs": [1000.0]}),
    ("calc_total_air_volume", {"location_qs": {}, "k_mine": 1.2}),
    ("calc_gas_emission_from_wind", {"wind_speed": 1.0, "area": 10.0, "ch4_return": 0.1, "ch4_intake": 0.2}),
    ("calc_gas_emission_from_wind", {"wind_speed": 1.0, "area": 10.0, "ch4_return": 101.0}),
    ("calc_face_by_workers", {"workers": 3.5}),
]
"""Errors the mutations below do not reach (a missing coefficient, a key beyond its table, no method…)."""

NEVER_WARN = {
    "calc_charging_chamber", "calc_effective_area", "calc_explosives_store", "calc_face_by_workers",
    "calc_other_by_gas", "calc_other_by_vehicle", "calc_tunnel_by_explosives", "calc_tunnel_by_vehicle",
    "calc_tunnel_by_workers",
}  # fmt: skip
"""Calculators that have no warning to give (every other one must warn in the scan)."""

BAD_VALUES: tuple[Any, ...] = (-1, 0, math.nan, math.inf, 1e12, "abc", True, [], "未知类别")


def _run(name: str, kwargs: dict[str, Any], tables: Any = DEFAULT_TABLES) -> CalcResult:
    func: Callable[..., CalcResult] = CALCULATORS[name]
    return func(**kwargs, tables=tables)


def _warnings(result: CalcResult) -> Iterator[str]:
    yield from result.warnings
    if isinstance(result, SpeedCheckResult) and result.check is not None:
        yield from result.check.warnings
    if isinstance(result, MaxResult):
        for sub in result.methods:
            yield from _warnings(sub)
        for check in result.checks:
            yield from check.warnings
        yield from result.not_computed
    if isinstance(result, GasEmissionResult):
        yield from result.high_gas_reasons


def _texts(result: CalcResult) -> Iterator[str]:
    """The other texts of a result a user reads: worked formula, source, coefficient notes."""
    yield result.substituted
    yield result.source
    for c in result.coefficients:
        yield c.note
        yield c.source
    if isinstance(result, MaxResult):
        for sub in result.methods:
            yield from _texts(sub)
        for check in result.checks:
            yield check.source


def _errors() -> Iterator[tuple[str, CalcInputError]]:
    cases = list(ERROR_CASES)
    for name, valid in VALID.items():
        for param in valid:
            cases += [(name, {**valid, param: bad}) for bad in BAD_VALUES]
    for name, kwargs in cases:
        try:
            _run(name, kwargs)
        except CalcInputError as err:
            yield name, err
    try:
        _run("calc_face_by_workers", {"workers": 3}, DEFAULT_TABLES.override({"regulation_edition": "1999"}))
    except CalcInputError as err:
        yield "calc_face_by_workers", err


def english_words(text: str) -> set[str]:
    """Latin words of ``text`` that are neither a formula symbol or unit nor an identifier."""
    return {w for w in WORD.findall(text) if w not in SYMBOLS and w not in IDENTIFIERS}


def test_every_calculator_has_valid_inputs_in_the_scan() -> None:
    assert set(VALID) == set(CALCULATORS)
    for name, kwargs in VALID.items():
        _run(name, kwargs)


def test_every_warning_is_chinese() -> None:
    seen = [
        (name, w) for name, kwargs in [*VALID.items(), *WARNING_CASES] for w in _warnings(_run(name, kwargs))
    ]
    assert {w: name for name, w in seen if not CJK.search(w)} == {}
    assert len({w for _, w in seen}) >= 40, "the scan raised too few warnings to mean anything"
    assert {name for name, _ in seen} == set(CALCULATORS) - NEVER_WARN, (
        "a calculator did not warn in the scan"
    )


def test_every_input_error_is_chinese() -> None:
    errors = list(_errors())
    reasons = {err.reason: name for name, err in errors}
    assert {r: n for r, n in reasons.items() if not CJK.search(r)} == {}
    assert all(
        CJK.search(err.describe()) and err.param in err.describe() or err.param == "inputs"
        for _, err in errors
    )
    assert len(reasons) >= 25, "the scan raised too few distinct errors to mean anything"
    assert {name for name, _ in errors} == set(CALCULATORS), "a calculator raised no error in the scan"


def test_notes_sources_and_formulas_have_no_english_words() -> None:
    found: dict[str, str] = {}
    for name, kwargs in [*VALID.items(), *WARNING_CASES]:
        for text in _texts(_run(name, kwargs)):
            for word in english_words(text):
                found.setdefault(word, text)
    assert found == {}


def test_the_scan_catches_an_english_message() -> None:
    """The checks themselves: an English warning has no CJK, an English note has English words."""
    assert not CJK.search("k = 9.0 outside its documented range 1.5–2.0")
    assert english_words("no mining_method: checked against the whole table 1.2–3.0") == {
        "no", "checked", "against", "the", "whole",
    }  # fmt: skip
    assert english_words("Q = 100 × 4.20 × 1.5 = 630.0 m³/min；k_gas：按整张表核对") == set()
