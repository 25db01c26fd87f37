"""Provenance of a review report: the task chain and artifacts, and a finding traced back to its
sources — plan b's 15216 maximum-not-taken finding back to its page and cells and its calculator calls;
a data finding to its MCP record; a tampered record shows where the chain breaks."""

from __future__ import annotations

import json

import httpx

from tests.helpers import parse_spec_stream
from vent_agent.review.provenance import record_path


async def review(client: httpx.AsyncClient, pdf) -> tuple[str, list[dict]]:  # type: ignore[no-untyped-def]
    with pdf.open("rb") as fh:
        resp = await client.post("/api/vent/review/pdf", files={"file": (pdf.name, fh, "application/pdf")})
    events = parse_spec_stream(resp.text)
    url = events[-1]["download_url"]
    return url.rsplit("/", 1)[-1].removesuffix(".docx"), events


async def test_provenance_and_the_15216_maximum_trace(app, client: httpx.AsyncClient, plan_b_pdf) -> None:
    report_id, events = await review(client, plan_b_pdf)
    prov = (await client.get(f"/api/reports/{report_id}/provenance")).json()
    assert prov["sha256"] and prov["run_id"] == events[-1]["run_id"]
    docx = prov["artifacts"][0]
    assert docx["kind"] == "docx" and len(docx["sha256"]) == 64 and docx["download_url"].endswith(".docx")
    assert {t["agent"] for t in prov["tasks"] if t.get("agent")} >= {
        "form-reviewer",
        "data-checker",
        "calc-verifier",
    }
    assert {c["tool"] for c in prov["reference_calls"]} == {
        "query_monthly_mining_plan",
        "query_working_face_procedure",
        "query_gas_identification_report",
        "query_ventilation_report",
    }
    # the 15216 face: the plan takes 630 while the maximum (climate) is 1132.2
    idx = next(
        f["index"]
        for f in prov["findings"]
        if f["location"] == "15216综采工作面" and f["category"] == "calculation" and "最大值" in f["message"]
    )
    trace = (await client.get(f"/api/reports/{report_id}/findings/{idx}/trace")).json()
    assert trace["status"] == "complete" and trace["broken_at"] is None
    kinds = [link["kind"] for link in trace["links"]]
    assert "pdf" in kinds and "calc" in kinds
    pdf_links = [lk for lk in trace["links"] if lk["kind"] == "pdf"]
    assert all(lk["status"] == "ok" for lk in pdf_links)
    assert len(pdf_links) >= 2  # the calculation line and the allocation table's cell
    cell = next(lk for lk in pdf_links if lk["detail"].get("cells"))
    assert cell["detail"]["table"] and cell["detail"]["row"] and "630" in cell["detail"]["text"]
    calc = next(lk for lk in trace["links"] if lk["kind"] == "calc")
    assert calc["status"] == "ok" and calc["detail"]["recomputed"] == calc["detail"]["value"]


async def test_data_finding_traces_to_its_mcp_record(app, client: httpx.AsyncClient, plan_b_pdf) -> None:
    report_id, _ = await review(client, plan_b_pdf)
    prov = (await client.get(f"/api/reports/{report_id}/provenance")).json()
    idx = next(
        f["index"]
        for f in prov["findings"]
        if f["location"] == "15220回风顺槽掘进工作面" and f["category"] == "data"
    )
    trace = (await client.get(f"/api/reports/{report_id}/findings/{idx}/trace")).json()
    ref = next(lk for lk in trace["links"] if lk["kind"] == "reference")
    assert ref["status"] == "ok" and ref["detail"]["call"]["tool"] == "query_gas_identification_report"


async def test_a_broken_chain_says_where(app, client: httpx.AsyncClient, plan_b_pdf) -> None:
    report_id, _ = await review(client, plan_b_pdf)
    path = record_path(app.state.vent.settings.reports_dir, report_id)
    record = json.loads(path.read_text(encoding="utf-8"))
    n, finding = next(
        (i, f) for i, f in enumerate(record["findings"], 1) if any(e["kind"] == "pdf" for e in f["evidence"])
    )
    ev = next(e for e in finding["evidence"] if e["kind"] == "pdf")
    ev["page"] = 99  # a page the plan does not have
    path.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    trace = (await client.get(f"/api/reports/{report_id}/findings/{n}/trace")).json()
    assert trace["status"] == "broken"
    broken = trace["links"][trace["broken_at"]]
    assert broken["kind"] == "pdf" and "第99页" in broken["reason"]


async def test_unknown_report_and_finding_are_404(app, client: httpx.AsyncClient, plan_b_pdf) -> None:
    assert (await client.get("/api/reports/nope/provenance")).status_code == 404
    assert (await client.get(f"/api/reports/vent_review_{'0' * 32}_20260801/provenance")).status_code == 404
    report_id, _ = await review(client, plan_b_pdf)
    assert (await client.get(f"/api/reports/{report_id}/findings/999/trace")).status_code == 404
    assert (await client.get(f"/api/reports/{report_id}/findings/0/trace")).status_code == 400


async def test_trace_numbers_are_the_report_table_numbers(app, client: httpx.AsyncClient, plan_b_pdf) -> None:
    from reports.content import sorted_findings  # noqa: F401  (the report's order)

    report_id, events = await review(client, plan_b_pdf)
    prov = (await client.get(f"/api/reports/{report_id}/provenance")).json()
    markdown = "".join(e["content"] for e in events if e["type"] == "token")
    table = markdown.split("## 二、问题清单")[1].split("## 三")[0]
    rows = [ln for ln in table.splitlines() if ln.startswith("| ") and ln.split("|")[1].strip().isdigit()]
    for row, f in zip(rows, prov["findings"], strict=True):
        assert int(row.split("|")[1]) == f["index"]
        assert (f["location"] or "全矿") in row or f["location"] is None


async def test_provenance_shows_no_server_paths(app, client: httpx.AsyncClient, plan_a_pdf) -> None:
    with plan_a_pdf.open("rb") as fh:
        r = await client.post("/api/vent/review/pdf", files={"file": ("a.pdf", fh, "application/pdf")})
    rid = parse_spec_stream(r.text)[-1]["download_url"].rsplit("/", 1)[-1].removesuffix(".docx")
    body = (await client.get(f"/api/reports/{rid}/provenance")).json()
    assert "/" not in (body["extraction_cache"] or "") and all(
        "/" not in a["path"] for a in body["artifacts"]
    )
