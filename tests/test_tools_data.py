"""The spec's data tools over the embedded demo mine, called as the agent calls them: through
``tool.ainvoke`` with an injected ToolRuntime carrying the AgentContext, and inside a real agent."""

from __future__ import annotations

import asyncio
import json
import re
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import BaseTool

from tests.chat_helpers import tool_runtime
from vent_agent.settings import Settings
from vent_agent.tools.context import AgentContext
from vent_agent.tools.data_tools import data_tools
from vent_agent.upstream.demo_mine import DemoMine

TZ = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 8, 20, 10, 37, 12, tzinfo=TZ)

SPEC_DATA_TOOLS = [
    "query_tun_data_by_id",
    "query_device_data_by_id",
    "query_devices_by_tunnel",
    "query_devices_by_tunnel_id",
    "get_tun_list_by_modelid",
    "query_tunnels_by_model",
    "query_tunnel_list",
    "get_device_kind_dict",
    "get_device_list_by_kind",
    "query_device_realtime_data",
    "list_ventanaly_monitor_data_days",
]

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def mine() -> DemoMine:
    return DemoMine(now=lambda: NOW)


@pytest.fixture
def ctx(mine: DemoMine) -> AgentContext:
    return AgentContext(
        source=mine, settings=Settings(_env_file=None), user_name="zhangsan", token="demo-token"
    )


@pytest.fixture(scope="module")
def tools() -> dict[str, BaseTool]:
    return {t.name: t for t in data_tools()}


async def call(tool: BaseTool, ctx: Any, **args: Any) -> Any:
    return await tool.ainvoke({**args, "runtime": tool_runtime(ctx)})


def error_of(out: Any) -> dict[str, Any]:
    assert isinstance(out, str), out
    body: dict[str, Any] = json.loads(out)
    assert body["error"]
    return body


def content_of(message: ToolMessage) -> dict[str, Any]:
    """A tool message's JSON content."""
    assert isinstance(message.content, str), message.content
    body: dict[str, Any] = json.loads(message.content)
    return body


def has_cjk(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def test_every_spec_data_tool_exists_in_order(tools):
    assert list(tools) == SPEC_DATA_TOOLS


@pytest.mark.parametrize("name", SPEC_DATA_TOOLS)
def test_json_schema_is_typed_and_described_in_chinese(tools, name):
    tool = tools[name]
    assert has_cjk(tool.description)
    schema = tool.tool_call_schema.model_json_schema()
    assert schema["type"] == "object"
    assert "runtime" not in schema["properties"]
    for prop in schema["properties"].values():
        assert has_cjk(prop["description"])
        assert "type" in prop or "anyOf" in prop


def test_schema_types_of_the_history_tool(tools):
    props = tools["list_ventanaly_monitor_data_days"].tool_call_schema.model_json_schema()["properties"]
    assert props["device_id"]["type"] == "string"
    assert (props["days"]["type"], props["days"]["minimum"], props["days"]["maximum"]) == ("integer", 1, 30)
    assert tools["list_ventanaly_monitor_data_days"].tool_call_schema.model_json_schema()["required"] == [
        "device_id"
    ]


async def test_tunnel_data(tools, ctx):
    out = await call(tools["query_tun_data_by_id"], ctx, tun_id="15216")
    assert out["tunnel"]["name"] == "15216 辅运起坡段" and out["tunnel"]["area"] == 12.4
    assert out["device_count"] == len(out["devices"]) == 4
    ws = next(d for d in out["devices"] if d["device_type"] == "wind_sensor")
    value = ws["latest"]["values"][0]
    assert (value["quantity"], value["label"], value["unit"]) == ("wind_speed", "风速", "m/s")
    assert ws["latest"]["time"].startswith("2026-08-20T10:37")
    assert isinstance(out["alarms_24h"], list)
    json.dumps(out, ensure_ascii=False)


async def test_numeric_id_is_read_as_text(tools, ctx):
    out = await call(tools["query_tun_data_by_id"], ctx, tun_id=15216)
    assert out["tunnel"]["tun_id"] == "15216"


async def test_device_data_has_rating_and_alarm_limits(tools, ctx):
    out = await call(tools["query_device_data_by_id"], ctx, device_id="FAN-001")
    assert out["device"]["name"] == "1号主通风机" and out["device"]["type_cn"] == "主要通风机"
    assert out["device"]["rated"]["air_volume"] > 0
    assert any(lim["quantity"] == "air_volume" for lim in out["device"]["alarm_limits"])
    assert out["tunnel"]["tun_id"] == "FD-01"
    assert {v["quantity"] for v in out["latest"]["values"]} >= {"air_volume", "negative_pressure"}


async def test_devices_by_tunnel_name_ignores_spaces(tools, ctx):
    out = await call(tools["query_devices_by_tunnel"], ctx, tun_name="15216辅运起坡段")
    assert out["count"] == 4 and {d["tun_id"] for d in out["devices"]} == {"15216"}


async def test_devices_by_tunnel_id(tools, ctx, mine):
    out = await call(tools["query_devices_by_tunnel_id"], ctx, tun_id="15220-YS")
    expected = {d.device_id for d in mine.devices.values() if d.tun_id == "15220-YS"}
    assert {d["device_id"] for d in out["devices"]} == expected
    assert {"aux_fan", "ch4_sensor"} <= {d["device_type"] for d in out["devices"]}


async def test_tunnels_of_a_model(tools, ctx, mine):
    by_id = await call(tools["get_tun_list_by_modelid"], ctx, model_id="VN-01")
    current = await call(tools["query_tunnels_by_model"], ctx)
    blank = await call(tools["query_tunnels_by_model"], ctx, model_id=" ")
    assert blank == current
    assert by_id["count"] == current["count"] == len(mine.tunnels)
    assert current["model_id"] == "VN-01"
    assert {t["tun_id"] for t in by_id["tunnels"]} == set(mine.tunnels)


async def test_tunnel_search(tools, ctx):
    out = await call(tools["query_tunnel_list"], ctx, keyword="15220")
    assert {t["tun_id"] for t in out["tunnels"]} == {"15220-YS", "15220-HF"}
    none = await call(tools["query_tunnel_list"], ctx, keyword="没有这样的巷道")
    assert none["count"] == 0 and none["note"]


async def test_device_kinds_and_devices_by_kind(tools, ctx, mine):
    kinds = await call(tools["get_device_kind_dict"], ctx)
    counts = {k["code"]: k["count"] for k in kinds["kinds"]}
    assert counts["ch4_sensor"] == sum(d.device_type == "ch4_sensor" for d in mine.devices.values())
    by_code = await call(tools["get_device_list_by_kind"], ctx, kind="ch4_sensor")
    by_name = await call(tools["get_device_list_by_kind"], ctx, kind="甲烷传感器")
    assert by_code["devices"] == by_name["devices"] and by_code["count"] == counts["ch4_sensor"]


async def test_realtime_snapshot(tools, ctx):
    out = await call(tools["query_device_realtime_data"], ctx, device_id="CH4-15216")
    assert out["device_id"] == "CH4-15216"
    assert out["values"][0]["quantity"] == "ch4" and out["values"][0]["unit"] == "%"


async def test_history_one_day_is_hourly(tools, ctx, mine):
    out = await call(tools["list_ventanaly_monitor_data_days"], ctx, device_id="WS-15216", days=1)
    readings = await mine.list_ventanaly_monitor_data_days("WS-15216", 1)
    raw = [r.values["wind_speed"] for r in readings]
    assert out["count"] == 24 and out["interval_hours"] == 1
    assert out["series"]["wind_speed"] == raw
    stats = out["stats"]["wind_speed"]
    assert (stats["min"], stats["max"], stats["last"], stats["unit"]) == (min(raw), max(raw), raw[-1], "m/s")


async def test_history_thirty_days_is_bucketed_but_keeps_extremes(tools, ctx, mine):
    out = await call(tools["list_ventanaly_monitor_data_days"], ctx, device_id="FAN-001", days=30)
    readings = await mine.list_ventanaly_monitor_data_days("FAN-001", 30)
    assert out["count"] == 720 and out["interval_hours"] > 1
    assert len(out["times"]) <= 72 and all(len(s) == len(out["times"]) for s in out["series"].values())
    assert out["stats"]["air_volume"]["max"] == max(r.values["air_volume"] for r in readings)


async def test_history_filters_quantities_and_takes_an_end_time(tools, ctx):
    out = await call(
        tools["list_ventanaly_monitor_data_days"],
        ctx,
        device_id="FAN-001",
        days=2,
        end_time="2026-08-19T10:00:00",
        quantities=["air_volume", "no_such"],
        interval_hours=5,
    )
    assert set(out["series"]) == {"air_volume"} and out["missing_quantities"] == ["no_such"]
    assert out["interval_hours"] == 6
    assert out["end"] == "2026-08-19T10:00:00+08:00" and out["count"] == 48


@pytest.mark.parametrize(
    ("name", "args", "hint_tool"),
    [
        ("query_tun_data_by_id", {"tun_id": "NO-SUCH"}, "query_tunnel_list"),
        ("query_device_data_by_id", {"device_id": "NO-SUCH"}, "query_devices_by_tunnel_id"),
        ("query_devices_by_tunnel", {"tun_name": "不存在的巷道"}, "query_tunnel_list"),
        ("query_devices_by_tunnel_id", {"tun_id": "NO-SUCH"}, "query_tunnel_list"),
        ("get_tun_list_by_modelid", {"model_id": "VN-99"}, "query_tunnels_by_model"),
        ("get_device_list_by_kind", {"kind": "雷达"}, "get_device_kind_dict"),
        ("query_device_realtime_data", {"device_id": "NO-SUCH"}, "get_device_list_by_kind"),
        ("list_ventanaly_monitor_data_days", {"device_id": "NO-SUCH"}, "query_devices_by_tunnel_id"),
    ],
)
async def test_unknown_ids_give_a_readable_not_found_error(tools, ctx, name, args, hint_tool):
    body = error_of(await call(tools[name], ctx, **args))
    assert body["kind"] == "not_found" and body["tool"] == name
    assert "未找到" in body["error"] and next(iter(args.values())) in body["error"]
    assert hint_tool in body["hint"]


@pytest.mark.parametrize(
    ("name", "args", "field"),
    [
        ("query_tun_data_by_id", {}, "tun_id"),
        ("query_tun_data_by_id", {"tun_id": "  "}, "tun_id"),
        ("query_device_data_by_id", {"device_id": ["FAN-001"]}, "device_id"),
        ("list_ventanaly_monitor_data_days", {"device_id": "FAN-001", "days": 31}, "days"),
        ("list_ventanaly_monitor_data_days", {"device_id": "FAN-001", "days": "many"}, "days"),
        ("list_ventanaly_monitor_data_days", {"device_id": "FAN-001", "end_time": "yesterday"}, "end_time"),
        ("get_device_kind_dict", {"surprise": 1}, "surprise"),
    ],
)
async def test_bad_arguments_give_a_readable_error(tools, ctx, name, args, field):
    body = error_of(await call(tools[name], ctx, **args))
    assert body["kind"] == "invalid_args" and field in body["error"]
    assert "runtime" not in body["error"]
    reason = body["error"].removeprefix("参数无效：").replace(field, "")  # pydantic's words are English
    assert CJK.search(reason) and not re.search(r"[A-Za-z]{3,}", reason), body["error"]


async def test_a_tool_call_error_is_an_error_tool_message(tools, ctx):
    msg = await tools["query_tun_data_by_id"].ainvoke(
        {
            "type": "tool_call",
            "id": "c1",
            "name": "query_tun_data_by_id",
            "args": {"tun_id": "X", "runtime": tool_runtime(ctx)},
        }
    )
    assert isinstance(msg, ToolMessage) and msg.status == "error" and msg.tool_call_id == "c1"
    assert content_of(msg)["kind"] == "not_found"


class HangingSource(DemoMine):
    """A source whose tunnel query never answers and whose device query has a bug."""

    async def query_tun_data_by_id(self, tun_id: str):
        await asyncio.Event().wait()

    async def query_device_data_by_id(self, device_id: str):
        raise KeyError("bug")


async def test_a_hanging_tool_is_cut_at_the_time_out(tools):
    ctx = AgentContext(
        source=HangingSource(now=lambda: NOW), settings=Settings(_env_file=None, tool_timeout_s=0.05)
    )
    body = error_of(await call(tools["query_tun_data_by_id"], ctx, tun_id="15216"))
    assert body["kind"] == "timeout" and "超时" in body["error"]


async def test_an_unexpected_failure_is_a_tool_error_not_a_crash(tools):
    ctx = AgentContext(source=HangingSource(now=lambda: NOW), settings=Settings(_env_file=None))
    body = error_of(await call(tools["query_device_data_by_id"], ctx, device_id="FAN-001"))
    assert body["kind"] == "internal" and "KeyError" in body["error"]


async def test_without_a_context_the_tool_says_so(tools):
    body = error_of(await tools["get_device_kind_dict"].ainvoke({}))
    assert body["kind"] == "unavailable" and "AgentContext" in body["error"]


class ToolCallingModel(GenericFakeChatModel):
    """A scripted chat model that accepts tools (the agent binds them)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> ToolCallingModel:
        return self


async def test_inside_an_agent_the_context_reaches_the_tools_and_errors_do_not_stop_the_run(ctx):
    script = iter(
        [
            AIMessage(
                content="",
                tool_calls=[
                    {
                        "name": "query_tun_data_by_id",
                        "args": {"tun_id": "NO-SUCH"},
                        "id": "a",
                        "type": "tool_call",
                    },
                    {"name": "query_device_realtime_data", "args": {"device_id": "WS-15216"}, "id": "b"},
                ],
            ),
            AIMessage(content="15216 辅运起坡段风速正常。"),
        ]
    )
    agent = create_agent(ToolCallingModel(messages=script), data_tools(), context_schema=AgentContext)
    result = await agent.ainvoke({"messages": [HumanMessage("15216 风速怎么样？")]}, context=ctx)
    tool_msgs = {m.tool_call_id: m for m in result["messages"] if isinstance(m, ToolMessage)}
    assert tool_msgs["a"].status == "error" and content_of(tool_msgs["a"])["kind"] == "not_found"
    assert tool_msgs["b"].status == "success"
    assert content_of(tool_msgs["b"])["values"][0]["quantity"] == "wind_speed"
    assert result["messages"][-1].content == "15216 辅运起坡段风速正常。"
