"""Provenance of a review report: the task chain and artifacts, and a finding traced back to its
sources — plan b's 15216 maximum-not-taken finding back to its page and cells and its calculator calls;
a data finding to its MCP record; a tampered record shows where the chain breaks; the task chain closes
every agent it opens, on the review route and in a chat review, and shows a reviewer that failed. The
tests that only read a report share one review of plan b (``reviewed``); the others review their own."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest

from tests.chat_helpers import TOKEN, use_model
from tests.helpers import parse_spec_stream
from vent_agent.app import create_app
from vent_agent.review.findings import GENERAL_LOCATION
from vent_agent.review.judgement.consequences import EFFECTS
from vent_agent.review.outputs.provenance import record_path
from vent_agent.settings import Settings

PLAN_B = Path(__file__).parent / "data" / "plan-2026-08-b.pdf"
Reviewed = tuple[httpx.AsyncClient, str, list[dict[str, Any]]]


async def review(client: httpx.AsyncClient, pdf) -> tuple[str, list[dict[str, Any]]]:
    with pdf.open("rb") as fh:
        resp = await client.post("/api/vent/review/pdf", files={"file": (pdf.name, fh, "application/pdf")})
    events = parse_spec_stream(resp.text)
    url = events[-1]["download_url"]
    return url.rsplit("/", 1)[-1].removesuffix(".docx"), events


@asynccontextmanager
async def served(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """A client of a new app on ``settings`` (started and stopped with it)."""
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver", timeout=60) as c:
            yield c


@pytest.fixture(scope="module")
def plan_b_review(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, str, list[dict[str, Any]]]:
    """plan b reviewed once for the module, through the API of an app of its own: the settings of its
    data dir, the report id and the stream's events."""
    settings = Settings(_env_file=None, data_dir=tmp_path_factory.mktemp("provenance") / "data")

    async def run() -> tuple[str, list[dict[str, Any]]]:
        async with served(settings) as client:
            return await review(client, PLAN_B)

    report_id, events = asyncio.run(run())
    return settings, report_id, events


@pytest.fixture
async def reviewed(plan_b_review: tuple[Settings, str, list[dict[str, Any]]]) -> AsyncIterator[Reviewed]:
    """A client of a new app on the data dir of the module's review of plan b (as after a restart), the
    report id and the events: for tests that read the report's provenance and do not change it."""
    settings, report_id, events = plan_b_review
    async with served(settings) as client:
        yield client, report_id, events


async def test_provenance_and_the_15216_maximum_trace(reviewed: Reviewed) -> None:
    client, report_id, events = reviewed
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


async def test_a_trace_names_its_calculators_and_tools_and_their_inputs_in_chinese(
    reviewed: Reviewed,
) -> None:
    """Each trace of plan b's findings names a calculator by its title and a reference tool by what it
    queries, never by its program name; a calculator's inputs come as rows of label, value and unit."""
    client, report_id, _ = reviewed
    prov = (await client.get(f"/api/reports/{report_id}/provenance")).json()
    links = [
        link
        for f in prov["findings"]
        for link in (await client.get(f"/api/reports/{report_id}/findings/{f['index']}/trace")).json()[
            "links"
        ]
    ]
    calcs = [lk for lk in links if lk["kind"] == "calc" and lk["status"] == "ok"]
    refs = [lk for lk in links if lk["kind"] == "reference"]
    assert calcs and refs
    assert not [lk["what"] for lk in calcs + refs if re.search(r"\b(?:calc|query)_[a-z_]+", lk["what"])]
    climate = next(lk for lk in calcs if lk["detail"]["method"] == "calc_face_by_climate")
    assert (
        climate["what"].startswith("采煤工作面按气象条件计算")
        and climate["detail"]["title"] in climate["what"]
    )
    rows = {r["name"]: r for r in climate["detail"]["arguments"]}
    assert set(rows) == set(climate["detail"]["inputs"])
    assert (rows["mining_height"]["label"], rows["mining_height"]["unit"]) == ("采高 h", "m")
    assert rows["mining_height"]["value"] == f"{climate['detail']['inputs']['mining_height']:g}"
    assert any("查询瓦斯等级鉴定报告" in lk["what"] for lk in refs)


async def test_data_finding_traces_to_its_mcp_record(reviewed: Reviewed) -> None:
    client, report_id, _ = reviewed
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


async def test_unknown_report_and_finding_are_404(reviewed: Reviewed) -> None:
    client, report_id, _ = reviewed
    assert (await client.get("/api/reports/nope/provenance")).status_code == 404
    assert (await client.get(f"/api/reports/vent_review_{'0' * 32}_20260801/provenance")).status_code == 404
    assert (await client.get(f"/api/reports/{report_id}/findings/999/trace")).status_code == 404
    assert (await client.get(f"/api/reports/{report_id}/findings/0/trace")).status_code == 400


async def test_trace_numbers_are_the_report_table_numbers(reviewed: Reviewed) -> None:
    from vent_agent.review.result import sorted_findings  # noqa: F401  (the report's order)

    client, report_id, events = reviewed
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


def open_agents(tasks: list[dict[str, Any]]) -> list[str]:
    """The agents of ``tasks`` started and never ended (an ``agent_done`` or ``agent_error`` after their
    ``agent_start``), in the order they started."""
    started: list[str] = []
    for t in tasks:
        if t["type"] == "agent_start":
            started.append(t["agent"])
        elif t["type"] in ("agent_done", "agent_error") and t.get("agent") in started:
            started.remove(t["agent"])
    return started


async def review_by(
    client: httpx.AsyncClient, route: str, pdf: Path
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Review ``pdf`` on ``route`` (``review``: POST /api/vent/review/pdf; ``chat``: a chat message with
    the plan attached, no model); the stream's events and the report's provenance tasks."""
    with pdf.open("rb") as fh:
        if route == "review":
            resp = await client.post(
                "/api/vent/review/pdf", files={"file": (pdf.name, fh, "application/pdf")}
            )
        else:
            resp = await client.post(
                "/api/chat",
                data={"message": "审查这份配风计划"},
                files={"file": (pdf.name, fh, "application/pdf")},
                headers=TOKEN,
            )
    events = parse_spec_stream(resp.text)
    url = next(e["download_url"] for e in events if e.get("download_url"))
    report_id = url.rsplit("/", 1)[-1].removesuffix(".docx")
    prov = (await client.get(f"/api/reports/{report_id}/provenance")).json()
    return events, prov["tasks"]


async def test_the_review_routes_task_chain_closes_every_agent(reviewed: Reviewed) -> None:
    client, report_id, events = reviewed
    tasks = (await client.get(f"/api/reports/{report_id}/provenance")).json()["tasks"]
    assert [t["agent"] for t in tasks if t["type"] == "agent_start"] == [
        "form-reviewer",
        "data-checker",
        "calc-verifier",
    ]
    assert open_agents(tasks) == []
    spans = ("agent_start", "agent_done", "agent_error")
    assert [(t["seq"], t["type"]) for t in tasks if t["type"] in spans] == [
        (e["seq"], e["type"]) for e in events if e["type"] in spans
    ]


async def test_a_chat_reviews_task_chain_ends_with_its_agent_done(
    app, client: httpx.AsyncClient, plan_b_pdf: Path
) -> None:
    """The 「配风计划审查」 agent of a chat turn is closed in the record, by the agent_done the stream sent."""
    use_model(app, None)
    events, tasks = await review_by(client, "chat", plan_b_pdf)
    agents = [t for t in tasks if t["type"].startswith("agent_")]
    assert (agents[0]["type"], agents[0]["agent"]) == ("agent_start", "配风计划审查")
    assert (agents[-1]["type"], agents[-1]["agent"]) == ("agent_done", "配风计划审查")
    assert "完成" in agents[-1]["message"] and open_agents(tasks) == []
    done = next(e for e in events if e["type"] == "agent_done" and e["agent"] == "配风计划审查")
    assert agents[-1]["seq"] == done["seq"]
    assert [e["seq"] for e in events if e["type"] == "agent_done" and e["agent"] == "配风计划审查"] == [
        done["seq"]
    ]


@pytest.mark.parametrize("route", ["review", "chat"])
async def test_a_failed_reviewer_shows_in_the_task_chain(
    app, client: httpx.AsyncClient, plan_b_pdf: Path, monkeypatch: pytest.MonkeyPatch, route: str
) -> None:
    """A reviewer that fails ends with its agent_error in the record, never an agent_done; the others
    and (in chat) the review's own agent are closed."""

    def broken(*args: object) -> None:
        raise TimeoutError("MCP query_ventilation_report")

    from vent_agent.mcp import data_checker

    monkeypatch.setattr(data_checker, "review_data", broken)
    use_model(app, None)
    _, tasks = await review_by(client, route, plan_b_pdf)
    ends = {(t["type"], t["agent"]) for t in tasks if t["type"] in ("agent_done", "agent_error")}
    assert ("agent_error", "data-checker") in ends and ("agent_done", "data-checker") not in ends
    assert open_agents(tasks) == []
    assert (("agent_done", "配风计划审查") in ends) == (route == "chat")


async def test_provenance_time_is_written_like_every_time_of_the_service(reviewed: Reviewed) -> None:
    """The record keeps its time with an offset (``2026-12-01T05:46:13+08:00``); the route answers it
    as the mine's local time without one, like the sessions and the history."""
    client, report_id, _events = reviewed
    created = (await client.get(f"/api/reports/{report_id}/provenance")).json()["created_at"]
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}", created), created
    local_now = datetime.now(ZoneInfo("Asia/Shanghai")).replace(tzinfo=None)
    assert abs(datetime.fromisoformat(created) - local_now) < timedelta(hours=1)


async def test_a_plan_wide_finding_is_placed_as_the_report_and_the_cli_name_it(reviewed: Reviewed) -> None:
    """The console shows a finding's ``place``: a located finding's location, a plan-wide one (the
    missing approval) the one term of the report and the CLI, never a console-only word."""
    client, report_id, _events = reviewed
    findings = (await client.get(f"/api/reports/{report_id}/provenance")).json()["findings"]
    plan_wide = [f for f in findings if f["location"] is None]
    assert plan_wide and {f["place"] for f in plan_wide} == {GENERAL_LOCATION}
    assert all(f["place"] == f["location"] for f in findings if f["location"])


async def test_every_major_or_critical_finding_says_what_it_leads_to(reviewed: Reviewed) -> None:
    """The gas-emission mismatch nothing else follows from lists its rule's effect like the maximum not
    taken lists the allocation short and the mine total low."""
    client, report_id, _events = reviewed
    findings = (await client.get(f"/api/reports/{report_id}/provenance")).json()["findings"]
    serious = [f for f in findings if f["severity"] in ("critical", "major")]
    assert serious and all(f["consequences"] for f in serious), [f["rule_id"] for f in serious]
    gas = next(f for f in serious if f["rule_id"] == "data.gas_emission")
    assert [c["message"] for c in gas["consequences"]] == [EFFECTS["data.gas_emission"]]
