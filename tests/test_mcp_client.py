"""The review's MCP client and the data-checker over it: the reference data arrive intact over the
protocol, plan b's data faults are still found, plan a has no serious finding, and missing, partial,
unreachable, slow or broken sources give one info finding while the review completes."""

from __future__ import annotations

import json
import socket
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from mcp.server.fastmcp import FastMCP

from tests.helpers import free_port, present
from vent_agent.documents.plan.model import Plan
from vent_agent.events import EventModel
from vent_agent.mcp.client import ReferenceOutcome, ReferenceStatus, load_reference
from vent_agent.mcp.data_checker import run_data_checker
from vent_agent.mcp.schemas import (
    GAS_REPORT_TOOL,
    MINING_PLAN_TOOL,
    TOOL_NAMES,
    MiningPlanAnswer,
    MiningPlanItem,
)
from vent_agent.review.checks.data_rules import review_data
from vent_agent.review.findings import Category, Finding, Severity
from vent_agent.review.reference import StaticReferenceData, UnavailableReference, default_reference
from vent_agent.settings import Settings

from .test_mcp_server import http_server

DATA = Path(__file__).parent / "data"
SERIOUS = {Severity.MAJOR, Severity.CRITICAL}


class Events:
    """A recording emitter."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    async def __call__(self, event: EventModel) -> None:
        self.events.append(event.wire())

    def of(self, type_: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == type_]


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(_env_file=None, data_dir=tmp_path / "data")


def _only_info(findings: list[Finding]) -> Finding:
    data = [f for f in findings if f.category == Category.DATA]
    assert len(data) == 1, [f.message for f in data]
    assert data[0].severity == Severity.INFO and data[0].location is None
    assert "参考数据不可用" in data[0].message
    return data[0]


async def test_reference_arrives_intact(settings: Settings) -> None:
    direct = default_reference()
    for month in ("2026-08", "2026-09"):
        outcome = await load_reference(settings, "示范煤矿", month)
        assert outcome.status is ReferenceStatus.OK and outcome.reason is None
        assert outcome.monthly == direct.monthly("示范煤矿", month)
        calls = outcome.calls
        assert [c.tool for c in calls] == list(TOOL_NAMES)
        assert all(c.arguments == {"mine": "示范煤矿", "month": month} for c in calls)
        assert all(c.ok and c.output and c.output["available"] for c in calls)
        assert json.loads(json.dumps([c.to_dict() for c in calls]))[0]["tool"] == TOOL_NAMES[0]


async def test_plan_b_data_findings_through_mcp(settings: Settings, plan_b: Plan) -> None:
    answers = json.loads((DATA / "plan-2026-08-b.answers.json").read_text(encoding="utf-8"))
    expected = {(a["location"], a["severity"]) for a in answers["findings"] if a["category"] == "data"}
    events = Events()
    check = await run_data_checker(plan_b, settings, events)
    found = {(f.location, f.severity.value) for f in check.findings if f.category == Category.DATA}
    assert expected <= found
    assert check.outcome.status is ReferenceStatus.OK
    gas = next(
        f
        for f in check.findings
        if f.location == "15220回风顺槽掘进工作面"
        and f.category == Category.DATA
        and f.severity == Severity.MAJOR
    )
    assert gas.figures["plan"] == 1.1 and gas.figures["report"] == 1.6
    assert gas.evidence[-1].detail["tool"] == GAS_REPORT_TOOL
    # the same findings as the rules give on the reference data directly
    assert check.findings == review_data(plan_b, default_reference())
    executing = events.of("agent_executing")
    assert len(executing) == 1 and executing[0]["tools"] == list(TOOL_NAMES)
    assert executing[0]["agent"] == "data-checker"
    results = events.of("agent_tool_result")
    assert [e["tool"] for e in results] == list(TOOL_NAMES)
    assert all(e["message"].endswith("完成") for e in results)


async def test_plan_a_no_serious_finding_through_mcp(settings: Settings, plan_a: Plan) -> None:
    check = await run_data_checker(plan_a, settings, Events())
    assert check.outcome.status is ReferenceStatus.OK
    assert not [f for f in check.findings if f.severity in SERIOUS]


async def test_unknown_mine_gives_one_info_finding(settings: Settings, plan_a: Plan) -> None:
    plan = plan_a.model_copy(update={"mine": "红旗煤矿"})
    events = Events()
    check = await run_data_checker(plan, settings, events)
    assert check.outcome.status is ReferenceStatus.NOT_FOUND
    assert len(check.outcome.calls) == 4
    info = _only_info(check.findings)
    assert "红旗煤矿" in info.message
    assert all("无数据" in e["message"] for e in events.of("agent_tool_result"))


async def test_plan_without_mine_or_month(settings: Settings, plan_a: Plan) -> None:
    outcome = await load_reference(settings, None, "2026-08")
    assert outcome.status is ReferenceStatus.NOT_FOUND and outcome.calls == []
    bad = await load_reference(settings, "示范煤矿", "2026-8")
    assert bad.status is ReferenceStatus.NOT_FOUND and "YYYY-MM" in (bad.reason or "")
    info = _only_info(review_data(plan_a.model_copy(update={"month": None}), outcome.reference))
    assert "月份" in info.message


async def test_unreachable_server_gives_info_and_review_completes(tmp_path: Path, plan_b: Plan) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path, mcp_url=f"http://127.0.0.1:{free_port()}/mcp")
    events = Events()
    check = await run_data_checker(plan_b, settings, events, timeout_s=10)
    assert check.outcome.status is ReferenceStatus.UNAVAILABLE
    info = _only_info(check.findings)
    assert settings.mcp_url is not None
    assert "无法连接参考数据服务" in info.message and settings.mcp_url in info.message
    # the plan's own figures are still checked against the regulation
    assert [(f.location, f.severity) for f in check.findings if f.category == Category.REGULATION] == [
        ("15220回风顺槽掘进工作面", Severity.CRITICAL)
    ]
    assert [e["tool"] for e in events.of("agent_tool_result")] == list(TOOL_NAMES)
    assert all("未完成" in e["message"] for e in events.of("agent_tool_result"))


async def test_server_that_never_answers_times_out(tmp_path: Path) -> None:
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(4)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/mcp"
        settings = Settings(_env_file=None, data_dir=tmp_path, mcp_url=url)
        outcome = await load_reference(settings, "示范煤矿", "2026-08", timeout_s=0.5)
    assert outcome.status is ReferenceStatus.UNAVAILABLE
    assert "无响应" in (outcome.reason or "")
    assert isinstance(outcome.reference, UnavailableReference)


async def test_partial_month_gives_gap_findings(settings: Settings, plan_a: Plan) -> None:
    august = default_reference().monthly("示范煤矿", "2026-08")
    assert august is not None
    source = StaticReferenceData([replace(august, gas_report={}, mining_plan=[])])
    events = Events()
    check = await run_data_checker(plan_a, settings, events, reference=source)
    assert check.outcome.status is ReferenceStatus.OK
    assert set(present(check.outcome.monthly).gaps) == {GAS_REPORT_TOOL, TOOL_NAMES[0]}
    infos = [f for f in check.findings if f.severity == Severity.INFO]
    assert {f.figures["tool"] for f in infos} == {GAS_REPORT_TOOL, TOOL_NAMES[0]}
    assert any("瓦斯等级鉴定报告" in f.message for f in infos)
    # no mining plan: no "not in the mining plan" remarks about every face
    assert not [
        f
        for f in check.findings
        if (f.rule_id or "").startswith("data.location") and f.severity != Severity.INFO
    ]


async def test_backend_failing_every_call_is_unavailable(settings: Settings, plan_a: Plan) -> None:
    class Broken:
        def monthly(self, mine: str, month: str):
            raise RuntimeError("database down")

    check = await run_data_checker(plan_a, settings, Events(), reference=Broken())
    assert check.outcome.status is ReferenceStatus.UNAVAILABLE
    assert all(not c.ok and "database down" in (c.error or "") for c in check.outcome.calls)
    assert "database down" in _only_info(check.findings).message


async def test_broken_reference_dir_gives_info_naming_file(tmp_path: Path, plan_a: Plan) -> None:
    ref_dir = tmp_path / "ref"
    ref_dir.mkdir()
    doc = json.loads(Path("vent_agent/data/demo_mine.json").read_text(encoding="utf-8"))
    doc["reference"]["2026-08"]["gas_report"]["15216综采工作面"] = "四点二"
    (ref_dir / "demo.json").write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    settings = Settings(_env_file=None, data_dir=tmp_path, reference_dir=ref_dir)
    check = await run_data_checker(plan_a, settings, Events())
    assert check.outcome.status is ReferenceStatus.UNAVAILABLE
    info = _only_info(check.findings)
    assert "demo.json" in info.message and "reference.2026-08.gas_report.15216综采工作面" in info.message


async def test_reference_dir_served_over_mcp(tmp_path: Path, plan_b: Plan) -> None:
    ref_dir = tmp_path / "ref"
    (ref_dir / "示范煤矿").mkdir(parents=True)
    august = json.loads(Path("vent_agent/data/demo_mine.json").read_text(encoding="utf-8"))["reference"][
        "2026-08"
    ]
    (ref_dir / "示范煤矿" / "2026-08.json").write_text(
        json.dumps(august, ensure_ascii=False), encoding="utf-8"
    )
    settings = Settings(_env_file=None, data_dir=tmp_path, reference_dir=ref_dir)
    check = await run_data_checker(plan_b, settings, Events())
    assert check.outcome.status is ReferenceStatus.OK and "参考数据文件" in check.outcome.source
    serious = {(f.location, f.category.value) for f in check.findings if f.severity in SERIOUS}
    assert ("15222切眼掘进工作面", "data") in serious and ("15220回风顺槽掘进工作面", "data") in serious
    # September is not in the files: the demo mine is not consulted instead
    outcome = await load_reference(settings, "示范煤矿", "2026-09")
    assert outcome.status is ReferenceStatus.NOT_FOUND


def test_outcome_reference_shapes() -> None:
    ok = ReferenceOutcome(ReferenceStatus.OK, "m", "2026-08", "s", monthly=default_reference().months[0])
    assert ok.reference.monthly("示范煤矿", "2026-08") is not None
    assert (
        ReferenceOutcome(ReferenceStatus.NOT_FOUND, "m", "2026-08", "s").reference.monthly("m", "2026-08")
        is None
    )
    down = ReferenceOutcome(ReferenceStatus.UNAVAILABLE, "m", "2026-08", "s", reason="x").reference
    assert isinstance(down, UnavailableReference) and down.reason == "x"


async def test_platform_server_with_one_tool(tmp_path: Path, plan_a: Plan) -> None:
    """Another vendor's server that offers only the mining plan: the other parts are gaps."""
    platform = FastMCP("platform", stateless_http=True, json_response=True)

    @platform.tool(name=MINING_PLAN_TOOL, description="月度采掘计划")
    def plan_tool(mine: str, month: str) -> MiningPlanAnswer:
        item = MiningPlanItem(location="15216综采工作面", kind="coal_face", state="回采")
        return MiningPlanAnswer(mine="示范煤矿", month=month, available=True, items=[item])

    async with http_server(platform) as url:
        settings = Settings(_env_file=None, data_dir=tmp_path, mcp_url=url)
        check = await run_data_checker(plan_a, settings, Events(), timeout_s=30)
    outcome = check.outcome
    assert outcome.status is ReferenceStatus.OK and outcome.monthly is not None
    assert set(outcome.monthly.gaps) == set(TOOL_NAMES[1:])
    assert all("未提供工具" in outcome.monthly.gaps[t] for t in TOOL_NAMES[1:])
    infos = [f for f in check.findings if f.severity == Severity.INFO and f.category == Category.DATA]
    assert len(infos) == 3
    # the headings of the plan are not in this (one-face) mining plan: minor remarks, nothing serious
    assert not [f for f in check.findings if f.severity in SERIOUS]
