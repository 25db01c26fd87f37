"""Regressions found by trying the service as a user (each the failing input of a bug fixed)."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import httpx

from tests.chat_helpers import TOKEN, use_model
from tests.helpers import parse_spec_stream
from tests.scripted_model import ScriptedChatModel, says, tool_call


def types(events: list[dict]) -> list[str]:
    return [e["type"] for e in events]


async def test_delete_removes_checkpoints_of_every_thread(app, client: httpx.AsyncClient) -> None:
    use_model(app, ScriptedChatModel(script=[], fallback=says("好的。")))
    resp = await client.post("/api/chat", data={"message": "你好", "thread_id": "t-2"}, headers=TOKEN)
    sid = resp.headers["x-session-id"]
    saver = app.state.vent.checkpointer
    assert await saver.aget_tuple({"configurable": {"thread_id": f"{sid}::t-2"}}) is not None
    await client.delete(f"/api/sessions/{sid}", headers=TOKEN)
    assert await saver.aget_tuple({"configurable": {"thread_id": f"{sid}::t-2"}}) is None


async def test_rejected_upload_leaves_no_session(app, client: httpx.AsyncClient) -> None:
    r = await client.post(
        "/api/chat", data={"message": "审查"}, files={"file": ("x.txt", b"hello", "text/plain")}, headers=TOKEN
    )
    assert r.status_code == 400
    assert (await client.get("/api/sessions", headers=TOKEN)).json()["total"] == 0


async def test_resume_does_not_repeat_what_was_sent_before_the_interrupt(app, client: httpx.AsyncClient) -> None:
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
        (await client.post("/api/chat/resume", json={"session_id": sid, "action": "approve"}, headers=TOKEN)).text
    )
    assert [e["tool"] for e in after if e["type"] == "tool_result"] == ["request_plan_approval"]
    assert "updated_todo_list" not in types(after)


async def test_model_down_gives_a_clear_error_and_keeps_the_turn(app, client: httpx.AsyncClient) -> None:
    use_model(app, ScriptedChatModel(script=[says("x")], fail_at={0}))
    r = await client.post("/api/chat", data={"message": "风速？"}, headers=TOKEN)
    events = parse_spec_stream(r.text)
    assert types(events)[-2:] == ["error", "done"]
    assert "模型服务调用失败" in events[-2]["message"] and events[-1]["message"] == "对话失败"
    assert "agent_done" not in types(events)
    hist = (await client.get(f"/api/chat/history/{r.headers['x-session-id']}", headers=TOKEN)).json()
    assert hist["total"] == 2 and "模型服务调用失败" in hist["messages"][1]["error"]


async def test_spec_messages_on_done_and_tool_call(app, client: httpx.AsyncClient) -> None:
    use_model(
        app, ScriptedChatModel(script=[says("", tool_call("get_device_kind_dict", {})), says("好")], fallback=says(""))
    )
    events = parse_spec_stream((await client.post("/api/chat", data={"message": "设备类型"}, headers=TOKEN)).text)
    assert events[-1]["message"] == "对话完成"
    call = next(e for e in events if e["type"] == "tool_call")
    assert call["message"] == "调用工具：查询设备类型字典"


async def test_review_in_chat_closes_its_agent(app, client: httpx.AsyncClient, plan_a_pdf) -> None:
    use_model(app, None)
    with plan_a_pdf.open("rb") as fh:
        r = await client.post(
            "/api/chat", data={"message": "审查"}, files={"file": ("a.pdf", fh, "application/pdf")}, headers=TOKEN
        )
    events = parse_spec_stream(r.text)
    done = [e for e in events if e["type"] == "agent_done" and e.get("agent") == "配风计划审查"]
    assert len(done) == 1 and done[0]["duration_ms"] >= 0


async def test_a_question_about_an_attached_plan_gets_its_content(app, client: httpx.AsyncClient, plan_b_pdf) -> None:
    model = ScriptedChatModel(script=[says("计划中 15216 需风量为 630 m³/min。")], fallback=says(""))
    use_model(app, model)
    with plan_b_pdf.open("rb") as fh:
        r = await client.post(
            "/api/chat",
            data={"message": "这份计划里15216的需风量是多少？"},
            files={"file": ("b.pdf", fh, "application/pdf")},
            headers=TOKEN,
        )
    assert types(parse_spec_stream(r.text))[-1] == "done"
    human = model.seen[0][-1]
    assert "b.pdf" in str(human.content) and "15216综采工作面" in str(human.content)


async def test_rule_based_interpretation_has_no_false_figure_warnings(app, client: httpx.AsyncClient) -> None:
    r = await client.post("/api/interpret/click/tun", json={"tun_id": "15216", "tun_name": "15216 辅运起坡段"})
    refs = next(e for e in parse_spec_stream(r.text) if e["type"] == "references")
    assert refs["warnings"] == []


async def test_validation_errors_are_chinese(app, client: httpx.AsyncClient) -> None:
    use_model(app, ScriptedChatModel(script=[], fallback=says("好")))
    sid = (await client.post("/api/chat", data={"message": "你好"}, headers=TOKEN)).headers["x-session-id"]
    r = await client.put(f"/api/sessions/{sid}/title", json={"title": "x" * 101}, headers=TOKEN)
    assert r.status_code == 400 and "过长（最多 100 个字符）" in r.json()["error"]
    r = await client.put(f"/api/sessions/{sid}/mode", json={"mode": "auto"}, headers=TOKEN)
    assert "取值无效，可选" in r.json()["error"]


async def test_session_times_are_the_mines_local_time(app, client: httpx.AsyncClient) -> None:
    use_model(app, ScriptedChatModel(script=[], fallback=says("好")))
    await client.post("/api/chat", data={"message": "你好"}, headers=TOKEN)
    created = (await client.get("/api/sessions", headers=TOKEN)).json()["sessions"][0]["created_at"]
    local_now = datetime.now(ZoneInfo("Asia/Shanghai")).replace(tzinfo=None)
    assert abs(datetime.fromisoformat(created) - local_now) < timedelta(minutes=2)


async def test_provenance_shows_no_server_paths(app, client: httpx.AsyncClient, plan_a_pdf) -> None:
    with plan_a_pdf.open("rb") as fh:
        r = await client.post("/api/vent/review/pdf", files={"file": ("a.pdf", fh, "application/pdf")})
    rid = parse_spec_stream(r.text)[-1]["download_url"].rsplit("/", 1)[-1].removesuffix(".docx")
    body = (await client.get(f"/api/reports/{rid}/provenance")).json()
    assert "/" not in (body["extraction_cache"] or "") and all("/" not in a["path"] for a in body["artifacts"])


async def test_metrics_record_model_and_tool_latency(app, client: httpx.AsyncClient) -> None:
    use_model(
        app, ScriptedChatModel(script=[says("", tool_call("get_device_kind_dict", {})), says("好")], fallback=says(""))
    )
    await client.post("/api/chat", data={"message": "设备类型"}, headers=TOKEN)
    text = (await client.get("/metrics")).text
    assert 'vent_tool_latency_seconds_count{outcome="ok",tool="get_device_kind_dict"}' in text
    assert "vent_model_latency_seconds_count" in text and 'model="ScriptedChatModel"' in text


async def test_a_hanging_model_ends_at_the_run_time_out(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from vent_agent.app import create_app
    from vent_agent.settings import Settings

    app = create_app(Settings(_env_file=None, data_dir=tmp_path / "d", run_timeout_s=1.0))
    async with app.router.lifespan_context(app):
        use_model(app, ScriptedChatModel(script=[says("思考中" * 200)], chunk_size=1, delay_s=0.05, fallback=says("")))
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c:
            events = parse_spec_stream((await c.post("/api/chat", data={"message": "风速？"}, headers=TOKEN)).text)
    notice = [e for e in events if e.get("notice") == "run_timeout"]
    assert notice and events[-1]["type"] == "done"
    assert "思考中" in "".join(e["content"] for e in events if e["type"] == "token")  # the partial answer stays


async def test_rule_based_text_is_never_cut_by_the_citation_check(app, client: httpx.AsyncClient) -> None:
    for tun_id in ("15216-GZM", "15216"):
        r = await client.post("/api/interpret/click/tun", json={"tun_id": tun_id, "tun_name": "x", "mode": "fast"})
        events = parse_spec_stream(r.text)
        refs = next(e for e in events if e["type"] == "references")
        assert "content" not in refs and refs["warnings"] == []


async def test_a_failed_review_in_chat_says_so(app, client: httpx.AsyncClient) -> None:
    use_model(app, None)
    r = await client.post(
        "/api/chat",
        data={"message": "帮我审查"},
        files={"file": ("t.pdf", b"%PDF-1.4\n1 0 obj\n<<", "application/pdf")},
        headers=TOKEN,
    )
    events = parse_spec_stream(r.text)
    done = next(e for e in events if e["type"] == "agent_done" and e.get("agent") == "配风计划审查")
    assert "失败" in done["message"] and events[-1]["message"] == "审查失败"
    assert "error" in types(events)
