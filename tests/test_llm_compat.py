"""``ToolCallIndexer``: one index per streamed tool call, whatever index the server sent; and a server
that sends no index at all, on the wire."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage

from tests.fake_openai import FakeOpenAI, FakeToolCall, FakeTurn
from tests.helpers import live_server, present
from vent_agent.llm.compat import ToolCallIndexer
from vent_agent.llm.providers import build_chat_model
from vent_agent.settings import ModelConfig


def _chunk(index, id_=None, name=None, args="") -> AIMessageChunk:
    return AIMessageChunk(
        content="",
        tool_call_chunks=[{"index": index, "id": id_, "name": name, "args": args, "type": "tool_call_chunk"}],
    )


def _merge(chunks: list[AIMessageChunk]) -> AIMessageChunk:
    indexer = ToolCallIndexer()
    merged = None
    for c in chunks:
        indexer.fix(c)
        merged = c if merged is None else merged + c
    assert merged is not None
    return merged


def test_shared_index_new_id_starts_a_new_call() -> None:
    merged = _merge(
        [
            _chunk(0, "a", "f", ""),
            _chunk(0, args='{"x": 1}'),
            _chunk(0, "b", "g", ""),
            _chunk(0, args='{"y": 2}'),
        ]
    )
    assert [(c["id"], c["name"], c["args"]) for c in merged.tool_calls] == [
        ("a", "f", {"x": 1}),
        ("b", "g", {"y": 2}),
    ]


def test_repeated_id_and_name_in_every_chunk_is_one_call() -> None:
    merged = _merge([_chunk(0, "a", "f", '{"x"'), _chunk(0, "a", "f", ": 1}")])
    assert [(c["id"], c["args"]) for c in merged.tool_calls] == [("a", {"x": 1})]


def test_new_name_without_id_starts_a_new_call() -> None:
    merged = _merge([_chunk(None, None, "f", "{}"), _chunk(None, None, "g", '{"y": 2}')])
    assert [(c["name"], c["args"]) for c in merged.tool_calls] == [("f", {}), ("g", {"y": 2})]


def test_distinct_indexes_are_kept_apart_when_interleaved() -> None:
    merged = _merge(
        [_chunk(0, "a", "f"), _chunk(1, "b", "g"), _chunk(0, args='{"x": 1}'), _chunk(1, args='{"y": 2}')]
    )
    assert [(c["name"], c["args"]) for c in merged.tool_calls] == [("f", {"x": 1}), ("g", {"y": 2})]


async def test_tool_calls_without_index_on_the_wire() -> None:
    calls = [
        FakeToolCall(id="c1", name="query_tun_data_by_id", arguments={"tun_id": "15216"}),
        FakeToolCall(id="c2", name="get_current_time", arguments={}),
    ]
    fake = FakeOpenAI(turns=[FakeTurn(tool_calls=calls, omit_index=True)])
    with live_server(fake.app) as url:
        config = ModelConfig(name="m", base_url=f"{url}/v1", provider="openai", model="fake-model")
        message = await build_chat_model(config, "off").ainvoke([HumanMessage("几点了？15216 怎么样？")])
    assert [(c["id"], c["name"], c["args"]) for c in message.tool_calls] == [
        ("c1", "query_tun_data_by_id", {"tun_id": "15216"}),
        ("c2", "get_current_time", {}),
    ]


@pytest.mark.parametrize("provider", ["openai", "deepseek", "qwen"])
@pytest.mark.parametrize("streaming", [True, False])
async def test_tool_call_arguments_sent_as_an_object(provider: str, streaming: bool) -> None:
    calls = [
        FakeToolCall(id="c1", name="query_tun_data_by_id", arguments={"tun_id": "15216", "名称": "回风巷"}),
        FakeToolCall(id="c2", name="get_current_time", arguments={}),
    ]
    fake = FakeOpenAI(turns=[FakeTurn(tool_calls=calls, object_arguments=True)])
    with live_server(fake.app) as url:
        config = ModelConfig(
            name="m", base_url=f"{url}/v1", provider=provider, model="fake-model", api_key="k"
        )
        model = build_chat_model(config, "off").model_copy(update={"streaming": streaming})
        message: AIMessage
        if streaming:
            streamed: AIMessageChunk | None = None
            async for chunk in model.astream([HumanMessage("15216 怎么样？")]):
                streamed = chunk if streamed is None else streamed + chunk
            message = present(streamed)
        else:
            message = await model.ainvoke([HumanMessage("15216 怎么样？")])
    assert fake.requests[0].get("stream", False) is streaming
    assert [(c["id"], c["name"], c["args"]) for c in message.tool_calls] == [
        ("c1", "query_tun_data_by_id", {"tun_id": "15216", "名称": "回风巷"}),
        ("c2", "get_current_time", {}),
    ]
    assert not getattr(message, "invalid_tool_calls", None)
