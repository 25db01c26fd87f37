"""``query_knowledge_base`` as a LangChain tool: schema, answers with markers, the per-run record."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import pytest
from langchain_core.tools import BaseTool
from pydantic import BaseModel

from tests.chat_helpers import tool_runtime
from vent_agent.kb.citations import CitationRegistry
from vent_agent.kb.search import get_knowledge_base
from vent_agent.settings import Settings
from vent_agent.tools.context import AgentContext
from vent_agent.tools.kb_tools import TOOL_NAME, kb_context_tools, kb_tools
from vent_agent.upstream.demo_mine import DemoMine


@pytest.fixture
def registry() -> CitationRegistry:
    return CitationRegistry(get_knowledge_base())


def _call_schema(tool: BaseTool) -> dict[str, Any]:
    """The JSON schema of the arguments the model is shown for ``tool``."""
    model = tool.tool_call_schema
    assert isinstance(model, type) and issubclass(model, BaseModel), model
    return model.model_json_schema()


def test_schema_and_description(registry: CitationRegistry) -> None:
    (tool,) = kb_tools(registry)
    assert tool.name == TOOL_NAME == "query_knowledge_base"
    assert "煤矿安全规程" in tool.description and "[[R1]]" in tool.description
    schema = _call_schema(tool)
    assert schema["required"] == ["query"]
    assert set(schema["properties"]) == {"query", "top_k", "edition"}
    assert schema["properties"]["top_k"]["maximum"] == 10
    assert all(
        any("\u4e00" <= ch <= "\u9fff" for ch in p["description"]) for p in schema["properties"].values()
    )


def test_answer_has_markers_numbers_and_edition(registry: CitationRegistry) -> None:
    (tool,) = kb_tools(registry)
    out = tool.invoke({"query": "采煤工作面最高允许风速是多少", "top_k": 2})
    assert out["edition"] == "2025" and len(out["clauses"]) == 2
    first = out["clauses"][0]
    assert first["marker"] == "[[R1]]" and first["article"] == 157 and first["edition"] == "2025"
    assert first["label"] == "《煤矿安全规程》（2025版）第157条" and first["aliases"] == {"2016": 136}
    assert "最高允许风速 4 m/s" in first["excerpt"] and first["table_row"].startswith("采煤工作面")
    json.dumps(out, ensure_ascii=False)  # JSON-able as a tool message
    again = tool.invoke({"query": "2016版第136条"})
    assert [c["marker"] for c in again["clauses"]] == ["[[R1]]"]
    assert again["clauses"][0]["note"] == "2016版第136条即2025版第157条"
    assert [c["query"] for c in registry.calls] == ["采煤工作面最高允许风速是多少", "2016版第136条"]
    assert [r.article for r in registry.retrieved()][0] == 157


def test_no_hit_and_bad_arguments(registry: CitationRegistry) -> None:
    (tool,) = kb_tools(registry)
    empty = tool.invoke({"query": "第999条"})
    assert empty["clauses"] == [] and "未检索到" in empty["note"]
    for bad in ({"query": ""}, {"query": "风速", "top_k": 0}, {"query": "风速", "extra": 1}):
        err = json.loads(tool.invoke(bad))
        assert err["tool"] == TOOL_NAME and err["kind"] == "invalid_args"
        reason = re.sub(r"query|top_k|extra", "", err["error"])  # the parameter named, the reason Chinese
        assert err["error"].startswith("参数无效：") and not re.search(r"[A-Za-z]{3,}", reason), err
    assert registry.retrieved() == []


async def test_async_call(registry: CitationRegistry) -> None:
    (tool,) = kb_tools(registry)
    out = await tool.ainvoke({"query": "反风设施", "top_k": 1, "edition": "2022"})
    assert out["edition"] == "2016" and out["clauses"][0]["article"] == 178
    assert out["clauses"][0]["aliases"] == {"2016": 159}


@dataclass(frozen=True)
class _Ctx(AgentContext):
    """The run context with the citation registry the lead is asked to add to AgentContext."""

    citations: CitationRegistry | None = None


async def test_context_tool_records_in_the_runs_registry(registry: CitationRegistry) -> None:
    (tool,) = kb_context_tools()
    assert tool.name == TOOL_NAME and "runtime" not in _call_schema(tool)["properties"]
    ctx = _Ctx(source=DemoMine(), settings=Settings(_env_file=None), citations=registry)
    out = await tool.ainvoke({"query": "风桥最高允许风速", "top_k": 1, "runtime": tool_runtime(ctx)})
    assert out["clauses"][0]["marker"] == "[[R1]]" and out["clauses"][0]["table_row"] == "风桥"
    assert [r.article for r in registry.retrieved()] == [157]


async def test_context_tool_without_registry_and_errors() -> None:
    (tool,) = kb_context_tools()
    ctx = AgentContext(source=DemoMine(), settings=Settings(_env_file=None))
    out = await tool.ainvoke({"query": "第一百九十二条", "runtime": tool_runtime(ctx)})
    assert [c["article"] for c in out["clauses"]] == [192] and out["edition"] == "2025"
    err = json.loads(await tool.ainvoke({"query": "", "runtime": tool_runtime(ctx)}))
    assert err["kind"] == "invalid_args" and err["tool"] == TOOL_NAME
    missing = json.loads(await tool.ainvoke({"runtime": tool_runtime(ctx)}))
    assert missing["error"] == "参数无效：query：必须给出"  # pydantic's own "Field required" is English
    no_ctx = json.loads(await tool.ainvoke({"query": "风速", "runtime": None}))
    assert no_ctx["kind"] == "unavailable"
