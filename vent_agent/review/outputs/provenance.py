"""The provenance of a review report, as a task chain and a citation chain (issue [F]).

A :class:`ProvenanceRecord` is written beside each Word report: what the run did (its reviewers' tool
calls from the event log, the reference-data calls with inputs and outputs, the artifacts produced with
their sha256) and every finding with its evidence. :func:`trace_finding` follows one finding back to its
sources and checks each link again:

- ``pdf``: the cited page exists in the extraction the plan was parsed from, and the text read is in the
  cited table row (or on the page);
- ``calc``: the location's recomputation has that method, and re-running the calculator on the recorded
  inputs gives the recorded value (m³/min);
- ``reference``: a reference-data call of that tool was made for the plan's mine and month and answered;
- ``clause``: the 《煤矿安全规程》 article exists in the knowledge base for that edition (AQ 1056-2008 and
  practice are outside it and say so).

A link is ``ok``, ``broken`` (with the reason) or ``unverifiable`` (its source is gone, e.g. the upload
was deleted); the trace says where the chain is broken.
"""

from __future__ import annotations

import inspect
import json
import logging
import re
import unicodedata
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from calc import CATALOG, PARAMS
from calc.result import Coefficient
from vent_agent.documents.pdf_text import ExtractedPdf
from vent_agent.documents.quality import PageRead
from vent_agent.documents.repeats import RepeatedContent
from vent_agent.event_parts import merge_parts
from vent_agent.events import parse_event
from vent_agent.kb.search import KnowledgeBase
from vent_agent.review.findings import Evidence, Finding
from vent_agent.review.outputs.trace_words import argument_rows, method_title, tool_title
from vent_agent.review.result import LocationRecalc, ReviewResult, sorted_findings

log = logging.getLogger(__name__)

TASK_EVENTS = {
    "agent_start",
    "agent_executing",
    "agent_tool_result",
    "agent_done",
    "agent_error",
    "tool_call",
    "tool_result",
}
_ARTICLE = re.compile(r"第\s*(\d+)\s*条")
_EDITION = re.compile(r"（(\d{4})版）")


class Artifact(BaseModel):
    """A file the run produced: ``kind`` docx, its path, sha256 and download URL."""

    kind: str
    path: str
    sha256: str | None = None
    download_url: str | None = None


class ProvenanceRecord(BaseModel):
    """Everything needed to trace a report's findings: the input (file, sha256, extraction), the tasks
    (reviewer tool calls from the run log, reference-data calls), the artifacts and the findings."""

    report_id: str
    run_id: str | None = None
    session_id: str | None = None
    created_at: str
    file_name: str
    sha256: str
    page_count: int = 0
    mine: str | None = None
    month: str | None = None
    edition: str = "2025"
    extraction_cache: str | None = None
    reference_source: str | None = None
    reference_status: str | None = None
    reference_calls: list[dict[str, Any]] = Field(default_factory=list)
    pages_read: list[PageRead] = Field(default_factory=list)
    """How each page was read (text layer or OCR, and why: ``no_text_layer`` / ``garbage_text_layer``)."""
    repeats: RepeatedContent | None = None
    tasks: list[dict[str, Any]] = Field(default_factory=list)
    artifacts: list[Artifact] = Field(default_factory=list)
    findings: list[Finding] = Field(default_factory=list)
    recalcs: list[LocationRecalc] = Field(default_factory=list)


class TraceLink(BaseModel):
    """One link of a finding's citation chain, checked again."""

    kind: Literal["pdf", "calc", "reference", "clause"]
    status: Literal["ok", "broken", "unverifiable"]
    what: str
    reason: str | None = None
    detail: dict[str, Any] = Field(default_factory=dict)


class FindingTrace(BaseModel):
    """The chain from finding ``index`` (1-based, report order) back to its sources; ``broken_at`` is
    the index of the first broken link (None when every link holds)."""

    report_id: str
    index: int
    finding: Finding
    links: list[TraceLink]
    status: Literal["complete", "broken", "partial"]
    broken_at: int | None = None


def record_path(reports_dir: Path, report_id: str) -> Path:
    """Where the record of ``report_id`` is kept (beside its .docx)."""
    return reports_dir / f"{report_id}.provenance.json"


def tasks_from_events(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The task chain of a run: its agent and tool events and its OCR page events (``ocr_progress``: the
    page and why it was OCR'd), in order (seq, type, agent, tool(s), message), read through the event
    catalogue (:func:`vent_agent.events.parse_event`)."""
    keep = ("seq", "type", "agent", "tool", "tools", "message", "duration_ms", "ocr_progress")
    tasks = []
    for ev in map(parse_event, merge_parts(events)):
        wire = ev.wire()
        if ev.type in TASK_EVENTS or wire.get("ocr_progress"):
            tasks.append({k: wire[k] for k in keep if k in wire})
    return tasks


def build_record(
    result: ReviewResult,
    *,
    report_id: str,
    run_id: str | None,
    session_id: str | None,
    events: list[dict[str, Any]],
    artifacts: list[Artifact],
) -> ProvenanceRecord:
    """The record of one review: ``events`` are the run's logged events so far."""
    return ProvenanceRecord(
        report_id=report_id,
        run_id=run_id,
        session_id=session_id,
        created_at=result.created_at,
        file_name=result.file_name,
        sha256=result.sha256,
        page_count=result.page_count,
        mine=result.mine,
        month=result.month,
        edition=result.edition,
        extraction_cache=result.extraction_cache,
        reference_source=result.reference_source,
        reference_status=result.reference_status,
        reference_calls=result.reference_calls,
        pages_read=result.pages_read,
        repeats=result.repeats,
        tasks=tasks_from_events(events),
        artifacts=artifacts,
        findings=sorted_findings(result),  # numbered as in the report's findings table
        recalcs=result.recalcs,
    )


def save_record(reports_dir: Path, record: ProvenanceRecord) -> Path:
    """Write the record as JSON beside the report; returns its path."""
    path = record_path(reports_dir, record.report_id)
    path.write_text(record.model_dump_json(indent=1), encoding="utf-8")
    return path


def load_record(reports_dir: Path, report_id: str) -> ProvenanceRecord | None:
    """The record of ``report_id``, or None when there is none."""
    path = record_path(reports_dir, report_id)
    if not path.is_file():
        return None
    return ProvenanceRecord.model_validate_json(path.read_text(encoding="utf-8"))


def _squash(text: str | None) -> str:
    """Text reduced to what a figure's reading keeps: NFKC (m³ → m3), letters, CJK, digits and points;
    the parser drops labels' punctuation (``取最大值：Q 需 =`` is read as ``取最大值Q需=``)."""
    return re.sub(r"[^\w.]", "", unicodedata.normalize("NFKC", text or ""))


def _pdf_link(ev: Evidence, extracted: ExtractedPdf | None) -> TraceLink:
    where = f"第{ev.page}页" + (
        f" 表{ev.table} 第{ev.row}行 {ev.column or ''}列" if ev.table is not None else ""
    )
    detail = {"page": ev.page, "table": ev.table, "row": ev.row, "column": ev.column, "text": ev.text}
    if extracted is None:
        return TraceLink(
            kind="pdf",
            status="unverifiable",
            what=where,
            reason="提取结果已不存在（缓存已清理）",
            detail=detail,
        )
    page = next((p for p in extracted.pages if p.page == ev.page), None)
    if page is None:
        return TraceLink(
            kind="pdf", status="broken", what=where, reason=f"PDF 没有第{ev.page}页", detail=detail
        )
    needle = _squash(ev.text)
    if ev.table is not None:
        # evidence numbers tables and rows from 1 on their page; the extraction from 0
        table = next((t for t in extracted.tables if t.page == ev.page and t.index == ev.table - 1), None)
        if table is None:
            return TraceLink(
                kind="pdf",
                status="broken",
                what=where,
                reason=f"第{ev.page}页没有表{ev.table}",
                detail=detail,
            )
        if table is not None:
            # ``row`` is the plan's row number (序号 or data row); ``cell_row`` the table's own row
            cell_row = ev.detail.get("cell_row", ev.row)
            cells = [c for c in table.cells if c.row == cell_row - 1] if cell_row is not None else table.cells
            row_text = _squash("".join(c.text or "" for c in cells))
            if not cells:
                return TraceLink(
                    kind="pdf", status="broken", what=where, reason="表格中没有该行", detail=detail
                )
            if needle and needle not in row_text:
                return TraceLink(
                    kind="pdf", status="broken", what=where, reason="该行中找不到所引文字", detail=detail
                )
            return TraceLink(
                kind="pdf", status="ok", what=where, detail={**detail, "cells": [c.text for c in cells]}
            )
    if needle and needle not in _squash(page.text):
        return TraceLink(
            kind="pdf", status="broken", what=where, reason="该页中找不到所引文字", detail=detail
        )
    return TraceLink(kind="pdf", status="ok", what=where, detail=detail)


def _rerun(method: str, inputs: dict[str, Any], coefficients: list[Coefficient]) -> float | None:
    """Call the calculator again with the recorded inputs and the coefficients that were given (matched
    to their parameters by symbol, as :data:`calc.PARAMS` labels them); None when it cannot be called."""
    info = CATALOG.get(method)
    if info is None:
        return None
    params = inspect.signature(info.func).parameters
    kwargs = {k: v for k, v in inputs.items() if k in params and v is not None}
    for coef in coefficients:
        if coef.origin != "given":
            continue
        for name in params:
            doc = PARAMS.get(name)
            if name not in kwargs and doc is not None and doc.label_cn.split()[-1] == coef.symbol:
                kwargs[name] = coef.value
    try:
        return float(info.func(**kwargs).value)
    except Exception:  # inputs no longer accepted: the link cannot be re-checked
        return None


def _calc_link(ev: Evidence, finding: Finding, recalcs: list[LocationRecalc]) -> TraceLink:
    method = str(ev.detail.get("method", ""))
    what = f"{method_title(method)}：{ev.detail.get('substituted') or ''}".strip("：")
    recalc = next((r for r in recalcs if r.location == finding.location and r.result is not None), None)
    if recalc is None or recalc.result is None:
        reason = "没有该地点的核算记录" if finding.location else "全矿汇总项：没有单一地点的核算记录可复核"
        return TraceLink(kind="calc", status="unverifiable", what=what, reason=reason, detail=ev.detail)
    candidates = [recalc.result, *recalc.result.methods]
    step = next((c for c in candidates if c.method == method), None)
    if step is None:
        return TraceLink(
            kind="calc", status="broken", what=what, reason=f"核算记录中没有方法 {method}", detail=ev.detail
        )
    again = _rerun(step.method, step.inputs, step.coefficients)
    detail = {
        **ev.detail,
        "title": method_title(step.method),
        "inputs": step.inputs,
        "arguments": argument_rows(step.inputs),
        "value": step.value,
        "unit": step.unit,
        "formula": step.formula,
    }
    if again is None:
        return TraceLink(
            kind="calc", status="unverifiable", what=what, reason="无法用记录的输入重新计算", detail=detail
        )
    if abs(again - step.value) > max(0.05, 1e-6 * abs(step.value)):
        return TraceLink(
            kind="calc",
            status="broken",
            what=what,
            reason=f"重新计算得 {again}，记录为 {step.value}",
            detail=detail,
        )
    return TraceLink(kind="calc", status="ok", what=what, detail={**detail, "recomputed": again})


def _recalc_links(finding: Finding, recalcs: list[LocationRecalc]) -> list[TraceLink]:
    """For a calculation finding without a calculator record of its own: the location's recomputation
    (the governing method, re-run), which the figures compared rest on."""
    recalc = next((r for r in recalcs if r.location == finding.location and r.result is not None), None)
    if recalc is None or recalc.result is None:
        return []
    governing = recalc.result.governing or recalc.result.method
    ev = Evidence(
        kind="calc", detail={"method": governing, "substituted": "", "maximum": recalc.result.value}
    )
    return [_calc_link(ev, finding, recalcs)]


def _reference_link(ev: Evidence, record: ProvenanceRecord) -> TraceLink:
    tool = str(ev.detail.get("tool", ""))
    what = (
        f"{tool_title(tool)}（{ev.detail.get('mine')} {ev.detail.get('month')}）{ev.detail.get('key') or ''}"
    )
    calls = [c for c in record.reference_calls if c.get("tool") == tool]
    if not record.reference_calls:
        return TraceLink(
            kind="reference",
            status="unverifiable",
            what=what,
            reason="本次审查未记录参考数据调用",
            detail=ev.detail,
        )
    if not calls:
        return TraceLink(
            kind="reference", status="broken", what=what, reason=f"没有调用 {tool} 的记录", detail=ev.detail
        )
    ok = [c for c in calls if not c.get("error")]
    if not ok:
        return TraceLink(
            kind="reference",
            status="broken",
            what=what,
            reason=f"{tool} 调用失败：{calls[-1].get('error')}",
            detail=ev.detail,
        )
    return TraceLink(kind="reference", status="ok", what=what, detail={**ev.detail, "call": ok[-1]})


def _clause_link(label: str, edition: str, kb: KnowledgeBase, text: str | None = None) -> TraceLink:
    m = _ARTICLE.search(label)
    ed = _EDITION.search(label)
    edition = ed.group(1) if ed else edition
    if m is None or "煤矿安全规程" not in label:
        return TraceLink(
            kind="clause",
            status="ok",
            what=label,
            reason="知识库之外的依据（标准或工程实践），按名称引用",
            detail={"in_kb": False},
        )
    number = int(m.group(1))
    article = kb.article(number, edition)
    if article is None:
        return TraceLink(
            kind="clause",
            status="broken",
            what=label,
            reason=f"知识库中没有 {edition} 版第{number}条",
            detail={"article": number, "edition": edition},
        )
    return TraceLink(
        kind="clause",
        status="ok",
        what=label,
        detail={"article": number, "edition": edition, "in_kb": True, "text": text},
    )


def trace_finding(record: ProvenanceRecord, index: int, kb: KnowledgeBase) -> FindingTrace:
    """The chain of finding ``index`` (1-based). Raises IndexError for an index out of range."""
    if not 1 <= index <= len(record.findings):
        raise IndexError(index)
    finding = record.findings[index - 1]
    extracted = _load_extraction(record.extraction_cache)
    links: list[TraceLink] = []
    for ev in finding.evidence:
        if ev.kind == "pdf":
            links.append(_pdf_link(ev, extracted))
        elif ev.kind == "calc":
            links.append(_calc_link(ev, finding, record.recalcs))
        elif ev.kind == "reference":
            links.append(_reference_link(ev, record))
        elif ev.kind == "clause":
            label = f"《煤矿安全规程》（{ev.detail.get('edition')}版）第{ev.detail.get('article')}条"
            links.append(_clause_link(label, record.edition, kb, ev.text))
    if (
        finding.category in ("calculation", "units")
        and finding.location
        and not any(link.kind == "calc" for link in links)
    ):
        links.extend(_recalc_links(finding, record.recalcs))
    if finding.source and not any(link.kind == "clause" for link in links):
        links.append(_clause_link(finding.source, record.edition, kb))
    broken = next((i for i, link in enumerate(links) if link.status == "broken"), None)
    status: Literal["complete", "broken", "partial"] = (
        "broken"
        if broken is not None
        else "partial"
        if any(lk.status == "unverifiable" for lk in links)
        else "complete"
    )
    return FindingTrace(
        report_id=record.report_id, index=index, finding=finding, links=links, status=status, broken_at=broken
    )


def _load_extraction(path: str | None) -> ExtractedPdf | None:
    if not path or not Path(path).is_file():
        return None
    try:
        return ExtractedPdf.model_validate(json.loads(Path(path).read_text(encoding="utf-8")))
    except (ValueError, OSError) as exc:
        log.warning("unreadable extraction cache %s: %s", path, exc)
        return None
