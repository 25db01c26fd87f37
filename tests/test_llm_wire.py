"""Wire tests of the provider classes against the loopback fake OpenAI-compatible server: streamed
reasoning, tool calls that share one index, usage in streams, reasoning sent back with tool results,
thinking-level parameters on the wire."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage, ToolMessage

from tests.fake_openai import FakeOpenAI, FakeToolCall, FakeTurn
from vent_agent.llm.chunks import content_text, reasoning_text
from vent_agent.llm.providers import build_chat_model
from vent_agent.settings import ModelConfig

PROVIDERS = ["openai", "deepseek", "qwen"]

TWO_CALLS = [
    FakeToolCall(id="call_a", name="query_tun_data_by_id", arguments={"tun_id": "15216"}),
    FakeToolCall(
        id="call_b", name="query_device_data_by_id", arguments={"device_id": "FAN-001", "note": "主通风机"}
    ),
]


def _config(base_url: str, provider: str) -> ModelConfig:
    return ModelConfig(
        name=f"m-{provider}", base_url=base_url, api_key="k", provider=provider, model="fake-model"
    )


async def _stream(model, messages: list[BaseMessage]) -> tuple[list[AIMessageChunk], AIMessageChunk]:
    chunks: list[AIMessageChunk] = []
    async for chunk in model.astream(messages):
        chunks.append(chunk)
    merged = chunks[0]
    for c in chunks[1:]:
        merged = merged + c
    return chunks, merged


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_streamed_reasoning_text_and_usage(serve, provider: str) -> None:
    fake = FakeOpenAI(
        turns=[FakeTurn(reply="风速 1.2 m/s，符合要求。", reasoning="先查风速，再对照第157条。")]
    )
    model = build_chat_model(_config(serve(fake), provider), "high")
    chunks, merged = await _stream(model, [HumanMessage("15216 巷道风速？")])

    pieces = [reasoning_text(c) for c in chunks if reasoning_text(c)]
    assert len(pieces) > 1, "reasoning must arrive as it streams, not at the end"
    assert "".join(pieces) == "先查风速，再对照第157条。"
    assert "".join(content_text(c) for c in chunks) == "风速 1.2 m/s，符合要求。"
    assert merged.usage_metadata is not None
    assert (merged.usage_metadata["input_tokens"], merged.usage_metadata["output_tokens"]) == (10, 5)
    assert fake.requests[0]["stream_options"] == {"include_usage": True}


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_two_tool_calls_sharing_one_index_stay_apart(serve, provider: str) -> None:
    """Parallel calls streamed one after the other, all with ``index: 0`` and told apart by ``id``."""
    fake = FakeOpenAI(turns=[FakeTurn(reasoning="两个都要查", tool_calls=TWO_CALLS, shared_index=True)])
    model = build_chat_model(_config(serve(fake), provider), "high")
    chunks, merged = await _stream(model, [HumanMessage("查巷道和风机")])

    calls = [(c["id"], c["name"], c["args"]) for c in merged.tool_calls]
    assert calls == [
        ("call_a", "query_tun_data_by_id", {"tun_id": "15216"}),
        ("call_b", "query_device_data_by_id", {"device_id": "FAN-001", "note": "主通风机"}),
    ]
    assert not merged.invalid_tool_calls
    # every streamed tool-call chunk carries the corrected index before anyone sees it
    indexes = {tc["index"] for c in chunks for tc in c.tool_call_chunks}
    assert indexes == {0, 1}


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_distinct_indexes_interleaved_still_merge_by_index(serve, provider: str) -> None:
    fake = FakeOpenAI(turns=[FakeTurn(tool_calls=TWO_CALLS, interleave=True)])
    model = build_chat_model(_config(serve(fake), provider), "off")
    _, merged = await _stream(model, [HumanMessage("查巷道和风机")])
    assert [(c["name"], c["args"]) for c in merged.tool_calls] == [
        ("query_tun_data_by_id", {"tun_id": "15216"}),
        ("query_device_data_by_id", {"device_id": "FAN-001", "note": "主通风机"}),
    ]


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_reasoning_is_sent_back_with_tool_results(serve, provider: str) -> None:
    fake = FakeOpenAI(
        turns=[
            FakeTurn(reasoning="需要实时风速数据。", tool_calls=TWO_CALLS[:1]),
            FakeTurn(reply="风速正常。", reasoning="数据已到，风速 1.2 m/s。"),
        ]
    )
    model = build_chat_model(_config(serve(fake), provider), "high")
    history: list[BaseMessage] = [HumanMessage("15216 巷道风速？")]
    _, first = await _stream(model, history)
    assert first.tool_calls and first.tool_calls[0]["id"] == "call_a"
    history += [
        AIMessage(
            content=first.content, additional_kwargs=first.additional_kwargs, tool_calls=first.tool_calls
        ),
        ToolMessage(content=json.dumps({"wind_speed": 1.2}), tool_call_id="call_a"),
    ]
    _, second = await _stream(model, history)

    assert content_text(second) == "风速正常。"
    sent = fake.requests[1]["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "tool"]
    assert sent[1]["reasoning_content"] == "需要实时风速数据。"
    assert sent[1]["tool_calls"][0]["id"] == "call_a"
    assert sent[2]["tool_call_id"] == "call_a"


async def test_deepseek_thinking_gives_every_tool_call_turn_a_reasoning_field(serve) -> None:
    """A tool-call turn with no known reasoning (say, made by another model before a switch) still
    carries the field that DeepSeek's thinking mode requires; with thinking off nothing is added."""
    history: list[BaseMessage] = [
        HumanMessage("查风机"),
        AIMessage(
            content="",
            tool_calls=[{"id": "c1", "name": "query_device_data_by_id", "args": {"device_id": "F1"}}],
        ),
        ToolMessage(content="{}", tool_call_id="c1"),
        AIMessage(content="风机正常。"),
        HumanMessage("再查一次"),
    ]
    sent = {}
    for level in ("high", "off"):
        fake = FakeOpenAI(reply="好的")
        await build_chat_model(_config(serve(fake), "deepseek"), level).ainvoke(history)
        sent[level] = fake.requests[0]["messages"]
    assert sent["high"][1]["reasoning_content"] == ""
    assert "reasoning_content" not in sent["high"][3]
    assert all("reasoning_content" not in m for m in sent["off"])


async def test_openai_provider_adds_no_reasoning_field_of_its_own(serve) -> None:
    fake = FakeOpenAI(reply="好的")
    history: list[BaseMessage] = [
        HumanMessage("查风机"),
        AIMessage(content="", tool_calls=[{"id": "c1", "name": "q", "args": {}}]),
        ToolMessage(content="{}", tool_call_id="c1"),
    ]
    await build_chat_model(_config(serve(fake), "openai"), "high").ainvoke(history)
    assert all("reasoning_content" not in m for m in fake.requests[0]["messages"])


@pytest.mark.parametrize(
    ("provider", "level", "expected", "absent"),
    [
        ("deepseek", "off", {"thinking": {"type": "disabled"}}, ["reasoning_effort"]),
        ("deepseek", "high", {"thinking": {"type": "enabled"}, "reasoning_effort": "high"}, []),
        ("deepseek", "highest", {"thinking": {"type": "enabled"}, "reasoning_effort": "max"}, []),
        ("qwen", "off", {"enable_thinking": False}, ["thinking_budget", "reasoning_effort"]),
        ("qwen", "high", {"enable_thinking": True, "thinking_budget": 8192}, ["reasoning_effort"]),
        ("qwen", "highest", {"enable_thinking": True}, ["thinking_budget", "reasoning_effort"]),
        ("openai", "off", {}, ["reasoning_effort", "thinking", "enable_thinking"]),
        ("openai", "high", {"reasoning_effort": "medium"}, ["thinking", "enable_thinking"]),
        ("openai", "highest", {"reasoning_effort": "high"}, ["thinking", "enable_thinking"]),
    ],
)
async def test_thinking_level_parameters_on_the_wire(serve, provider, level, expected, absent) -> None:
    fake = FakeOpenAI(reply="好")
    await build_chat_model(_config(serve(fake), provider), level).ainvoke([HumanMessage("你好")])
    body = fake.requests[0]
    assert body["model"] == "fake-model" and body["stream"] is True
    assert "context_window" not in body  # ModelConfig's limit stays local
    for key, value in expected.items():
        assert body[key] == value
    for key in absent:
        assert key not in body


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_non_streaming_call_keeps_reasoning_and_usage(serve, provider: str) -> None:
    fake = FakeOpenAI(turns=[FakeTurn(reply="正常", reasoning="核对阈值")])
    model = build_chat_model(_config(serve(fake), provider), "high", streaming=False)
    answer = await model.ainvoke([HumanMessage("你好")])
    assert fake.requests[0].get("stream") in (None, False)
    assert reasoning_text(answer) == "核对阈值" and content_text(answer) == "正常"
    assert answer.usage_metadata and answer.usage_metadata["total_tokens"] == 15


async def test_http_error_is_raised_to_the_caller(serve) -> None:
    import openai

    model = build_chat_model(_config(serve(FakeOpenAI(fail_status=400)), "deepseek"), "high")
    with pytest.raises(openai.BadRequestError):
        await model.ainvoke([HumanMessage("你好")])


async def test_click_interpret_model_streams_reasoning(serve, tmp_path) -> None:
    """The click-interpret model (VENT_LLM_*) also keeps reasoning, as ``reasoning`` pieces."""
    from vent_agent.llm.openai_compat import make_interpret_model, stream_text
    from vent_agent.settings import Settings

    fake = FakeOpenAI(reply="风速正常。", reasoning="先看风速再看瓦斯。")
    settings = Settings(_env_file=None, data_dir=tmp_path, llm_base_url=serve(fake), llm_model="fake-model")
    model = make_interpret_model(settings)
    assert model is not None
    pieces = [p async for p in stream_text(model, [{"role": "user", "content": "解读"}])]
    assert "".join(t for k, t in pieces if k == "reasoning") == "先看风速再看瓦斯。"
    assert "".join(t for k, t in pieces if k == "token") == "风速正常。"
    assert pieces[0][0] == "reasoning"
