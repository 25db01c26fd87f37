"""Plain-text rendering of results, as a reviewer reads them (used by the CLI; pure, no I/O)."""

from __future__ import annotations

import re
from functools import cache

from calc import formatting as fmt
from calc.catalog import PARAMS
from calc.result import BoundCheck, CalcResult, Coefficient, MaxResult, SpeedCheckResult

ORIGIN_CN = {"given": "给定", "table": "查表", "default": "默认"}
CHECK_CN = {"wind_speed": "风速验算（按允许风速换算的风量范围）", "capacity": "通风能力验算"}
"""The checks of :class:`~calc.result.BoundCheck` by name, in words."""


SYMBOL_LIKE = re.compile(r"^[A-Za-z]_[A-Za-z0-9]{1,2}$")
"""Parameter names that are also formula symbols (``k_h``, ``k_l``, ``k_t``): left as written."""


@cache
def _param_names() -> re.Pattern[str]:
    names = sorted((n for n in PARAMS if not SYMBOL_LIKE.match(n)), key=len, reverse=True)
    return re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(map(re.escape, names)) + r")(?![A-Za-z0-9_])")


def in_words(text: str, *, options_only: bool = False) -> str:
    """``text`` with each parameter's field name (``mining_method``) written as its Chinese label and
    command-line option (``采煤方法（--mining-method）``), for a reader of the command line; names that
    are formula symbols (:data:`SYMBOL_LIKE`) stay. ``options_only``: the option alone (``--mining-method``),
    for an input error that names what to type.

    >>> in_words("未给出 mining_method：按整张表的范围核对")
    '未给出 采煤方法（--mining-method）：按整张表的范围核对'
    """

    def label(m: re.Match[str]) -> str:
        name = m.group(1)
        option = "--" + name.replace("_", "-")
        return option if options_only else f"{PARAMS[name].label_cn.split('：')[0]}（{option}）"

    return _param_names().sub(label, text)


def render_coefficient(c: Coefficient) -> str:
    """``k = 1.5（给定；范围 1.2–1.6；综采: 1.2–1.6）``."""
    parts = [ORIGIN_CN[c.origin]]
    if c.valid_range is not None:
        parts.append(f"范围 {fmt.span(*c.valid_range)}")
    if c.note:
        parts.append(in_words(c.note))
    return f"{c.symbol} = {fmt.coef(c.value)}（{'；'.join(parts)}）"


def render_check(check: BoundCheck) -> str:
    """``风速验算（按允许风速换算的风量范围）: 194.9 ≤ 1132.2 ≤ 2473.0 符合``."""
    lower = "" if check.lower is None else f"{fmt.q(check.lower)} ≤ "
    upper = "" if check.upper is None else f" ≤ {fmt.q(check.upper)}"
    verdict = "符合" if check.ok else "不符合"
    return f"{CHECK_CN.get(check.name) or in_words(check.name)}: {lower}{fmt.q(check.value)}{upper} {verdict}（{check.source}）"


def render_result(result: CalcResult, indent: str = "") -> list[str]:
    """The lines of one result: title, formula, substituted, coefficients, source, warnings (and for a
    maximum, each method indented, the governing one and the checks with their warnings)."""
    lines = [
        f"{indent}{result.method_cn}（{result.method}）",
        f"{indent}  公式: {result.formula}",
        f"{indent}  计算: {in_words(result.substituted)}",
    ]
    lines += [f"{indent}  系数: {render_coefficient(c)}" for c in result.coefficients]
    warnings = result.warnings
    if isinstance(result, SpeedCheckResult) and result.check is not None:
        lines.append(f"{indent}  验算: {render_check(result.check)}")
    if isinstance(result, MaxResult):
        for sub in result.methods:
            lines += render_result(sub, indent + "    ")
        lines.append(f"{indent}  取最大值: {fmt.q(result.value)} {result.unit}（{result.governing}）")
        lines += [f"{indent}  验算: {render_check(c)}" for c in result.checks]
        warnings = [w for c in result.checks for w in c.warnings]
    if result.source:
        lines.append(f"{indent}  依据: {result.source}")
    lines += [f"{indent}  警告: {in_words(w)}" for w in warnings]
    return lines


def render_text(result: CalcResult) -> str:
    """The whole result as text, ending with ``结果: <value> <unit>``."""
    return "\n".join([*render_result(result), f"结果: {fmt.num(result.value, min_decimals=1)} {result.unit}"])
