"""The report's recomputation chapter: for each location every method with its inputs, formula and
substituted expression, the maximum and the governing method, the bound checks, and the stated, recomputed
and allocated air side by side (m³/min)."""

from __future__ import annotations

from calc import formatting as calc_fmt
from calc.result import CalcResult, Coefficient, MaxResult
from reports import labels as L
from reports.blocks import Block, Bullets, Heading, Para, Row, Table, fmt_num
from vent_agent.review.judgement.recompute import KEY_LABELS
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
COMPARISON_HEADER = ("计划需风量", "核算需风量", "配风量", "计划值偏差", "配风余量")


COEF_NAMES = {
    "70%": "有效通风断面系数",
    "ρ": "空气密度",
    "c_p": "空气定压比热",
    "v_min": "最低风速",
    "ratio": "备用比例",
    "k_mine": "矿井需风系数",
    "θ": "发热系数",
}
COEF_SYMBOLS = {"ratio": "", "70%": ""}
"""Symbols not shown (a word, or the value itself): the Chinese name stands alone."""
COEF_UNITS = {"v": "m/s", "v_min": "m/s", "ρ": "kg/m³", "c_p": "kJ/(kg·K)"}
"""Units of the coefficients that have one; the others are unitless."""


def coef_value(x: float) -> str:
    """A coefficient at the precision used (c_p 1.0006, k_l 1.35, v 1.0)."""
    return calc_fmt.num(x, min_decimals=1)


def coef_range(bounds: tuple[float, float], value: float) -> str:
    """A range at the precision of its most precise figure: (1.3, 1.4) with 1.35 → ``1.30–1.40``."""
    decimals = max(1, *(len(calc_fmt.num(x).partition(".")[2]) for x in (*bounds, value)))
    return f"{bounds[0]:.{decimals}f}–{bounds[1]:.{decimals}f}"


def _coefficient_text(c: Coefficient) -> str:
    """``进风温度 19 ℃：v = 1.0 m/s（计划给定；接近分档界限 20 ℃）`` in Chinese, the unit only where the
    coefficient has one, the range only where it is one."""
    origin = L.COEFFICIENT_ORIGIN_LABELS.get(c.origin, c.origin)
    unit = COEF_UNITS.get(c.symbol, "")
    parts = [origin]
    if c.valid_range and c.valid_range[0] != c.valid_range[1]:
        parts.append(f"范围 {coef_range(c.valid_range, c.value)}{unit and ' ' + unit}")
    key = KEY_LABELS.get(c.key or "")
    if key and c.key_value is not None:
        parts.append(f"按{key[0]} {fmt_num(c.key_value)} {key[1]}")
        if c.near_edge is not None:
            parts.append(f"接近分档界限 {fmt_num(c.near_edge)} {key[1]}，邻档系数不同")
    name = COEF_NAMES.get(c.symbol, "")
    symbol = COEF_SYMBOLS.get(c.symbol, c.symbol)
    head = " ".join(x for x in (name, f"{symbol} =" if symbol else "") if x)
    return f"{head} {coef_value(c.value)}{unit and ' ' + unit}（{'；'.join(parts)}）"


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
            L.source_text(m.source) or L.EMPTY,
        )
    )


def _notes(rc: LocationRecalc) -> list[str]:
    """What the reader must know about a recomputation, in Chinese: plan inputs replaced by the reference
    figure, plan coefficients replaced by the nearest compliant value, methods not computed, the reason a location was not recomputed."""
    notes = []
    for r in rc.reference_inputs:
        unit = f" {r['unit']}" if r.get("unit") else ""
        notes.append(
            f"计划{r['label']} {r['symbol']} = {coef_value(r['given'])}{unit} 与{r['source']}不符，"
            f"按{r['source']} {r['symbol']} = {coef_value(r['reference'])}{unit} 核算。"
        )
    for a in rc.adjustments:
        unit = COEF_UNITS.get(a["symbol"], "")
        unit = f" {unit}" if unit else ""
        notes.append(
            f"计划系数 {a['symbol']} = {coef_value(a['given'])}{unit} 超出范围 {coef_value(a['low'])}–"
            f"{coef_value(a['high'])}{unit}，按最接近的合规值 {coef_value(a['compliant'])}{unit} 核算为 "
            f"{fmt_num(a['q_compliant'])} m³/min；按缺省值 {coef_value(a['default'])}{unit} 为 "
            f"{fmt_num(a['q_default'])} m³/min。"
        )
    res = rc.result
    if res is not None and res.not_computed:
        names = "、".join(n.split("（", 1)[1].split("）", 1)[0] if "（" in n else n for n in res.not_computed)
        notes.append(f"缺少输入未核算的方法：{names}；核算值仅为已算方法的最大值（下限），不是需风量。")
    if rc.note:
        notes.append(rc.note)
    return notes


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
    """One location's recomputation: one table of every method, then the maximum, the bound checks,
    stated vs recomputed vs allocated, and the notes as text."""
    where = f"，计划第 {rc.page} 页" if rc.page else ""
    blocks: list[Block] = [Heading(f"{index}. {rc.location}（{L.location_kind_label(rc.kind)}{where}）", 2)]
    res = rc.result
    if res is None:
        blocks.append(Para(f"未能核算。{rc.note}".strip()))
        return blocks
    if res.methods:
        blocks.append(
            Table(header=METHOD_HEADER, rows=tuple(_method_row(m, res.governing) for m in res.methods))
        )
    lines = [f"需风量取各方法最大值：{fmt_num(res.value)} {res.unit}（{governing_label(res)}）。"]
    comparison = _comparison(rc).cells
    lines.append(
        f"计划需风量 {comparison[0]}，核算需风量 {comparison[1]}，配风量 {comparison[2]}（m³/min）；"
        f"计划值偏差 {comparison[3]}；配风余量 {comparison[4]}。"
    )
    for c in res.checks:
        lines.append(
            f"{L.check_label(c.name)}：{c.formula}，允许 {fmt_num(c.lower)}–{fmt_num(c.upper)} m³/min，"
            f"{'合格' if c.ok else '不合格'}（{L.source_text(c.source)}）。"
        )
    blocks.append(Bullets(tuple(lines + _notes(rc))))
    return blocks


def _flagged(recalcs: list[LocationRecalc], flagged: set[str]) -> list[LocationRecalc]:
    names = {n.replace(" ", "") for n in flagged}
    return [rc for rc in recalcs if rc.location.replace(" ", "") in names]


def recalc_blocks(result: ReviewResult, heading: str, flagged: set[str]) -> list[Block]:
    """The body's recomputation chapter: the locations with a finding (``flagged``: their names), each
    with its method table (m³/min); every location is in the appendix (:func:`appendix_blocks`)."""
    blocks: list[Block] = [Heading(heading, 1)]
    shown = _flagged(result.recalcs, flagged)
    if not shown:
        return blocks + [Para("各用风地点核算未发现问题，核算明细见附录。")]
    blocks.append(Para("单位：m³/min。核算需风量取各计算方法的最大值；全部地点的核算明细见附录。"))
    for i, rc in enumerate(shown, start=1):
        blocks += recalc_detail(i, rc)
    return blocks


def appendix_blocks(result: ReviewResult, heading: str, flagged: set[str] | None = None) -> list[Block]:
    """The appendix: an overview of every location, then the method table (m³/min) of each location not
    already detailed in the body (``flagged``): those are named once, with no heading of their own."""
    blocks: list[Block] = [Heading(heading, 1)]
    if not result.recalcs:
        return blocks + [Para("无核算记录。")]
    blocks += [
        Para(
            "单位：m³/min。核算需风量取各计算方法的最大值；配风量与核算需风量比较（无核算值时与计划需风量比较）。"
        ),
        recalc_overview(result.recalcs),
    ]
    in_body = {rc.location for rc in _flagged(result.recalcs, flagged or set())}
    if in_body:  # said once, not as an empty heading per location
        named = "、".join(rc.location for rc in result.recalcs if rc.location in in_body)
        blocks.append(Para(f"{named}的核算明细见正文第三部分，以下列出其余地点。"))
    rest = [rc for rc in result.recalcs if rc.location not in in_body]
    for i, rc in enumerate(rest, start=1):
        blocks += recalc_detail(i, rc)
    return blocks
