"""Review reports, addressed only by their unguessable id: ``GET /static/reports/{report_id}.docx`` (the
Word file), ``GET /api/reports/{report_id}/provenance`` (what the run did and produced, every finding
with its evidence) and ``GET /api/reports/{report_id}/findings/{n}/trace`` (one finding's chain back to
its sources, each link checked again)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path as FilePath
from typing import Annotated, Any

from fastapi import APIRouter, Path
from fastapi.responses import FileResponse

from vent_agent.api.deps import StateDep
from vent_agent.api.errors import ApiError
from vent_agent.api.json_body import ApiRoute
from vent_agent.kb.search import get_knowledge_base
from vent_agent.review.findings import GENERAL_LOCATION
from vent_agent.review.outputs.provenance import ProvenanceRecord, load_record, trace_finding
from vent_agent.state import AppState
from vent_agent.store.models import ReportRow
from vent_agent.times import stored_local_time

router = APIRouter(tags=["reports"], route_class=ApiRoute)

_REPORT_ID = re.compile(r"^vent_review_[0-9a-f]{32}_\d{8}$")
DOCX_MEDIA = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


@router.get("/static/reports/{file_name}")
async def download_report(file_name: str, state: StateDep) -> FileResponse:
    """The .docx of a review; 404 for an unknown or malformed id."""
    report_id = file_name.removesuffix(".docx")
    if not file_name.endswith(".docx") or not _REPORT_ID.match(report_id):
        raise ApiError(404, "报告不存在")
    async with state.db.session() as s:
        row = await s.get(ReportRow, report_id)
    if row is None or not FilePath(row.path).is_file():
        raise ApiError(404, "报告不存在")
    download_name = f"审查报告_{FilePath(row.file_name).stem}.docx"
    return FileResponse(row.path, media_type=DOCX_MEDIA, filename=download_name)


def _record(state: AppState, report_id: str) -> ProvenanceRecord:
    if not _REPORT_ID.match(report_id):
        raise ApiError(404, "报告不存在")
    record = load_record(state.settings.reports_dir, report_id)
    if record is None:
        raise ApiError(404, "报告不存在或没有溯源记录")
    return record


@router.get("/api/reports/{report_id}/provenance")
async def report_provenance(report_id: str, state: StateDep) -> dict[str, Any]:
    """The task chain (reviewers' tool calls, reference-data calls with inputs and outputs, artifacts
    with sha256) and the findings with their evidence, numbered as in the report; a finding's ``place``
    is its location as the report and the CLI name it (:data:`GENERAL_LOCATION` for the plan as a whole)."""
    record = _record(state, report_id)
    body = record.model_dump(mode="json", exclude={"findings", "recalcs"})
    # kept with its offset; answered in the mine's local time like every time of the service
    body["created_at"] = stored_local_time(record.created_at, state.settings.timezone)
    # file names only: server paths are nobody's business
    body["extraction_cache"] = FilePath(record.extraction_cache).name if record.extraction_cache else None
    for artifact in body["artifacts"]:
        artifact["path"] = FilePath(artifact["path"]).name
    body["findings"] = [
        {
            "index": i,
            "location": f.location,
            "place": f.location or GENERAL_LOCATION,
            "category": f.category,
            "severity": f.severity,
            "message": f.message,
            "rule_id": f.rule_id,
            "consequences": [c.model_dump(mode="json") for c in f.consequences],
            "source": f.source,
            "page": f.page,
            "evidence": [e.model_dump(mode="json") for e in f.evidence],
            "trace_url": f"/api/reports/{report_id}/findings/{i}/trace",
        }
        for i, f in enumerate(record.findings, start=1)
    ]
    return body


@router.get("/api/reports/{report_id}/findings/{n}/trace")
async def finding_trace(
    report_id: str, n: Annotated[int, Path(ge=1, le=10_000)], state: StateDep
) -> dict[str, Any]:
    """Finding ``n`` (1-based, report order) traced back to its PDF cells, calculator calls, reference
    records and clauses; ``status`` complete | partial | broken and ``broken_at``."""
    record = _record(state, report_id)
    kb = get_knowledge_base(state.settings.kb_dir, state.settings.regulation_edition)
    try:
        trace = await asyncio.to_thread(trace_finding, record, n, kb)
    except IndexError as exc:
        raise ApiError(404, f"报告中没有第 {n} 条发现（共 {len(record.findings)} 条）") from exc
    return trace.model_dump(mode="json")
