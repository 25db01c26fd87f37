"""Shared construction of results: coefficients with their origin, rounding, warnings, bound checks, maxima.

Every calculator goes through :func:`make_result` (and :func:`max_result` for a maximum over methods), so
rounding, the substituted formula's ending and the out-of-range warnings are written once.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

from calc import formatting as fmt
from calc.errors import NO_PARAM, CalcInputError
from calc.result import BoundCheck, CalcResult, Coefficient, CoefficientOrigin, MaxResult
from calc.tables import BandTable, ChoiceTable, CoefRange
from calc.validate import positive

R = TypeVar("R", bound=CalcResult)
NEAR_EDGE = 0.05
"""A key within this fraction of a table row edge is reported (docs/DOMAIN.md §2)."""
InputValue = float | int | str | bool | None


def coefficient(
    symbol: str,
    given: Any,
    param: str,
    *,
    default: CoefRange | None,
    origin: CoefficientOrigin = "default",
    note: str = "",
    source: str = "",
    valid_range: tuple[float, float] | None = None,
) -> Coefficient:
    """A coefficient: the ``given`` value (validated > 0) or the documented ``default``.

    ``valid_range`` defaults to the default's range. Raises CalcInputError(param) when nothing is
    given and there is no default.
    """
    rng = valid_range if valid_range is not None else (default.valid_range if default else None)
    if given is not None:
        return Coefficient(
            symbol=symbol,
            value=positive(param, given),
            origin="given",
            valid_range=rng,
            note=note,
            source=source,
        )
    if default is None:
        raise CalcInputError(param, "未给出，且没有规定的默认值")
    return Coefficient(
        symbol=symbol, value=default.value, origin=origin, valid_range=rng, note=note, source=source
    )


def choice_coefficient(
    symbol: str, given: Any, param: str, table: ChoiceTable, kind_param: str, kind: str | None
) -> Coefficient:
    """A coefficient chosen by kind (mining method, chamber type, fan mode): given or the kind's midpoint.

    Without a kind a given value is checked against the envelope of the whole table; with neither,
    CalcInputError(param) asks for one of them.
    """
    if kind is None:
        if given is None:
            raise CalcInputError(param, f"请给出 {param} 或 {kind_param}（{'/'.join(table.entries)}）")
        lo, hi = table.envelope()
        note = f"未给出 {kind_param}：按整张表的范围 {fmt.span(lo, hi)} 核对"
        return coefficient(
            symbol, given, param, default=None, note=note, source=table.source, valid_range=(lo, hi)
        )
    name, entry = table.resolve(kind_param, kind)
    note = f"{name}：{fmt.span(entry.low, entry.high)}" + (f"（{entry.note}）" if entry.note else "")
    return coefficient(symbol, given, param, default=entry, note=note, source=table.source)


def band_coefficient(
    symbol: str, given: Any, param: str, table: BandTable, key_param: str, key: float | None, unit: str
) -> Coefficient:
    """A coefficient looked up by a measured quantity (temperature, height, length): given or the table's.

    Origin ``table`` for a fixed table value, ``default`` for the midpoint of a band's range. Raises
    CalcInputError when neither the coefficient nor its key is given, or the key is beyond the table.
    """
    if key is None:
        if given is None:
            raise CalcInputError(param, f"请给出 {param} 或 {key_param}")
        return coefficient(symbol, given, param, default=None, source=table.source)
    band = table.lookup(key)
    if band is None:
        if given is None:
            raise CalcInputError(key_param, f"超出{table.what}的范围，请直接给出 {param}", key)
        return coefficient(symbol, given, param, default=None, note=f"{key_param} 超出分档表范围")
    fixed = band.coef.low == band.coef.high
    note = f"{key_param} {fmt.num(key)} {unit} → {band.label}：{fmt.span(band.coef.low, band.coef.high)}"
    if not fixed and given is None:
        note += "（取中值）"
    origin: CoefficientOrigin = "table" if fixed else "default"
    c = coefficient(symbol, given, param, default=band.coef, origin=origin, note=note, source=table.source)
    edge = table.near_edge(key, NEAR_EDGE)
    return c.model_copy(update={"near_edge": edge, "key": key_param, "key_value": key})


def constant(symbol: str, value: float, note: str, source: str = "") -> Coefficient:
    """A fixed coefficient of a formula (0.70, ρ, c_p…), origin ``table``."""
    return Coefficient(symbol=symbol, value=value, origin="table", note=note, source=source)


def coefficient_warnings(coefficients: Iterable[Coefficient]) -> list[str]:
    """A warning for each coefficient outside its documented range."""
    out = []
    for c in coefficients:
        if c.valid_range is not None and not c.valid_range[0] <= c.value <= c.valid_range[1]:
            where = f"（{c.note}）" if c.note else ""
            out.append(f"{c.symbol} = {fmt.coef(c.value)} 超出其规定范围 {fmt.span(*c.valid_range)}{where}")
        if c.near_edge is not None and c.key_value is not None:
            out.append(
                f"{c.symbol}：{c.key} {fmt.num(c.key_value)} 在分档界限 {fmt.num(c.near_edge)} 的 "
                f"{NEAR_EDGE * 100:g} % 以内（相邻一档的系数不同，Q 随之改变）"
            )
    return out


def clean_inputs(values: Mapping[str, InputValue]) -> dict[str, float | int | str | None]:
    """The inputs as stored in a result: None dropped, bools as ``"true"``/``"false"``."""
    out: dict[str, float | int | str | None] = {}
    for key, value in values.items():
        if value is None:
            continue
        out[key] = str(value).lower() if isinstance(value, bool) else value
    return out


def make_result(
    *,
    raw: float,
    method: str,
    method_cn: str,
    formula: str,
    expression: str,
    inputs: Mapping[str, InputValue],
    source: str,
    coefficients: Sequence[Coefficient] = (),
    warnings: Sequence[str] = (),
    preamble: Sequence[str] = (),
    lhs: str = "Q",
    unit: str = "m³/min",
    decimals: int = fmt.Q_DECIMALS,
    cls: type[R] = CalcResult,  # type: ignore[assignment]  # mypy#3737: a TypeVar parameter cannot default to its bound
    substituted: str | None = None,
    **extra: Any,
) -> R:
    """A result: ``raw`` rounded half-up to ``decimals``, ``substituted`` = preamble steps then
    ``lhs = expression = value unit`` (unless given whole), coefficient range warnings appended.
    """
    if not math.isfinite(raw):  # inputs are validated, so this is a bug, not bad input
        raise ArithmeticError(f"{method}: non-finite result {raw!r}")
    value = fmt.round_half_up(raw, decimals) + 0.0
    if substituted is None:
        substituted = "; ".join([*preamble, f"{lhs} = {expression} = {fmt.num(value, decimals)} {unit}"])
    return cls(
        value=value,
        unrounded=raw,
        unit=unit,
        method=method,
        method_cn=method_cn,
        formula=formula,
        substituted=substituted,
        inputs=clean_inputs(inputs),
        coefficients=list(coefficients),
        source=source,
        warnings=[*warnings, *coefficient_warnings(coefficients)],
        **extra,
    )


CHECK_LABELS = {"wind_speed": "风速验算", "capacity": "通风能力验算"}
"""The Chinese name of each :class:`BoundCheck` (by ``name``), as warnings and maxima show it."""


def bound_check(
    name: str,
    value: float,
    lower: float | None,
    upper: float | None,
    *,
    formula: str,
    source: str,
    near: float,
    label: str = "Q",
    unit: str = "m³/min",
) -> BoundCheck:
    """``lower <= value <= upper`` (None = no bound), with a warning when outside or within ``near``
    (a fraction, 0.05 = 5 %) of a bound. Warnings name the value ``label`` (``Q``, ``Q_mine``) in ``unit``.
    """
    warnings = []
    below = lower is not None and value < lower
    above = upper is not None and value > upper
    shown = f"{label} = {fmt.q(value)} {unit}"
    pct = f"{near * 100:g} %"
    if lower is not None and below:
        warnings.append(f"{shown}，低于下限 {fmt.q(lower)} {unit}")
    elif lower is not None and lower > 0 and value <= lower * (1 + near):
        warnings.append(f"{shown}，在下限 {fmt.q(lower)} {unit} 的 {pct} 以内")
    if upper is not None and above:
        warnings.append(f"{shown}，高于上限 {fmt.q(upper)} {unit}")
    elif upper is not None and value >= upper * (1 - near):
        warnings.append(f"{shown}，在上限 {fmt.q(upper)} {unit} 的 {pct} 以内")
    return BoundCheck(
        name=name,
        value=value,
        lower=lower,
        upper=upper,
        ok=not (below or above),
        formula=formula,
        source=source,
        warnings=warnings,
    )


def max_result(
    *,
    method: str,
    method_cn: str,
    results: Sequence[CalcResult],
    inputs: Mapping[str, InputValue],
    source: str,
    checks: Sequence[BoundCheck] = (),
    not_computed: Sequence[str] = (),
) -> MaxResult:
    """The maximum over ``results`` (rounded values; ties go to the first), the governing method, every
    method's warnings prefixed with its Chinese name, and the ``checks`` beside it with their warnings.
    ``not_computed`` names methods that apply but lack inputs: the result then says, in its warnings and
    its substituted text, that the maximum is a lower bound and not the requirement.

    Raises CalcInputError("inputs") when no method applies (``results`` empty).
    """
    if not results:
        raise CalcInputError(
            NO_PARAM,
            f"{method_cn}（{method}）：给出的参数不足以进行任何一种计算，请至少给出一种方法所需的参数",
        )
    governing = max(results, key=lambda r: r.value)
    warnings = [f"[{r.method_cn}] {w}" for r in results for w in r.warnings]
    warnings += [f"[{CHECK_LABELS.get(c.name, c.name)}] {w}" for c in checks for w in c.warnings]
    labels = ", ".join(r.method_cn for r in results)
    values = ", ".join(fmt.num(r.value, fmt.Q_DECIMALS) for r in results)
    substituted = f"Q = max({values}) = {fmt.q(governing.value)} m³/min（{governing.method_cn}）"
    if not_computed:
        names = "；".join(not_computed)
        warnings.insert(
            0,
            f"计算不完整：以下方法缺少输入未计算：{names}；"
            f"{fmt.q(governing.value)} m³/min 仅为已算方法的最大值（下限），不是需风量",
        )
        substituted += f"；未计算的方法：{names}（该值仅为下限，不是需风量）"
    return MaxResult(
        value=governing.value,
        unrounded=governing.unrounded,
        method=method,
        method_cn=method_cn,
        formula=f"Q = max({labels})",
        substituted=substituted,
        inputs=clean_inputs(inputs),
        source=source,
        warnings=warnings,
        methods=list(results),
        governing=governing.method,
        checks=list(checks),
        not_computed=list(not_computed),
    )
