"""The plan and a reviewer's rule findings as compact Chinese text for the remarks prompt, and the
figures a remark may cite (what :mod:`vent_agent.review.outputs.remarks` checks the model's numbers against).

Pure functions of the structured plan (:mod:`vent_agent.documents.plan.model`); every figure is written with
its unit as the plan states it and the PDF page it was read from.
"""

from __future__ import annotations

from collections.abc import Iterator

from calc.catalog import PARAMS
from vent_agent.documents.plan.model import Figure, LocationPlan, Plan, SourceRef
from vent_agent.review.findings import GENERAL_LOCATION, Finding

DIGEST_MAX_CHARS = 14000
"""Cap on the plan digest sent to the model (characters); longer digests are cut with a note."""

_ALLOCATION_FIELDS = (
    ("required_q", "需风量"),
    ("allocated_q", "配风量"),
    ("area", "断面"),
    ("planned_speed", "计划风速"),
    ("measured_speed", "实测风速"),
    ("measured_q", "实测风量"),
    ("ch4", "CH₄"),
    ("co2", "CO₂"),
    ("temperature", "温度"),
)
_TOTAL_FIELDS = (
    ("stated_sum", "各地点需风量之和"),
    ("k_mine", "矿井需风系数"),
    ("mine_total", "矿井总需风量"),
    ("max_people", "井下最多人数"),
    ("capacity", "通风能力"),
)


def _num(value: float) -> str:
    return f"{value:g}"


def _fig(fig: Figure | None) -> str:
    if fig is None:
        return "—"
    return f"{_num(fig.value)} {fig.unit}" if fig.unit else _num(fig.value)


def _param(key: str) -> str:
    doc = PARAMS.get(key)
    return doc.label_cn if doc is not None else key


def _page(ref: SourceRef | None) -> str:
    return f"（第{ref.page}页）" if ref is not None else ""


def _location_lines(loc: LocationPlan) -> list[str]:
    kind = loc.kind_label or loc.kind
    lines = [f"- {loc.name}（{kind}）{_page(loc.ref)}"]
    if loc.inputs:
        params = "；".join(f"{_param(k)} = {_fig(v)}" for k, v in loc.inputs.items())
        lines.append(f"  参数：{params}")
    for m in loc.methods:
        stated = f" → 计划写 {_fig(m.stated)}" if m.stated else ""
        lines.append(f"  {m.label}：{m.expression}{stated}{_page(m.stated.ref if m.stated else None)}")
    if loc.stated_required is not None:
        lines.append(f"  需风量（计划取值）：{_fig(loc.stated_required)}{_page(loc.stated_required.ref)}")
    if loc.speed_check is not None:
        sc = loc.speed_check
        low = _num(sc.lower) if sc.lower is not None else "—"
        high = _num(sc.upper) if sc.upper is not None else "—"
        lines.append(f"  风速验算：{low} ≤ Q ≤ {high} m³/min{_page(sc.ref)}")
    return lines


def plan_digest(plan: Plan, max_chars: int = DIGEST_MAX_CHARS) -> str:
    """The plan as compact Chinese text: cover, sign-offs, basis, citations, each location's inputs and
    stated methods, the allocation table, the totals and the parser's warnings (units as written,
    PDF pages). Cut at ``max_chars`` characters with a note saying so."""
    lines = [
        f"标题：{plan.title or '未识别'}；矿井：{plan.mine or '未识别'}；月份：{plan.month or '未识别'}；"
        f"版本：{plan.version or '未写明'}；编制日期：{plan.prepared_date or '未写明'}；共 {plan.page_count} 页",
    ]
    if plan.signoffs:
        lines.append("审批：")
        lines += [
            f"- {s.role}（{s.title or '—'}）：签字 {s.name or '缺'}，日期 {s.date or '缺'}{_page(s.ref)}"
            for s in plan.signoffs
        ]
    if plan.basis:
        lines.append("编制依据：" + "；".join(plan.basis))
    if plan.citations:
        cites: dict[str, list[int]] = {}
        for c in plan.citations:
            text = c.document + (f"（{c.edition}版）" if c.edition else "")
            text += f"第{c.article}条" if c.article is not None else ""
            pages = cites.setdefault(text, [])
            if c.page and c.page not in pages:
                pages.append(c.page)
        lines.append(
            "引用规程："
            + "；".join(f"{t}（第{'、'.join(map(str, p))}页）" if p else t for t, p in cites.items())
        )
    if plan.listed_locations:
        lines.append("用风地点清单：" + "、".join(plan.listed_locations))
    if plan.locations:
        lines.append("各地点计算过程：")
        for loc in plan.locations:
            lines += _location_lines(loc)
    if plan.allocation:
        lines.append("风量分配表：")
        for row in plan.allocation:
            cells = [f"{label} {_fig(getattr(row, key))}" for key, label in _ALLOCATION_FIELDS]
            cells = [c for c in cells if not c.endswith("—")]
            lines.append(f"- {row.location}：{'；'.join(cells)}{_page(row.ref)}")
    totals = [f"{label} {_fig(getattr(plan.totals, key))}" for key, label in _TOTAL_FIELDS]
    totals = [t for t in totals if not t.endswith("—")]
    if totals:
        lines.append("合计：" + "；".join(totals))
    if plan.warnings:
        lines.append("解析提示：" + "；".join(plan.warnings))
    text = "\n".join(lines)
    if len(text) > max_chars:
        text = text[:max_chars] + "\n……（计划内容较长，以下从略）"
    return text


def findings_digest(findings: list[Finding]) -> str:
    """A reviewer's rule findings, numbered, one per line: severity, category, location, text, page."""
    if not findings:
        return "（本环节规则未发现问题）"
    lines = []
    for i, f in enumerate(findings, start=1):
        page = f"（第{f.page}页）" if f.page else ""
        lines.append(
            f"{i}. [{f.severity.value}][{f.category.value}] {f.location or GENERAL_LOCATION}：{f.message}{page}"
        )
    return "\n".join(lines)


def _plan_figures(plan: Plan) -> Iterator[float]:
    for loc in plan.locations:
        yield from (f.value for f in loc.inputs.values())
        for m in loc.methods:
            yield from m.operands
            yield from m.symbols.values()
            if m.stated is not None:
                yield m.stated.value
        if loc.stated_required is not None:
            yield loc.stated_required.value
        if loc.speed_check is not None:
            yield from (x for x in (loc.speed_check.lower, loc.speed_check.upper) if x is not None)
    for row in plan.allocation:
        yield from (fig.value for key, _ in _ALLOCATION_FIELDS if (fig := getattr(row, key)) is not None)
    yield from (fig.value for key, _ in _TOTAL_FIELDS if (fig := getattr(plan.totals, key)) is not None)


def citable_figures(plan: Plan, findings: list[Finding]) -> list[float]:
    """Every number a remark may cite: the plan's figures (inputs, operands, stated results, allocation
    table, totals) and the figures the rule findings compared (recomputed values included)."""
    values = set(_plan_figures(plan))
    for f in findings:
        values.update(
            float(v) for v in f.figures.values() if isinstance(v, int | float) and not isinstance(v, bool)
        )
    return sorted(values)
