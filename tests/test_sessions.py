"""Session routes: the caller's own sessions only (404 for everyone else on every route), list order,
mode, pin, title validation (in Chinese), context usage, times in the mine's local time, delete removing
everything of the session (the checkpoints of every thread too), a rejected upload leaving no session."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import httpx
import pytest
from sqlmodel import select

from tests.chat_helpers import OTHER, TOKEN, use_model
from tests.helpers import parse_spec_stream
from tests.scripted_model import ScriptedChatModel, says
from vent_agent.sessions import store
from vent_agent.store.models import EventRow, MessageRow, RunRow, SessionRow


async def new_session(client: httpx.AsyncClient, message: str = "你好", **form) -> str:
    resp = await client.post("/api/chat", data={"message": message, **form}, headers=TOKEN)
    assert resp.status_code == 200
    assert parse_spec_stream(resp.text)[-1]["type"] == "done"
    return resp.headers["x-session-id"]


@pytest.fixture
def chatty(app):
    use_model(app, ScriptedChatModel(script=[], fallback=says("好的。")))
    return app


ROUTES = [
    ("GET", "/api/sessions/{sid}/mode", None),
    ("PUT", "/api/sessions/{sid}/mode", {"mode": "plan"}),
    ("PUT", "/api/sessions/{sid}/pin", None),
    ("PUT", "/api/sessions/{sid}/title", {"title": "新标题"}),
    ("GET", "/api/sessions/{sid}/context", None),
    ("GET", "/api/chat/history/{sid}", None),
    ("DELETE", "/api/sessions/{sid}", None),
]


@pytest.mark.parametrize(("method", "path", "body"), ROUTES)
async def test_another_user_gets_404_everywhere(
    chatty, client: httpx.AsyncClient, method, path, body
) -> None:
    sid = await new_session(client)
    url = path.format(sid=sid)
    foreign = await client.request(method, url, json=body, headers=OTHER)
    assert foreign.status_code == 404, (method, url, foreign.text)
    missing = await client.request(method, path.format(sid="no-such"), json=body, headers=TOKEN)
    assert missing.status_code == 404
    unauth = await client.request(method, url, json=body)
    assert unauth.status_code == 401
    mine = await client.request(method, url, json=body, headers=TOKEN)
    assert mine.status_code == 200, mine.text
    listed = (await client.get("/api/sessions", headers=OTHER)).json()
    assert listed == {"sessions": [], "total": 0}


async def test_list_pin_title_mode(chatty, client: httpx.AsyncClient) -> None:
    a = await new_session(client, "第一个问题")
    b = await new_session(client, "第二个问题", mode="plan")
    listed = (await client.get("/api/sessions", headers=TOKEN)).json()
    assert listed["total"] == 2
    assert [s["session_id"] for s in listed["sessions"]] == [b, a]
    first = listed["sessions"][1]
    assert first["title"] == "第一个问题" and first["message_count"] == 2
    assert first["user_name"] == "zhangsan" and first["sort_order"] == 0
    pin = (await client.put(f"/api/sessions/{a}/pin", headers=TOKEN)).json()
    assert pin == {"session_id": a, "pinned": True, "message": "已置顶"}
    listed = (await client.get("/api/sessions", headers=TOKEN)).json()
    assert [s["session_id"] for s in listed["sessions"]] == [a, b]
    assert listed["sessions"][0]["sort_order"] == 1
    page = (await client.get("/api/sessions?limit=1&offset=1", headers=TOKEN)).json()
    assert [s["session_id"] for s in page["sessions"]] == [b] and page["total"] == 2
    unpin = (await client.put(f"/api/sessions/{a}/pin", headers=TOKEN)).json()
    assert unpin["pinned"] is False
    assert (await client.get(f"/api/sessions/{b}/mode", headers=TOKEN)).json() == {
        "session_id": b,
        "mode": "plan",
    }
    r = await client.put(f"/api/sessions/{b}/mode", json={"mode": "full"}, headers=TOKEN)
    assert r.json() == {"session_id": b, "mode": "full", "message": "已切换为「full」模式"}
    r = await client.put(
        f"/api/sessions/{a}/title", json={"title": " 15216 工作面需风量计算 "}, headers=TOKEN
    )
    assert r.json() == {"session_id": a, "title": "15216 工作面需风量计算", "message": "标题已更新"}


@pytest.mark.parametrize(
    "body",
    [
        {"title": "x" * 101},
        {"title": ""},
        {"title": "   "},
        {"title": "a\x00b"},
        {},
        {"title": 5},
        {"mode": "plan"},
    ],
)
async def test_bad_titles_are_400(chatty, client: httpx.AsyncClient, body) -> None:
    sid = await new_session(client)
    r = await client.put(f"/api/sessions/{sid}/title", json=body, headers=TOKEN)
    assert r.status_code == 400 and "error" in r.json()


async def test_bad_mode_and_paging_are_400(chatty, client: httpx.AsyncClient) -> None:
    sid = await new_session(client)
    assert (
        await client.put(f"/api/sessions/{sid}/mode", json={"mode": "auto"}, headers=TOKEN)
    ).status_code == 400
    assert (await client.get("/api/sessions?limit=0", headers=TOKEN)).status_code == 400
    assert (await client.get("/api/sessions?offset=-1", headers=TOKEN)).status_code == 400


async def test_context_usage_nulls_then_figures(app, client: httpx.AsyncClient) -> None:
    sid = (await store.create_session(app.state.vent.db, "zhangsan", title="你好")).id  # no model call yet
    ctx = (await client.get(f"/api/sessions/{sid}/context", headers=TOKEN)).json()
    assert ctx["current_usage"] is None and ctx["breakdown"] == dict.fromkeys(
        ("messages", "mcp", "skills", "system_prompt", "other")
    )
    use_model(app, ScriptedChatModel(script=[], fallback=says("好的。")))
    await client.post("/api/chat", data={"message": "再来", "session_id": sid}, headers=TOKEN)
    ctx = (await client.get(f"/api/sessions/{sid}/context", headers=TOKEN)).json()
    # the scripted model reports 100 input and 20 output tokens
    assert ctx["current_usage"] == 120 and ctx["total_limit"] == 131072
    assert sum(ctx["breakdown"].values()) == 120
    assert ctx["breakdown"]["system_prompt"] > 0 and ctx["breakdown"]["messages"] >= 20
    assert ctx["usage_pct"] == pytest.approx(0.1, abs=0.05)


async def test_the_app_state_keeps_nothing_per_session(chatty, client: httpx.AsyncClient) -> None:
    """The context breakdown's prompt parts travel with the turn: after turns in many sessions the
    process' shared state holds no collection keyed by a session (it would grow for ever)."""
    sids = [await new_session(client, f"第{i}个") for i in range(3)]
    state = chatty.state.vent
    for f in dataclasses.fields(state):
        value = getattr(state, f.name)
        if isinstance(value, Mapping):
            assert not any(str(k) in sids for k in value), f.name
    ctx = (await client.get(f"/api/sessions/{sids[0]}/context", headers=TOKEN)).json()
    assert ctx["breakdown"]["system_prompt"] > 0


async def test_delete_removes_everything(chatty, client: httpx.AsyncClient) -> None:
    sid = await new_session(client)
    await new_session(client, "另一个会话")
    state = chatty.state.vent
    r = await client.delete(f"/api/sessions/{sid}", headers=TOKEN)
    assert r.json() == {"status": "ok", "message": f"会话 {sid} 已删除"}
    async with state.db.session() as s:
        assert not list(await s.exec(select(SessionRow).where(SessionRow.id == sid)))
        assert not list(await s.exec(select(MessageRow).where(MessageRow.session_id == sid)))
        runs = list(await s.exec(select(RunRow.id).where(RunRow.session_id == sid)))
        assert not runs
        assert len(list(await s.exec(select(RunRow)))) == 1
        assert list(await s.exec(select(EventRow)))  # the other session's events stay
    assert await state.checkpointer.aget_tuple({"configurable": {"thread_id": sid}}) is None
    assert (await client.get(f"/api/chat/history/{sid}", headers=TOKEN)).status_code == 404


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
        "/api/chat",
        data={"message": "审查"},
        files={"file": ("x.txt", b"hello", "text/plain")},
        headers=TOKEN,
    )
    assert r.status_code == 400
    assert (await client.get("/api/sessions", headers=TOKEN)).json()["total"] == 0


async def test_validation_errors_are_chinese(app, client: httpx.AsyncClient) -> None:
    use_model(app, ScriptedChatModel(script=[], fallback=says("好")))
    sid = (await client.post("/api/chat", data={"message": "你好"}, headers=TOKEN)).headers["x-session-id"]
    r = await client.put(f"/api/sessions/{sid}/title", json={"title": "x" * 101}, headers=TOKEN)
    assert r.status_code == 400 and "过长（最多 100 个字符）" in r.json()["error"]
    r = await client.put(f"/api/sessions/{sid}/mode", json={"mode": "auto"}, headers=TOKEN)
    assert "取值无效，可选" in r.json()["error"]


API_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$")
"""Every time the service answers: the mine's local time, ``T``, seconds, no offset (the spec's
``"created_at": "2024-01-15T10:30:00"``)."""


def assert_local_now(value: str) -> None:
    assert API_TIME.match(value), value
    local_now = datetime.now(ZoneInfo("Asia/Shanghai")).replace(tzinfo=None)
    assert abs(datetime.fromisoformat(value) - local_now) < timedelta(minutes=2)


async def test_every_session_route_writes_times_alike(app, client: httpx.AsyncClient) -> None:
    """The session list, the history and the context usage (whose ``updated_at`` was
    ``2026-11-29 22:10:13``, with a space) write their times in one format, the mine's local time."""
    use_model(app, ScriptedChatModel(script=[], fallback=says("好")))
    sid = (await client.post("/api/chat", data={"message": "你好"}, headers=TOKEN)).headers["x-session-id"]
    listed = (await client.get("/api/sessions", headers=TOKEN)).json()["sessions"][0]
    assert_local_now(listed["created_at"])
    assert_local_now(listed["updated_at"])
    history = (await client.get(f"/api/chat/history/{sid}", headers=TOKEN)).json()["messages"]
    assert [m["role"] for m in history] == ["user", "assistant"]
    for message in history:
        assert_local_now(message["created_at"])
    context = (await client.get(f"/api/sessions/{sid}/context", headers=TOKEN)).json()
    assert context["current_usage"] is not None
    assert_local_now(context["updated_at"])


async def test_a_context_time_stored_by_an_earlier_version_is_answered_alike(
    app, client: httpx.AsyncClient
) -> None:
    use_model(app, ScriptedChatModel(script=[], fallback=says("好")))
    sid = (await client.post("/api/chat", data={"message": "你好"}, headers=TOKEN)).headers["x-session-id"]
    db = app.state.vent.db
    async with db.session() as s:
        row = await s.get(SessionRow, sid)
        assert row is not None and row.context_usage
        usage = json.loads(row.context_usage)
        usage["updated_at"] = "2026-11-29 22:10:13"  # the mine's local time, as written before
        row.context_usage = json.dumps(usage)
        s.add(row)
        await s.commit()
    context = (await client.get(f"/api/sessions/{sid}/context", headers=TOKEN)).json()
    assert context["updated_at"] == "2026-11-29T22:10:13"
