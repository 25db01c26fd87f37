"""``vent-agent`` usage errors are Chinese: a missing or unreadable file, a bad number, an unknown option
or command, a missing argument each print one Chinese line and the hint to run ``--help`` on stderr,
exit code 2, nothing on stdout (click's English box never shows)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from vent_agent.cli import main

ENGLISH = re.compile(r"[A-Za-z]{2,}")
CJK = re.compile(r"[\u4e00-\u9fff]")
COMMANDS = {"serve", "review", "calc", "chat", "network", "graph", "eval"}
ALLOWED = {"vent", "agent", "help", "PLAN", "MESSAGE", "bogus", "json"} | COMMANDS


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    captured = capsys.readouterr()
    return int(exit_.value.code or 0), captured.out, captured.err


def english_words(text: str) -> set[str]:
    """Latin words outside options (``--port``), paths and the command names."""
    text = re.sub(r"--[\w-]+|/\S+|'[^']*'", "", text)
    return {w for w in ENGLISH.findall(text) if w not in ALLOWED}


@pytest.mark.parametrize(
    ("argv", "line", "hint"),
    [
        (["review", "/nonexistent/plan.pdf"], "参数 PLAN 无效：文件 /nonexistent/plan.pdf 不存在", "review"),
        (["review"], "缺少参数 PLAN", "review"),
        (["review", "--bogus", "x.pdf"], "未知选项 --bogus", "review"),
        (["serve", "--port", "abc"], "选项 --port 无效：应为整数", "serve"),
        (["serve", "--hots", "0.0.0.0"], "未知选项 --hots（是不是要用 --host", "serve"),
        (["serve", "--port"], "选项 --port 缺少取值", ""),
        (["bogus"], "未知命令 'bogus'（可用命令：serve、review、calc、chat、network、graph）", ""),
        (["chat"], "缺少参数 MESSAGE", "chat"),
        (["chat", "你好", "多余"], "多余的参数：多余", "chat"),
    ],
)
def test_usage_errors_are_one_chinese_line_and_a_hint(
    capsys: pytest.CaptureFixture[str], argv: list[str], line: str, hint: str
) -> None:
    code, out, err = run(argv, capsys)
    assert code == 2 and out == ""
    first, second = err.splitlines()
    assert first.startswith("vent-agent 出错：") and line in first
    assert second == f"运行 `vent-agent{' ' + hint if hint else ''} --help` 查看用法"
    assert english_words(err) == set(), err
    assert "Usage" not in err and "Error" not in err and "Invalid value" not in err


def test_a_directory_as_the_plan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["review", str(tmp_path)], capsys)
    assert code == 2 and f"参数 PLAN 无效：{tmp_path} 是目录，不是文件" in err


def test_calc_errors_through_the_entry_point(capsys: pytest.CaptureFixture[str]) -> None:
    """The calculator's own errors keep exit code 2 through ``main``."""
    code, out, err = run(["calc", "calc_face_by_gas", "--gas-emission", "-1", "--k-gas", "1.5"], capsys)
    assert (code, out) == (2, "")
    assert err.strip() == "vent-agent calc 出错：参数 --gas-emission=-1 无效：不能小于 0"
    code, _, err = run(["calc", "calc_face_by_gas", "--gas-emission", "abc"], capsys)
    assert code == 2 and "参数 --gas-emission 的值 'abc' 不是数字" in err


def test_help_and_success_exit_zero(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["calc", "calc_face_by_workers", "--workers", "2"], capsys)
    assert code == 0 and "Q = 4 × 2 = 8.0 m³/min" in out
    code, out, _ = run(["serve", "--help"], capsys)
    assert code == 0 and "--port" in out


@pytest.mark.parametrize("method", ["calc_face_by_gas", "calc_tunnel_by_gas", "calc_chamber_by_equipment"])
def test_the_hinted_help_of_a_method_is_its_own(method: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The hint of every calc error, ``vent-agent calc METHOD --help``, shows that method's parameters,
    not the ``calc`` command's own help box; ``calc --help`` shows the calculator's usage."""
    code, out, _ = run(["calc", method, "--help"], capsys)
    assert code == 0 and out.startswith(f"{method}：") and "参数：" in out and "Usage" not in out
    code, out, _ = run(["calc", "--help"], capsys)
    assert code == 0 and out.startswith("用法：vent-agent calc") and "Usage" not in out


def test_every_command_and_option_is_described_in_chinese() -> None:
    """The help texts that are the project's own (each command's description, each argument's and
    option's help) are Chinese; typer's box titles and ``--help`` line are typer's."""
    import typer.main
    from typer.core import TyperGroup

    from vent_agent.cli import app

    group = typer.main.get_command(app)
    assert isinstance(group, TyperGroup)
    commands = group.commands
    assert set(commands) == COMMANDS

    def subgroup(name: str) -> TyperGroup:
        sub = commands[name]
        assert isinstance(sub, TyperGroup), name
        return sub

    subcommands = {f"{g} {k}": c for g in ("network", "graph") for k, c in subgroup(g).commands.items()}
    assert set(subcommands) == {"network solve", "network what-if", "network fit", "graph rebuild"}
    for name, command in {**commands, **subcommands}.items():
        assert CJK.search(command.help or ""), name
        for param in command.params:
            assert CJK.search(getattr(param, "help", None) or ""), f"{name} {param.name}"
