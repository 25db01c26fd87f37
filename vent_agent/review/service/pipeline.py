"""The plan review pipeline shared by ``POST /api/vent/review/pdf`` and ``vent-agent review``.

extract (cached by sha256 and parser version unless ``force_refresh``) with per-page ``progress`` →
structured plan → form-reviewer, data-checker and calc-verifier in parallel (``agent_*`` events) →
:class:`ReviewResult`. Rendering (Markdown tokens, Word report) is :mod:`vent_agent.review.service.publish`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TypeVar
from zoneinfo import ZoneInfo

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel

from vent_agent.documents.ocr import (
    OCR_LAYOUT_VERSION,
    OcrEngine,
    OcrUnavailable,
    load_configured_engine,
    ocr_pages,
)
from vent_agent.documents.ocr.blank import blank_pages
from vent_agent.documents.pdf_text import ExtractedPdf, PdfError, extract_pdf
from vent_agent.documents.plan.model import Plan
from vent_agent.documents.quality import describe_bad
from vent_agent.documents.reading import read_plan
from vent_agent.events import (
    EventModel,
    OcrProgress,
    PageProgress,
    ReviewProgress,
)
from vent_agent.events import Send as Emit
from vent_agent.mcp.client import ReferenceOutcome, ReferenceStatus
from vent_agent.observability import metrics
from vent_agent.review.checks.repeat_rules import page_ranges, with_copy_pages
from vent_agent.review.findings import Finding
from vent_agent.review.judgement.consequences import fold_reference_mismatches, with_effects
from vent_agent.review.judgement.model_reading import cap_model_findings, read_unmapped_tables
from vent_agent.review.judgement.plausibility import audit_plan, gate_findings, unreadable_message
from vent_agent.review.judgement.read_scope import (
    ReadScope,
    judge_only_what_was_read,
    read_scope,
    scope_finding,
)
from vent_agent.review.reference import ReferenceData
from vent_agent.review.result import ReviewerOutcome, ReviewResult
from vent_agent.review.reviewers import run_reviewers
from vent_agent.runs.slots import FairSlots, HeldSlot
from vent_agent.settings import Settings

log = logging.getLogger(__name__)

PARSER_VERSION = (
    "plan-parser-5"  # 5: established locations, prose sign-offs and allocation, the mine by its name
)
EXTRACTOR_VERSION = "extract-4"  # 4: pages turned sideways by /Rotate read upright
"""Text-layer extraction version; with :data:`OCR_LAYOUT_VERSION` and the engine, the extractor's id."""
T = TypeVar("T", bound=BaseModel)


class ReviewFailed(Exception):
    """The plan could not be reviewed at all (unreadable PDF…); ``message`` is for the user."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class ReviewRequest:
    """One plan to review: the stored PDF, its sha256, the client's file name; ``owner``: whose OCR
    jobs it counts among (a user name, or ``client:<address>``; :class:`~vent_agent.runs.slots.FairSlots`)."""

    path: Path
    sha256: str
    file_name: str
    force_refresh: bool = False
    message: str | None = None
    owner: str = ""


def extractor_id(engine: str) -> str:
    """The extractor's version for the cache key: text layer, OCR layout and the OCR engine's name."""
    return f"{EXTRACTOR_VERSION}.{OCR_LAYOUT_VERSION}.{engine}"


def _threadsafe(emit: Emit, loop: asyncio.AbstractEventLoop) -> Callable[[EventModel], None]:
    """``emit`` callable from a worker thread (waits until the event is written)."""

    async def send(event: EventModel) -> None:
        await emit(event)

    def call(event: EventModel) -> None:
        asyncio.run_coroutine_threadsafe(send(event), loop).result(timeout=30)

    return call


def _read_cache(path: Path, model: type[T]) -> T | None:
    try:
        return model.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        log.warning("ignoring unreadable cache file %s", path)
        return None


def _write_cache(path: Path, model: BaseModel) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{uuid.uuid4().hex}.tmp")
    tmp.write_text(model.model_dump_json(), encoding="utf-8")
    tmp.replace(path)


_REASON_CN = {"no_text_layer": "没有文字层", "garbage_text_layer": "文字层为乱码"}


def _ocr_pages_cn(extracted: ExtractedPdf) -> str:
    """``2 页没有文字层（扫描件），第 3、4 页文字层为乱码（私用区字符 812 个）``: the pages to OCR and why."""
    reasons = extracted.ocr_reasons()
    parts = []
    scanned = [p for p, r in reasons.items() if r == "no_text_layer"]
    if scanned:
        parts.append(f" {len(scanned)} 页没有文字层（扫描件）")
    garbage = [p for p, r in reasons.items() if r == "garbage_text_layer"]
    if garbage:
        kinds: Counter[str] = Counter()
        for p in garbage:
            layer = extracted.page(p).layer  # scored: a page is garbage by its layer's score
            if layer is not None:
                kinds.update(layer.bad_kinds)
        parts.append(f"第 {'、'.join(map(str, garbage))} 页文字层为乱码（{describe_bad(kinds)}）")
    return "，".join(parts)


class _OcrStopped(Exception):
    """Raised inside the OCR thread when the run waiting for it was cancelled."""


async def _skip_blank(req: ReviewRequest, extracted: ExtractedPdf, emit: Emit) -> list[int]:
    """The pages to OCR: those without a usable text layer, less the blank or near-blank ones
    (:func:`~vent_agent.documents.ocr.blank.blank_pages`, cheap statistics of a low-scale rendering).
    Raises :class:`ReviewFailed` when no page of the PDF is worth reading (no text layer anywhere, every
    page blank): refused in seconds, before any OCR."""
    missing = extracted.pages_without_text
    blank = await asyncio.to_thread(blank_pages, req.path, missing)
    if not blank:
        return missing
    if len(blank) == extracted.page_count:
        raise ReviewFailed(
            f"PDF 共 {extracted.page_count} 页，全部为空白或近乎空白的页面（无文字层，页面上几乎没有字迹），"
            "不是配风计划：未进行 OCR。请确认上传的是配风计划文件，扫描件请检查是否扫描成功"
        )
    await emit(
        ReviewProgress(
            message=f"跳过 {len(blank)} 页空白或近乎空白的页面（第 {page_ranges(blank)} 页），不做 OCR",
            hash_id=req.sha256,
        )
    )
    skipped = set(blank)
    return [p for p in missing if p not in skipped]


async def _ocr(
    req: ReviewRequest,
    extracted: ExtractedPdf,
    settings: Settings,
    emit: Emit,
    ocr_slots: FairSlots | None,
    engine: OcrEngine | None,
    review_slot: HeldSlot | None = None,
) -> ExtractedPdf:
    """OCR the pages without a usable text layer (none, or garbage: ``ExtractedPdf.ocr_reasons``) that
    are not blank (:func:`_skip_blank`, which refuses a PDF with nothing to read), off the event loop
    and under ``ocr_slots`` (a slot of ``req.owner``'s share). The ``review_slot`` the review holds is
    given back meanwhile (a text-layer review never waits behind OCR) and taken again afterwards. Each
    page's ``ocr_progress`` carries its ``reason``."""
    missing = await _skip_blank(req, extracted, emit)
    if not missing:
        return extracted
    aside = review_slot.aside() if review_slot is not None else contextlib.nullcontext()
    async with aside:
        return await _ocr_pages(req, extracted, missing, settings, emit, ocr_slots, engine)


async def _ocr_pages(
    req: ReviewRequest,
    extracted: ExtractedPdf,
    missing: list[int],
    settings: Settings,
    emit: Emit,
    ocr_slots: FairSlots | None,
    engine: OcrEngine | None,
) -> ExtractedPdf:
    """OCR ``missing`` under a slot of ``ocr_slots`` (see :func:`_ocr`)."""
    reasons = extracted.ocr_reasons()
    what = _ocr_pages_cn(extracted)
    if engine is None and settings.ocr_engine == "none":
        await emit(
            ReviewProgress(
                message=f"{what}，OCR 已关闭（VENT_OCR_ENGINE=none），跳过识别",
                hash_id=req.sha256,
            )
        )
        return extracted
    if ocr_slots is not None and ocr_slots.would_wait(req.owner):
        await emit(ReviewProgress(message="OCR 任务排队中，请稍候...", hash_id=req.sha256, queued=True))
    async with ocr_slots.slot(req.owner) if ocr_slots is not None else contextlib.nullcontext():
        if engine is None:
            try:
                engine = await asyncio.to_thread(load_configured_engine, settings)
            except OcrUnavailable as exc:
                raise ReviewFailed(
                    f"PDF 有 {len(missing)} 页没有文字层（扫描件），但 OCR 引擎不可用：{exc}"
                ) from exc
        assert engine is not None
        await emit(
            ReviewProgress(
                message=f"检测到{what}，正在使用 {engine.name} 进行 OCR 识别...",
                hash_id=req.sha256,
            )
        )
        send = _threadsafe(emit, asyncio.get_running_loop())
        stop = threading.Event()

        last = [time.perf_counter()]

        def on_page(done: int, total: int, page: int) -> None:
            if stop.is_set():
                raise _OcrStopped
            now = time.perf_counter()
            metrics.observe_ocr_page(engine.name, now - last[0])
            last[0] = now
            reason = reasons.get(page, "no_text_layer")
            why = f"，{_REASON_CN[reason]}" if reason != "no_text_layer" else ""
            send(
                ReviewProgress(
                    message=f"{engine.name} 正在扫描第 {done}/{total} 页（PDF 第 {page} 页{why}）...",
                    hash_id=req.sha256,
                    ocr_progress=OcrProgress(page=done, total=total, pdf_page=page, reason=reason),
                )
            )

        try:
            return await asyncio.to_thread(
                ocr_pages,
                req.path,
                extracted,
                engine,
                pages=missing,
                max_render_px=settings.ocr_max_render_px,
                on_page=on_page,
            )
        except asyncio.CancelledError:
            stop.set()  # the worker stops after its current page
            raise


def extraction_cache(req: ReviewRequest, settings: Settings, ocr_engine: OcrEngine | None = None) -> Path:
    """Where the extraction (pages, tables, OCR included) of ``req`` is cached: sha256 + extractor id."""
    ext_id = extractor_id(ocr_engine.name if ocr_engine else settings.ocr_engine)
    return settings.cache_dir / f"{req.sha256}.{ext_id}.extract.json"


async def load_extracted(
    req: ReviewRequest,
    settings: Settings,
    emit: Emit,
    *,
    ocr_slots: FairSlots | None = None,
    ocr_engine: OcrEngine | None = None,
    review_slot: HeldSlot | None = None,
) -> ExtractedPdf:
    """The PDF's pages and tables: from the cache, or the text layer read (per-page ``progress`` with
    ``page_progress``) and the pages without one OCR'd (``progress`` with ``ocr_progress``).

    Raises :class:`ReviewFailed` for an unreadable PDF or an OCR engine that cannot load.
    """
    cache = extraction_cache(req, settings, ocr_engine)
    if cache.exists() and not req.force_refresh:
        cached = _read_cache(cache, ExtractedPdf)
        if cached is not None:
            await emit(ReviewProgress(message="已命中提取缓存，跳过文本提取与 OCR", hash_id=req.sha256))
            return cached
    send = _threadsafe(emit, asyncio.get_running_loop())

    def on_page(page: int, total: int) -> None:
        send(
            ReviewProgress(
                message=f"正在提取第 {page}/{total} 页文本...",
                hash_id=req.sha256,
                page_progress=PageProgress(page=page, total=total),
            )
        )

    try:
        extracted = await asyncio.to_thread(
            extract_pdf,
            req.path,
            max_pages=settings.max_pdf_pages,
            on_page=on_page,
            max_bytes=settings.max_upload_mb << 20,
        )
        if extracted.pages_without_text:
            extracted = await _ocr(req, extracted, settings, emit, ocr_slots, ocr_engine, review_slot)
    except PdfError as exc:
        raise ReviewFailed(str(exc)) from exc
    _write_cache(cache, extracted)
    return extracted


async def load_plan(
    req: ReviewRequest,
    settings: Settings,
    emit: Emit,
    *,
    ocr_slots: FairSlots | None = None,
    ocr_engine: OcrEngine | None = None,
    review_slot: HeldSlot | None = None,
) -> Plan:
    """The structured plan of ``req``: from the cache (keyed by sha256, parser and extractor version)
    unless ``force_refresh``, or extracted (:func:`load_extracted`) and parsed off the event loop.

    Raises :class:`ReviewFailed` when the PDF cannot be read (encrypted, truncated, too many pages…).
    """
    ext_id = extractor_id(ocr_engine.name if ocr_engine else settings.ocr_engine)
    cache = settings.cache_dir / f"{req.sha256}.{PARSER_VERSION}.{ext_id}.json"
    if cache.exists() and not req.force_refresh:
        plan = _read_cache(cache, Plan)
        if plan is not None:
            await emit(ReviewProgress(message="已命中解析缓存，跳过文本提取", hash_id=req.sha256))
            return plan
    extracted = await load_extracted(
        req, settings, emit, ocr_slots=ocr_slots, ocr_engine=ocr_engine, review_slot=review_slot
    )
    plan = await asyncio.to_thread(read_plan, extracted)
    _write_cache(cache, plan)
    return plan


async def _model_reading(
    plan: Plan, extracted: ExtractedPdf, model: BaseChatModel, settings: Settings, emit: Emit
) -> Plan:
    """The plan with the rows the model read from tables the rules could not map (checked first)."""

    async def progress(message: str) -> None:
        await emit(ReviewProgress(message=message))

    reading = await read_unmapped_tables(
        plan, extracted, model, timeout_s=settings.llm_timeout_s, progress=progress
    )
    return reading.plan


class _ReadGate:
    """The review's "judge only what was read" for :func:`run_reviewers`: the plan's
    :class:`ReadScope` (worked out once, with the mine's reference data for the month when the
    data-checker found it), each reviewer's findings filtered through it, and what was held back."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.scope: ReadScope | None = None
        self.held: list[str] = []

    def __call__(self, findings: list[Finding], looked_up: ReferenceOutcome | None) -> list[Finding]:
        if self.scope is None:
            ok = looked_up is not None and looked_up.status is ReferenceStatus.OK
            self.scope = read_scope(self.plan, looked_up.monthly if ok and looked_up else None)
        kept, held = judge_only_what_was_read(findings, self.scope)
        self.held += held
        return kept

    def finish(self, outcomes: list[ReviewerOutcome]) -> ReadScope:
        """Add the one info finding of what was not read (form-reviewer) and return the scope."""
        scope = self.scope or read_scope(self.plan)
        info = scope_finding(scope, self.held)
        form = next((o for o in outcomes if o.agent == "form-reviewer" and o.error is None), None)
        if info is not None and form is not None:
            form.findings.append(info)
        return scope


async def review_plan(
    req: ReviewRequest,
    settings: Settings,
    emit: Emit,
    reference: ReferenceData | None = None,
    *,
    ocr_slots: FairSlots | None = None,
    ocr_engine: OcrEngine | None = None,
    remarks_model: BaseChatModel | None = None,
    review_slot: HeldSlot | None = None,
) -> ReviewResult:
    """Review one plan PDF end to end (without rendering). Raises :class:`ReviewFailed`.

    ``reference`` (tests, benchmarks) replaces the embedded MCP server's reference data (None: the data
    ``settings`` name). ``ocr_slots`` (the app's ``AppState.ocr_slots``) bounds concurrent OCR; the
    ``review_slot`` the caller holds is given back while this review waits for and runs its OCR;
    ``ocr_engine`` replaces the engine of ``settings.ocr_engine`` (tests, benchmarks); ``remarks_model``
    (None: no model configured) writes the reviewers' language and logic remarks, each call at most
    ``settings.llm_timeout_s`` s.
    """
    await emit(
        ReviewProgress(
            message=f"PDF 文件已保存，HashID: {req.sha256[:12]}...，正在提取文本内容...", hash_id=req.sha256
        )
    )
    plan = await load_plan(
        req, settings, emit, ocr_slots=ocr_slots, ocr_engine=ocr_engine, review_slot=review_slot
    )
    if settings.review_model_reading and remarks_model is not None:  # optional reading aid (model_reading)
        extracted = await load_extracted(req, settings, emit, ocr_slots=ocr_slots, ocr_engine=ocr_engine)
        plan = await _model_reading(plan, extracted, remarks_model, settings, emit)
    if not plan.locations and not plan.allocation:
        hint = ""
        if any("pages without a text layer" in w for w in plan.warnings):
            hint = "；PDF 含无文字层的扫描页" + (
                "，OCR 已关闭（VENT_OCR_ENGINE=none）"
                if settings.ocr_engine == "none" and ocr_engine is None
                else "，OCR 未识别出可用内容（请检查扫描清晰度）"
            )
        garbage = [p.page for p in plan.pages_read if p.ocr_reason == "garbage_text_layer"]
        if garbage:
            hint += f"；第 {'、'.join(map(str, garbage))} 页文字层为乱码"
        raise ReviewFailed(f"未能从 PDF 中识别出配风计划内容（无用风地点与风量分配表）{hint}")
    checks, coverage = audit_plan(plan)
    if coverage.unreadable:
        raise ReviewFailed(unreadable_message(coverage))
    await emit(
        ReviewProgress(
            message=f"PDF 文本提取完成，共 {plan.char_count} 字符。正在初始化审查智能体...",
            hash_id=req.sha256,
        )
    )
    await emit(ReviewProgress(message="3个审查智能体已就绪，正在并行执行审查..."))
    read_gate = _ReadGate(plan)
    reviewed = await run_reviewers(
        plan, emit, reference, settings, remarks_model=remarks_model, gate=read_gate
    )
    outcomes, looked_up = reviewed.outcomes, reviewed.reference
    for o in outcomes:  # no major or critical finding on a figure not read with confidence
        o.findings = cap_model_findings(gate_findings(o.findings, plan, checks), plan)
    for o, folded in zip(outcomes, fold_reference_mismatches([o.findings for o in outcomes]), strict=True):
        # a contradicted input is one finding: the recomputation with the mismatch under it; a serious
        # finding nothing else follows from says what it leads to
        o.findings = with_effects(folded)
    for o in outcomes:  # a plan read once from several copies: each finding lists the copies' pages
        o.findings = with_copy_pages(o.findings, plan.repeats)
    coverage.scope = read_gate.finish(outcomes)
    await emit(ReviewProgress(message="3个子智能体均已审查完成，正在汇总审查结果..."))
    now = datetime.now(ZoneInfo(settings.timezone))
    return ReviewResult(
        file_name=req.file_name,
        sha256=req.sha256,
        title=plan.title,
        mine=plan.mine,
        month=plan.month,
        edition=settings.regulation_edition,
        created_at=now.isoformat(timespec="seconds"),
        page_count=plan.page_count,
        reviewers=outcomes,
        recalcs=reviewed.recalcs,
        plan_warnings=plan.warnings,
        pages_read=plan.pages_read,
        repeats=plan.repeats,
        extraction_cache=str(extraction_cache(req, settings, ocr_engine)),
        reference_source=looked_up.source if looked_up else None,
        reference_status=looked_up.status.value if looked_up else None,
        reference_calls=[c.to_dict() for c in looked_up.calls] if looked_up else [],
        coverage=coverage,
    )
