"""Plain-text rendering of results, as a reviewer reads them (used by the CLI; pure, no I/O)."""

from __future__ import annotations

from calc import formatting as fmt
from calc.result import BoundCheck, CalcResult, Coefficient, MaxResult, SpeedCheckResult

ORIGIN_CN = {"given": "给定", "table": "查表", "default": "默认"}


def render_coefficient(c: Coefficient) -> str:
    """``k = 1.5（给定 given；范围 1.2–1.6；综采: 1.2–1.6）``."""
    parts = [f"{ORIGIN_CN[c.origin]} {c.origin}"]
    if c.valid_range is not None:
        parts.append(f"范围 {fmt.span(*c.valid_range)}")
    if c.note:
        parts.append(c.note)
    return f"{c.symbol} = {fmt.coef(c.value)}（{'；'.join(parts)}）"


def render_check(check: BoundCheck) -> str:
    """``wind_speed: 194.9 ≤ 1132.2 ≤ 2473.0 符合``."""
    lower = "" if check.lower is None else f"{fmt.q(check.lower)} ≤ "
    upper = "" if check.upper is None else f" ≤ {fmt.q(check.upper)}"
    return f"{check.name}: {lower}{fmt.q(check.value)}{upper} {'符合' if check.ok else '不符合'}（{check.source}）"


def render_result(result: CalcResult, indent: str = "") -> list[str]:
    """The lines of one result: title, formula, substituted, coefficients, source, warnings (and for a
    maximum, each method indented, the governing one and the checks with their warnings)."""
    lines = [
        f"{indent}{result.method_cn}（{result.method}）",
        f"{indent}  公式: {result.formula}",
        f"{indent}  计算: {result.substituted}",
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
    lines += [f"{indent}  警告: {w}" for w in warnings]
    return lines


def render_text(result: CalcResult) -> str:
    """The whole result as text, ending with ``结果: <value> <unit>``."""
    return "\n".join([*render_result(result), f"结果: {fmt.num(result.value, min_decimals=1)} {result.unit}"])
