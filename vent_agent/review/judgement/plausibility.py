"""Plausibility of what was read, before any judgement (docs/DOMAIN.md §5).

Every figure the parser read is checked: its reading is sure enough (``SourceRef.confidence`` is not
``uncertain``), its magnitude is in the range of its kind (:data:`RANGES`), and it agrees with the plan's
own arithmetic where the plan shows it (an input is one of the operands its method substitutes; an
allocated air volume is 60·v·S of the stated speed and section, not 60 times more or less).
:func:`audit_plan` gives one :class:`FigureCheck` per figure and the plan's :class:`Coverage`.

:func:`gate_findings` is the one place between the rules and the aggregation where a major or critical
finding that rests on a figure failing these checks (through its PDF evidence, its location's inputs,
or a compared air volume beyond any plausible size) is replaced by an info finding naming what could
not be read (category ``form``, ``未能可靠识别：…``). Rules stay as they are.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

from vent_agent.documents.plan.methods import inputs_of
from vent_agent.documents.plan.model import Figure, LocationPlan, Plan
from vent_agent.documents.plan.tables import classify_kind
from vent_agent.documents.plan.text_primitives import match_name
from vent_agent.review.findings import Category, Evidence, Finding, Severity
from vent_agent.review.judgement.arith import close, substituted_value
from vent_agent.review.judgement.model_reading import MODEL_MARK
from vent_agent.review.judgement.read_scope import ReadScope
from vent_agent.review.rule_common import finding


@dataclass(frozen=True)
class Range:
    """The plausible magnitude of one kind of figure: ``low ≤ value ≤ high`` in ``unit``."""

    low: float
    high: float
    unit: str
    label: str
    note: str


_PRACTICE = "practice: wider than any working mine's figure, so that only a misreading falls outside"
RANGES: dict[str, Range] = {
    # flows, m³/min (after conversion at reading)
    "gas_emission": Range(
        0, 60, "m³/min", "瓦斯绝对涌出量", "per location; 40 m³/min is a whole high-gas mine (§2.6)"
    ),
    "co2_emission": Range(0, 60, "m³/min", "二氧化碳涌出量", _PRACTICE),
    "h2_emission": Range(
        0, 5, "m³/min", "氢气涌出量", "charging chambers: a few hundredths to tenths (§2.3)"
    ),
    "fan_intake_q": Range(50, 2500, "m³/min", "局部通风机吸风量", "catalogue aux fans 2×5.5 – 2×110 kW"),
    "q_coal_face": Range(100, 5000, "m³/min", "采煤工作面需风量", "DOMAIN §5 brief; large 综放 faces ~3000"),
    "q_standby_face": Range(50, 5000, "m³/min", "备用工作面需风量", "≥ 50 % of a working face (§2.1)"),
    "q_heading": Range(40, 3000, "m³/min", "掘进工作面需风量", "60·0.15·S at S ≈ 5 m² … two large fans"),
    "q_chamber": Range(40, 1500, "m³/min", "硐室需风量", "small chambers 60–80 by experience (§2.3)"),
    "q_roadway": Range(10, 6000, "m³/min", "巷道需风量", _PRACTICE),
    "q_method": Range(0, 10000, "m³/min", "计算方法结果", "a single method's result at one location"),
    "q_mine": Range(100, 100000, "m³/min", "矿井总风量", "the largest mines move ~60 000 m³/min"),
    # coefficients
    "k_gas": Range(0.5, 3, "", "瓦斯涌出不均匀系数", "1.2–2.0 in AQ 1056; 3.0 for 水采"),
    "k_co2": Range(0.5, 3, "", "二氧化碳涌出不均匀系数", "as k_gas"),
    "k_h": Range(0.5, 3, "", "采高调整系数", "1.0–1.2 (§2.1)"),
    "k_l": Range(0.5, 3, "", "面长调整系数", "0.8–1.4 (§2.1)"),
    "k_t": Range(0.5, 3, "", "温度调整系数", "textbook form, ~1.0–1.3"),
    "k_mine": Range(1.0, 1.6, "", "矿井需风系数", "1.15–1.30 (§2.5)"),
    "theta": Range(0, 1, "", "发热系数", "0.01–0.23 (§2.3)"),
    # geometry and conditions
    "area": Range(2, 40, "m²", "断面", "brief; roadways 5–25 m²"),
    "speed": Range(0, 15, "m/s", "风速", "15 m/s is the highest limit of 表6 (§3)"),
    "v_climate": Range(0.1, 5, "m/s", "气象条件风速", "1.0–1.8 (§2.1)"),
    "temperature": Range(-10, 45, "℃", "温度", "brief; intake ≥ 2 ℃, stop work > 30 ℃"),
    "intake_temp": Range(-10, 45, "℃", "进风温度", "as temperature"),
    "delta_t": Range(0.2, 20, "℃", "进回风温差", _PRACTICE),
    "concentration": Range(0, 10, "%", "气体浓度", "CH₄/CO₂ in a roadway's air; 1.5 % already stops work"),
    "face_length": Range(10, 500, "m", "工作面长度", _PRACTICE),
    "mining_height": Range(0.3, 10, "m", "采高", _PRACTICE),
    "roof_control": Range(1, 15, "m", "控顶距", _PRACTICE),
    "workers": Range(1, 500, "人", "作业人数", _PRACTICE),
    "max_people": Range(1, 10000, "人", "井下最多人数", _PRACTICE),
    "explosive_kg": Range(0, 1000, "kg", "炸药量", _PRACTICE),
    "fan_count": Range(1, 6, "台", "局部通风机台数", "≤ 2 fans per heading [R 第182条]; some margin"),
    "power_kw": Range(0, 50000, "kW", "设备功率", _PRACTICE),
    "vehicle_kw": Range(5, 1000, "kW", "车辆功率", _PRACTICE),
    "vehicles": Range(0, 100, "辆", "车辆数", _PRACTICE),
    "volume_m3": Range(5, 100000, "m³", "容积", _PRACTICE),
}
"""Plausible magnitude per kind of figure. Sources: docs/DOMAIN.md sections as noted; *(practice)* bounds are
deliberately wide: they catch misreadings (a multiplier read as an input, m³/s read as m³/min), not
unusual mines."""

_INPUT_KIND = {
    "roof_control_max": "roof_control",
    "roof_control_min": "roof_control",
    "co2_emission": "co2_emission",
}
_Q_KIND = {
    "coal_face": "q_coal_face",
    "standby_face": "q_standby_face",
    "heading": "q_heading",
    "chamber_heat": "q_chamber",
    "explosives_store": "q_chamber",
    "charging": "q_chamber",
}
_ROW_FIELDS = {
    "area": "area",
    "planned_speed": "speed",
    "measured_speed": "speed",
    "ch4": "concentration",
    "co2": "concentration",
    "temperature": "temperature",
}
_ROW_LABELS = {
    "required_q": "需风量",
    "allocated_q": "配风量",
    "measured_q": "实测风量",
    "area": "断面",
    "planned_speed": "计划风速",
    "measured_speed": "实测风速",
    "ch4": "CH₄浓度",
    "co2": "CO₂浓度",
    "temperature": "温度",
}


class FigureCheck(BaseModel):
    """One figure read from the plan and what the review makes of it: ``ok``, ``uncertain`` (the
    reading is ambiguous), ``implausible`` (outside the range of its kind) or ``inconsistent`` (against
    the plan's own arithmetic)."""

    what: str  # e.g. "15216综采工作面 瓦斯绝对涌出量"
    location: str | None
    quantity: str
    value: float
    unit: str | None
    unit_written: str | None = None
    page: int
    table: int | None = None
    row: int | None = None
    column: str | None = None
    text: str = ""
    confidence: str = "exact"
    status: str = "ok"
    reason: str = ""

    def evidence(self) -> Evidence:
        """The figure as PDF evidence."""
        return Evidence(
            kind="pdf",
            page=self.page,
            table=self.table,
            row=self.row,
            column=self.column,
            text=self.text,
            detail={"what": self.what, "status": self.status, "reason": self.reason},
        )

    def label(self) -> str:
        """``15216综采工作面 瓦斯绝对涌出量 100 m³/min（第2页）：超出合理范围 0–60 m³/min``."""
        where = f"第{self.page}页" + (f"表{self.table}第{self.row}行" if self.table and self.row else "")
        return f"{self.what} {self.value:g} {self.unit or ''}（{where}）：{self.reason}".replace(" （", "（")


class Coverage(BaseModel):
    """What the review could read: locations found, figures read (plausible and consistent) and
    figures not read (uncertain, implausible or inconsistent), with the latter listed."""

    locations_found: int = 0
    figures_read: int = 0
    figures_not_read: int = 0
    not_read: list[str] = Field(default_factory=list)
    unreadable: bool = False
    scope: ReadScope | None = None
    """What was read, part by part, and the locations established (:mod:`.read_scope`)."""

    def to_event(self) -> dict[str, Any]:
        """The additive ``coverage`` field of the ``done`` event."""
        event: dict[str, Any] = {
            "locations_found": self.locations_found,
            "figures_read": self.figures_read,
            "figures_not_read": self.figures_not_read,
            "unreadable": self.unreadable,
        }
        if self.scope is not None:
            event |= self.scope.summary()
        return event


def _check(what: str, location: str | None, quantity: str, fig: Figure) -> FigureCheck:
    ref = fig.ref
    chk = FigureCheck(
        what=what,
        location=location,
        quantity=quantity,
        value=fig.value,
        unit=fig.unit,
        unit_written=fig.unit_written,
        page=ref.page,
        table=ref.table,
        row=ref.row,
        column=ref.column,
        text=ref.text,
        confidence=ref.confidence,
    )
    rng = RANGES.get(quantity)
    if ref.confidence == "uncertain":
        chk.status, chk.reason = "uncertain", "读数不确定（范围值或该行数值少于列数）"
    elif rng is not None and not rng.low <= fig.value <= rng.high:
        chk.status = "implausible"
        chk.reason = f"超出{rng.label}的合理范围 {rng.low:g}–{rng.high:g} {rng.unit}".rstrip()
        if fig.unit_written:
            chk.reason += f"（原写作 {fig.unit_written}，已换算）"
    return chk


def _location_kind(plan: Plan, name: str) -> str:
    loc = plan.location(match_name(name, [x.name for x in plan.locations]) or name)
    return loc.kind if loc is not None else classify_kind("", name)


_GARBLED = re.compile(r"\d+\s*[:：;；]\s*\d+|\d+[oOlI]\d+|\d+\s*\.\s*\.\s*\d+")
"""A number broken by OCR or extraction: ``0:01``, ``1O5``, ``1..5``."""


def _location_checks(loc: LocationPlan) -> Iterator[FigureCheck]:
    q_kind = _Q_KIND.get(loc.kind, "q_roadway")
    for key, fig in loc.inputs.items():
        kind = _INPUT_KIND.get(key, key)
        yield _check(f"{loc.name} {RANGES[kind].label if kind in RANGES else key}", loc.name, kind, fig)
    for m in loc.methods:
        if m.stated is not None:
            chk = _check(f"{loc.name} {m.label}", loc.name, "q_method", m.stated)
            garbled = _GARBLED.search(m.expression.split("=", 1)[-1])
            if garbled and chk.status == "ok":
                chk.status = "uncertain"
                chk.reason = f"计算式中“{garbled.group(0)}”不是可识别的数字"
            yield chk
    if loc.stated_required is not None:
        yield _check(f"{loc.name} 需风量", loc.name, q_kind, loc.stated_required)


def _consistency(loc: LocationPlan, checks: list[FigureCheck]) -> None:
    """An input that its method does not substitute, where the method's own arithmetic holds, was
    misread (e.g. the 100 of ``Q = 100·q·k`` read as q)."""
    for m in loc.methods:
        keys = inputs_of(m.method)
        if not keys or m.stated is None or not m.operands:
            continue
        evaluated = substituted_value(m.expression)
        if evaluated is None or not close(evaluated[1], m.stated.value):
            continue  # the plan's arithmetic is not shown or wrong: that is a finding, not a misreading
        for chk in checks:
            key = chk.quantity if chk.quantity != "roof_control" else ""
            if chk.location != loc.name or key not in keys or chk.status != "ok":
                continue
            if not any(close(chk.value, x, rel=0.005, abs_tol=1e-6) for x in m.operands):
                chk.status = "inconsistent"
                chk.reason = f"与{m.label}中代入的数值（{', '.join(f'{x:g}' for x in m.operands)}）不符"


def _row_consistency(plan: Plan, checks: list[FigureCheck], by_ref: dict[int, FigureCheck]) -> None:
    """An allocated air volume 60 times more or less than 60·v·S of its own row was read in the wrong
    unit (m³/s for m³/min or the reverse)."""
    for row in plan.allocation:
        q, v, s = row.allocated_q, row.planned_speed, row.area
        if q is None or v is None or s is None or v.value <= 0 or s.value <= 0:
            continue
        ratio = q.value / (60 * v.value * s.value)
        if 40 < ratio < 80 or 1 / 80 < ratio < 1 / 40:
            chk = by_ref.get(id(q))
            if chk is not None and chk.status == "ok":
                chk.status = "inconsistent"
                chk.reason = (
                    f"与本行计划风速 {v.value:g} m/s × 断面 {s.value:g} m² 相差约 60 倍（疑为单位读错）"
                )


def audit_plan(plan: Plan) -> tuple[list[FigureCheck], Coverage]:
    """Check every figure read from ``plan``; return the checks and the coverage."""
    checks: list[FigureCheck] = []
    by_ref: dict[int, FigureCheck] = {}
    for loc in plan.locations:
        got = list(_location_checks(loc))
        _consistency(loc, got)
        checks += got
    for row in plan.allocation:
        q_kind = _Q_KIND.get(_location_kind(plan, row.location), "q_roadway")
        for fld in ("required_q", "allocated_q", "measured_q", *_ROW_FIELDS):
            fig = getattr(row, fld)
            if fig is None:
                continue
            what = f"{row.location} 风量分配表{_ROW_LABELS[fld]}"
            chk = _check(what, row.location, _ROW_FIELDS.get(fld, q_kind), fig)
            by_ref[id(fig)] = chk
            checks.append(chk)
    _row_consistency(plan, checks, by_ref)
    t = plan.totals
    for what, fig, kind in (
        ("各地点需风量之和", t.stated_sum, "q_mine"),
        ("矿井总需风量", t.mine_total, "q_mine"),
        ("矿井通风能力", t.capacity, "q_mine"),
        ("矿井需风系数", t.k_mine, "k_mine"),
        ("井下最多人数", t.max_people, "max_people"),
    ):
        if fig is not None:
            checks.append(_check(what, None, kind, fig))
    bad = [c for c in checks if c.status != "ok"]
    names = {n for n in [loc.name for loc in plan.locations] + [r.location for r in plan.allocation]}
    merged: list[str] = []
    for n in names:
        if match_name(n, merged) is None:
            merged.append(n)
    coverage = Coverage(
        locations_found=len(merged),
        figures_read=len(checks) - len(bad),
        figures_not_read=len(bad),
        not_read=[c.label() for c in bad] + [g.note for g in plan.gaps],
        # misread layouts show as implausible or inconsistent figures; uncertain ones (ranges, short
        # rows, model-read rows) are flagged by the reader itself and only held back from judgement
        unreadable=len(checks) >= 5 and sum(c.status != "uncertain" for c in bad) * 2 > len(checks),
    )
    return checks, coverage


def unreadable_message(coverage: Coverage) -> str:
    """The error for a plan whose figures cannot be read with confidence."""
    shown = "；".join(coverage.not_read[:5]) + ("等" if len(coverage.not_read) > 5 else "")
    return (
        f"未能可靠识别此配风计划的版式：读出的 {coverage.figures_read + coverage.figures_not_read} 个数值中"
        f" {coverage.figures_not_read} 个不可靠（{shown}），不据此给出审查结论，请提供版式清晰的计划或人工审查"
    )


def coverage_paragraph(coverage: Coverage | None) -> str:
    """The report's short coverage paragraph (Markdown), or ``""`` without coverage: the figures read
    and, with the reader's scope, each part's reading, the locations established and the names not."""
    if coverage is None:
        return ""
    text = (
        f"识别情况：共识别用风地点 {coverage.locations_found} 个，读取数值 "
        f"{coverage.figures_read + coverage.figures_not_read} 个，其中 {coverage.figures_read} 个可靠"
    )
    if not coverage.figures_not_read:
        text += "，全部通过量级与计划自身算术的合理性检查。"
    else:
        shown = "；".join(coverage.not_read[:8]) + ("等" if len(coverage.not_read) > 8 else "")
        text += f"，{coverage.figures_not_read} 个未能可靠识别（{shown}），据此不作重大问题判定。"
    return text + (scope_paragraph(coverage.scope) if coverage.scope else "")


_CONFIDENCE_CN = {"high": "可靠读取", "low": "读取不完整", "none": "未找到"}


def scope_paragraph(scope: ReadScope) -> str:
    """What the reader established, in a sentence or three (part of :func:`coverage_paragraph`)."""
    parts = "、".join(f"{p.label}{_CONFIDENCE_CN[p.confidence]}" for p in scope.parts)
    text = f"计划各部分：{parts}。"
    if not scope.reviewable:
        text = "无法可靠审查：" + text
    if scope.locations:
        text += f"确认的用风地点 {len(scope.locations)} 个：{'、'.join(scope.locations)}。"
    if scope.names_not_established:
        names = list(scope.names_not_established)
        text += f"未能确认为用风地点的名称 {len(names)} 个（不作判定）：{'、'.join(names[:10])}" + (
            "等。" if len(names) > 10 else "。"
        )
    if scope.pages_low_confidence:
        text += f"第 {'、'.join(map(str, scope.pages_low_confidence))} 页识别置信度低，其数值未作判定依据。"
    return text


# --- the gate --------------------------------------------------------------------------------------

_AIR_KEYS = ("stated", "recomputed", "required", "allocated", "value", "planned", "total")


def _same_place(ev: Evidence, chk: FigureCheck) -> bool:
    if ev.kind != "pdf" or ev.page != chk.page:
        return False
    if ev.table is not None or chk.table is not None:
        return (ev.table, ev.row, ev.column) == (chk.table, chk.row, chk.column)
    return bool(ev.text) and ev.text == chk.text


def _suspects(f: Finding, plan: Plan, bad: list[FigureCheck]) -> list[FigureCheck]:
    out = [c for c in bad if any(_same_place(ev, c) for ev in f.evidence)]
    if f.location is None and f.unit == "m³/min" and f.category != Category.FORM:
        # a mine-level air volume (Σ, total, capacity) recomputed from every location's inputs
        out += [c for c in bad if c.location and c.table is None]
    if f.location and f.category == Category.CALCULATION:
        names = {c.location for c in bad if c.location}
        hit = match_name(f.location, sorted(n for n in names if n))
        if hit is not None:
            # the recomputation of a location rests on all of its inputs
            out += [c for c in bad if c.location == hit and c not in out and c.table is None]
    return out


def _gaps(f: Finding, plan: Plan) -> list[str]:
    """What the reader could not attribute that this finding's verdict of absence may rest on: a
    missing sign-off when approval lines were seen, a location without calculation when calculation
    statements were left unattributed (:attr:`Plan.gaps`)."""
    out: list[str] = []
    if "role" in f.figures:
        out += [g.note for g in plan.gaps if g.topic == "signoff"]
    if f.location and f.category in (Category.FORM, Category.CALCULATION):
        loc = plan.location(match_name(f.location, [x.name for x in plan.locations]) or f.location)
        if loc is None or not loc.methods:
            out += [
                g.note
                for g in plan.gaps
                if g.topic == "calculation" and (g.location is None or match_name(g.location, [f.location]))
            ]
    return out


def _oversized(f: Finding, plan: Plan) -> str | None:
    """A compared air volume larger than any location of its kind can need (a misread input)."""
    if f.unit != "m³/min" or not f.location:
        return None
    rng = RANGES[_Q_KIND.get(_location_kind(plan, f.location), "q_roadway")]
    for key, value in f.figures.items():
        if isinstance(value, int | float) and any(k in key for k in _AIR_KEYS) and value > rng.high:
            return (
                f"{f.location} 比较的风量 {value:g} m³/min 超出{rng.label}的合理范围 {rng.low:g}–{rng.high:g}"
            )
    return None


def gate_findings(findings: list[Finding], plan: Plan, checks: list[FigureCheck]) -> list[Finding]:
    """Major and critical findings that rest on a figure not read with confidence become one info
    finding per location (category form) naming what could not be read and what was not judged
    (``figures``: how many of each); all other findings pass unchanged, in order."""
    # figures the optional model reading aid read are left to its own cap (model_reading.py)
    bad = [c for c in checks if c.status != "ok" and not c.text.startswith(MODEL_MARK)]
    out: list[Finding] = []
    held: dict[str | None, tuple[Finding, list[str], list[str]]] = {}
    for f in findings:
        if f.severity not in (Severity.MAJOR, Severity.CRITICAL):
            out.append(f)
            continue
        suspects = _suspects(f, plan, bad)
        oversized = _oversized(f, plan)
        gaps = _gaps(f, plan)
        if not suspects and oversized is None and not gaps:
            out.append(f)
            continue
        if f.location not in held:
            info = finding("form.unreadable_figure", f.location, "", page=f.page, reviewer=f.reviewer)
            held[f.location] = (info, [], [])
            out.append(info)
        info, not_read, not_judged = held[f.location]
        for reason in [c.label() for c in suspects] + ([oversized] if oversized else []) + gaps:
            if reason not in not_read:
                not_read.append(reason)
        not_judged.append(f"[{f.severity.value}] {f.message}")
        info.evidence += [e for c in suspects if (e := c.evidence()) not in info.evidence]
        info.figures = {"not_read": len(not_read), "not_judged": len(not_judged)}
        info.message = (
            f"未能可靠识别：{'；'.join(not_read)}。据此得出的判断未列为问题，请人工核对原文："
            f"{'；'.join(not_judged)}"
        )
    return out
