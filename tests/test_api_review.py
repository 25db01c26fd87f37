"""The plan review over HTTP and from the command line: the spec's events, the findings of the sample
plans at their locations, the Word report, and the error paths."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any

import httpx
import pytest
from docx import Document
from docx.oxml.ns import qn

from reports.front import month_check
from tests.helpers import parse_spec_stream, present
from vent_agent.cli import main
from vent_agent.review.service import pipeline
from vent_agent.settings import Settings

DATA = Path(__file__).parent / "data"


async def _review(
    client: httpx.AsyncClient, pdf: Path, headers: dict[str, str] | None = None, **form: str
) -> tuple[httpx.Response, list[dict[str, Any]]]:
    files = {"file": (pdf.name, pdf.read_bytes(), "application/pdf")}
    resp = await client.post("/api/vent/review/pdf", files=files, data=form, headers=headers)
    return resp, (parse_spec_stream(resp.text) if resp.status_code == 200 else [])


def _report_text(events: list[dict[str, Any]]) -> str:
    return "".join(e["content"] for e in events if e["type"] == "token")


async def test_review_stream_follows_the_spec(client: httpx.AsyncClient, app, plan_b_pdf: Path) -> None:
    from vent_agent.sessions import store

    session = await store.create_session(app.state.vent.db, "zhangsan", mode="full", title="审查")
    token = {"x-access-token": "demo-token"}
    resp, events = await _review(client, plan_b_pdf, token, session_id=session.id)
    assert resp.status_code == 200 and resp.headers["x-session-id"] == session.id
    types = [e["type"] for e in events]
    assert types[0] == "progress" and types[-1] == "done"
    assert any(e.get("hash_id") for e in events if e["type"] == "progress")
    for agent in ("form-reviewer", "data-checker", "calc-verifier"):
        assert any(e["type"] == "agent_start" and e["agent"] == agent for e in events)
        done = next(e for e in events if e["type"] == "agent_done" and e["agent"] == agent)
        assert done["preview"] and len(done["preview"]) <= 300
    assert sorted(e["progress"] for e in events if e["type"] == "agent_done") == ["1/3", "2/3", "3/3"]
    assert any(e["type"] == "agent_executing" and e["tools"] for e in events)
    assert types.index("token") > max(i for i, t in enumerate(types) if t == "agent_done")
    done = events[-1]
    assert done["session_id"] == session.id and done["download_url"].endswith(".docx")
    assert any(e["type"] == "progress" and e.get("download_url") == done["download_url"] for e in events)
    text = _report_text(events)
    assert text.startswith("# 配风计划审查报告") and "15216综采工作面" in text
    # coverage: the ten locations, every figure read but the 1.33 written in the m³/min column
    cov = done["coverage"]
    assert (cov["locations_found"], cov["figures_not_read"], cov["unreadable"]) == (10, 1, False)
    assert cov["figures_read"] > 100 and "识别情况：共识别用风地点 10 个" in text
    # the verdict the report's page 1 states, on the done and on the "审查完成" progress
    assert done["verdict"] == "存在严重问题，须立即处置" and f"结论：{done['verdict']}" in text
    assert any(e["type"] == "progress" and e.get("verdict") == done["verdict"] for e in events)


def review_clock(day: datetime) -> type[datetime]:
    """A ``datetime`` whose ``now`` is ``day`` (in the zone asked for): the review's date."""

    class Clock(datetime):
        @classmethod
        def now(cls, tz: tzinfo | None = None) -> datetime:  # type: ignore[override]
            return day.replace(tzinfo=tz)

    return Clock


async def test_the_done_warns_of_an_out_of_date_plan_month_as_the_report_does(
    client: httpx.AsyncClient, app, plan_b_pdf: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reviewed three months after its month, plan b is out of date: the done (and, in a session, the
    "审查完成" progress it is folded from) carries the sentence page 1 of the report says after 注意：;
    reviewed the month before its month, nothing."""
    from vent_agent.sessions import store

    monkeypatch.setattr(pipeline, "datetime", review_clock(datetime(2026, 11, 5, 9, 30)))
    note = month_check("2026-08", "2026-11-05T09:30:00")
    assert note is not None and "2026-11-05" in note
    _, events = await _review(client, plan_b_pdf)
    assert events[-1]["month_note"] == note and f"注意：{note}" in _report_text(events)
    session = await store.create_session(app.state.vent.db, "zhangsan", mode="full", title="审查")
    token = {"x-access-token": "demo-token"}
    _, events = await _review(client, plan_b_pdf, token, session_id=session.id)
    assert events[-1]["month_note"] == note
    assert any(e["type"] == "progress" and e.get("month_note") == note for e in events)
    monkeypatch.setattr(pipeline, "datetime", review_clock(datetime(2026, 7, 20, 9, 30)))
    _, events = await _review(client, plan_b_pdf)
    assert events[-1]["download_url"] and "month_note" not in events[-1]
    assert "注意：计划月份" not in _report_text(events)


async def test_report_download_is_a_docx_with_cjk_fonts(
    client: httpx.AsyncClient, plan_b_pdf: Path, tmp_path: Path
) -> None:
    _, events = await _review(client, plan_b_pdf)
    url = events[-1]["download_url"]
    path = url.split("testserver", 1)[1]
    resp = await client.get(path)
    assert resp.status_code == 200
    out = tmp_path / "r.docx"
    out.write_bytes(resp.content)
    doc = Document(str(out))
    chinese_runs = [
        r for p in doc.paragraphs for r in p.runs if any("\u4e00" <= ch <= "\u9fff" for ch in r.text)
    ]
    assert chinese_runs
    for run in chinese_runs:
        fonts = present(run._element.rPr).rFonts
        assert fonts is not None and fonts.get(qn("w:eastAsia"))
    assert (await client.get(path.replace(path[-12:-5], "0000000"))).status_code == 404
    assert (await client.get("/static/reports/../../etc/passwd")).status_code == 404
    assert (await client.get("/static/reports/x.docx")).status_code == 404


def _by(findings: list[dict[str, Any]]) -> set[tuple[str, str, str]]:
    return {(f["location"], f["category"], f["severity"]) for f in findings}


@pytest.mark.parametrize("pdf_fixture", ["plan_b_pdf", "scanned_b_pdf"])
def test_cli_plan_b_json_has_the_seeded_faults(
    pdf_fixture: str,
    request: pytest.FixtureRequest,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """plan b, from its text layer and from its scan (OCR'd once per session, see conftest)."""
    plan_b_pdf = request.getfixturevalue(pdf_fixture)
    if pdf_fixture == "scanned_b_pdf":
        request.getfixturevalue("seed_scanned_cache")(tmp_path / "d" / "cache")
    monkeypatch.setenv("VENT_DATA_DIR", str(tmp_path / "d"))
    out = tmp_path / "b.docx"
    with pytest.raises(SystemExit) as exit_info:
        main(["review", str(plan_b_pdf), "-o", str(out), "--json"])
    assert exit_info.value.code == 1  # major findings
    findings = json.loads(capsys.readouterr().out)
    got = _by(findings)
    answers = json.loads((DATA / "plan-2026-08-b.answers.json").read_text(encoding="utf-8"))["findings"]
    for a in answers:
        assert (a["location"], a["category"], a["severity"]) in got, a
    for f in findings:
        assert set(f) >= {"location", "category", "severity", "message", "figures", "rule", "source", "page"}
    assert Document(str(out)).tables


def _findings_table(events: list[dict[str, Any]]) -> set[tuple[str, str, str]]:
    """(severity, location, category) of each row of the report's findings table (二、问题清单)."""
    text = _report_text(events)
    section = text.split("## 二、", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[2:5] for line in section.splitlines() if re.match(r"^\| \d+ \|", line)]
    return {(sev.strip(), loc.strip(), cat.strip()) for sev, loc, cat in rows}


async def test_scanned_plan_b_over_http_finds_what_its_text_layer_finds(
    client: httpx.AsyncClient,
    settings: Settings,
    plan_b_pdf: Path,
    scanned_b_pdf: Path,
    seed_scanned_cache: Callable[[Path], None],
) -> None:
    seed_scanned_cache(settings.cache_dir)  # the session's OCR of the scan (the review itself runs)
    _, scanned = await _review(client, scanned_b_pdf)
    _, text_layer = await _review(client, plan_b_pdf)
    assert scanned[-1]["type"] == "done" and scanned[-1]["download_url"].endswith(".docx")
    assert any(e.get("hash_id") for e in scanned if e["type"] == "progress")
    assert scanned[-1]["summary"] == text_layer[-1]["summary"]
    got, want = _findings_table(scanned), _findings_table(text_layer)
    assert len(want) >= 10 and got == want
    answers = json.loads((DATA / "plan-2026-08-b.answers.json").read_text(encoding="utf-8"))["findings"]
    locations = {loc for _, loc, _ in got}
    assert all(a["location"] in locations for a in answers if a["location"])


def test_cli_plan_a_has_no_major_or_critical(
    plan_a_pdf: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VENT_DATA_DIR", str(tmp_path / "d"))
    with pytest.raises(SystemExit) as exit_info:
        main(["review", str(plan_a_pdf), "--json"])
    findings = json.loads(capsys.readouterr().out)
    assert exit_info.value.code == 0
    assert not [f for f in findings if f["severity"] in ("major", "critical")]


def test_cli_human_output_and_unreadable_pdf(
    plan_a_pdf: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VENT_DATA_DIR", str(tmp_path / "d"))
    with pytest.raises(SystemExit):
        main(["review", str(plan_a_pdf)])
    assert "审查发现" in capsys.readouterr().out
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(plan_a_pdf.read_bytes()[:2000])
    with pytest.raises(SystemExit) as exit_info:
        main(["review", str(broken)])
    assert exit_info.value.code == 2


def test_cli_names_plan_wide_findings_as_the_report_does(
    plan_b_pdf: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VENT_DATA_DIR", str(tmp_path / "d"))
    with pytest.raises(SystemExit):
        main(["review", str(plan_b_pdf)])
    out = capsys.readouterr().out
    assert "计划整体" in out and "全局" not in out  # the approval finding has no location


@pytest.mark.parametrize(
    "content,status",
    [(b"", 400), (b"hello, not a pdf", 400), (b"<html>%PDF-1.4</html>", 400)],
)
async def test_rejected_uploads(client: httpx.AsyncClient, content: bytes, status: int) -> None:
    resp = await client.post("/api/vent/review/pdf", files={"file": ("x.pdf", content, "application/pdf")})
    assert resp.status_code == status and resp.json()["error"]


async def test_missing_file_is_400(client: httpx.AsyncClient) -> None:
    resp = await client.post("/api/vent/review/pdf", files={"message": (None, "审查")})
    urlencoded = await client.post("/api/vent/review/pdf", data={"message": "审查"})
    assert resp.status_code == 400 and resp.json()["error"] == "请求参数错误：缺少必填字段 file"
    # a urlencoded body cannot carry the file: the Content-Type is named
    assert (
        urlencoded.status_code == 400
        and "Content-Type 应为 multipart/form-data" in urlencoded.json()["error"]
    )


async def test_truncated_pdf_gives_error_event_then_done(
    client: httpx.AsyncClient, plan_b_pdf: Path, tmp_path: Path
) -> None:
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(plan_b_pdf.read_bytes()[:3000])
    _, events = await _review(client, broken)
    assert [e["type"] for e in events][-2:] == ["error", "done"]
    assert events[-2]["message"]


async def test_oversized_upload_is_413(tmp_path: Path) -> None:
    from vent_agent.app import create_app
    from vent_agent.settings import Settings

    app = create_app(Settings(_env_file=None, data_dir=tmp_path / "d", max_upload_mb=1))
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://t") as c,
    ):
        big = b"%PDF-1.4\n" + b"0" * (2 << 20)
        resp = await c.post("/api/vent/review/pdf", files={"file": ("big.pdf", big, "application/pdf")})
    assert resp.status_code == 413 and resp.json()["error"]
    assert not list((tmp_path / "d" / "uploads").glob("*.part"))


async def test_second_review_uses_the_cache_unless_forced(
    client: httpx.AsyncClient, plan_a_pdf: Path
) -> None:
    await _review(client, plan_a_pdf)
    _, events = await _review(client, plan_a_pdf)
    assert any("缓存" in e.get("message", "") for e in events)
    _, events = await _review(client, plan_a_pdf, force_refresh="true")
    assert not any("缓存" in e.get("message", "") for e in events)
    assert any(e.get("page_progress") for e in events)


async def test_replay_of_a_review_carries_its_session(
    client: httpx.AsyncClient, app, plan_a_pdf: Path
) -> None:
    from vent_agent.sessions import store

    session = await store.create_session(app.state.vent.db, "zhangsan", session_id="s-9")
    resp, _ = await _review(client, plan_a_pdf, {"x-access-token": "demo-token"}, session_id="s-9")
    replay = await client.get(
        f"/api/runs/{resp.headers['x-run-id']}/events", headers={"x-access-token": "demo-token"}
    )
    assert replay.headers["x-session-id"] == session.id == "s-9"


@pytest.mark.parametrize("session_id", ["会话一", "abc\r\nX-Evil: 1", "abc\x00", "a b", "x" * 200])
async def test_unsafe_session_id_is_400_and_starts_nothing(
    client: httpx.AsyncClient, plan_a_pdf: Path, session_id: str
) -> None:
    files = {"file": (plan_a_pdf.name, plan_a_pdf.read_bytes(), "application/pdf")}
    resp = await client.post("/api/vent/review/pdf", files=files, data={"session_id": session_id})
    assert resp.status_code == 400 and "session_id" in resp.json()["error"]


async def test_replay_positions_are_validated(client: httpx.AsyncClient, plan_a_pdf: Path) -> None:
    resp, events = await _review(client, plan_a_pdf)
    url = f"/api/runs/{resp.headers['x-run-id']}/events"
    assert (await client.get(url, params={"after": 9223372036854775808})).status_code == 400
    for bad in ["99999999999999999999999999", "²", "12³", "-1", ""]:
        got = await client.get(url, headers={b"Last-Event-ID": bad.encode("latin-1")})
        assert got.status_code == 400, bad
    # a finished run replayed from its end: 204, so that a standard EventSource stops reconnecting
    assert (await client.get(url, headers={"Last-Event-ID": str(events[-1]["seq"])})).status_code == 204
    assert (await client.get(url, params={"after": 10**6})).status_code == 204


def test_absurd_figures_are_input_errors_not_crashes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main_calc(["calc_face_by_gas", "--gas-emission", "1e25", "--k-gas", "1.5"]) == 2
    assert "Traceback" not in capsys.readouterr().err


def main_calc(argv: list[str]) -> int:
    from vent_agent.cli.calc import run_calc

    return run_calc(argv[0], argv[1:])


@pytest.mark.parametrize(
    "body,needle",
    [(b"{not json", "JSON"), (b"[1, 2]", "JSON 对象"), (b"null", "JSON 对象"), (b"", "请求体")],
)
async def test_body_errors_are_clear(client: httpx.AsyncClient, body: bytes, needle: str) -> None:
    resp = await client.post(
        "/api/interpret/click/tun", content=body, headers={"content-type": "application/json"}
    )
    assert resp.status_code == 400 and needle in resp.json()["error"]
