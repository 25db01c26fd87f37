"""The report's recomputation chapter: for each location every method with its inputs, formula and
substituted expression, the maximum and the governing method, the bound checks, and the stated, recomputed
and allocated air side by side (m³/min)."""

from __future__ import annotations

from calc.result import BoundCheck, CalcResult, Coefficient, MaxResult
from reports import labels as L
from reports.blocks import Block, Bullets, Heading, Para, Row, Table, fmt_num, fmt_range
from vent_agent.review.result import LocationRecalc, ReviewResult

METHOD_HEADER = ("计算方法", "输入参数", "计算公式及代入数值", "结果", "系数及来源", "依据")
OVERVIEW_HEADER = (
    "用风地点",
    "类型",
    "计划需风量",
    "核算需风量",
    "取值方法",
    "配风量",
    "配风量≥需风量",
    "风速校验",
)
CHECK_HEADER = ("校验项", "下限", "上限", "需风量", "结果", "校验式", "依据")
COMPARISON_HEADER = ("计划需风量", "核算需风量", "配风量", "计划值偏差", "配风余量")


def _coefficient_text(c: Coefficient) -> str:
    origin = L.COEFFICIENT_ORIGIN_LABELS.get(c.origin, c.origin)
    extra = (
        [origin]
        + ([f"范围 {fmt_range(*c.valid_range)}"] if c.valid_range else [])
        + ([c.note] if c.note else [])
    )
    return f"{c.symbol} = {fmt_num(c.value)}（{'；'.join(extra)}）"


def _inputs_text(m: CalcResult) -> str:
    lines = [L.input_text(k, v, fmt_num(v)) for k, v in m.inputs.items() if k != "required_q"]
    return "\n".join(lines) or L.EMPTY


def governing_label(res: MaxResult) -> str:
    """The Chinese name of the method that gives the maximum."""
    for m in res.methods:
        if m.method == res.governing:
            return L.method_label(m.method, m.method_cn)
    return L.method_label(res.governing) if res.governing else L.EMPTY


def _method_row(m: CalcResult, governing: str) -> Row:
    mark = "（取值）" if m.method == governing else ""
    formula = m.formula if m.substituted and m.formula not in m.substituted else ""
    return Row(
        (
            L.method_label(m.method, m.method_cn) + mark,
            _inputs_text(m),
            "\n".join(x for x in (formula, m.substituted) if x) or L.EMPTY,
            f"{fmt_num(m.value)} {m.unit}",
            "\n".join(_coefficient_text(c) for c in m.coefficients) or L.EMPTY,
            m.source or L.EMPTY,
        )
    )


def _check_row(c: BoundCheck) -> Row:
    return Row(
        (
            L.check_label(c.name),
            fmt_num(c.lower),
            fmt_num(c.upper),
            fmt_num(c.value),
            "合格" if c.ok else "不合格",
            c.formula,
            c.source or L.EMPTY,
        )
    )


def _warnings(res: MaxResult) -> list[str]:
    found = list(res.warnings)
    for m in res.methods:
        found += [f"{L.method_label(m.method, m.method_cn)}：{w}" for w in m.warnings]
    for c in res.checks:
        found += [f"{L.check_label(c.name)}：{w}" for w in c.warnings]
    return list(dict.fromkeys(found))


def _required(rc: LocationRecalc) -> float | None:
    """The requirement the allocation is held against: the recomputed one, else the stated one."""
    return rc.result.value if rc.result else rc.stated_required


def _comparison(rc: LocationRecalc) -> Row:
    """Stated vs recomputed vs allocated, with the stated deviation and the allocation margin."""
    recomputed = rc.result.value if rc.result else None
    deviation = margin = L.EMPTY
    if recomputed and rc.stated_required is not None:
        deviation = f"{(rc.stated_required - recomputed) / recomputed * 100:+.1f}%"
    required = _required(rc)
    if required is not None and rc.allocated is not None:
        relation = "≥" if rc.allocated >= required else "<"
        what = "核算需风量" if recomputed is not None else "计划需风量"
        margin = f"{fmt_num(rc.allocated - required)}（配风量 {relation} {what}）"
    return Row((fmt_num(rc.stated_required), fmt_num(recomputed), fmt_num(rc.allocated), deviation, margin))


def recalc_overview(recalcs: list[LocationRecalc]) -> Table:
    """One line per location: stated, recomputed and allocated air, governing method, the checks."""
    rows = []
    for rc in recalcs:
        res = rc.result
        checks = L.EMPTY
        if res and res.checks:
            checks = "合格" if all(c.ok for c in res.checks) else "不合格"
        required = _required(rc)
        enough = L.EMPTY
        if required is not None and rc.allocated is not None:
            enough = "是" if rc.allocated >= required else "否"
        rows.append(
            Row(
                (
                    rc.location,
                    L.location_kind_label(rc.kind),
                    fmt_num(rc.stated_required),
                    fmt_num(res.value if res else None),
                    governing_label(res) if res else "未核算",
                    fmt_num(rc.allocated),
                    enough,
                    checks,
                )
            )
        )
    return Table(header=OVERVIEW_HEADER, rows=tuple(rows))


def recalc_detail(index: int, rc: LocationRecalc) -> list[Block]:
    """One location's recomputation: every method, the maximum, the checks, stated vs allocated."""
    where = f"，第 {rc.page} 页" if rc.page else ""
    blocks: list[Block] = [Heading(f"{index}. {rc.location}（{L.location_kind_label(rc.kind)}{where}）", 2)]
    res = rc.result
    if res is None:
        blocks.append(Para(f"未能核算。{rc.note}".strip()))
        return blocks
    if res.methods:
        blocks.append(
            Table(header=METHOD_HEADER, rows=tuple(_method_row(m, res.governing) for m in res.methods))
        )
    blocks.append(
        Para(
            f"需风量取各方法最大值：{fmt_num(res.value)} {res.unit}，取值方法：{governing_label(res)}。",
            strong=True,
        )
    )
    if res.checks:
        blocks.append(Table(header=CHECK_HEADER, rows=tuple(_check_row(c) for c in res.checks)))
    blocks.append(Table(header=COMPARISON_HEADER, rows=(_comparison(rc),)))
    notes = _warnings(res) + ([rc.note] if rc.note else [])
    if notes:
        blocks.append(Bullets(tuple(notes)))
    return blocks


def recalc_blocks(result: ReviewResult, heading: str) -> list[Block]:
    """The recomputation chapter: an overview table, then each location in detail (m³/min)."""
    blocks: list[Block] = [Heading(heading, 1)]
    if not result.recalcs:
        return blocks + [Para("无核算记录。")]
    blocks += [
        Para(
            "单位：m³/min。核算需风量取各计算方法的最大值；配风量与核算需风量比较（无核算值时与计划需风量比较）。"
        ),
        recalc_overview(result.recalcs),
    ]
    for i, rc in enumerate(result.recalcs, start=1):
        blocks += recalc_detail(i, rc)
    return blocks
