"""``vent-agent calc``: run_calc prints the worked formula, lists methods, fails clearly with exit code 2."""

from __future__ import annotations

import json

import pytest

from calc import CALCULATORS
from vent_agent.cli.calc import main, run_calc


def test_list(capsys):
    assert run_calc("--list", []) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in CALCULATORS) and "[heading]" in out


def test_worked_formula_coefficients_source_and_warnings(capsys):
    assert (
        run_calc("calc_face_by_gas", ["--gas-emission", "4.2", "--k-gas", "1.1", "--mining-method", "综采"])
        == 0
    )
    out = capsys.readouterr().out
    assert "Q = 100 × 4.20 × 1.1 = 462.0 m³/min" in out
    assert "k = 1.1（给定 given；范围 1.2–1.6" in out
    assert "依据: AQ 1056-2008" in out
    assert "警告: k = 1.1 超出其规定范围 1.2–1.6" in out
    assert out.rstrip().endswith("结果: 462.0 m³/min")


def test_snake_case_and_inline_values(capsys):
    assert run_calc("calc_face_by_gas", ["--gas_emission=4.2", "--k_gas", "1.5"]) == 0
    assert "630.0 m³/min" in capsys.readouterr().out


def test_switches_lists_and_named_values(capsys):
    args = [
        "--mining-height",
        "3.2",
        "--roof-control-max",
        "5.8",
        "--roof-control-min",
        "4.6",
        "--mining-method",
        "综采",
    ]
    assert run_calc("calc_face_by_wind_speed", [*args, "--dust-suppression", "--required-q", "1132.2"]) == 0
    assert "60 × 5 × 10.304 = 3091.2" in capsys.readouterr().out
    assert run_calc("calc_face_by_wind_speed", [*args, "--dust-suppression", "false"]) == 0
    assert "60 × 4 × 10.304 = 2473.0" in capsys.readouterr().out
    assert run_calc("calc_tunnel_by_vehicle", ["--vehicle-kw", "70,55"]) == 0
    assert "Q = 4 × (70 + 55) = 500.0 m³/min" in capsys.readouterr().out
    assert (
        run_calc("calc_total_air_volume", ["--location-qs", "面=1132.2,掘=633", "--fan-mode", "抽出式"]) == 0
    )
    assert "ΣQ = 1132.2 + 633.0 = 1765.2 m³/min" in capsys.readouterr().out


def test_maximum_shows_every_method_and_the_check(capsys):
    args = ["--gas-emission", "0.2", "--k-gas", "1.5", "--explosive-kg", "24", "--fan-intake-q", "300",
            "--area", "12.6", "--heading-type", "rock", "--workers", "14"]  # fmt: skip
    assert run_calc("calc_tunnel_air_volume_max", args) == 0
    out = capsys.readouterr().out
    assert "Q = 300 × 1 + 60 × 0.15 × 12.6 = 413.4 m³/min" in out
    assert "取最大值: 600.0 m³/min（calc_tunnel_by_explosives）" in out
    assert "验算: wind_speed: 113.4 ≤ 600.0 ≤ 3024.0 符合" in out


def test_json_output(capsys):
    assert run_calc("calc_face_by_workers", ["--workers", "38", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["value"] == 152.0


def test_method_help(capsys):
    assert run_calc("calc_face_by_gas", ["--help"]) == 0
    out = capsys.readouterr().out
    assert "--gas-emission" in out and "[required]" in out


def test_tables_override_file(tmp_path, capsys):
    path = tmp_path / "tables.json"
    path.write_text(json.dumps({"regulation_edition": "2016"}), encoding="utf-8")
    assert run_calc("calc_face_by_workers", ["--workers", "3", "--tables", str(path)]) == 0
    assert "《煤矿安全规程》（2016版）第138条" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("method", "params", "message"),
    [
        ("calc_face_by_gass", [], "unknown method"),
        ("calc_face_by_gas", ["--k-gas", "1.5"], "missing required parameter(s): --gas-emission"),
        ("calc_face_by_gas", ["--gas-emission", "abc"], "--gas-emission: not a number"),
        (
            "calc_face_by_gas",
            ["--gas-emission", "-4.2", "--k-gas", "1.5"],
            "invalid input: gas_emission=-4.2",
        ),
        ("calc_face_by_gas", ["--gas-emission", "nan", "--k-gas", "1.5"], "应为有限的数"),
        ("calc_face_by_gas", ["--gas-emission", "4.2", "--colour", "red"], "unknown parameter --colour"),
        ("calc_face_by_gas", ["--gas-emission", "4.2", "--gas-emission", "1"], "given twice"),
        ("calc_face_by_gas", ["--gas-emission"], "expected a value"),
        ("calc_face_by_gas", ["4.2"], "unexpected argument"),
        ("calc_tunnel_by_wind_speed", ["--area", "10", "--heading-type", "sand"], "未知的掘进巷道类别"),
        ("calc_face_by_workers", ["--workers", "3", "--tables", "/nonexistent/t.json"], "--tables"),
    ],
)
def test_errors_go_to_stderr_with_exit_code_2(capsys, method, params, message):
    assert run_calc(method, params) == 2
    captured = capsys.readouterr()
    assert message in captured.err and captured.out == ""


def test_main_splits_the_method(capsys):
    assert main(["calc_face_by_workers", "--workers", "2"]) == 0
    assert "Q = 4 × 2 = 8.0 m³/min" in capsys.readouterr().out
    assert main([]) == 0
    assert "usage:" in capsys.readouterr().out
