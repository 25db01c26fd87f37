"""The plan-review run's body: wait for a review slot, review, stream the report, write the .docx and its
provenance record. Started by ``POST /api/vent/review/pdf`` (``vent_agent.api.review``) and, inside a chat
turn, by the supervisor's review node (``vent_agent.chat.service``)."""

from __future__ import annotations

import asyncio
from pathlib import Path as FilePath

from reports.content import verdict
from reports.front import month_check
from reports.labels import severity_label
from vent_agent.documents.upload import sha256_file
from vent_agent.events import Error, ReviewCoverage, ReviewDone, ReviewProgress, SeverityCounts
from vent_agent.observability.memory import release_memory
from vent_agent.review.findings import Severity
from vent_agent.review.outputs.provenance import Artifact, build_record, save_record
from vent_agent.review.result import ReviewResult
from vent_agent.review.service.pipeline import ReviewFailed, ReviewRequest, review_plan
from vent_agent.review.service.publish import PublishedReport, publish_docx, report_issuer, stream_markdown
from vent_agent.review.service.session_turns import record_review_answer, review_done_fields
from vent_agent.runs.agent_span import Outcome, agent_done, agent_start
from vent_agent.runs.emitter import Emitter
from vent_agent.runs.manager import RunBody
from vent_agent.runs.slots import HeldSlot
from vent_agent.state import AppState
from vent_agent.store.models import SessionRow

REVIEW_FAILED = "配风计划审查失败"
"""How the summary of a failed review begins."""


async def review_run(
    emitter: Emitter,
    state: AppState,
    req: ReviewRequest,
    base_url: str,
    session_id: str | None,
    *,
    final: bool = True,
    thread_id: str | None = None,
    agent: str | None = None,
) -> str:
    """The review run's body: wait for a review slot, review, stream the report, write the .docx and its
    provenance record.

    ``final``: end the stream with ``done`` (the review route); False inside a chat turn, whose run
    ends it. ``agent``: the agent the stream shows around the whole review (a chat turn's
    「配风计划审查」): its ``agent_start`` comes first and its ``agent_done`` (完成; 失败 when the review
    failed or raised; 中断 when the run was cancelled or timed out during it) as soon as the review and its report are done, before the provenance record is
    written, so that the record's task chain closes it. Returns a one-paragraph summary for the
    conversation. Afterwards the memory the review freed (pages, tables, the plan) is given back to
    the system (:func:`~vent_agent.observability.memory.release_memory`)."""
    try:
        return await _review_run(
            emitter, state, req, base_url, session_id, final=final, thread_id=thread_id, agent=agent
        )
    finally:
        await asyncio.to_thread(release_memory)


async def _review_run(
    emitter: Emitter,
    state: AppState,
    req: ReviewRequest,
    base_url: str,
    session_id: str | None,
    *,
    final: bool,
    thread_id: str | None,
    agent: str | None,
) -> str:
    started = await agent_start(emitter.send, agent) if agent else None

    async def close(outcome: Outcome) -> None:
        if agent and started is not None:
            await agent_done(emitter.send, agent, started, outcome=outcome)

    try:
        result, report = await _review_and_publish(emitter, state, req, base_url, session_id)
    except ReviewFailed as exc:
        await emitter.send(Error(message=exc.message))
        await close("失败")
        if final:
            await emitter.send(
                ReviewDone(session_id=session_id, thread_id=thread_id or emitter.run_id, message="审查失败")
            )
        return f"{REVIEW_FAILED}：{exc.message}"
    except asyncio.CancelledError:  # the run was cancelled or timed out: the span still ends
        await asyncio.shield(close("中断"))
        raise
    except Exception:
        await close("失败")
        raise
    await close("完成")
    await _save_provenance(emitter, state, result, report, session_id)
    counts = result.counts()
    coverage = ReviewCoverage.model_validate(result.coverage.to_event()) if result.coverage else None
    if final:
        await emitter.send(
            ReviewDone(
                session_id=session_id,
                thread_id=thread_id or emitter.run_id,
                download_url=report.download_url,
                message="审查完成",
                summary=SeverityCounts(**counts),
                verdict=verdict(result),
                month_note=month_check(result.month, result.created_at),
                coverage=coverage,
            )
        )
    else:
        await emitter.send(
            ReviewProgress(
                message="审查完成",
                download_url=report.download_url,
                summary=SeverityCounts(**counts),
                verdict=verdict(result),
                month_note=month_check(result.month, result.created_at),
                coverage=coverage,
            )
        )
    found = "，".join(f"{severity_label(Severity(k))} {v} 项" for k, v in counts.items() if v) or "未发现问题"
    return f"已完成《{req.file_name}》的配风计划审查：{found}。Word 报告：{report.download_url}"


async def _review_and_publish(
    emitter: Emitter, state: AppState, req: ReviewRequest, base_url: str, session_id: str | None
) -> tuple[ReviewResult, PublishedReport]:
    """Wait for a review slot, review the plan, stream the report as Markdown and write the .docx.
    The slot is given back while the review waits for and runs its OCR (``ocr_slots``, a separate
    limit), so text-layer reviews never wait behind scans. Raises :class:`ReviewFailed` when the plan
    cannot be reviewed."""
    if state.review_slots.locked():
        await emitter.send(ReviewProgress(message="审查任务排队中，请稍候...", queued=True))
    async with HeldSlot(state.review_slots) as slot:
        remarks_model = await state.models.chat_model()
        result = await review_plan(
            req,
            state.settings,
            emitter.send,
            remarks_model=remarks_model,
            ocr_slots=state.ocr_slots,
            review_slot=slot,
        )
        await stream_markdown(result, emitter.send, report_issuer(state.settings))
        report = await publish_docx(
            result,
            emitter.send,
            reports_dir=state.settings.reports_dir,
            base_url=base_url,
            timezone=state.settings.timezone,
            issuer=report_issuer(state.settings),
            db=state.db,
            run_id=emitter.run_id,
            session_id=session_id,
        )
    return result, report


async def _save_provenance(
    emitter: Emitter, state: AppState, result: ReviewResult, report: PublishedReport, session_id: str | None
) -> None:
    """Write the report's provenance record (task chain, artifacts, findings with evidence)."""
    await emitter.flush()
    events = [ev.payload for ev in await state.runs.events_after(emitter.run_id, 0, limit=100_000)]
    docx = FilePath(report.path)
    artifact = Artifact(
        kind="docx",
        path=str(docx),
        sha256=await asyncio.to_thread(sha256_file, docx),
        download_url=report.download_url,
    )
    record = build_record(
        result,
        report_id=report.report_id,
        run_id=emitter.run_id,
        session_id=session_id,
        events=events,
        artifacts=[artifact],
    )
    await asyncio.to_thread(save_record, state.settings.reports_dir, record)


def review_body(state: AppState, req: ReviewRequest, base_url: str, session: SessionRow | None) -> RunBody:
    """The body of a ``POST /api/vent/review/pdf`` run: the saved upload's review, ended with ``done``.
    With the caller's ``session`` the review joins its history (:mod:`vent_agent.review.service.session_turns`;
    the user turn is stored by the route before the run starts)."""

    async def body(emitter: Emitter) -> None:
        await emitter.send(
            ReviewProgress(message=f"正在保存上传的 PDF 文件《{req.file_name}》...", file_name=req.file_name)
        )
        if session is None:
            await review_run(emitter, state, req, base_url, None)
            return
        summary = await review_run(emitter, state, req, base_url, session.id, final=False)
        await record_review_answer(state, emitter, session, summary)
        await emitter.send(ReviewDone(**await review_done_fields(state, emitter, session.id)))

    return body
