"""The project's MCP server: its tool list and schemas, each tool over a real MCP client session
(in-memory, stdio child process, streamable HTTP on a loopback port), unknown mine and month."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
import uvicorn
from mcp import ClientSession
from mcp.server.fastmcp import FastMCP
from mcp.shared.memory import create_connected_server_and_client_session
from mcp.types import TextContent

from vent_agent.mcp.client import ReferenceStatus, load_reference
from vent_agent.mcp.schemas import (
    FACE_PROCEDURE_TOOL,
    GAS_REPORT_TOOL,
    MINING_PLAN_TOOL,
    TOOL_NAMES,
    VENTILATION_REPORT_TOOL,
)
from vent_agent.mcp.server import create_server
from vent_agent.settings import Settings

MINE, AUGUST = "示范煤矿", "2026-08"


@asynccontextmanager
async def session() -> AsyncIterator[ClientSession]:
    async with create_connected_server_and_client_session(create_server()) as s:
        yield s


async def _call(s: ClientSession, tool: str, mine: str = MINE, month: str = AUGUST) -> dict[str, Any]:
    result = await s.call_tool(tool, {"mine": mine, "month": month})
    assert not result.isError, result.content
    assert result.structuredContent is not None
    # the text content carries the same JSON for clients that read only text
    (text,) = result.content
    assert isinstance(text, TextContent) and json.loads(text.text) == result.structuredContent
    return result.structuredContent


async def test_tool_list_and_schemas() -> None:
    async with session() as s:
        init_tools = (await s.list_tools()).tools
    tools = {t.name: t for t in init_tools}
    assert set(tools) == set(TOOL_NAMES)
    for t in tools.values():
        schema = t.inputSchema
        assert schema["required"] == ["mine", "month"]
        assert schema["properties"]["month"]["pattern"] == r"^\d{4}-(0[1-9]|1[0-2])$"
        assert "YYYY-MM" in schema["properties"]["month"]["description"]
        assert "矿井" in schema["properties"]["mine"]["description"]
        assert t.description and "查询" in t.description and t.title
        assert t.annotations is not None and t.annotations.readOnlyHint
        out = t.outputSchema
        assert out is not None and {"mine", "month", "available"} <= set(out["required"])
    survey = tools[VENTILATION_REPORT_TOOL]
    assert survey.description is not None and "之前最近一次" in survey.description
    assert survey.outputSchema is not None and "survey_date" in survey.outputSchema["properties"]
    gas_props = json.dumps(tools[GAS_REPORT_TOOL].outputSchema, ensure_ascii=False)
    assert "m³/min" in gas_props


async def test_each_tool_in_memory() -> None:
    async with session() as s:
        plan = await _call(s, MINING_PLAN_TOOL)
        proc = await _call(s, FACE_PROCEDURE_TOOL)
        gas = await _call(s, GAS_REPORT_TOOL)
        survey = await _call(s, VENTILATION_REPORT_TOOL)
        september = await _call(s, MINING_PLAN_TOOL, month="2026-09")
    assert plan["available"] and plan["mine"] == MINE and plan["month"] == AUGUST
    cut = next(i for i in plan["items"] if i["location"] == "15222切眼掘进工作面")
    assert cut["kind"] == "heading" and "8月15日开工" in cut["state"] and cut["finished"] is False
    assert [c["location"] for c in september["completed"]] == ["15220运输顺槽掘进工作面"]
    assert september["completed"][0]["finished"] is True
    face = proc["faces"][0]
    assert (
        face["location"] == "15216综采工作面" and face["mining_height_m"] == 3.2 and face["max_workers"] == 38
    )
    assert {g["location"]: g["gas_emission"] for g in gas["items"]}["15220回风顺槽掘进工作面"] == 1.6
    assert gas["unit"] == "m³/min"
    # the air survey of the August plan is the latest before 2026-08-01 (the file's August record)
    assert survey["survey_date"] == "2026-07-31"
    row = next(i for i in survey["items"] if i["location"] == "15220回风顺槽掘进工作面")
    assert (row["wind_speed"], row["area"], row["ch4_return"], row["ch4_intake"]) == (0.78, 13.8, 0.28, 0.03)
    assert survey["roadway_classes"]["15216辅运起坡段"] == "采区进风巷"


async def test_mine_name_spelled_otherwise() -> None:
    async with session() as s:
        plan = await _call(s, MINING_PLAN_TOOL, mine="山西示范煤矿")
    assert plan["available"] and plan["mine"] == MINE


@pytest.mark.parametrize(
    ("mine", "month", "hint"), [("红旗煤矿", AUGUST, "红旗煤矿"), (MINE, "2027-01", "已有月份")]
)
async def test_unknown_mine_or_month_is_not_an_error(mine: str, month: str, hint: str) -> None:
    async with session() as s:
        answers = [await _call(s, tool, mine=mine, month=month) for tool in TOOL_NAMES]
    for a in answers:
        assert a["available"] is False and hint in a["reason"]
        assert a["mine"] == mine and a["month"] == month
    assert answers[0]["items"] == [] and answers[3]["items"] == []


@pytest.mark.parametrize(
    "args", [{"mine": MINE, "month": "2026-8"}, {"mine": MINE}, {"mine": "", "month": AUGUST}]
)
async def test_malformed_arguments_are_tool_errors(args: dict[str, Any]) -> None:
    async with session() as s:
        result = await s.call_tool(MINING_PLAN_TOOL, args)
    assert result.isError
    first = result.content[0]
    assert isinstance(first, TextContent) and "validation" in first.text.lower()


async def test_stdio_child_process(tmp_path) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path)
    outcome = await load_reference(settings, MINE, AUGUST, transport="stdio", timeout_s=60)
    assert outcome.status is ReferenceStatus.OK, outcome.reason
    assert "stdio" in outcome.source
    assert [c.tool for c in outcome.calls] == list(TOOL_NAMES)
    assert outcome.monthly is not None and outcome.monthly.gas_report["15216综采工作面"] == 4.2


@asynccontextmanager
async def http_server(server_: FastMCP | None = None) -> AsyncIterator[str]:
    """A FastMCP server's streamable-HTTP app (default: the project's) under uvicorn on a loopback
    port; yields its URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    app = (server_ or create_server(port=port)).streamable_http_app()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        for _ in range(500):
            if server.started:
                break
            await asyncio.sleep(0.01)
        assert server.started
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 10)
        sock.close()


async def test_streamable_http_round_trip(tmp_path) -> None:
    async with http_server() as url:
        settings = Settings(_env_file=None, data_dir=tmp_path, mcp_url=url)
        outcome = await load_reference(settings, MINE, "2026-09", timeout_s=30)
        missing = await load_reference(settings, "红旗煤矿", "2026-09", timeout_s=30)
    assert outcome.status is ReferenceStatus.OK, outcome.reason
    assert outcome.source == f"MCP streamable HTTP {url}"
    assert [c.tool for c in outcome.calls] == list(TOOL_NAMES) and all(c.ok for c in outcome.calls)
    month = outcome.monthly
    assert month is not None and month.air_survey_date == "2026-08-31"
    assert [e.location for e in month.completed] == ["15220运输顺槽掘进工作面"]
    assert month.air_survey["15222切眼掘进工作面"].area == 12.0
    assert missing.status is ReferenceStatus.NOT_FOUND and "红旗煤矿" in (missing.reason or "")
