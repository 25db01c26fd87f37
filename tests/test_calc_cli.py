"""``vent-agent calc``: run_calc prints the worked formula, lists methods, fails clearly with exit code 2."""

from __future__ import annotations

import json
import re

import pytest

from calc import CALCULATORS, PARAMS
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
    assert "k = 1.1（给定；范围 1.2–1.6" in out
    assert "依据: AQ 1056-2008" in out
    assert "警告: k = 1.1 超出其规定范围 1.2–1.6（综采：1.2–1.6）" in out
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
    assert "验算: 风速验算（按允许风速换算的风量范围）: 113.4 ≤ 600.0 ≤ 3024.0 符合" in out


def test_json_output(capsys):
    assert run_calc("calc_face_by_workers", ["--workers", "38", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["value"] == 152.0


def test_method_help(capsys):
    assert run_calc("calc_face_by_gas", ["--help"]) == 0
    out = capsys.readouterr().out
    assert "--gas-emission" in out and "[必填]" in out and "参数：" in out
    assert "--dust-suppression" not in out
    assert run_calc("calc_face_by_wind_speed", ["--help"]) == 0
    assert "[默认 false]" in capsys.readouterr().out


def test_tables_override_file(tmp_path, capsys):
    path = tmp_path / "tables.json"
    path.write_text(json.dumps({"regulation_edition": "2016"}), encoding="utf-8")
    assert run_calc("calc_face_by_workers", ["--workers", "3", "--tables", str(path)]) == 0
    assert "《煤矿安全规程》（2016版）第138条" in capsys.readouterr().out


ERRORS = [
    ("calc_face_by_gass", [], "未知的计算方法 'calc_face_by_gass'"),
    ("calc_face_by_gas", ["--k-gas", "1.5"], "缺少必填参数：--gas-emission"),
    ("calc_face_by_gas", ["--gas-emission", "abc"], "参数 --gas-emission 的值 'abc' 不是数字"),
    ("calc_face_by_gas", ["--gas-emission", "-1", "--k-gas", "1.5"], "参数 --gas-emission=-1 无效：不能小于 0"),
    ("calc_face_by_gas", ["--gas-emission", "-4.2", "--k-gas", "1.5"], "参数 --gas-emission=-4.2 无效：不能小于 0"),
    ("calc_face_by_gas", ["--gas-emission", "nan", "--k-gas", "1.5"], "应为有限的数"),
    ("calc_face_by_gas", ["--gas-emission", "4.2"], "参数 --k-gas：请给出 --k-gas 或 --mining-method（综采/炮采/水采）"),
    ("calc_face_by_gas", ["--gas-emission", "4.2", "--colour", "red"], "未知参数 --colour；可用参数："),
    ("calc_face_by_gas", ["--gas-emission", "4.2", "--gas-emission", "1"], "参数 --gas-emission 重复给出"),
    ("calc_face_by_gas", ["--gas-emission"], "参数 --gas-emission 缺少取值"),
    ("calc_face_by_gas", ["4.2"], "多余的参数 '4.2'"),
    ("calc_face_by_wind_speed", ["--mining-height", "3", "--roof-control-max", "5", "--roof-control-min", "4",
                                 "--descending=maybe"], "参数 --descending 应为 true 或 false，而不是 'maybe'"),
    ("calc_total_air_volume", ["--location-qs", "面=1,=2", "--k-mine", "1.2"], "应为以逗号分隔的 名称=数值"),
    ("calc_tunnel_by_wind_speed", ["--area", "10", "--heading-type", "sand"], "未知的掘进巷道类别；可选："),
    ("calc_face_by_workers", ["--workers", "3", "--tables", "/nonexistent/t.json"],
     "--tables 指定的文件 /nonexistent/t.json 不存在"),
    ("calc_face_by_workers", ["--workers", "3", "--tables"], "--tables 缺少文件名"),
]  # fmt: skip


@pytest.mark.parametrize(("method", "params", "message"), ERRORS)
def test_errors_go_to_stderr_in_chinese_with_exit_code_2(capsys, method, params, message):
    assert run_calc(method, params) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("vent-agent calc 出错：") and message in captured.err
    assert english_words(captured.err) == set(), captured.err


@pytest.mark.parametrize(
    ("content", "message"),
    [("{bad", "不是有效的 JSON（第 1 行第 2 列）"), ("[1]", "应为 JSON 对象"),
     ('{"k_gas_face": {"entries": {"综采": {"low": 2, "high": 1}}}}',
      "中的系数表覆盖无效：k_gas_face.entries.综采：下限 low 2.0 大于上限 high 1.0"),
     ('{"colour": 1}', "中的系数表覆盖无效：colour：不允许的字段")],
)  # fmt: skip
def test_a_bad_tables_file_is_named_in_chinese(tmp_path, capsys, content, message):
    path = tmp_path / "tables.json"
    path.write_text(content, encoding="utf-8")
    assert run_calc("calc_face_by_workers", ["--workers", "3", "--tables", str(path)]) == 2
    assert f"--tables 指定的文件 {path} {message}" in capsys.readouterr().err


def english_words(text: str) -> set[str]:
    """Latin words of an error line that are neither the program, an option, a parameter or a value."""
    text = re.sub(r"--[\w-]+|`[^`]*`|'[^']*'|/\S+|\w+=\S+|可选：\S+", "", text)
    allowed = {"vent", "agent", "calc", "JSON", "true", "false", "NaN", "nan", "UTF", *CALCULATORS, *PARAMS}
    return {w for w in re.findall(r"[A-Za-z_]{2,}", text) if w not in allowed}


def test_main_splits_the_method(capsys):
    assert main(["calc_face_by_workers", "--workers", "2"]) == 0
    assert "Q = 4 × 2 = 8.0 m³/min" in capsys.readouterr().out
    assert main([]) == 0
    out = capsys.readouterr().out
    assert out.startswith("用法：vent-agent calc") and "[heading] 掘进工作面" in out
