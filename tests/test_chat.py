"""POST /api/chat and /api/chat/resume driven by scripted chat models: tool calls, parallel tool calls,
todos, reasoning, plan-mode interrupts (approve, reject, double resume, restart; a resume not repeating
what was sent before the interrupt), budgets, the run time-out, a model down, spec messages, history."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest
from langchain_core.messages import AIMessage

from tests.chat_helpers import OTHER, TOKEN, chat_with_file, use_model
from tests.helpers import parse_spec_stream, parse_standard_stream
from tests.scripted_model import ScriptedChatModel, says, tool_call
from vent_agent.app import create_app
from vent_agent.settings import Settings


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


async def chat(
    client: httpx.AsyncClient, message: str, headers=TOKEN, **form
) -> tuple[httpx.Response, list[dict[str, Any]]]:
    resp = await client.post("/api/chat", data={"message": message, **form}, headers=headers)
    return resp, (parse_spec_stream(resp.text) if resp.status_code == 200 else [])


async def test_chat_needs_a_token(client: httpx.AsyncClient) -> None:
    resp = await client.post("/api/chat", data={"message": "hi"})
    assert resp.status_code == 401
    assert "error" in resp.json()


async def test_no_model_gives_error_and_done_and_opens_no_session(app, client: httpx.AsyncClient) -> None:
    use_model(app, None)
    resp, events = await chat(client, "15216 风速多少？", mode="plan")
    assert resp.status_code == 200 and "x-session-id" not in resp.headers
    assert types(events) == ["error", "done"]
    assert "未配置对话模型" in events[0]["message"]
    assert events[1]["message"] == "对话失败" and events[1]["session_id"] is None
    listed = (await client.get("/api/sessions", headers=TOKEN)).json()
    assert listed["total"] == 0 and listed["sessions"] == []
    # the run is its user's, replayable after the stream, for nobody else
    replay = await client.get(f"/api/runs/{resp.headers['x-run-id']}/events", headers=TOKEN)
    assert [e["type"] for _, e in parse_standard_stream(replay.text)] == ["error", "done"]
    other = await client.get(f"/api/runs/{resp.headers['x-run-id']}/events", headers=OTHER)
    assert other.status_code == 404


async def test_no_model_with_a_pdf_not_to_review_opens_no_session(app, client, plan_b_pdf) -> None:
    use_model(app, None)
    resp = await chat_with_file(client, plan_b_pdf, "15216 的风速是多少？")
    assert resp.status_code == 200 and "x-session-id" not in resp.headers
    assert types(parse_spec_stream(resp.text)) == ["error", "done"]
    assert (await client.get("/api/sessions", headers=TOKEN)).json()["sessions"] == []
    uploads = app.state.vent.settings.uploads_dir
    assert not uploads.exists() or not any(uploads.iterdir())


async def test_no_model_in_an_existing_session_keeps_the_turn(app, client: httpx.AsyncClient) -> None:
    use_model(app, ScriptedChatModel(script=[says("15216 风速 1.2 m/s。"), says("[]")]))
    first, _ = await chat(client, "15216 风速多少？")
    sid = first.headers["x-session-id"]
    use_model(app, None)
    resp, events = await chat(client, "风量呢？", session_id=sid)
    assert resp.headers["x-session-id"] == sid and types(events)[-2:] == ["error", "done"]
    assert events[-1]["session_id"] == sid
    history = (await client.get(f"/api/chat/history/{sid}", headers=TOKEN)).json()["messages"]
    assert [m["role"] for m in history] == ["user", "assistant", "user", "assistant"]
    assert "未配置对话模型" in history[-1]["error"]


async def test_tool_calls_tokens_todos_and_history(app, client: httpx.AsyncClient) -> None:
    model = ScriptedChatModel(
        script=[
            says(
                "我先查询数据。",
                tool_call(
                    "write_todos", {"todos": [{"content": "查询15216巷道数据", "status": "in_progress"}]}
                ),
                tool_call("query_tun_data_by_id", {"tun_id": "15216"}),
                reasoning="用户问风速，先查数据",
            ),
            says("15216 辅运起坡段风速正常。"),
            says("1. 风量是否满足需风量？\n2. 近24小时有无报警？"),
        ]
    )
    use_model(app, model)
    resp, events = await chat(client, "15216 辅运起坡段当前风速风量情况如何？")
    assert resp.status_code == 200
    sid = resp.headers["x-session-id"]
    assert resp.headers["x-run-id"]
    t = types(events)
    assert t[0] == "agent_start" and events[0]["agent"] == "通风对话助手"
    for expected in (
        "thinking",
        "reasoning",
        "executing",
        "tool_call",
        "tool_result",
        "updated_todo_list",
        "token",
    ):
        assert expected in t, expected
    assert t.index("agent_done") < t.index("suggestions") < t.index("done") == len(t) - 1
    executing = next(e for e in events if e["type"] == "executing")
    assert executing["tools"] == ["write_todos", "query_tun_data_by_id"]
    assert all(e.get("source") == "main" for e in events if e["type"] in ("token", "thinking", "tool_call"))
    assert events[-1] == {**events[-1], "type": "done", "session_id": sid, "thread_id": sid}
    text = "".join(e["content"] for e in events if e["type"] == "token")
    assert text == "我先查询数据。15216 辅运起坡段风速正常。"
    # the tool really ran against the demo mine and its answer went back to the model
    tool_msg = model.seen[1][-1]
    assert tool_msg.type == "tool" and "15216" in str(tool_msg.content)

    hist = (await client.get(f"/api/chat/history/{sid}", headers=TOKEN)).json()
    assert hist["total"] == 2
    user, assistant = hist["messages"]
    assert user["role"] == "user" and user["content"].startswith("15216")
    assert assistant["content"] == text
    assert [c["tool"] for c in assistant["tool_calls"]] == ["write_todos", "query_tun_data_by_id"]
    assert assistant["todos"] == [{"content": "查询15216巷道数据", "status": "in_progress"}]
    assert assistant["suggestions"] == ["风量是否满足需风量？", "近24小时有无报警？"]


async def test_failing_tool_does_not_kill_the_run(app, client: httpx.AsyncClient) -> None:
    model = ScriptedChatModel(
        script=[
            says(
                "",
                tool_call("query_tun_data_by_id", {"tun_id": "NO-SUCH"}),
                tool_call("calc_face_by_workers", {"n": -1}),
            ),
            says("查询失败，未找到该巷道。"),
        ],
        fallback=says(""),
    )
    use_model(app, model)
    resp, events = await chat(client, "NO-SUCH 风速？")
    assert types(events)[-1] == "done"
    assert "error" not in types(events)
    results = [e for e in events if e["type"] == "tool_result"]
    assert len(results) == 2
    sent_back = [m for m in model.seen[1] if m.type == "tool"]
    assert len(sent_back) == 2 and all(str(m.content) for m in sent_back)


async def test_unknown_and_foreign_session_is_404(app, client: httpx.AsyncClient) -> None:
    use_model(app, ScriptedChatModel(script=[says("好的")], fallback=says("")))
    resp, _ = await chat(client, "你好")
    sid = resp.headers["x-session-id"]
    r404, _ = await chat(client, "你好", session_id="no-such-session")
    assert r404.status_code == 404
    foreign, _ = await chat(client, "你好", headers=OTHER, session_id=sid)
    assert foreign.status_code == 404


async def plan_turn(client: httpx.AsyncClient) -> tuple[str, list[dict[str, Any]]]:
    resp, events = await chat(client, "计算 15216 工作面需风量", mode="plan")
    return resp.headers["x-session-id"], events


def plan_script() -> list[AIMessage]:
    return [
        says(
            "",
            tool_call("write_todos", {"todos": [{"content": "按人数计算需风量", "status": "pending"}]}),
            tool_call("request_plan_approval", {"plan": "1. 调用 calc_face_by_workers 按人数计算"}),
        ),
        says("", tool_call("calc_face_by_workers", {"n": 40})),
        says("按人数计算需风量为 160 m³/min。"),
        says("下一步？"),
    ]


async def test_plan_mode_interrupt_then_approve(app, client: httpx.AsyncClient) -> None:
    model = ScriptedChatModel(script=plan_script())
    use_model(app, model)
    sid, events = await plan_turn(client)
    assert types(events)[-1] == "interrupt" and "done" not in types(events)
    intr = events[-1]
    assert intr["node"] == "tools" and "审批" in intr["message"]
    assert intr["plan"].startswith("1. 调用 calc_face_by_workers")
    assert intr["interrupts"] == [intr["plan"]]
    # a new message while the approval is pending is refused
    busy, _ = await chat(client, "再问一个", session_id=sid)
    assert busy.status_code == 409 and "审批" in busy.json()["error"]
    # another user cannot approve it
    foreign = await client.post(
        "/api/chat/resume", json={"session_id": sid, "action": "approve"}, headers=OTHER
    )
    assert foreign.status_code == 404

    resp = await client.post("/api/chat/resume", json={"session_id": sid, "action": "approve"}, headers=TOKEN)
    assert resp.status_code == 200 and resp.headers["x-session-id"] == sid
    after = parse_spec_stream(resp.text)
    assert types(after)[-1] == "done"
    assert [e["tool"] for e in after if e["type"] == "tool_call"] == ["calc_face_by_workers"]
    assert "160" in "".join(e["content"] for e in after if e["type"] == "token")
    # the todo tool ran once, before the interrupt, and not again on resume
    assert sum(1 for m in model.seen[-2] if m.type == "tool" and m.name == "write_todos") == 1
    again = await client.post(
        "/api/chat/resume", json={"session_id": sid, "action": "approve"}, headers=TOKEN
    )
    assert again.status_code == 409
    async with app.state.vent.db.session() as s:
        from sqlmodel import select

        from vent_agent.store.models import ApprovalRow

        rows = list(await s.exec(select(ApprovalRow)))
    assert [(r.action, r.user_name) for r in rows] == [("approve", "zhangsan")]


async def test_plan_mode_reject_closes_the_call(app, client: httpx.AsyncClient) -> None:
    model = ScriptedChatModel(script=plan_script()[:1] + [says("好的，请问还需要什么？")])
    use_model(app, model)
    sid, _ = await plan_turn(client)
    resp = await client.post("/api/chat/resume", json={"session_id": sid, "action": "reject"}, headers=TOKEN)
    events = parse_spec_stream(resp.text)
    assert types(events) == ["error", "done"]
    assert events[0]["message"] == "用户拒绝了工具执行" and events[1]["message"] == "已取消执行"
    assert len(model.seen) == 1  # no model call after the rejection
    # the session stays usable: the next message reaches the model with the call closed
    resp2, events2 = await chat(client, "那算了", session_id=sid)
    assert resp2.status_code == 200 and types(events2)[-1] == "done"
    last_call = model.seen[1]
    tool_msgs = [m for m in last_call if m.type == "tool" and m.name == "request_plan_approval"]
    assert tool_msgs and "拒绝" in str(tool_msgs[0].content)


async def test_resume_errors(app, client: httpx.AsyncClient) -> None:
    use_model(app, ScriptedChatModel(script=[says("好的")], fallback=says("")))
    resp, _ = await chat(client, "你好")
    sid = resp.headers["x-session-id"]
    nothing = await client.post(
        "/api/chat/resume", json={"session_id": sid, "action": "approve"}, headers=TOKEN
    )
    assert nothing.status_code == 409
    unknown = await client.post(
        "/api/chat/resume", json={"session_id": "nope", "action": "approve"}, headers=TOKEN
    )
    assert unknown.status_code == 404
    no_thread = await client.post(
        "/api/chat/resume",
        json={"session_id": sid, "thread_id": "other-thread", "action": "approve"},
        headers=TOKEN,
    )
    assert no_thread.status_code == 404
    bad = await client.post("/api/chat/resume", json={"session_id": sid, "action": "maybe"}, headers=TOKEN)
    assert bad.status_code == 400


async def test_approval_survives_a_restart(tmp_path: Path) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path / "data")
    model = ScriptedChatModel(script=plan_script())
    first = create_app(settings)
    async with first.router.lifespan_context(first):
        use_model(first, model)
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=first), base_url="http://t") as c:
            sid, events = await plan_turn(c)
    assert types(events)[-1] == "interrupt"
    second = create_app(settings)
    async with second.router.lifespan_context(second):
        use_model(second, model)
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=second), base_url="http://t") as c:
            resp = await c.post(
                "/api/chat/resume", json={"session_id": sid, "action": "approve"}, headers=TOKEN
            )
            after = parse_spec_stream(resp.text)
    assert types(after)[-1] == "done"
    assert [e["tool"] for e in after if e["type"] == "tool_call"] == ["calc_face_by_workers"]


async def test_double_resume_only_one_wins(app, client: httpx.AsyncClient) -> None:
    use_model(app, ScriptedChatModel(script=plan_script()))
    sid, _ = await plan_turn(client)
    body = {"session_id": sid, "action": "approve"}
    a, b = await asyncio.gather(
        client.post("/api/chat/resume", json=body, headers=TOKEN),
        client.post("/api/chat/resume", json=body, headers=TOKEN),
    )
    assert sorted([a.status_code, b.status_code]) == [200, 409]


async def test_model_call_budget_gives_partial_answer(tmp_path: Path) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path / "data", max_model_calls=2)
    loop_forever = says("继续查询…", tool_call("get_device_kind_dict", {}))
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        use_model(app, ScriptedChatModel(script=[], fallback=loop_forever))
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c:
            resp, events = await chat(c, "列出所有设备类型")
    assert types(events)[-1] == "done"
    notice = [e for e in events if e.get("notice") == "model_call_limit"]
    assert notice and "上限" in notice[0]["message"]
    assert "继续查询" in "".join(e["content"] for e in events if e["type"] == "token")


@pytest.mark.parametrize("bad", [{"message": ""}, {"message": "x" * 9000}, {"message": "hi", "mode": "auto"}])
async def test_bad_chat_form_is_400(client: httpx.AsyncClient, bad: dict[str, Any]) -> None:
    resp = await client.post("/api/chat", data=bad, headers=TOKEN)
    assert resp.status_code == 400 and "error" in resp.json()


async def test_saved_preference_reaches_the_next_prompt_of_that_user_only(
    app, client: httpx.AsyncClient
) -> None:
    model = ScriptedChatModel(
        script=[
            says("", tool_call("save_user_preference", {"key": "风量单位", "value": "风量一律用 m³/s 表示"})),
            says("已记住。"),
        ],
        fallback=says("好的。"),
    )
    use_model(app, model)
    await chat(client, "以后风量用 m³/s")
    calls_before = len(model.seen)
    await chat(client, "15216 风量多少？")
    system = model.seen[calls_before][0]
    assert system.type == "system" and "风量一律用 m³/s 表示" in str(system.content)
    n = len(model.seen)
    await chat(client, "15216 风量多少？", headers=OTHER)
    assert "风量一律用 m³/s 表示" not in str(model.seen[n][0].content)


async def test_chat_with_a_plan_pdf_runs_the_review_without_a_model(
    app, client: httpx.AsyncClient, plan_b_pdf
) -> None:
    use_model(app, None)  # reviews keep working with no model
    resp = await chat_with_file(client, plan_b_pdf, "帮我审查这份配风计划", name="plan-b.pdf")
    assert resp.status_code == 200
    events = parse_spec_stream(resp.text)
    t = types(events)
    assert t[-1] == "done" and "error" not in t
    assert events[t.index("agent_start")]["agent"] == "配风计划审查"
    reviewers = {e["agent"] for e in events if e["type"] == "agent_done" and e.get("agent") != "通风对话助手"}
    assert {"form-reviewer", "data-checker", "calc-verifier"} <= reviewers
    url = next(e["download_url"] for e in events if e.get("download_url"))
    assert (await client.get(url.replace("http://testserver", ""))).status_code == 200
    sid = resp.headers["x-session-id"]
    hist = (await client.get(f"/api/chat/history/{sid}", headers=TOKEN)).json()["messages"]
    assert hist[0]["attachment"] == "plan-b.pdf"
    assert hist[1]["download_url"] == url and hist[1]["content"]
    # deleting the session removes its upload and report files
    upload_dir = app.state.vent.settings.uploads_dir / sid
    assert any(upload_dir.iterdir())
    await client.delete(f"/api/sessions/{sid}", headers=TOKEN)
    assert not upload_dir.exists()
    assert (await client.get(url.replace("http://testserver", ""))).status_code == 404


async def test_pdf_with_another_question_goes_to_the_dialogue_agent(
    app, client: httpx.AsyncClient, plan_b_pdf
) -> None:
    from vent_agent.graphs.supervisor import wants_review

    assert wants_review("帮我审查这份配风计划", {"kind": "pdf"})
    assert wants_review("", {"kind": "pdf"})
    assert not wants_review("15216 风速多少？", {"kind": "pdf"})
    assert not wants_review("审查", None)


async def test_resume_does_not_repeat_what_was_sent_before_the_interrupt(
    app, client: httpx.AsyncClient
) -> None:
    use_model(
        app,
        ScriptedChatModel(
            script=[
                says(
                    "",
                    tool_call("write_todos", {"todos": [{"content": "计算", "status": "pending"}]}),
                    tool_call("request_plan_approval", {"plan": "按人数计算"}),
                ),
                says("按人数计算需风量为 160 m³/min。"),
            ],
            fallback=says(""),
        ),
    )
    r = await client.post("/api/chat", data={"message": "算需风量", "mode": "plan"}, headers=TOKEN)
    sid = r.headers["x-session-id"]
    before = parse_spec_stream(r.text)
    assert [e["tool"] for e in before if e["type"] == "tool_result"] == ["write_todos"]
    after = parse_spec_stream(
        (
            await client.post(
                "/api/chat/resume", json={"session_id": sid, "action": "approve"}, headers=TOKEN
            )
        ).text
    )
    assert [e["tool"] for e in after if e["type"] == "tool_result"] == ["request_plan_approval"]
    assert "updated_todo_list" not in types(after)


async def test_model_down_gives_a_clear_error_and_keeps_the_turn(app, client: httpx.AsyncClient) -> None:
    use_model(app, ScriptedChatModel(script=[says("x")], fail_at={0}))
    r = await client.post("/api/chat", data={"message": "风速？"}, headers=TOKEN)
    events = parse_spec_stream(r.text)
    assert types(events)[-2:] == ["error", "done"]
    assert (
        events[-2]["message"] == "对话模型「ScriptedChatModel」调用失败（RuntimeError），请稍后重试或切换模型"
    )
    assert events[-1]["message"] == "对话失败"
    assert "agent_done" not in types(events)
    hist = (await client.get(f"/api/chat/history/{r.headers['x-session-id']}", headers=TOKEN)).json()
    assert hist["total"] == 2 and hist["messages"][1]["error"] == events[-2]["message"]


async def test_spec_messages_on_done_and_tool_call(app, client: httpx.AsyncClient) -> None:
    use_model(
        app,
        ScriptedChatModel(
            script=[says("", tool_call("get_device_kind_dict", {})), says("好")], fallback=says("")
        ),
    )
    events = parse_spec_stream(
        (await client.post("/api/chat", data={"message": "设备类型"}, headers=TOKEN)).text
    )
    assert events[-1]["message"] == "对话完成"
    call = next(e for e in events if e["type"] == "tool_call")
    assert call["message"] == "调用工具：查询设备类型字典"


async def test_a_hanging_model_ends_at_the_run_time_out(tmp_path) -> None:
    from vent_agent.app import create_app
    from vent_agent.settings import Settings

    app = create_app(Settings(_env_file=None, data_dir=tmp_path / "d", run_timeout_s=1.0))
    async with app.router.lifespan_context(app):
        use_model(
            app,
            ScriptedChatModel(script=[says("思考中" * 200)], chunk_size=1, delay_s=0.05, fallback=says("")),
        )
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c:
            resp = await c.post("/api/chat", data={"message": "风速？"}, headers=TOKEN)
            events = parse_spec_stream(resp.text)
            history = await c.get(f"/api/chat/history/{resp.headers['x-session-id']}", headers=TOKEN)
    notice = [e for e in events if e.get("notice") == "run_timeout"]
    assert notice and events[-1]["type"] == "done"
    turn = history.json()["messages"][-1]  # the history says the answer was cut, as the stream did
    assert turn["role"] == "assistant" and "思考中" in turn["content"]
    assert turn["notices"] == [{"notice": "run_timeout", "message": notice[0]["message"]}]
    assert "思考中" in "".join(
        e["content"] for e in events if e["type"] == "token"
    )  # the partial answer stays
