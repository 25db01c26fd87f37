"""The review report's content as a list of neutral blocks, built once and rendered by both
:mod:`reports.markdown` and :mod:`reports.docx_report`, so the two documents say the same thing.

Everything here is a pure function of the :class:`ReviewResult`: same result, same blocks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from calc.result import BoundCheck, CalcResult, Coefficient, MaxResult
from reports import labels as L
from vent_agent.review.findings import SEVERITY_ORDER, Evidence, Finding, Severity
from vent_agent.review.result import LocationRecalc, ReviewerOutcome, ReviewResult

FINDINGS_HEADER = ("序号", "严重程度", "用风地点", "类别", "问题", "比对数据", "依据", "页码")
FINDINGS_SEVERITY_COL = 1


@dataclass(frozen=True)
class Heading:
    """A heading; level 0 is the document title."""

    text: str
    level: int


@dataclass(frozen=True)
class Para:
    """A paragraph; ``strong`` paragraphs (the verdict) are set in bold."""

    text: str
    strong: bool = False


@dataclass(frozen=True)
class Bullets:
    """A bulleted list."""

    items: tuple[str, ...]


@dataclass(frozen=True)
class Row:
    """A table row. A cell's lines are separated by ``\\n``; ``severity`` shades the severity cell."""

    cells: tuple[str, ...]
    severity: Severity | None = None


@dataclass(frozen=True)
class Table:
    """A table with a header row; ``severity_col`` is the column whose cell is shaded by severity."""

    header: tuple[str, ...]
    rows: tuple[Row, ...]
    severity_col: int | None = None


@dataclass(frozen=True)
class Layout:
    """A page-layout hint for paged documents (Word): start a landscape or portrait section.
    Markdown ignores it."""

    landscape: bool


Block = Heading | Para | Bullets | Table | Layout


@dataclass
class ReportContent:
    """The report's blocks, plus what a renderer needs besides them (document properties)."""

    title: str
    subject: str
    blocks: list[Block] = field(default_factory=list)


# --- formatting -----------------------------------------------------------------------------------


def fmt_num(value: float | int | str | None) -> str:
    """A figure as an engineer writes it: at least one decimal, at most three (144.0, 0.8, 1.05)."""
    if value is None:
        return L.EMPTY
    if isinstance(value, str):
        return value
    if isinstance(value, int):  # bool included
        return str(value)
    text = f"{value:.3f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


def fmt_time(created_at: str) -> str:
    """An ISO time as ``YYYY-MM-DD HH:MM:SS`` (with its UTC offset when it has one); other text as is."""
    try:
        moment = datetime.fromisoformat(created_at)
    except ValueError:
        return created_at
    text = moment.strftime("%Y-%m-%d %H:%M:%S")
    offset = moment.strftime("%z")
    return f"{text}（UTC{offset[:3]}:{offset[3:]}）" if offset else text


def fmt_month(month: str | None) -> str:
    """``2026-08`` as ``2026年8月``; other text as is."""
    if not month:
        return "未识别"
    match = re.fullmatch(r"(\d{4})-(\d{1,2})", month.strip())
    return f"{match[1]}年{int(match[2])}月" if match else month


def _range(low: float | None, high: float | None) -> str:
    return f"{fmt_num(low)}–{fmt_num(high)}"


# --- findings -------------------------------------------------------------------------------------


def sorted_findings(result: ReviewResult) -> list[Finding]:
    """All findings, most severe first, then by page, location, category and text: an order that does
    not depend on which reviewer finished first."""
    return sorted(
        result.findings,
        key=lambda f: (
            SEVERITY_ORDER[f.severity],
            f.page or 0,
            f.location or "",
            L.CATEGORY_ORDER[f.category],
            f.message,
        ),
    )


def _evidence_line(ev: Evidence) -> str | None:
    """One evidence item as a line of the 比对数据 cell (PDF positions go to the page cell)."""
    label = L.EVIDENCE_KIND_LABELS.get(ev.kind, ev.kind)
    detail = "，".join(f"{k}={ev.detail[k]}" for k in sorted(ev.detail))
    if ev.text and detail:
        return f"{label}：{ev.text}（{detail}）"
    if ev.text:
        return f"{label}：“{ev.text}”" if ev.kind == "pdf" else f"{label}：{ev.text}"
    return f"{label}：{detail}" if detail else None


def figures_cell(finding: Finding) -> str:
    """The figures compared, with their unit, then the evidence behind them, one per line."""
    lines: list[str] = []
    if finding.figures:
        pairs = "；".join(f"{L.figure_label(k)} {fmt_num(v)}" for k, v in finding.figures.items())
        lines.append(f"{pairs}（{finding.unit}）" if finding.unit else pairs)
    lines.extend(line for ev in finding.evidence if (line := _evidence_line(ev)))
    return "\n".join(lines) or L.EMPTY


def page_cell(finding: Finding) -> str:
    """The PDF page, and the table/row/column where the figure was read when the evidence says."""
    lines = [str(finding.page) if finding.page else L.EMPTY]
    for ev in finding.evidence:
        if ev.kind != "pdf":
            continue
        parts = [f"第{ev.page}页"] if ev.page and ev.page != finding.page else []
        parts += [f"表{ev.table}"] if ev.table is not None else []
        parts += [f"第{ev.row}行"] if ev.row is not None else []
        parts += [f"{ev.column}列"] if ev.column else []
        if parts:
            lines.append(" ".join(parts))
    return "\n".join(dict.fromkeys(lines))


def finding_row(index: int, finding: Finding) -> Row:
    """One row of the findings table."""
    basis = f"{finding.rule}\n依据：{finding.source}" if finding.source else finding.rule
    return Row(
        cells=(
            str(index),
            L.severity_label(finding.severity),
            finding.location or L.GENERAL_LOCATION,
            L.category_label(finding.category),
            finding.message,
            figures_cell(finding),
            basis,
            page_cell(finding),
        ),
        severity=finding.severity,
    )


def findings_table(findings: list[Finding]) -> Table:
    """The findings table, one row per finding."""
    rows = tuple(finding_row(i, f) for i, f in enumerate(findings, start=1))
    return Table(header=FINDINGS_HEADER, rows=rows, severity_col=FINDINGS_SEVERITY_COL)


# --- summary --------------------------------------------------------------------------------------


def incomplete_reviewers(result: ReviewResult) -> list[str]:
    """Chinese names of the reviewers that failed, and of the standard ones that did not run."""
    by_agent = {r.agent: r for r in result.reviewers}
    unfinished = [a for a in _reviewer_order(result) if a not in by_agent or by_agent[a].error is not None]
    return [L.reviewer_label(a) for a in unfinished]


def verdict(result: ReviewResult) -> str:
    """The review's conclusion from the severity counts; says so when a reviewer did not finish."""
    counts = result.counts()
    if counts[Severity.CRITICAL.value]:
        text = L.VERDICT_CRITICAL
    elif counts[Severity.MAJOR.value]:
        text = L.VERDICT_MAJOR
    else:
        text = L.VERDICT_CLEAR
    unfinished = incomplete_reviewers(result)
    if unfinished:
        text += f"（{'、'.join(unfinished)}未完成，结论不完整）"
    return text


def summary_blocks(result: ReviewResult) -> list[Block]:
    """Counts by severity, the verdict, and the plan-reading warnings."""
    counts = result.counts()
    header = tuple(L.severity_label(s) for s in SEVERITY_ORDER) + ("合计",)
    cells = tuple(str(counts[s.value]) for s in SEVERITY_ORDER) + (str(sum(counts.values())),)
    blocks: list[Block] = [
        Heading("一、审查结论", 1),
        Table(header=header, rows=(Row(cells),)),
        Para(f"结论：{verdict(result)}", strong=True),
    ]
    if result.plan_warnings:
        blocks += [Para("计划解析提示："), Bullets(tuple(result.plan_warnings))]
    return blocks


def plan_blocks(result: ReviewResult) -> list[Block]:
    """The title and the plan's metadata."""
    rows = [
        ("计划文件", result.file_name),
        ("计划标题", result.title or L.EMPTY),
        ("矿井", result.mine or "未识别"),
        ("计划月份", fmt_month(result.month)),
        ("页数", str(result.page_count)),
        ("文件 SHA-256", f"{result.sha256[:16]}…" if len(result.sha256) > 16 else result.sha256),
        ("规程版本", L.edition_label(result.edition)),
        ("审查时间", fmt_time(result.created_at)),
    ]
    return [
        Heading("配风计划审查报告", 0),
        Table(header=("项目", "内容"), rows=tuple(Row(r) for r in rows)),
    ]


# --- recomputation --------------------------------------------------------------------------------


def _coefficient_text(c: Coefficient) -> str:
    origin = L.COEFFICIENT_ORIGIN_LABELS.get(c.origin, c.origin)
    extra = (
        [origin]
        + ([f"范围 {_range(*c.valid_range)}"] if c.valid_range else [])
        + ([c.note] if c.note else [])
    )
    return f"{c.symbol} = {fmt_num(c.value)}（{'；'.join(extra)}）"


def _governing(res: MaxResult) -> str:
    for m in res.methods:
        if m.method == res.governing:
            return L.method_label(m.method, m.method_cn)
    return L.method_label(res.governing) if res.governing else L.EMPTY


def _method_row(m: CalcResult, governing: str) -> Row:
    mark = "（取值）" if m.method == governing else ""
    return Row(
        (
            L.method_label(m.method, m.method_cn) + mark,
            m.substituted or m.formula,
            f"{fmt_num(m.value)} {m.unit}",
            "\n".join(_coefficient_text(c) for c in m.coefficients) or L.EMPTY,
            m.source or L.EMPTY,
        )
    )


def _check_row(c: BoundCheck) -> Row:
    return Row(
        (
            c.name,
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
        found += [f"{c.name}：{w}" for w in c.warnings]
    return list(dict.fromkeys(found))


def _comparison(rc: LocationRecalc) -> Row:
    """Stated vs recomputed vs allocated, with the stated deviation and the allocation margin."""
    recomputed = rc.result.value if rc.result else None
    deviation = margin = L.EMPTY
    if recomputed and rc.stated_required is not None:
        deviation = f"{(rc.stated_required - recomputed) / recomputed * 100:+.1f}%"
    if recomputed is not None and rc.allocated is not None:
        relation = "≥" if rc.allocated >= recomputed else "<"
        margin = f"{fmt_num(rc.allocated - recomputed)}（配风量 {relation} 核算需风量）"
    return Row((fmt_num(rc.stated_required), fmt_num(recomputed), fmt_num(rc.allocated), deviation, margin))


def recalc_overview(recalcs: list[LocationRecalc]) -> Table:
    """One line per location: stated, recomputed and allocated air, governing method, speed checks."""
    rows = []
    for rc in recalcs:
        res = rc.result
        checks = L.EMPTY
        if res and res.checks:
            checks = "合格" if all(c.ok for c in res.checks) else "不合格"
        rows.append(
            Row(
                (
                    rc.location,
                    L.location_kind_label(rc.kind),
                    fmt_num(rc.stated_required),
                    fmt_num(res.value if res else None),
                    _governing(res) if res else "未核算",
                    fmt_num(rc.allocated),
                    checks,
                )
            )
        )
    header = ("用风地点", "类型", "计划需风量", "核算需风量", "取值方法", "配风量", "风速校验")
    return Table(header=header, rows=tuple(rows))


def recalc_detail(index: int, rc: LocationRecalc) -> list[Block]:
    """One location's recomputation: every method, the maximum, the checks, stated vs allocated."""
    where = f"，第 {rc.page} 页" if rc.page else ""
    blocks: list[Block] = [Heading(f"{index}. {rc.location}（{L.location_kind_label(rc.kind)}{where}）", 2)]
    res = rc.result
    if res is None:
        blocks.append(Para(f"未能核算。{rc.note}".strip()))
        return blocks
    if res.methods:
        header = ("计算方法", "计算式（代入数值）", "结果", "系数及来源", "依据")
        blocks.append(Table(header=header, rows=tuple(_method_row(m, res.governing) for m in res.methods)))
    blocks.append(
        Para(
            f"需风量取各方法最大值：{fmt_num(res.value)} {res.unit}，取值方法：{_governing(res)}。",
            strong=True,
        )
    )
    if res.checks:
        header = ("校验项", "下限", "上限", "需风量", "结果", "校验式", "依据")
        blocks.append(Table(header=header, rows=tuple(_check_row(c) for c in res.checks)))
    header = ("计划需风量", "核算需风量", "配风量", "计划值偏差", "配风余量")
    blocks.append(Table(header=header, rows=(_comparison(rc),)))
    notes = _warnings(res) + ([rc.note] if rc.note else [])
    if notes:
        blocks.append(Bullets(tuple(notes)))
    return blocks


def recalc_blocks(result: ReviewResult) -> list[Block]:
    """The recomputation chapter: an overview table, then each location in detail (m³/min)."""
    blocks: list[Block] = [Heading("三、各用风地点需风量核算", 1)]
    if not result.recalcs:
        return blocks + [Para("无核算记录。")]
    blocks += [Para("单位：m³/min。"), recalc_overview(result.recalcs)]
    for i, rc in enumerate(result.recalcs, start=1):
        blocks += recalc_detail(i, rc)
    return blocks


# --- reviewers ------------------------------------------------------------------------------------


def _reviewer_order(result: ReviewResult) -> list[str]:
    """The standard reviewers in their fixed order, then any other reviewer present, by name."""
    others = sorted({r.agent for r in result.reviewers} - set(L.REVIEWER_LABELS))
    return list(L.REVIEWER_LABELS) + others


def reviewer_blocks(outcome: ReviewerOutcome) -> list[Block]:
    """One reviewer's section: status, findings by severity, remarks or error."""
    counts = {s: sum(f.severity == s for f in outcome.findings) for s in SEVERITY_ORDER}
    by_sev = "，".join(f"{L.severity_label(s)} {n}" for s, n in counts.items() if n)
    status = "失败" if outcome.error is not None else "完成"
    line = f"状态：{status}；发现问题 {len(outcome.findings)} 项" + (f"（{by_sev}）" if by_sev else "")
    line += f"；用时 {outcome.duration_ms / 1000:.1f} 秒。"
    blocks: list[Block] = [Heading(f"{L.reviewer_label(outcome.agent)}（{outcome.agent}）", 2), Para(line)]
    if outcome.error is not None:
        blocks.append(Para(f"错误：{outcome.error or '未知错误'}", strong=True))
    if outcome.remarks:
        blocks += [Para("审查意见："), Bullets(tuple(outcome.remarks))]
    elif outcome.error is None:
        blocks.append(Para("审查意见：无。"))
    return blocks


def reviewers_section(result: ReviewResult) -> list[Block]:
    """Every reviewer's section, in the standard order; a standard reviewer that did not run is said so."""
    blocks: list[Block] = [Heading("四、各审查环节意见", 1)]
    by_agent = {r.agent: r for r in result.reviewers}
    for agent in _reviewer_order(result):
        if agent in by_agent:
            blocks += reviewer_blocks(by_agent[agent])
        else:
            blocks += [Heading(f"{L.reviewer_label(agent)}（{agent}）", 2), Para("状态：未运行。")]
    return blocks


# --- the whole report -----------------------------------------------------------------------------


def build_report(result: ReviewResult) -> ReportContent:
    """The whole report as blocks: plan, summary, findings, recomputation, reviewers, notice."""
    findings = sorted_findings(result)
    blocks: list[Block] = plan_blocks(result) + summary_blocks(result)
    blocks += [Layout(landscape=True), Heading("二、问题清单", 1)]
    blocks.append(findings_table(findings) if findings else Para(L.NO_FINDINGS))
    blocks += [Layout(landscape=False)]
    blocks += recalc_blocks(result) + reviewers_section(result)
    blocks.append(Para(L.NOTICE))
    subject = " ".join(x for x in (result.mine, fmt_month(result.month) if result.month else None) if x)
    return ReportContent(title="配风计划审查报告", subject=subject or result.file_name, blocks=blocks)
