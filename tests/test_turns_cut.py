"""A session's turn cut short by its run's end keeps its reply in the history: a chat turn or a session
review cancelled (``POST /api/runs/{id}/cancel``) leaves an assistant message with the text streamed so
far, the ``run_id`` and ``error: "运行已取消"`` (the cancel's own ``error`` event); a review that fails
leaves one with the internal-error message; a turn the run stored itself is not stored twice."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.chat_helpers import TOKEN, use_model
from tests.helpers import new_run_id, review_in_background
from tests.scripted_model import ScriptedChatModel, says
from vent_agent.events import Token
from vent_agent.runs.emitter import Emitter
from vent_agent.runs.manager import CANCELLED_MESSAGE, FAILED_MESSAGE
from vent_agent.sessions import store

ANSWER = "15216 工作面风量 1250 m³/min，风速 1.8 m/s，均在规定范围内。" * 4
PDF = Path(__file__).parent / "data" / "plan-2026-08-b.pdf"


async def _tokens_logged(app: Any, run_id: str, at_least: int) -> list[dict[str, Any]]:
    """Wait until the run has logged ``at_least`` ``token`` events (consecutive tokens are merged into
    one); return its events so far."""
    for _ in range(1000):
        events = [ev.payload for ev in await app.state.vent.runs.events_after(run_id, 0)]
        if sum(e["type"] == "token" for e in events) >= at_least:
            return events
        await asyncio.sleep(0.01)
    raise AssertionError("the run streamed no text")


async def _history(client: httpx.AsyncClient, session_id: str) -> list[dict[str, Any]]:
    resp = await client.get(f"/api/chat/history/{session_id}", headers=TOKEN)
    assert resp.status_code == 200
    messages: list[dict[str, Any]] = resp.json()["messages"]
    return messages


async def _cancel(client: httpx.AsyncClient, run_id: str) -> None:
    resp = await client.post(f"/api/runs/{run_id}/cancel", headers=TOKEN)
    assert resp.status_code == 200 and resp.json()["status"] == "cancelled"


async def test_a_cancelled_chat_turn_keeps_its_partial_answer(app: Any, client: httpx.AsyncClient) -> None:
    use_model(app, ScriptedChatModel(script=[says(ANSWER)], chunk_size=2, delay_s=0.02))
    before = set(app.state.vent.runs.local_run_ids)
    request = asyncio.create_task(client.post("/api/chat", data={"message": "风量正常吗？"}, headers=TOKEN))
    run_id = await new_run_id(app, before)
    await _tokens_logged(app, run_id, 3)
    await _cancel(client, run_id)
    response = await asyncio.wait_for(request, 10)
    session_id = response.headers["x-session-id"]

    logged = [ev.payload for ev in await app.state.vent.runs.events_after(run_id, 0)]
    streamed = "".join(e["content"] for e in logged if e["type"] == "token")
    user, answer = await _history(client, session_id)
    assert user["role"] == "user" and user["content"] == "风量正常吗？"
    assert answer["role"] == "assistant" and answer["run_id"] == run_id
    assert answer["error"] == CANCELLED_MESSAGE == "运行已取消"
    assert answer["content"] == streamed and streamed and ANSWER.startswith(streamed) and streamed != ANSWER
    (cancel_error,) = [e for e in logged if e["type"] == "error"]  # the history says what the stream said
    assert cancel_error["message"] == answer["error"]


async def _session_review(app: Any, client: httpx.AsyncClient) -> tuple[str, asyncio.Task[httpx.Response]]:
    """``POST /api/vent/review/pdf`` in a new session of zhangsan; return the session id and the request."""
    session = await store.create_session(app.state.vent.db, "zhangsan", title="审查")
    return session.id, review_in_background(client, PDF, session.id, TOKEN)


async def test_a_cancelled_session_review_keeps_its_partial_report(
    app: Any, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vent_agent.review.service import run

    async def streams_then_hangs(emitter: Emitter, *args: object, **kwargs: object) -> None:
        for piece in ("# 配风计划审查报告\n", "## 一、总体结论\n"):
            await emitter.send(Token(source="main", content=piece))
        await emitter.flush()  # consecutive tokens are merged into one event: logged now
        await asyncio.sleep(60)

    monkeypatch.setattr(run, "_review_and_publish", streams_then_hangs)
    before = set(app.state.vent.runs.local_run_ids)
    session_id, request = await _session_review(app, client)
    run_id = await new_run_id(app, before)
    await _tokens_logged(app, run_id, 1)
    await _cancel(client, run_id)
    await asyncio.wait_for(request, 10)

    user, answer = await _history(client, session_id)
    assert user["role"] == "user" and user["attachment"] == PDF.name
    assert answer["role"] == "assistant" and answer["run_id"] == run_id and answer["kind"] == "review"
    assert answer["content"] == "# 配风计划审查报告\n## 一、总体结论\n"
    assert answer["error"] == "运行已取消" and answer["thread_id"] == session_id
    assert "download_url" not in answer


async def test_a_failed_session_review_keeps_its_error(
    app: Any, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The review raises (the disk is full): the history answers the request with the run's error."""
    from vent_agent.review.service import run

    async def full_disk(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(run, "_review_and_publish", full_disk)
    session_id, request = await _session_review(app, client)
    assert (await asyncio.wait_for(request, 10)).status_code == 200
    user, answer = await _history(client, session_id)
    assert user["role"] == "user"
    assert answer["role"] == "assistant" and answer["error"] == FAILED_MESSAGE and answer["kind"] == "review"


async def test_a_turn_the_run_stored_is_not_stored_again(app: Any, client: httpx.AsyncClient) -> None:
    """The run stored its turn, then was cancelled before its end: the history has that turn once."""
    db = app.state.vent.db
    session = await store.create_session(db, "zhangsan")
    stored = asyncio.Event()

    async def body(em: Emitter) -> None:
        await em.emit("token", source="main", content="风量正常")
        await em.flush()
        await store.add_message(db, session.id, "assistant", "风量正常", run_id=em.run_id)
        stored.set()
        await asyncio.sleep(60)

    run_id = await app.state.vent.runs.start("chat", body, session_id=session.id, user_name="zhangsan")
    await asyncio.wait_for(stored.wait(), 10)
    await _cancel(client, run_id)
    (answer,) = await _history(client, session.id)
    assert answer["content"] == "风量正常" and answer["run_id"] == run_id and "error" not in answer


async def test_a_cancelled_run_outside_a_session_stores_no_turn(app: Any) -> None:
    """A click interpretation (no session) cancelled: no message is written anywhere."""
    from sqlmodel import func, select

    from vent_agent.store.models import MessageRow

    manager = app.state.vent.runs

    async def body(em: Emitter) -> None:
        await em.emit("token", source="main", content="巷道")
        await asyncio.sleep(60)

    run_id = await manager.start("click_tun", body)
    await _tokens_logged(app, run_id, 1)
    await manager.cancel(run_id)
    await manager.wait(run_id)
    assert (await manager.get(run_id)).status == "cancelled"
    async with app.state.vent.db.session() as s:
        assert (await s.exec(select(func.count()).select_from(MessageRow))).one() == 0
