"""Clean ends of model streams: a stream cut before its end (no ``finish_reason``, no ``[DONE]``) is an
incomplete answer, not a complete one; the partial text stays, flagged, and ``done`` never says 完成."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from langchain_core.messages import HumanMessage

from tests.chat_helpers import TOKEN
from tests.fake_openai import FakeOpenAI, FakeToolCall, FakeTurn
from tests.helpers import live_server, parse_spec_stream
from vent_agent.app import create_app
from vent_agent.llm.compat import IncompleteResponse
from vent_agent.llm.providers import build_chat_model
from vent_agent.settings import ModelConfig, Settings

ANSWER = "15216 辅运起坡段风速 1.8 m/s，风量 1250 m³/min，甲烷浓度 0.21%，均在规定范围内。"


@pytest.fixture
def serve() -> Iterator:
    """``serve(fake)`` starts ``fake`` on loopback and returns its ``/v1`` base URL."""
    stack = []

    def start(fake: FakeOpenAI) -> str:
        cm = live_server(fake.app)
        stack.append(cm)
        return f"{cm.__enter__()}/v1"

    yield start
    for cm in reversed(stack):
        cm.__exit__(None, None, None)


def _model(url: str, provider: str = "openai"):  # type: ignore[no-untyped-def]
    return build_chat_model(
        ModelConfig(name="m", base_url=url, api_key="k", provider=provider, model="fake-model"), "high"
    )


@pytest.mark.parametrize("provider", ["openai", "deepseek", "qwen"])
async def test_a_cut_stream_raises_with_the_partial_text(serve, provider: str) -> None:  # type: ignore[no-untyped-def]
    model = _model(serve(FakeOpenAI(turns=[FakeTurn(reply=ANSWER, cut_after=3)])), provider)
    seen = []
    with pytest.raises(IncompleteResponse) as info:
        async for chunk in model.astream([HumanMessage("风速？")]):
            seen.append(chunk.content)
    assert info.value.partial == ANSWER[:15] == "".join(seen)
    with pytest.raises(IncompleteResponse):  # a non-streaming call of a streaming model too
        await model.ainvoke([HumanMessage("风速？")])


async def test_complete_answers_and_complete_tool_calls_pass(serve) -> None:  # type: ignore[no-untyped-def]
    call = FakeToolCall(id="c1", name="query_tun_data_by_id", arguments={"tun_id": "15216"})
    fake = FakeOpenAI(turns=[FakeTurn(reply=ANSWER), FakeTurn(tool_calls=[call], no_finish=True)])
    model = _model(serve(fake))
    assert (await model.ainvoke([HumanMessage("风速？")])).content == ANSWER
    # no finish_reason, but every tool call arrived whole: accepted
    answer = await model.ainvoke([HumanMessage("风速？")])
    assert answer.tool_calls[0]["args"] == {"tun_id": "15216"}


async def test_cut_tool_call_arguments_are_incomplete(serve) -> None:  # type: ignore[no-untyped-def]
    call = FakeToolCall(id="c1", name="query_tun_data_by_id", arguments={"tun_id": "15216"}, piece=3)
    fake = FakeOpenAI(turns=[FakeTurn(tool_calls=[call], no_finish=True)])
    original = fake._tool_call_deltas
    fake._tool_call_deltas = lambda turn: original(turn)[:-2]  # type: ignore[method-assign]
    with pytest.raises(IncompleteResponse):
        await _model(serve(fake)).ainvoke([HumanMessage("风速？")])


async def test_chat_keeps_a_cut_answer_flagged_and_never_says_done_complete(serve, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    url = serve(FakeOpenAI(turns=[FakeTurn(reply=ANSWER, cut_after=4)]))
    settings = Settings(
        _env_file=None, data_dir=tmp_path / "d", llm_base_url=url, llm_api_key="k", llm_model="fake-model"
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t", timeout=60) as c:
            r = await c.post("/api/chat", data={"message": "15216 风速？"}, headers=TOKEN)
            events = parse_spec_stream(r.text)
            hist = (await c.get(f"/api/chat/history/{r.headers['x-session-id']}", headers=TOKEN)).json()
    types = [e["type"] for e in events]
    partial = "".join(e["content"] for e in events if e["type"] == "token")
    assert partial == ANSWER[:20]
    assert types[-2:] == ["error", "done"] and "不完整" in events[-2]["message"]
    assert "完成" not in events[-1]["message"] and "suggestions" not in types
    answer = hist["messages"][-1]
    assert answer["content"] == partial and "不完整" in answer["error"]
