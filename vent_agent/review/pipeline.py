"""The plan review pipeline shared by ``POST /api/vent/review/pdf`` and ``vent-agent review``.

extract (cached by sha256 and parser version unless ``force_refresh``) with per-page ``progress`` →
structured plan → form-reviewer, data-checker and calc-verifier in parallel (``agent_*`` events) →
:class:`ReviewResult`. Rendering (Markdown tokens, Word report) is :mod:`vent_agent.review.publish`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol
from zoneinfo import ZoneInfo

from vent_agent.documents.pdf_text import PdfError, extract_pdf
from vent_agent.documents.plan import Plan
from vent_agent.documents.plan_parser import parse_plan
from vent_agent.review.calc_rules import review_calc
from vent_agent.review.data_rules import review_data
from vent_agent.review.findings import Finding
from vent_agent.review.form_rules import review_form
from vent_agent.review.reference import ReferenceData
from vent_agent.review.result import REVIEWERS, LocationRecalc, ReviewerOutcome, ReviewResult
from vent_agent.settings import Settings

log = logging.getLogger(__name__)

PARSER_VERSION = "plan-parser-2"


class Emit(Protocol):
    """``await emit(type, **fields)`` appends one event."""

    def __call__(self, type_: str, /, **fields: Any) -> Awaitable[None]: ...


class ReviewFailed(Exception):
    """The plan could not be reviewed at all (unreadable PDF…); ``message`` is for the user."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class ReviewRequest:
    """One plan to review: the stored PDF, its sha256, the client's file name."""

    path: Path
    sha256: str
    file_name: str
    force_refresh: bool = False
    message: str | None = None


async def load_plan(req: ReviewRequest, settings: Settings, emit: Emit) -> Plan:
    """The structured plan of ``req``: from the cache, or extracted and parsed off the event loop.

    Raises :class:`ReviewFailed` when the PDF cannot be read (encrypted, truncated, too many pages).
    """
    cache = settings.cache_dir / f"{req.sha256}.{PARSER_VERSION}.json"
    if cache.exists() and not req.force_refresh:
        try:
            plan = Plan.model_validate_json(cache.read_text(encoding="utf-8"))
            await emit("progress", message="已命中解析缓存，跳过文本提取", agent="system", hash_id=req.sha256)
            return plan
        except ValueError:
            log.warning("ignoring unreadable cache file %s", cache)
    loop = asyncio.get_running_loop()

    def on_page(page: int, total: int) -> None:
        fut = asyncio.run_coroutine_threadsafe(
            emit(
                "progress",
                message=f"正在提取第 {page}/{total} 页文本...",
                agent="system",
                hash_id=req.sha256,
                page_progress={"page": page, "total": total},
            ),
            loop,
        )
        fut.result(timeout=30)

    def work() -> Plan:
        extracted = extract_pdf(req.path, max_pages=settings.max_pdf_pages, on_page=on_page)
        return parse_plan(extracted)

    try:
        plan = await asyncio.to_thread(work)
    except PdfError as exc:
        raise ReviewFailed(str(exc)) from exc
    settings.cache_dir.mkdir(parents=True, exist_ok=True)
    tmp = cache.with_suffix(".tmp")
    tmp.write_text(plan.model_dump_json(), encoding="utf-8")
    tmp.replace(cache)
    return plan


ReviewerBody = Callable[[Plan, Emit], Awaitable[tuple[list[Finding], list[LocationRecalc]]]]


async def _form(plan: Plan, emit: Emit) -> tuple[list[Finding], list[LocationRecalc]]:
    await emit(
        "agent_todos",
        agent="form-reviewer",
        message="「基本形式审查」已更新任务进度",
        todos=[
            {"content": "版本与编制日期", "status": "in_progress"},
            {"content": "审批签字与日期顺序", "status": "pending"},
            {"content": "各地点计算过程完整性", "status": "pending"},
        ],
    )
    return await asyncio.to_thread(review_form, plan), []


def _data_body(reference: ReferenceData | None) -> ReviewerBody:
    async def body(plan: Plan, emit: Emit) -> tuple[list[Finding], list[LocationRecalc]]:
        tools = [
            "query_monthly_mining_plan",
            "query_gas_identification_report",
            "query_working_face_procedure",
            "query_ventilation_report",
        ]
        await emit(
            "agent_executing",
            agent="data-checker",
            tools=tools,
            message="「数据一致性审查」正在查询采掘计划、瓦斯鉴定报告、作业规程与测风报表...",
        )
        findings = await asyncio.to_thread(review_data, plan, reference)
        for tool in tools:
            await emit(
                "agent_tool_result", agent="data-checker", tool=tool, message=f"「数据一致性审查」{tool} 完成"
            )
        return findings, []

    return body


async def _calc(plan: Plan, emit: Emit) -> tuple[list[Finding], list[LocationRecalc]]:
    async def on_location(location: str, tool: str, done: bool) -> None:
        if done:
            await emit(
                "agent_tool_result",
                agent="calc-verifier",
                tool=tool,
                message=f"「计算核验审查」{location} 需风量核算 完成",
            )
        else:
            await emit(
                "agent_executing",
                agent="calc-verifier",
                tools=[tool],
                message=f"「计算核验审查」正在核算 {location} 需风量...",
            )

    return await review_calc(plan, on_location=on_location)


def _preview(agent: str, findings: list[Finding]) -> str:
    lines = [f"## {REVIEWERS[agent]}结果", f"发现问题 {len(findings)} 项。"]
    for f in findings[:5]:
        lines.append(f"- [{f.severity.value}] {f.location or '全局'}：{f.message}")
    return "\n".join(lines)[:300]


async def run_reviewers(
    plan: Plan, emit: Emit, reference: ReferenceData | None
) -> tuple[list[ReviewerOutcome], list[LocationRecalc]]:
    """Run the three reviewers in parallel; a failing reviewer gives ``agent_error`` and the others go on."""
    bodies: dict[str, ReviewerBody] = {
        "form-reviewer": _form,
        "data-checker": _data_body(reference),
        "calc-verifier": _calc,
    }
    completed = 0
    lock = asyncio.Lock()

    async def run_one(agent: str, body: ReviewerBody) -> tuple[ReviewerOutcome, list[LocationRecalc]]:
        nonlocal completed
        cn = REVIEWERS[agent]
        started = time.perf_counter()
        await emit("agent_thinking", agent=agent, message=f"「{cn}」正在分析...")
        try:
            findings, recalcs = await body(plan, emit)
        except Exception as exc:  # one reviewer failing must not stop the others
            log.exception("reviewer %s failed", agent)
            duration = int((time.perf_counter() - started) * 1000)
            async with lock:
                completed += 1
                await emit(
                    "agent_error",
                    agent=agent,
                    message=f"「{cn}」审查出错",
                    error=f"{type(exc).__name__}: {exc}",
                    progress=f"{completed}/{len(bodies)}",
                )
            return ReviewerOutcome(
                agent=agent, error=f"{type(exc).__name__}: {exc}", duration_ms=duration
            ), []
        for f in findings:
            f.reviewer = agent
        duration = int((time.perf_counter() - started) * 1000)
        async with lock:
            completed += 1
            await emit(
                "agent_done",
                agent=agent,
                message=f"「{cn}」审查完成",
                preview=_preview(agent, findings),
                progress=f"{completed}/{len(bodies)}",
                duration_ms=duration,
                findings=len(findings),
            )
        return ReviewerOutcome(agent=agent, findings=findings, duration_ms=duration), recalcs

    for agent in bodies:
        await emit("agent_start", agent=agent, message=f"「{REVIEWERS[agent]}」开始审查...")
    results = await asyncio.gather(*(run_one(a, b) for a, b in bodies.items()))
    outcomes = [o for o, _ in results]
    recalcs = [r for _, rs in results for r in rs]
    return outcomes, recalcs


async def review_plan(
    req: ReviewRequest, settings: Settings, emit: Emit, reference: ReferenceData | None
) -> ReviewResult:
    """Review one plan PDF end to end (without rendering). Raises :class:`ReviewFailed`."""
    await emit(
        "progress",
        message=f"PDF 文件已保存，HashID: {req.sha256[:12]}...，正在提取文本内容...",
        agent="system",
        hash_id=req.sha256,
    )
    plan = await load_plan(req, settings, emit)
    if not plan.locations and not plan.allocation:
        raise ReviewFailed(
            "未能从 PDF 中识别出配风计划内容（无用风地点与风量分配表）；如为扫描件，请等待 OCR 支持"
        )
    await emit(
        "progress",
        message=f"PDF 文本提取完成，共 {plan.char_count} 字符。正在初始化审查智能体...",
        agent="system",
        hash_id=req.sha256,
    )
    await emit("progress", message="3个审查智能体已就绪，正在并行执行审查...", agent="system")
    outcomes, recalcs = await run_reviewers(plan, emit, reference)
    await emit("progress", message="3个子智能体均已审查完成，正在汇总审查结果...", agent="system")
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
        recalcs=recalcs,
        plan_warnings=plan.warnings,
    )
