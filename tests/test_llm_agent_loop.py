"""A LangGraph tool loop (langchain's ``create_agent``) on a provider class against the loopback fake
server: the graph's ``messages`` stream sees reasoning as it streams and tool calls with their own
indexes, both parallel calls run with their own arguments, and the follow-up request carries the
reasoning of the tool-call turn."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessageChunk, HumanMessage, ToolMessage
from langchain_core.tools import tool

from tests.fake_openai import FakeOpenAI, FakeToolCall, FakeTurn
from tests.helpers import live_server
from vent_agent.llm.chunks import content_text, reasoning_text
from vent_agent.llm.providers import build_chat_model
from vent_agent.settings import ModelConfig


@pytest.fixture
def fake_url() -> Iterator[tuple[FakeOpenAI, str]]:
    fake = FakeOpenAI(
        turns=[
            FakeTurn(
                reasoning="要同时查巷道和风机。",
                tool_calls=[
                    FakeToolCall(id="call_t", name="query_tun", arguments={"tun_id": "15216"}),
                    FakeToolCall(id="call_d", name="query_device", arguments={"device_id": "FAN-001"}),
                ],
                shared_index=True,
            ),
            FakeTurn(reasoning="两项数据都正常。", reply="巷道风速 1.2 m/s，风机运行正常。"),
        ]
    )
    with live_server(fake.app) as url:
        yield fake, f"{url}/v1"


@tool
def query_tun(tun_id: str) -> str:
    """Latest readings of a tunnel."""
    return f"巷道 {tun_id}：风速 1.2 m/s"


@tool
def query_device(device_id: str) -> str:
    """Latest readings of a device."""
    return f"设备 {device_id}：运行"


@pytest.mark.parametrize("provider", ["deepseek", "qwen", "openai"])
async def test_agent_loop_streams_reasoning_and_sends_it_back(fake_url, provider: str) -> None:
    fake, url = fake_url
    config = ModelConfig(name="m", base_url=url, api_key="k", provider=provider, model="fake-model")
    agent = create_agent(build_chat_model(config, "high"), [query_tun, query_device])

    reasoning, tokens, tool_results, indexes = [], [], [], set()
    async for message, _meta in agent.astream(
        {"messages": [HumanMessage("15216 巷道和 FAN-001 风机怎么样？")]}, stream_mode="messages"
    ):
        if isinstance(message, AIMessageChunk):
            reasoning.append(reasoning_text(message))
            tokens.append(content_text(message))
            indexes |= {tc["index"] for tc in message.tool_call_chunks}
        elif isinstance(message, ToolMessage):
            tool_results.append(message.content)

    assert "".join(reasoning) == "要同时查巷道和风机。两项数据都正常。"
    assert "".join(tokens) == "巷道风速 1.2 m/s，风机运行正常。"
    assert indexes == {0, 1}
    assert sorted(tool_results) == ["巷道 15216：风速 1.2 m/s", "设备 FAN-001：运行"]

    assert len(fake.requests) == 2
    sent = fake.requests[1]["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "tool", "tool"]
    assert sent[1]["reasoning_content"] == "要同时查巷道和风机。"
    assert [c["function"]["name"] for c in sent[1]["tool_calls"]] == ["query_tun", "query_device"]
    assert {m["tool_call_id"] for m in sent[2:]} == {"call_t", "call_d"}
