"""Who may read and cancel a run (``GET /api/runs/{id}/events``, ``POST /api/runs/{id}/cancel``): a run
started in a session is its user's, whatever started it (a chat turn, a review with ``session_id``, any
other kind): 401 without ``x-access-token``, 404 运行不存在 for another user, the owner reads and cancels
it. Runs outside sessions (click interpretations, reviews without a session) are read by their id alone."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.chat_helpers import OTHER, TOKEN, use_model
from tests.helpers import hang_reviews, new_run_id, parse_standard_stream, present, review_in_background
from tests.scripted_model import ScriptedChatModel, says
from vent_agent.runs.emitter import Emitter
from vent_agent.sessions import store

NOT_FOUND = {"error": "运行不存在"}


@dataclass
class StartedRun:
    """A running run of zhangsan's session, and the request that started it (None: started directly)."""

    run_id: str
    session_id: str
    request: asyncio.Task[httpx.Response] | None


async def _review_in_session(
    app: Any, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> StartedRun:
    """``POST /api/vent/review/pdf`` with zhangsan's ``session_id``; the review hangs until cancelled."""
    hang_reviews(monkeypatch)
    session = await store.create_session(app.state.vent.db, "zhangsan", title="审查")
    pdf = Path(__file__).parent / "data" / "plan-2026-08-b.pdf"
    before = set(app.state.vent.runs.local_run_ids)
    request = review_in_background(client, pdf, session.id, TOKEN)
    return StartedRun(await new_run_id(app, before), session.id, request)


async def _chat(app: Any, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch) -> StartedRun:
    """``POST /api/chat`` as zhangsan with a slow model: the turn runs while the test looks at it."""
    use_model(app, ScriptedChatModel(script=[says("风量正常" * 100)], chunk_size=1, delay_s=0.05))
    before = set(app.state.vent.runs.local_run_ids)
    request = asyncio.create_task(client.post("/api/chat", data={"message": "风量？"}, headers=TOKEN))
    run_id = await new_run_id(app, before)
    row = await app.state.vent.runs.get(run_id)
    return StartedRun(run_id, row.session_id, request)


async def _other_kind(app: Any, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch) -> StartedRun:
    """A run of another kind started in zhangsan's session, its row naming the session but no user."""
    session = await store.create_session(app.state.vent.db, "zhangsan", title="其他")

    async def body(em: Emitter) -> None:
        await em.emit("progress", message="working")
        await asyncio.sleep(60)

    run_id = await app.state.vent.runs.start("export", body, session_id=session.id)
    return StartedRun(run_id, session.id, None)


Starter = Callable[[Any, httpx.AsyncClient, pytest.MonkeyPatch], Awaitable[StartedRun]]


@pytest.fixture(params=["review", "chat", "other-kind"])
async def session_run(
    request: pytest.FixtureRequest, app: Any, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[StartedRun]:
    """A running run of zhangsan's session, of each kind; cancelled (and its request ended) after."""
    starters: dict[str, Starter] = {"review": _review_in_session, "chat": _chat, "other-kind": _other_kind}
    started = await starters[request.param](app, client, monkeypatch)
    yield started
    await app.state.vent.runs.cancel(started.run_id)
    await app.state.vent.runs.wait(started.run_id)
    if started.request is not None:
        await asyncio.wait_for(present(started.request), 10)


async def _events(client: httpx.AsyncClient, run_id: str, headers: dict[str, str]) -> httpx.Response:
    """``GET /api/runs/{run_id}/events`` from the start; bounded, since a wrongly served stream of a run
    still running would last as long as the run."""
    url = f"/api/runs/{run_id}/events"
    return await asyncio.wait_for(client.get(url, headers={**headers, "Last-Event-ID": "0"}), 10)


async def test_a_session_run_without_a_token_is_401(
    client: httpx.AsyncClient, session_run: StartedRun
) -> None:
    assert (await _events(client, session_run.run_id, {})).status_code == 401
    assert (await client.post(f"/api/runs/{session_run.run_id}/cancel")).status_code == 401


async def test_a_session_run_is_not_found_for_another_user(
    app: Any, client: httpx.AsyncClient, session_run: StartedRun
) -> None:
    events = await _events(client, session_run.run_id, OTHER)
    assert events.status_code == 404 and events.json() == NOT_FOUND
    assert "x-session-id" not in events.headers
    cancel = await client.post(f"/api/runs/{session_run.run_id}/cancel", headers=OTHER)
    assert cancel.status_code == 404 and cancel.json() == NOT_FOUND
    assert (await app.state.vent.runs.get(session_run.run_id)).status == "running"


async def test_the_owner_cancels_and_reads_a_session_run(
    app: Any, client: httpx.AsyncClient, session_run: StartedRun
) -> None:
    cancel = await client.post(f"/api/runs/{session_run.run_id}/cancel", headers=TOKEN)
    assert cancel.status_code == 200 and cancel.json()["status"] == "cancelled"
    replay = await _events(client, session_run.run_id, TOKEN)
    assert replay.status_code == 200 and replay.headers["x-session-id"] == session_run.session_id
    assert parse_standard_stream(replay.text)[-1][1]["type"] == "done"


async def test_a_review_without_a_session_is_read_by_its_id_alone(
    app: Any, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    hang_reviews(monkeypatch)
    pdf = Path(__file__).parent / "data" / "plan-2026-08-b.pdf"
    before = set(app.state.vent.runs.local_run_ids)
    request = review_in_background(client, pdf)
    run_id = await new_run_id(app, before)
    cancel = await client.post(f"/api/runs/{run_id}/cancel")
    assert cancel.status_code == 200 and cancel.json()["status"] == "cancelled"
    replay = await _events(client, run_id, {})
    assert replay.status_code == 200 and parse_standard_stream(replay.text)[-1][1]["type"] == "done"
    assert (await asyncio.wait_for(request, 10)).status_code == 200


async def test_a_review_in_a_session_is_recorded_as_its_users(
    app: Any, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    started = await _review_in_session(app, client, monkeypatch)
    assert (await app.state.vent.runs.get(started.run_id)).user_name == "zhangsan"
    await app.state.vent.runs.cancel(started.run_id)
    await asyncio.wait_for(present(started.request), 10)


async def test_a_run_of_a_deleted_session_is_no_ones(app: Any, client: httpx.AsyncClient) -> None:
    """A run row naming a session that is gone (and no user) is found for nobody, not read by its id."""
    manager = app.state.vent.runs

    async def body(em: Emitter) -> None:
        await em.emit("progress", message="done")

    run_id = await manager.start("export", body, session_id="gone-session")
    await manager.wait(run_id)
    for headers in (TOKEN, OTHER):
        resp = await _events(client, run_id, headers)
        assert resp.status_code == 404 and resp.json() == NOT_FOUND
    assert (await _events(client, run_id, {})).status_code == 401
