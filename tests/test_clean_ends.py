"""Clean ends of model streams: a stream cut before its end (no ``finish_reason``, no ``[DONE]``) is an
incomplete answer, not a complete one; the partial text stays, flagged, and ``done`` never says 完成."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest
from langchain_core.messages import HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from tests.chat_helpers import TOKEN, use_model
from tests.fake_openai import FakeOpenAI, FakeToolCall, FakeTurn
from tests.helpers import parse_spec_stream, without_clock
from tests.scripted_model import ScriptedChatModel, says
from vent_agent.app import create_app
from vent_agent.chat.suggest import PROMPT as SUGGEST_PROMPT
from vent_agent.llm.compat import IncompleteResponse
from vent_agent.llm.providers import build_chat_model
from vent_agent.settings import ModelConfig, Settings

ANSWER = "15216 辅运起坡段风速 1.8 m/s，风量 1250 m³/min，甲烷浓度 0.21%，均在规定范围内。"


def _model(url: str, provider: str = "openai"):
    return build_chat_model(
        ModelConfig(name="m", base_url=url, api_key="k", provider=provider, model="fake-model"), "high"
    )


@pytest.mark.parametrize("provider", ["openai", "deepseek", "qwen"])
async def test_a_cut_stream_raises_with_the_partial_text(serve, provider: str) -> None:
    model = _model(serve(FakeOpenAI(turns=[FakeTurn(reply=ANSWER, cut_after=3)])), provider)
    seen = []
    with pytest.raises(IncompleteResponse) as info:
        async for chunk in model.astream([HumanMessage("风速？")]):
            seen.append(chunk.content)
    assert info.value.partial == ANSWER[:15] == "".join(seen)
    with pytest.raises(IncompleteResponse):  # a non-streaming call of a streaming model too
        await model.ainvoke([HumanMessage("风速？")])


async def test_complete_answers_and_complete_tool_calls_pass(serve) -> None:
    call = FakeToolCall(id="c1", name="query_tun_data_by_id", arguments={"tun_id": "15216"})
    fake = FakeOpenAI(turns=[FakeTurn(reply=ANSWER), FakeTurn(tool_calls=[call], no_finish=True)])
    model = _model(serve(fake))
    assert (await model.ainvoke([HumanMessage("风速？")])).content == ANSWER
    # no finish_reason, but every tool call arrived whole: accepted
    answer = await model.ainvoke([HumanMessage("风速？")])
    assert answer.tool_calls[0]["args"] == {"tun_id": "15216"}


async def test_cut_tool_call_arguments_are_incomplete(serve, monkeypatch: pytest.MonkeyPatch) -> None:
    call = FakeToolCall(id="c1", name="query_tun_data_by_id", arguments={"tun_id": "15216"}, piece=3)
    fake = FakeOpenAI(turns=[FakeTurn(tool_calls=[call], no_finish=True)])
    original = fake._tool_call_deltas
    monkeypatch.setattr(fake, "_tool_call_deltas", lambda turn: original(turn)[:-2])
    with pytest.raises(IncompleteResponse):
        await _model(serve(fake)).ainvoke([HumanMessage("风速？")])


async def test_chat_keeps_a_cut_answer_flagged_and_never_says_done_complete(serve, tmp_path: Path) -> None:
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


class StallingFakeOpenAI(FakeOpenAI):
    """The loopback fake model, stalling ``stall_s`` (s) after ``chunks`` streamed chunks (the role chunk
    included): a model that hangs mid-answer."""

    def __init__(self, reply: str, chunks: int, stall_s: float = 10.0) -> None:
        super().__init__(reply=reply)
        self.chunks, self.stall_s = chunks, stall_s

    async def completions(self, request):
        response = await super().completions(request)
        inner, chunks, stall_s = response.body_iterator, self.chunks, self.stall_s

        async def stalling():
            n = 0
            async for chunk in inner:
                if n == chunks:
                    await asyncio.sleep(stall_s)
                n += 1
                yield chunk

        response.body_iterator = stalling()
        return response


def client_text(events: list[dict[str, Any]]) -> str:
    """The answer as a client following the documented rule sees it: tokens concatenated, a token with
    ``replace: true`` discarding the text before it."""
    text = ""
    for e in events:
        if e["type"] == "token":
            text = e["content"] if e.get("replace") else text + e["content"]
    return text


@pytest.mark.parametrize("mode", ["plan", "fast"])
async def test_a_stalling_click_model_is_replaced_by_the_rules(serve, tmp_path: Path, mode: str) -> None:
    from vent_agent.interpret.facts import gather_tunnel_facts
    from vent_agent.interpret.render import render_interpretation

    fake = StallingFakeOpenAI(reply="甲烷浓度偏高，请立即", chunks=2)  # role chunk, then one piece of text
    settings = Settings(
        _env_file=None,
        data_dir=tmp_path / "d",
        llm_base_url=serve(fake),
        llm_api_key="k",
        llm_model="fake-model",
        llm_timeout_s=1.0,
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t", timeout=60) as c:
            r = await c.post(
                "/api/interpret/click/tun", json={"tun_id": "15216", "tun_name": "x", "mode": mode}
            )
        rules = render_interpretation(await gather_tunnel_facts(app.state.vent.source, "15216", settings))
    events = parse_spec_stream(r.text)  # the spec's parser still reads every frame
    tokens = [e for e in events if e["type"] == "token"]
    assert tokens[0]["content"] == "甲烷浓度偏高"[:5]  # the model's partial text went out first
    replacing = [e for e in tokens if e.get("replace")]
    assert len(replacing) == 1 and replacing[0] is not tokens[0]
    assert without_clock(client_text(events)) == without_clock(rules)
    notice = next(e for e in events if e.get("notice") and "替换" in e["message"])
    assert events.index(notice) < events.index(replacing[0])
    assert events[-1]["type"] == "done" and "error" not in [e["type"] for e in events]


class SlowSuggestions(ScriptedChatModel):
    """A scripted model whose follow-up suggestions call (non-streamed) takes ``suggest_s`` (s)."""

    suggest_s: float = 10.0
    suggest_calls: int = 0

    async def _agenerate(self, messages, stop=None, run_manager=None, **kwargs):
        if str(messages[0].content) == SUGGEST_PROMPT:
            self.suggest_calls += 1
            await asyncio.sleep(self.suggest_s)
            return ChatResult(generations=[ChatGeneration(message=says("风量够吗？"))])
        return await super()._agenerate(messages, stop=stop, run_manager=run_manager, **kwargs)


async def _chat_once(tmp_path: Path, model: ScriptedChatModel, run_timeout_s: float) -> list[dict[str, Any]]:
    app = create_app(Settings(_env_file=None, data_dir=tmp_path / "d", run_timeout_s=run_timeout_s))
    async with app.router.lifespan_context(app):
        use_model(app, model)
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://t", timeout=60
        ) as c:
            return parse_spec_stream(
                (await c.post("/api/chat", data={"message": "风速？"}, headers=TOKEN)).text
            )


async def test_no_suggestions_call_once_the_run_time_out_is_hit(tmp_path: Path) -> None:
    model = SlowSuggestions(script=[says("思考中" * 200)], chunk_size=1, delay_s=0.02, fallback=says(""))
    events = await _chat_once(tmp_path, model, run_timeout_s=1.0)
    assert any(e.get("notice") == "run_timeout" for e in events)
    assert model.suggest_calls == 0 and "suggestions" not in [e["type"] for e in events]
    assert events[-1]["type"] == "done" and "完成" not in events[-1]["message"]


async def test_the_suggestions_call_gets_only_the_time_left(tmp_path: Path) -> None:
    """The answer comes at once; the suggestions call (10 s) is cut at the run's 2 s time-out."""
    model = SlowSuggestions(script=[says("风速正常。")], fallback=says(""))
    events = await _chat_once(tmp_path, model, run_timeout_s=2.0)
    assert model.suggest_calls == 1 and "suggestions" not in [e["type"] for e in events]
    assert events[-1]["type"] == "done"
