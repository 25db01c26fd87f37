"""``vent-agent calc`` speaks Chinese: its worked formulas, notes, checks, warnings and input errors name
no parameter by its field name (``mining_method``) and carry no English word such as "given"; a
parameter is named by its Chinese label and its option (``采煤方法（--mining-method）``)."""

from __future__ import annotations

import re

import pytest

from calc import CALCULATORS, PARAMS
from calc.render import SYMBOL_LIKE
from tests.test_calc_language import VALID
from vent_agent.cli.calc import _option, run_calc

NAMES = sorted((n for n in PARAMS if not SYMBOL_LIKE.match(n)), key=len, reverse=True)
FIELD = re.compile(r"(?<![A-Za-z0-9_-])(" + "|".join(map(re.escape, NAMES)) + r")(?![A-Za-z0-9_])")


def _argv(inputs: dict[str, object]) -> list[str]:
    argv: list[str] = []
    for name, value in inputs.items():
        if value is True:
            argv.append(_option(name))
        elif value is not False:
            argv += [_option(name), str(value)]
    return argv


def _words(text: str) -> list[str]:
    """Field names and the English word "given" in ``text``, calculator names (method ids) aside."""
    for name in CALCULATORS:
        text = text.replace(name, "")
    return FIELD.findall(text) + re.findall(r"\bgiven\b", text)


SCALAR = sorted(
    m for m, inputs in VALID.items() if not any(isinstance(v, list | dict) for v in inputs.values())
)
"""Calculators whose valid inputs the command line takes as options (lists are given as JSON elsewhere)."""


@pytest.mark.parametrize("method", SCALAR)
def test_each_calculator_prints_chinese_only(method: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = run_calc(method, _argv(VALID[method]))
    out = capsys.readouterr()
    assert code == 0, out.err
    assert _words(out.out) == [], out.out


def test_the_sample_of_the_issue(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_calc("calc_face_by_gas", ["--gas-emission", "4.2", "--k-gas", "1.5"]) == 0
    out = capsys.readouterr().out
    assert (
        "k = 1.5（给定；范围 1.2–3.0；未给出 采煤方法（--mining-method）：按整张表的范围 1.2–3.0 核对）"
        in out
    )
    assert run_calc("calc_face_by_gas", ["--gas-emission", "4.2"]) == 2
    err = capsys.readouterr().err
    assert _words(err) == [] and "请给出 --k-gas 或 --mining-method" in err
