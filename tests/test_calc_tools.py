"""LangChain tools over the calculators: names, schemas, results and error results."""

from __future__ import annotations

import inspect
import json
import re

import pytest
from langchain_core.tools import BaseTool

from calc import CALCULATORS, DEFAULT_TABLES
from vent_agent.tools.calc_tools import calc_tools

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def tools() -> dict[str, BaseTool]:
    return {tool.name: tool for tool in calc_tools()}


def test_every_calculator_is_a_tool_under_its_name(tools):
    assert set(tools) == set(CALCULATORS)
    assert all(isinstance(t, BaseTool) for t in tools.values())


@pytest.mark.parametrize("name", sorted(CALCULATORS))
def test_schema_has_the_parameters_with_chinese_descriptions(tools, name):
    schema = tools[name].tool_call_schema.model_json_schema()
    params = [p for p in inspect.signature(CALCULATORS[name]).parameters if p != "tables"]
    assert set(schema["properties"]) == set(params)
    required = {
        p
        for p, v in inspect.signature(CALCULATORS[name]).parameters.items()
        if v.default is inspect.Parameter.empty
    }
    assert set(schema.get("required", [])) == required
    assert all(prop.get("description") for prop in schema["properties"].values())
    assert any("\u4e00" <= ch <= "\u9fff" for ch in tools[name].description)


def test_schema_types(tools):
    props = tools["calc_face_by_gas"].tool_call_schema.model_json_schema()["properties"]
    assert props["gas_emission"]["type"] == "number"
    assert "m³/min" in props["gas_emission"]["description"]
    vehicle = tools["calc_tunnel_by_vehicle"].tool_call_schema.model_json_schema()["properties"]["vehicle_kw"]
    assert {"number", "array"} <= {alt.get("type") for alt in vehicle["anyOf"]}


def test_tool_returns_the_result_as_a_json_able_dict(tools):
    out = tools["calc_tunnel_by_gas"].invoke({"gas_emission": 0.8, "k_gas": 1.8})
    assert out["value"] == 144.0 and out["substituted"] == "Q = 100 × 0.80 × 1.8 = 144.0 m³/min"
    assert out["coefficients"][0]["origin"] == "given"
    json.dumps(out, ensure_ascii=False)


def test_max_tool_carries_methods_and_checks(tools):
    out = tools["calc_tunnel_air_volume_max"].invoke(
        {
            "gas_emission": 0.2,
            "k_gas": 1.5,
            "explosive_kg": 24,
            "fan_intake_q": 300,
            "area": 12.6,
            "heading_type": "rock",
        }
    )
    assert out["value"] == 600.0 and out["governing"] == "calc_tunnel_by_explosives"
    assert out["checks"][0]["ok"] is True


def test_tool_call_message_content_is_json(tools):
    msg = tools["calc_face_by_workers"].invoke(
        {"type": "tool_call", "id": "1", "name": "calc_face_by_workers", "args": {"workers": 38}}
    )
    assert json.loads(msg.content)["value"] == 152.0


@pytest.mark.parametrize(
    ("args", "param"),
    [({"gas_emission": -1.0, "k_gas": 1.5}, "gas_emission"), ({"gas_emission": float("nan"), "k_gas": 1.5}, "gas_emission"),
     ({"gas_emission": 1.0, "mining_method": "手采"}, "mining_method")],
)  # fmt: skip
def test_calc_input_error_becomes_an_error_result(tools, args, param):
    out = json.loads(tools["calc_face_by_gas"].invoke(args))
    assert out["param"] == param and out["method"] == "calc_face_by_gas"
    assert out["error"].startswith(f"参数 {param}") and CJK.search(out["reason"])


def test_calc_input_error_result_reads_in_chinese(tools):
    out = json.loads(tools["calc_face_by_gas"].invoke({"gas_emission": -1.0, "k_gas": 1.5}))
    assert out["error"] == "参数 gas_emission=-1.0 无效：不能小于 0" and out["reason"] == "不能小于 0"


@pytest.mark.parametrize(
    "args",
    [
        {"gas_emission": -1.0, "k_gas": 1.5},
        {"gas_emission": "abc"},
        {"k_gas": 1.5},
        {"gas_emission": 1, "x": 2},
    ],
)
def test_a_tool_call_with_bad_input_is_a_tool_error(tools, args):
    """Bad input (the calculator's own check, or the schema) answers a tool call with status "error",
    which the stream shows as a failed tool_result; good input with status "success"."""
    call = {"type": "tool_call", "id": "1", "name": "calc_face_by_gas"}
    bad = tools["calc_face_by_gas"].invoke({**call, "args": args})
    assert bad.status == "error" and json.loads(bad.content)["error"]
    good = tools["calc_face_by_gas"].invoke({**call, "args": {"gas_emission": 1.0, "k_gas": 1.5}})
    assert good.status == "success" and json.loads(good.content)["value"] == 150.0


@pytest.mark.parametrize(
    ("tool", "args", "param", "reason"),
    [("calc_face_by_gas", {"gas_emission": "abc", "k_gas": 1.5}, "gas_emission", "参数 gas_emission 无效：应为数字"),
     ("calc_face_by_gas", {"gas_emission": True}, "gas_emission", "参数 gas_emission 无效：应为数字，不能是 true/false"),
     ("calc_face_by_gas", {"gas_emission": 1.0, "k_gaz": 1.5}, "k_gaz",
      "没有参数 k_gaz（可用参数：gas_emission, k_gas, mining_method）"),
     ("calc_face_by_gas", {"k_gas": 1.5}, "gas_emission", "缺少必填参数 gas_emission"),
     ("calc_tunnel_by_vehicle", {"vehicle_kw": [70, "x"]}, "vehicle_kw", "参数 vehicle_kw 无效：应为数字或数字列表"),
     ("calc_total_air_volume", {"location_qs": "x", "k_mine": 1.2}, "location_qs",
      "参数 location_qs 无效：应为名称→数值的键值表或数字列表"),
     ("calc_face_by_workers", {"workers": "x"}, "workers", "参数 workers 无效：应为整数")],
)  # fmt: skip
def test_schema_violation_becomes_a_chinese_error_result(tools, tool, args, param, reason):
    out = json.loads(tools[tool].invoke(args))
    assert out["param"] == param and out["reason"] == reason
    assert out["error"] == f"调用参数有误：{reason}" and out["method"] == tool


def test_tools_bind_the_mines_tables():
    tables = DEFAULT_TABLES.override({"k_gas_heading": {"low": 1.6, "high": 2.0}})
    tool = {t.name: t for t in calc_tools(tables)}["calc_tunnel_by_gas"]
    assert tool.invoke({"gas_emission": 1.0})["value"] == 180.0


async def test_tool_runs_asynchronously(tools):
    out = await tools["calc_charging_chamber"].ainvoke({"h2_emission": 0.2})
    assert out["value"] == 100.0 and out["governing"] == "calc_charging_chamber.minimum"


def test_calc_tools_work_in_a_tool_node() -> None:
    """Regression: ToolNode reads the tool function's type hints; a functools.partial made it fail."""
    from langgraph.prebuilt import ToolNode

    from vent_agent.tools.calc_tools import calc_tools

    node = ToolNode(calc_tools())
    assert "calc_face_by_workers" in node.tools_by_name


def test_max_tool_over_an_incomplete_set_says_so_to_the_model(tools):
    """A face with only the gas method computable: the answer names the methods not computed."""
    out = tools["calc_face_air_volume_max"].invoke({"gas_emission": 4.2, "k_gas": 1.5})
    assert out["incomplete"] is True and out["value"] == 630.0
    assert "calc_face_by_climate" in out["note"] and "不能作为需风量" in out["note"]
    assert len(out["not_computed"]) == 2
    full = tools["calc_face_air_volume_max"].invoke(
        {"gas_emission": 4.2, "k_gas": 1.5, "workers": 38, "mining_height": 3.2, "roof_control_max": 5.8,
         "roof_control_min": 4.6, "face_length": 220, "intake_temp": 19.0}
    )  # fmt: skip
    assert "incomplete" not in full and full["not_computed"] == []
