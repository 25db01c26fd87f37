"""The review report's content as a list of neutral blocks (:mod:`reports.blocks`), built once and
rendered by both :mod:`reports.markdown` and :mod:`reports.docx_report`, so the two documents say the
same thing in the same order.

Chapters: the report's number, issuer and the plan's metadata (the month checked against the review's
date, :mod:`reports.front`); 一 the conclusion (the verdict, each critical and major item in a line,
counts of rule findings by severity, the regulation edition, which reviewer failed and why, the model remarks' count); 二 the findings table;
三 each location's recomputation; 四 each reviewer's status; 五 the model remarks, marked as such, when a
language model was asked for some (a review with no model has no such chapter: the conclusion says in
one line that none was used); then the sign-off block, numbered next. Everything is a pure function of
the :class:`ReviewResult`.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from reports import labels as L
from reports.blocks import (
    Block,
    Bullets,
    Heading,
    Para,
    ReportContent,
    Row,
    Table,
    fmt_month,
    fmt_num,
    fmt_time,
    page_runs,
)
from reports.front import HANDWRITE, Issuer, key_items, month_check, report_number
from reports.recalc import appendix_blocks, recalc_blocks
from vent_agent.review.findings import GENERAL_LOCATION, SEVERITY_ORDER, Evidence, Finding, Severity
from vent_agent.review.judgement.plausibility import coverage_paragraph
from vent_agent.review.result import Remark, ReviewerOutcome, ReviewResult, sorted_findings

__all__ = ["FINDINGS_HEADER", "REMARKS_HEADER", "build_report", "fmt_num"]

FINDINGS_HEADER = ("序号", "程度", "用风地点", "类别", "问题描述、后果及比对数据", "检查规则及依据", "页码")
FINDINGS_SEVERITY_COL = 1
REMARKS_HEADER = ("序号", "审查环节", "用风地点", "类别", "程度", "意见", "核实情况", "PDF页码")
REMARKS_SEVERITY_COL = 4
SIGNOFF_HEADER = ("职务", "审阅意见", "签字", "日期")
PLAN_HEADER = ("项目", "内容")
SIGNOFF_ROLES = ("通风区长", "通风副总工程师", "总工程师")

H_SUMMARY = "审查结论"
H_FINDINGS = "问题清单"
H_RECALC = "有问题地点的需风量核算"
H_APPENDIX = "附录  各用风地点需风量核算明细"
H_REVIEWERS = "各审查环节情况"
H_REMARKS = "模型审查意见（语言与逻辑，仅供参考）"
H_SIGNOFF = "审阅签字"
NUMERALS = "一二三四五六七八九十"
"""The chapters' numerals, in order (``一、审查结论``)."""
BASIS_STANDARDS = "AQ 1056-2008《煤矿通风能力核定标准》"
FOOTER = "配风计划审查报告：问题及其严重程度由确定性规则判定。"
FOOTER_REMARKS = "配风计划审查报告：问题及其严重程度由确定性规则判定，模型意见仅供参考。"


# --- findings -------------------------------------------------------------------------------------


_NUMBER_ONLY = re.compile(r"\s*[-−+]?\d[\d.,]*\s*(%|％|m³/min|m³/s|m/s|m²|ppm|Pa|kW|t)?\s*")
QUOTED_OVERLAP = 10
"""Characters a clause shares with a finding's message above which it counts as already quoted."""


def _already_said(quote: str, message: str) -> bool:
    """True when ``quote`` adds nothing to ``message``: a bare figure (``630.0``, ``1.33``) or a text
    sharing a run of :data:`QUOTED_OVERLAP` characters or more with it (the clause the message quotes)."""
    if _NUMBER_ONLY.fullmatch(quote):
        return True
    a, b = quote.replace("％", "%"), message.replace("％", "%")
    match = SequenceMatcher(None, a, b, autojunk=False).find_longest_match(0, len(a), 0, len(b))
    return match.size >= QUOTED_OVERLAP


def _evidence_line(ev: Evidence, message: str = "") -> str | None:
    """One evidence item as a line of the 比对数据 cell (PDF positions go to the 原文位置 line,
    :func:`places_line`); a quote the finding's ``message`` already carries (a bare figure, the clause it
    cites) is left out."""
    d = ev.detail
    if ev.kind in ("pdf", "clause") and ev.text and _already_said(ev.text, message):
        return None
    if ev.kind == "reference" and d.get("tool"):
        where = " ".join(str(x) for x in (d.get("mine"), d.get("month")) if x)
        head = f"{L.tool_label(str(d['tool']))}" + (f"（{where}）" if where else "")
        return f"{head}：{ev.text}" if ev.text else head
    if ev.kind == "clause":
        edition = f"{d['edition']}版" if d.get("edition") else ""
        article = f"第{d['article']}条" if d.get("article") is not None else ""
        head = "规程条款" + (f"（{edition}{article}）" if edition or article else "")
        return f"{head}：{ev.text}" if ev.text else head
    if ev.kind == "calc" and d.get("substituted"):
        return f"核算：{d['substituted']}"
    label = L.EVIDENCE_KIND_LABELS.get(ev.kind, ev.kind)
    if (
        ev.kind == "pdf"
    ):  # where it was read (page, table, row, how sure) is the places line's and the trace's
        return f"{label}：“{ev.text}”" if ev.text else None
    detail = "，".join(f"{k}={d[k]}" for k in sorted(d) if k != "what")
    if ev.text and detail:
        return f"{label}：{ev.text}（{detail}）"
    if ev.text:
        return f"{label}：“{ev.text}”" if ev.kind == "pdf" else f"{label}：{ev.text}"
    return f"{label}：{detail}" if detail else None


def _figure_pair(key: str, value: float | str | None) -> str:
    if key == "op" and isinstance(value, str):
        return f"{L.figure_label(key)} {L.operator_label(value)}"
    if key == "tool" and isinstance(value, str):  # a reference-data tool: the document it serves
        return f"{L.figure_label(key)} {L.tool_label(value)}"
    if key in L.COUNT_FIGURES and isinstance(value, int | float):
        return f"{L.figure_label(key)} {int(value)}"
    return f"{L.figure_label(key)} {fmt_num(value)}"


def figures_cell(finding: Finding) -> str:
    """The figures compared, with their unit, then the evidence behind them, one per line (the breach
    operator is not repeated: the message states the comparison in words)."""
    lines: list[str] = []
    numeric = {k: v for k, v in finding.figures.items() if k != "op" and not k.endswith("_pct")}
    rest = {k: v for k, v in finding.figures.items() if k not in numeric and k != "op"}
    if numeric:
        pairs = "；".join(_figure_pair(k, v) for k, v in numeric.items())
        has_number = any(isinstance(v, int | float) and not isinstance(v, bool) for v in numeric.values())
        lines.append(f"{pairs}（{finding.unit}）" if finding.unit and has_number else pairs)
    if rest:
        lines.append("；".join(_figure_pair(k, v) for k, v in rest.items()))
    lines.extend(line for ev in finding.evidence if (line := _evidence_line(ev, finding.message)))
    if places := places_line(finding):
        lines.append(places)
    return "\n".join(dict.fromkeys(lines)) or L.EMPTY


def pdf_place(ev: Evidence) -> str:
    """Where a PDF figure was read, as the evidence gives it: ``第4页 表1 第4行 CH₄(%)列``."""
    parts = [f"第{ev.page}页"] if ev.page else []
    parts += [f"表{ev.table}"] if ev.table is not None else []
    parts += [f"第{ev.row}行"] if ev.row is not None else []
    parts += [f"{L.column_label(ev.column)}列"] if ev.column and L.column_label(ev.column) else []
    return " ".join(parts)


def places_line(finding: Finding) -> str:
    """The table cells the finding's PDF figures were read from (``原文位置：第4页 表1 第4行 CH₄(%)列；…``),
    or empty when it cites pages only (the page cell says those)."""
    cells = [
        pdf_place(ev) for ev in finding.evidence if ev.kind == "pdf" and (ev.table, ev.row) != (None, None)
    ]
    return f"原文位置：{'；'.join(dict.fromkeys(cells))}" if cells else ""


def page_cell(finding: Finding) -> str:
    """The PDF pages of the finding and of its PDF evidence as one short line of runs (``3–5、8``, a
    copy's pages among them); where on those pages is the 比对数据 cell's :func:`places_line`."""
    return page_runs([finding.page, *(ev.page for ev in finding.evidence if ev.kind == "pdf")])


def consequences_text(finding: Finding) -> str:
    """The consequences of a root fault, one per line (``后果：`` then ``1. …``), or empty."""
    if not finding.consequences:
        return ""
    lines = ["后果："]
    for i, c in enumerate(finding.consequences, start=1):
        where = f"{c.location}：" if c.location and c.location != finding.location else ""
        page = f"（第{c.page}页）" if c.page and c.page != finding.page else ""
        lines.append(f"{i}. {where}{c.message}{page}")
    return "\n".join(lines)


def finding_row(index: int, finding: Finding) -> Row:
    """One row of the findings table: the message, the consequences of the root fault and the figures
    compared in one wide cell."""
    basis = f"{finding.rule}\n依据：{finding.source}" if finding.source else finding.rule
    figures = figures_cell(finding)
    described = "\n".join(
        x
        for x in (
            finding.message,
            consequences_text(finding),
            f"比对数据：{figures}" if figures != L.EMPTY else "",
        )
        if x
    )
    return Row(
        cells=(
            str(index),
            L.severity_label(finding.severity),
            finding.location or GENERAL_LOCATION,
            L.category_label(finding.category),
            described,
            basis,
            page_cell(finding),
        ),
        severity=finding.severity,
    )


def findings_table(findings: list[Finding]) -> Table:
    """The findings table, one row per rule finding."""
    rows = tuple(finding_row(i, f) for i, f in enumerate(findings, start=1))
    return Table(header=FINDINGS_HEADER, rows=rows, severity_col=FINDINGS_SEVERITY_COL)


# --- reviewers ------------------------------------------------------------------------------------


def _reviewer_order(result: ReviewResult) -> list[str]:
    """The standard reviewers in their fixed order, then any other reviewer present, by name."""
    others = sorted({r.agent for r in result.reviewers} - set(L.REVIEWER_LABELS))
    return list(L.REVIEWER_LABELS) + others


def _outcomes(result: ReviewResult) -> list[tuple[str, ReviewerOutcome | None]]:
    by_agent = {r.agent: r for r in result.reviewers}
    return [(a, by_agent.get(a)) for a in _reviewer_order(result)]


def incomplete_reviewers(result: ReviewResult) -> list[str]:
    """Chinese names of the reviewers that failed, and of the standard ones that did not run."""
    return [L.reviewer_label(a) for a, o in _outcomes(result) if o is None or o.error is not None]


def _remarks_model(result: ReviewResult) -> str | None:
    return next((r.remarks_model for r in result.reviewers if r.remarks_model), None)


def numerals(result: ReviewResult) -> dict[str, str]:
    """Each chapter's title → its numeral, in order, without a gap: the model remarks' chapter only when
    a language model was asked for remarks."""
    titles = [H_SUMMARY, H_FINDINGS, H_RECALC, H_REVIEWERS]
    titles += [H_REMARKS] if _remarks_model(result) is not None else []
    titles.append(H_SIGNOFF)
    return dict(zip(titles, NUMERALS, strict=False))


def chapters(result: ReviewResult) -> dict[str, str]:
    """Each chapter's title → its numbered heading (``一、审查结论``), as :func:`numerals` numbers them."""
    return {title: f"{numeral}、{title}" for title, numeral in numerals(result).items()}


def notice(result: ReviewResult) -> str:
    """The closing 说明: where the figures come from, that the rules judge, and, when a model wrote
    remarks, that its chapter does not change that."""
    remarks = numerals(result).get(H_REMARKS)
    return L.NOTICE + (L.NOTICE_REMARKS.format(chapter=remarks) if remarks else "")


# --- summary --------------------------------------------------------------------------------------


def verdict(result: ReviewResult) -> str:
    """The review's conclusion from the rule findings' severities; says so when a reviewer did not
    finish, "无法可靠审查" when no part of the plan was read with confidence, and that the conclusion
    covers only what was read when some part was not. Model remarks never change it."""
    counts = result.counts()
    scope = result.coverage.scope if result.coverage else None
    if scope is not None and not scope.reviewable:
        return L.VERDICT_UNREADABLE
    if counts[Severity.CRITICAL.value]:
        text = L.VERDICT_CRITICAL
    elif counts[Severity.MAJOR.value]:
        text = L.VERDICT_MAJOR
    else:
        text = L.VERDICT_CLEAR
    if (
        scope is not None
        and any(p.confidence != "high" for p in scope.parts)
        and not counts[Severity.CRITICAL.value]
    ):
        text += L.VERDICT_PARTLY_READ  # "no major" only of what was read
    unfinished = incomplete_reviewers(result)
    if unfinished:
        text += f"（{'、'.join(unfinished)}未完成，结论不完整）"
    return text


def _reviewer_status(agent: str, outcome: ReviewerOutcome | None) -> str:
    name = L.reviewer_label(agent)
    if outcome is None:
        return f"{name}：未运行"
    if outcome.error is not None:
        return f"{name}：失败（{outcome.error or '未知错误'}），其规则结论未包含在本报告中"
    return f"{name}：完成，发现问题 {len(outcome.findings)} 项"


def footer_text(result: ReviewResult) -> str:
    """The notice under every page: how the findings were judged, and that the model remarks do not
    count only when a model wrote some (a review with no model says nothing of one)."""
    return FOOTER if _remarks_model(result) is None else FOOTER_REMARKS


def remarks_summary(result: ReviewResult) -> str:
    """One line on the model remarks: how many, by which model, and that they do not count; or that no
    language model was used (none configured, or no reviewer got as far as asking one)."""
    model = _remarks_model(result)
    if model is None:
        return "模型审查意见：本次审查未使用语言模型，无模型意见。"
    chapter = numerals(result)[H_REMARKS]
    return (
        f"模型审查意见：{len(result.remarks)} 条（语言模型 {model} 撰写，见第{chapter}部分），"
        "不计入上表，不影响审查结论。"
    )


def _key_blocks(items: tuple[str, ...]) -> list[Block]:
    """Page 1's list of the critical and major items (nothing when there are none)."""
    return [Para("严重和重大问题："), Bullets(items)] if items else []


def summary_blocks(result: ReviewResult) -> list[Block]:
    """The verdict, each critical and major item in a line, the counts of rule findings by severity, the
    plan's month against the review's date, the basis, each reviewer's status, the model remarks' count
    and the plan-reading warnings."""
    counts = result.counts()
    header = tuple(L.severity_label(s) for s in SEVERITY_ORDER) + ("合计",)
    cells = tuple(str(counts[s.value]) for s in SEVERITY_ORDER) + (str(sum(counts.values())),)
    items = key_items(sorted_findings(result))
    late = month_check(result.month, result.created_at)
    blocks: list[Block] = [
        Heading(chapters(result)[H_SUMMARY], 1),
        Para(f"结论：{verdict(result)}", strong=True),
        *_key_blocks(items),
        Table(header=header, rows=(Row(cells),)),
        *([Para(f"注意：{late}", strong=True)] if late else []),
        *([Para(cov)] if (cov := coverage_paragraph(result.coverage)) else []),
        Bullets(
            (
                f"审查依据：{L.edition_label(result.edition)}；{BASIS_STANDARDS}",
                "问题及其严重程度由确定性规则判定，上表只统计规则判定的问题。",
                remarks_summary(result),
            )
        ),
        Para("各审查环节："),
        Bullets(tuple(_reviewer_status(a, o) for a, o in _outcomes(result))),
    ]
    failed = [(a, o) for a, o in _outcomes(result) if o is not None and o.error is not None]
    if failed:
        names = "、".join(L.reviewer_label(a) for a, _ in failed)
        blocks.append(
            Para(f"注意：{names}未能完成，本报告据其余审查环节的结果写成，请复核后再签字。", strong=True)
        )
    if result.plan_warnings:
        blocks += [Para("计划解析提示："), Bullets(tuple(result.plan_warnings))]
    return blocks


def plan_blocks(result: ReviewResult, issuer: Issuer) -> list[Block]:
    """The title, the report's number and issuer, and the plan's metadata (the full SHA-256; the month
    marked when it does not fit the review's date, the note itself in the conclusion)."""
    late = month_check(result.month, result.created_at)
    rows = [
        ("报告编号", report_number(result.sha256, result.created_at)),
        ("审查单位", issuer.unit or HANDWRITE),
        ("审查人", issuer.reviewer or HANDWRITE),
        ("计划文件", result.file_name),
        ("计划标题", result.title or L.EMPTY),
        ("矿井", result.mine or "未识别"),
        ("计划月份", fmt_month(result.month) + ("（与审查日期不符，见审查结论）" if late else "")),
        ("页数", str(result.page_count)),
        ("文件 SHA-256", result.sha256),
        ("规程版本", L.edition_label(result.edition)),
        ("审查时间", fmt_time(result.created_at)),
    ]
    return [
        Heading("配风计划审查报告", 0),
        Table(header=PLAN_HEADER, rows=tuple(Row(r) for r in rows)),
    ]


# --- reviewer sections ----------------------------------------------------------------------------


def _duration(ms: int) -> str:
    return f"{ms} 毫秒" if ms < 1000 else f"{ms / 1000:.1f} 秒"


def reviewer_blocks(outcome: ReviewerOutcome) -> list[Block]:
    """One reviewer's section: status, rule findings by severity, time, error, and its model remarks."""
    counts = {s: sum(f.severity == s for f in outcome.findings) for s in SEVERITY_ORDER}
    by_sev = "，".join(f"{L.severity_label(s)} {n}" for s, n in counts.items() if n)
    status = "失败" if outcome.error is not None else "完成"
    line = f"状态：{status}；发现问题 {len(outcome.findings)} 项" + (f"（{by_sev}）" if by_sev else "")
    line += f"；用时 {_duration(outcome.duration_ms)}。"
    blocks: list[Block] = [Heading(L.reviewer_label(outcome.agent), 2), Para(line)]
    if outcome.error is not None:
        blocks.append(Para(f"错误：{outcome.error or '未知错误'}", strong=True))
    if outcome.remarks_model is not None:
        text = f"模型意见：{len(outcome.remarks)} 条"
        blocks.append(Para(text + (f"（{outcome.remarks_note}）。" if outcome.remarks_note else "。")))
    return blocks


def reviewers_section(result: ReviewResult) -> list[Block]:
    """Every reviewer's section, in the standard order; a standard reviewer that did not run is said so."""
    blocks: list[Block] = [Heading(chapters(result)[H_REVIEWERS], 1)]
    for agent, outcome in _outcomes(result):
        if outcome is not None:
            blocks += reviewer_blocks(outcome)
        else:
            blocks += [Heading(L.reviewer_label(agent), 2), Para("状态：未运行。")]
    return blocks


# --- model remarks --------------------------------------------------------------------------------


def remark_row(index: int, remark: Remark) -> Row:
    """One row of the model remarks table."""
    message = remark.message + (f"\n模型所述依据（未核实）：{remark.basis}" if remark.basis else "")
    if remark.figures:
        message += "\n所引数值：" + "；".join(f"{k} {fmt_num(v)}" for k, v in remark.figures.items())
    status = L.REMARK_STATUS_VERIFIED if remark.verified else L.REMARK_STATUS_UNVERIFIED
    return Row(
        (
            str(index),
            L.reviewer_label(remark.reviewer),
            remark.location or GENERAL_LOCATION,
            L.category_label(remark.category),
            L.severity_label(remark.severity),
            message,
            status + (f"\n{remark.note}" if remark.note else ""),
            str(remark.page) if remark.page else L.EMPTY,
        ),
        severity=remark.severity,
    )


def remarks_section(result: ReviewResult) -> list[Block]:
    """The model remarks in their own chapter, marked as model-written; the reasons where none came.
    Nothing when no language model was asked (the conclusion says so in one line)."""
    model = _remarks_model(result)
    if model is None:
        return []
    blocks: list[Block] = [Heading(chapters(result)[H_REMARKS], 1)]
    blocks.append(
        Para(
            f"以下意见由语言模型（{model}）按各审查环节撰写，仅就语言与逻辑作补充，未经确定性规则判定，"
            "不计入问题统计，不改变审查结论。模型意见的程度最高为“一般”；所引数值、地点或页码未能在计划"
            "中核实的，或所述问题已由规则判定的，列为“提示”并注明。"
        )
    )
    remarks = result.remarks
    if remarks:
        rows = tuple(remark_row(i, r) for i, r in enumerate(remarks, start=1))
        blocks.append(Table(header=REMARKS_HEADER, rows=rows, severity_col=REMARKS_SEVERITY_COL))
    else:
        blocks.append(Para("模型未提出补充意见。"))
    notes = [
        f"{L.reviewer_label(a)}：{o.remarks_note}"
        for a, o in _outcomes(result)
        if o is not None and o.remarks_note
    ]
    if notes:
        blocks += [Para("模型意见说明："), Bullets(tuple(notes))]
    return blocks


def signoff_blocks(heading: str) -> list[Block]:
    """An empty sign-off table for the mine's reviewers under ``heading``."""
    rows = tuple(Row((role, "", "", "")) for role in SIGNOFF_ROLES)
    return [Heading(heading, 1), Table(header=SIGNOFF_HEADER, rows=rows)]


# --- the whole report -----------------------------------------------------------------------------


def build_report(result: ReviewResult, issuer: Issuer | None = None) -> ReportContent:
    """The whole report as blocks: plan, summary, findings, recomputation, reviewers, model remarks,
    sign-off, notice, appendix, in one flow (Word lays it out portrait, no page forced). ``issuer``: the
    reviewing unit and reviewer (settings); unset ones are said to be unset."""
    findings = sorted_findings(result)
    blocks: list[Block] = plan_blocks(result, issuer or Issuer()) + summary_blocks(result)
    numbered = chapters(result)
    blocks += [Heading(numbered[H_FINDINGS], 1)]
    blocks.append(findings_table(findings) if findings else Para(L.NO_FINDINGS))
    flagged = {f.location for f in findings if f.location}
    blocks += recalc_blocks(result, numbered[H_RECALC], flagged)
    blocks += reviewers_section(result) + remarks_section(result) + signoff_blocks(numbered[H_SIGNOFF])
    blocks.append(Para(notice(result)))
    blocks += appendix_blocks(result, H_APPENDIX, flagged)
    subject = " ".join(x for x in (result.mine, fmt_month(result.month) if result.month else None) if x)
    return ReportContent(
        title="配风计划审查报告",
        subject=subject or result.file_name,
        blocks=blocks,
        footer=footer_text(result),
    )
