"""Every finish reason of a model response honoured, on the wire (the loopback fake, in the shape of each
provider): a tool call whose arguments are cut (``{"workers": 4`` of a model writing 40) or not strict JSON
is never repaired and never run; an answer cut by ``length`` or ``content_filter`` keeps its text and is
flagged incomplete in the stream, the history and ``done``; an answer of reasoning only is an error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from langchain_core.messages import HumanMessage

from tests.chat_helpers import TOKEN
from tests.fake_openai import FakeOpenAI, FakeToolCall, FakeTurn
from tests.helpers import parse_spec_stream
from vent_agent.app import create_app
from vent_agent.chat.service import INCOMPLETE
from vent_agent.llm.finish import CutToolCall, IncompleteResponse
from vent_agent.llm.providers import build_chat_model
from vent_agent.settings import ModelConfig, Settings

PROVIDERS = ["openai", "deepseek", "qwen"]
WORKERS_40 = FakeToolCall(id="c1", name="calc_face_by_workers", arguments={"workers": 40}, piece=3)
CUT_AT_4 = len('{"workers": 4')
ANSWER = "15216 辅运起坡段风速 1.8 m/s，风量 1250 m³/min，甲烷浓度 0.21%，均在规定范围内。"


def _config(url: str, provider: str) -> ModelConfig:
    return ModelConfig(name=f"m-{provider}", base_url=url, api_key="k", provider=provider, model="fake-model")


def _shaped(provider: str, turn: FakeTurn) -> FakeTurn:
    """``turn`` in the wire shape of ``provider`` (DeepSeek sends usage on the finish chunk)."""
    turn.usage_on_finish = provider == "deepseek"
    return turn


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("streaming", [True, False])
async def test_a_tool_call_cut_by_the_output_limit_is_never_repaired(
    serve, provider: str, streaming: bool
) -> None:
    turn = _shaped(provider, FakeTurn(tool_calls=[WORKERS_40], args_cut=CUT_AT_4, finish="length"))
    model = build_chat_model(_config(serve(FakeOpenAI(turns=[turn])), provider), "high", streaming=streaming)
    with pytest.raises(CutToolCall) as info:
        await model.ainvoke([HumanMessage("采煤工作面 40 人需风量？")])
    assert info.value.tools == ["calc_face_by_workers"] and info.value.finish == "length"
    assert "输出长度上限" in info.value.message and "未执行" in info.value.message


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_arguments_that_are_not_strict_json_are_refused_even_with_tool_calls(
    serve, provider: str
) -> None:
    turn = _shaped(provider, FakeTurn(tool_calls=[WORKERS_40], args_cut=CUT_AT_4))  # finish: tool_calls
    model = build_chat_model(_config(serve(FakeOpenAI(turns=[turn])), provider), "high")
    with pytest.raises(CutToolCall) as info:
        await model.ainvoke([HumanMessage("40 人")])
    assert "不是完整有效的 JSON" in info.value.message


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_whole_arguments_in_a_response_cut_by_length_are_not_run_either(serve, provider: str) -> None:
    """The limit may have cut a further call that never arrived: none of the response's calls runs."""
    turn = _shaped(provider, FakeTurn(tool_calls=[WORKERS_40], finish="length"))
    model = build_chat_model(_config(serve(FakeOpenAI(turns=[turn])), provider), "high")
    with pytest.raises(CutToolCall):
        await model.ainvoke([HumanMessage("40 人")])


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("finish", ["length", "content_filter", "insufficient_system_resource"])
async def test_a_text_answer_keeps_its_finish_reason(serve, provider: str, finish: str) -> None:
    turn = _shaped(provider, FakeTurn(reply=ANSWER, finish=finish))
    answer = await build_chat_model(_config(serve(FakeOpenAI(turns=[turn])), provider), "high").ainvoke(
        [HumanMessage("风速？")]
    )
    assert answer.content == ANSWER and answer.response_metadata["finish_reason"] == finish


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_null_finish_reason_is_a_cut_stream(serve, provider: str) -> None:
    """``finish_reason: null`` to the end (``[DONE]`` sent): no finish reason at all."""
    turn = _shaped(provider, FakeTurn(reply=ANSWER, finish="null"))
    model = build_chat_model(_config(serve(FakeOpenAI(turns=[turn])), provider), "high")
    with pytest.raises(IncompleteResponse):
        await model.ainvoke([HumanMessage("风速？")])


async def _chat(tmp_path: Path, url: str, provider: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """One ``POST /api/chat`` as zhangsan against a service whose one model is the fake at ``url``: the
    events and the session's last history message."""
    settings = Settings(_env_file=None, data_dir=tmp_path / "d", models=[_config(url, provider)])
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t", timeout=60) as c:
            r = await c.post("/api/chat", data={"message": "采煤工作面 40 人需风量多少？"}, headers=TOKEN)
            assert r.status_code == 200
            hist = (await c.get(f"/api/chat/history/{r.headers['x-session-id']}", headers=TOKEN)).json()
    return parse_spec_stream(r.text), hist["messages"][-1]


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_chat_stops_at_a_tool_call_cut_twice_and_says_which(
    serve, tmp_path: Path, provider: str
) -> None:
    fake = FakeOpenAI(  # every answer cuts the call (the fake repeats its last turn)
        turns=[
            _shaped(
                provider,
                FakeTurn(reasoning="按人数算", tool_calls=[WORKERS_40], args_cut=CUT_AT_4, finish="length"),
            )
        ]
    )
    events, answer = await _chat(tmp_path, serve(fake), provider)
    types = [e["type"] for e in events]
    assert "tool_call" not in types and "tool_result" not in types  # never run, never announced
    assert len(fake.requests) == 2  # asked once more, then no further model call on a made-up result
    (retry,) = [e for e in events if e.get("notice") == "tool_call_retry"]
    assert retry["message"] == (
        "模型的工具调用「采煤工作面按人数计算」在参数写完之前达到了输出长度上限，未执行；已请模型重新发出一次"
    )
    error = next(e for e in events if e["type"] == "error")
    assert "采煤工作面按人数计算" in error["message"] and "输出长度上限" in error["message"]
    assert error["incomplete"] is True and error["finish_reason"] == "length"
    done = events[-1]
    assert done["type"] == "done" and "完成" not in done["message"]
    assert done["incomplete"] is True and done["finish_reason"] == "length"
    assert "16" not in "".join(e.get("content", "") for e in events if e["type"] == "token")
    assert answer["error"] == error["message"] and answer["incomplete"] is True
    assert answer["finish_reason"] == "length"


def _said(request: dict[str, Any]) -> str:
    """The text of every message of a chat-completions request body."""
    return "".join(str(m.get("content") or "") for m in request["messages"])


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_tool_call_cut_by_the_output_limit_is_asked_for_once_more(
    serve, tmp_path: Path, provider: str
) -> None:
    """The retry gets the whole call: the calculator runs with 40 workers (160 m³/min, never 16), the
    model is told why it is asked again, and the note is not kept in the conversation after."""
    fake = FakeOpenAI(
        turns=[
            _shaped(provider, FakeTurn(tool_calls=[WORKERS_40], args_cut=CUT_AT_4, finish="length")),
            _shaped(provider, FakeTurn(tool_calls=[WORKERS_40])),
            _shaped(provider, FakeTurn(reply="40 人时需风量 160 m³/min。")),
        ]
    )
    events, answer = await _chat(tmp_path, serve(fake), provider)
    assert len(fake.requests) >= 3
    note = "工具调用 采煤工作面按人数计算（calc_face_by_workers） 在参数写完之前达到了模型输出长度上限"
    assert note not in _said(fake.requests[0]) and note in _said(fake.requests[1])
    assert note not in _said(fake.requests[2]) and "160" in _said(fake.requests[2])
    (call,) = [e for e in events if e["type"] == "tool_call"]
    assert call["args"] == {"workers": 40}
    types = [e["type"] for e in events]
    assert types.index("progress") < types.index("tool_call") and "error" not in types
    assert events[-1]["message"] == "对话完成" and "incomplete" not in events[-1]
    assert answer["notices"][0]["notice"] == "tool_call_retry" and "incomplete" not in answer


@pytest.mark.parametrize(
    "turn",
    [
        FakeTurn(tool_calls=[WORKERS_40], finish="content_filter"),  # the provider's moderation
        FakeTurn(tool_calls=[WORKERS_40], args_cut=CUT_AT_4, no_finish=True),  # a closed connection
    ],
    ids=["content_filter", "closed"],
)
async def test_a_tool_call_cut_otherwise_is_not_asked_again(serve, tmp_path: Path, turn: FakeTurn) -> None:
    fake = FakeOpenAI(turns=[turn])
    events, _answer = await _chat(tmp_path, serve(fake), "openai")
    assert len(fake.requests) == 1
    assert not [e for e in events if e.get("notice") == "tool_call_retry"]
    assert "tool_call" not in [e["type"] for e in events] and events[-1]["incomplete"] is True


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(
    ("finish", "notice"), [("length", "output_limit"), ("content_filter", "content_filter")]
)
async def test_chat_keeps_a_cut_answer_flagged_in_stream_history_and_done(
    serve, tmp_path: Path, provider: str, finish: str, notice: str
) -> None:
    fake = FakeOpenAI(turns=[_shaped(provider, FakeTurn(reply=ANSWER, finish=finish))])
    events, answer = await _chat(tmp_path, serve(fake), provider)
    types = [e["type"] for e in events]
    assert "".join(e["content"] for e in events if e["type"] == "token") == ANSWER
    flagged = next(e for e in events if e.get("notice") == notice)
    assert flagged["finish_reason"] == finish and "不完整" in flagged["message"]
    assert "suggestions" not in types and "error" not in types
    done = events[-1]
    assert done["incomplete"] is True and done["finish_reason"] == finish and "完成" not in done["message"]
    assert answer["content"] == ANSWER and answer["incomplete"] is True and answer["finish_reason"] == finish
    assert {"notice": notice, "message": flagged["message"]} in answer["notices"]


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_an_answer_of_reasoning_only_is_an_error(serve, tmp_path: Path, provider: str) -> None:
    fake = FakeOpenAI(
        turns=[_shaped(provider, FakeTurn(reasoning="先算需风量，再对照……" * 20, finish="length"))]
    )
    events, answer = await _chat(tmp_path, serve(fake), provider)
    error = next(e for e in events if e["type"] == "error")
    assert "输出长度用完" in error["message"] and "没有给出回答" in error["message"]
    assert events[-1]["message"] == "对话失败" and events[-1]["incomplete"] is True
    assert answer["error"] == error["message"] and answer["content"] == ""


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_complete_answer_is_not_flagged(serve, tmp_path: Path, provider: str) -> None:
    fake = FakeOpenAI(turns=[_shaped(provider, FakeTurn(reply=ANSWER))])
    events, answer = await _chat(tmp_path, serve(fake), provider)
    assert events[-1]["message"] == "对话完成" and "incomplete" not in events[-1]
    assert "incomplete" not in answer and "error" not in [e["type"] for e in events]


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_missing_finish_reason_is_an_incomplete_answer(serve, tmp_path: Path, provider: str) -> None:
    fake = FakeOpenAI(turns=[_shaped(provider, FakeTurn(reply=ANSWER, finish="null"))])
    events, answer = await _chat(tmp_path, serve(fake), provider)
    error = next(e for e in events if e["type"] == "error")
    assert error["message"] == INCOMPLETE and error["incomplete"] is True and "finish_reason" not in error
    assert events[-1]["incomplete"] is True and answer["incomplete"] is True
