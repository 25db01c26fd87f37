"""One turn at a time per session, and clean ends of a session deleted mid-turn.

A second message (or resume) while a turn of the session runs is 409, on one worker and across two
worker processes on PostgreSQL; the history then holds the first turn whole (user A, answer A). Deleting a
session while its turn runs cancels the turn, its stream ends with ``error`` then ``done``, and no row of
any table (store and checkpointer), no upload and no report of the session remains.
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest
from sqlalchemy import text
from sqlmodel import SQLModel

from tests.chat_helpers import TOKEN, use_model
from tests.helpers import parse_spec_stream
from tests.pg import run_sync
from tests.scripted_model import ScriptedChatModel, says, tool_call
from tests.test_workers import Cluster, cluster_of
from vent_agent.app import create_app
from vent_agent.runs.emitter import Emitter
from vent_agent.runs.manager import RunManager
from vent_agent.settings import Settings
from vent_agent.store.db import Database

SLOW_ANSWER = "15216 辅运起坡段风速 1.8 m/s，风量 1250 m³/min，均在规定范围内。" * 3
BUSY_WORD = "正在处理"


def slow_model(delay_s: float = 0.05) -> ScriptedChatModel:
    """A model that answers slowly (one character per ``delay_s``), first with a tool call."""
    return ScriptedChatModel(
        script=[says("", tool_call("query_tun_data_by_id", {"tun_id": "15216"})), says(SLOW_ANSWER)],
        fallback=says("好"),
        chunk_size=1,
        delay_s=delay_s,
    )


async def until_history_has(c: httpx.AsyncClient, sid: str, content: str, timeout_s: float = 10.0) -> None:
    """Wait until the session's history holds a message ``content`` (a claimed turn stores its user
    message first), instead of guessing how long that takes on a loaded machine."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while loop.time() < deadline:
        hist = (await c.get(f"/api/chat/history/{sid}", headers=TOKEN)).json().get("messages", [])
        if any(m["content"] == content for m in hist):
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"{content!r} never reached the history of {sid}")


@pytest.fixture
async def app_on(store_url: str, tmp_path: Path) -> AsyncIterator[Any]:
    """The app on a SQLite or a PostgreSQL store (its checkpointer beside it)."""
    application = create_app(Settings(_env_file=None, data_dir=tmp_path / "data", database_url=store_url))
    async with application.router.lifespan_context(application):
        yield application


def client_of(app: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver", timeout=60)


async def new_session(app: Any) -> str:
    """A new session of the demo user zhangsan (``TOKEN``)."""
    from vent_agent.sessions import store

    return (await store.create_session(app.state.vent.db, "zhangsan", title="t")).id


async def wait_for_tokens(app: Any, run_id: str, count: int = 1, timeout_s: float = 30) -> None:
    """Wait until the run has logged ``count`` token events."""
    runs = app.state.vent.runs
    async with asyncio.timeout(timeout_s):
        while sum(ev.type == "token" for ev in await runs.events_after(run_id, 0, limit=10_000)) < count:
            await asyncio.sleep(0.05)


async def test_second_message_while_a_turn_runs_is_409(app: Any) -> None:
    use_model(app, slow_model())
    async with client_of(app) as c:
        sid = await new_session(app)
        first = asyncio.create_task(
            c.post("/api/chat", data={"message": "问题A", "session_id": sid}, headers=TOKEN)
        )
        await until_history_has(c, sid, "问题A")  # the first turn has claimed the session
        second = await c.post("/api/chat", data={"message": "问题B", "session_id": sid}, headers=TOKEN)
        assert second.status_code == 409 and BUSY_WORD in second.json()["error"]
        assert set(second.json()) == {"error"}
        resume = await c.post(
            "/api/chat/resume", json={"session_id": sid, "action": "approve"}, headers=TOKEN
        )
        assert resume.status_code == 409
        events = parse_spec_stream((await first).text)
        assert events[-1]["type"] == "done" and "error" not in [e["type"] for e in events]
        hist = (await c.get(f"/api/chat/history/{sid}", headers=TOKEN)).json()["messages"]
        assert [(m["role"], m["content"]) for m in hist] == [("user", "问题A"), ("assistant", SLOW_ANSWER)]
        # the turn has ended: the session takes the next message, and the checkpoint kept answer A
        use_model(app, ScriptedChatModel(script=[], fallback=says("好的。")))
        third = await c.post("/api/chat", data={"message": "问题C", "session_id": sid}, headers=TOKEN)
        assert third.status_code == 200 and parse_spec_stream(third.text)[-1]["type"] == "done"
        seen = next(m for m in app.state.vent.models.model.seen if m[-1].content == "问题C")
        said = [str(m.content) for m in seen if m.type in ("human", "ai") and str(m.content)]
        assert said[-3:] == ["问题A", SLOW_ANSWER, "问题C"]


async def test_a_failed_turn_releases_the_session(app: Any) -> None:
    use_model(app, ScriptedChatModel(script=[], fail_at={0}, fallback=says("好的。")))
    async with client_of(app) as c:
        r = await c.post("/api/chat", data={"message": "问题A"}, headers=TOKEN)
        assert parse_spec_stream(r.text)[-2]["type"] == "error"
        sid = r.headers["x-session-id"]
        again = await c.post("/api/chat", data={"message": "问题B", "session_id": sid}, headers=TOKEN)
        assert again.status_code == 200 and parse_spec_stream(again.text)[-1]["message"] == "对话完成"


async def test_a_lost_runs_session_is_released(app: Any) -> None:
    """A run closed as lost (its worker died) frees the session in the same transaction."""
    state = app.state.vent
    use_model(app, ScriptedChatModel(script=[], fallback=says("好的。")))
    async with client_of(app) as c:
        sid = await new_session(app)
        run_id = await state.runs.reserve("chat", session_id=sid, user_name="zhangsan", exclusive=True)
        busy = await c.post("/api/chat", data={"message": "问题", "session_id": sid}, headers=TOKEN)
        assert busy.status_code == 409
        assert await state.runs.fail_lost_run(run_id)
        ok = await c.post("/api/chat", data={"message": "问题", "session_id": sid}, headers=TOKEN)
        assert ok.status_code == 200


@pytest.fixture(scope="module")
def pg_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """Two worker processes on one PostgreSQL database (NOTIFY broker), with a slow loopback model."""
    with cluster_of(2, "postgres", "notify", tmp_path_factory.mktemp("turns")) as cluster:
        cluster.fake.delay_s = 0.1  # an answer takes a few seconds
        yield cluster


async def test_two_workers_on_postgres_take_one_turn_at_a_time(pg_cluster: Cluster) -> None:
    w1, w2 = pg_cluster.workers
    async with httpx.AsyncClient(timeout=60) as c:
        async with c.stream(
            "POST", f"{w1.base_url}/api/chat", data={"message": "问题A"}, headers=TOKEN
        ) as first:
            assert first.status_code == 200
            sid = first.headers["x-session-id"]
            await asyncio.sleep(0.1)
            second = await c.post(
                f"{w2.base_url}/api/chat", data={"message": "问题B", "session_id": sid}, headers=TOKEN
            )
            resume = await c.post(
                f"{w2.base_url}/api/chat/resume", json={"session_id": sid, "action": "approve"}, headers=TOKEN
            )
            body = "".join([t async for t in first.aiter_text()])
        assert second.status_code == 409 and BUSY_WORD in second.json()["error"]
        assert resume.status_code == 409
        events = parse_spec_stream(body)
        assert events[-1]["type"] == "done" and "error" not in [e["type"] for e in events]
        answer = "".join(e["content"] for e in events if e["type"] == "token")
        hist = (await c.get(f"{w2.base_url}/api/chat/history/{sid}", headers=TOKEN)).json()["messages"]
        assert [(m["role"], m["content"]) for m in hist] == [("user", "问题A"), ("assistant", answer)]
        third = await c.post(
            f"{w2.base_url}/api/chat", data={"message": "问题C", "session_id": sid}, headers=TOKEN
        )
        assert third.status_code == 200 and parse_spec_stream(third.text)[-1]["type"] == "done"


async def test_delete_on_the_other_worker_mid_turn(pg_cluster: Cluster) -> None:
    w1, w2 = pg_cluster.workers
    async with (
        httpx.AsyncClient(timeout=60) as c,
        c.stream("POST", f"{w1.base_url}/api/chat", data={"message": "问题A"}, headers=TOKEN) as turn,
    ):
        sid, run_id = turn.headers["x-session-id"], turn.headers["x-run-id"]
        pieces, body = turn.aiter_text(), ""
        async for piece in pieces:
            body += piece
            if '"type":"token"' in body:
                break
        assert (await c.delete(f"{w2.base_url}/api/sessions/{sid}", headers=TOKEN)).status_code == 200
        body += "".join([t async for t in pieces])
    events = parse_spec_stream(body)
    assert [e["type"] for e in events[-2:]] == ["error", "done"]
    await _until_no_run_executes(w1.base_url)  # the cancelled turn has finished: nothing of it writes now
    assert _store_rows_naming(pg_cluster.url, {sid, run_id}) == []
    assert [t for t in _checkpoint_threads(None, pg_cluster.url) if t.startswith(sid)] == []


async def _until_no_run_executes(base_url: str) -> None:
    """Wait until the worker at ``base_url`` executes no run: every ``vent_runs_active`` gauge of its
    ``/metrics`` is 0 (a run leaves it when its end has been recorded, after its body has stopped)."""
    gauge = re.compile(r"^vent_runs_active\{[^}]*\} (\S+)$", re.MULTILINE)
    async with httpx.AsyncClient(timeout=10) as c, asyncio.timeout(30):
        while any(float(v) for v in gauge.findall((await c.get(f"{base_url}/metrics")).text)):
            await asyncio.sleep(0.05)


async def test_a_subscriber_whose_run_is_deleted_still_gets_error_and_done(db: Database) -> None:
    """The subscriber of another worker may not have read the logged end when the session's delete
    removes the run: it ends with ``error`` then ``done`` all the same."""
    runs = RunManager(db, poll_s=0.05)
    release = asyncio.Event()

    async def body(em: Emitter) -> None:
        await em.emit("progress", message="开始")
        await release.wait()

    done_fields = {"session_id": "s1", "thread_id": "t-1"}
    run_id = await runs.start("chat", body, session_id="s1", done_fields=lambda _rid: done_fields)
    seen: list[dict[str, Any]] = []

    async def tail() -> None:
        async for ev in runs.subscribe(run_id):
            seen.append(ev.payload)
            if len(seen) == 1:
                await runs.delete_runs([run_id])

    await asyncio.wait_for(tail(), 20)
    assert [e["type"] for e in seen] == ["progress", "error", "done"]
    assert [e["seq"] for e in seen] == [1, 2, 3]
    assert (seen[-1]["session_id"], seen[-1]["thread_id"]) == ("s1", "t-1")  # as the turn's done says
    await runs.shutdown()


async def test_another_workers_subscriber_of_a_deleted_run_gets_its_thread(db: Database) -> None:
    """The subscriber reads the run from the log (another worker executes it): when the session's delete
    removes the run, its ``done`` still names the turn's thread and session."""
    executing, reading = RunManager(db, poll_s=0.05), RunManager(db, poll_s=0.05)
    release = asyncio.Event()

    async def body(em: Emitter) -> None:
        await em.emit("progress", message="开始")
        await release.wait()

    run_id = await executing.start("chat", body, session_id="s1", thread_id="t-2")
    seen: list[dict[str, Any]] = []

    async def tail() -> None:
        async for ev in reading.subscribe(run_id):
            seen.append(ev.payload)
            if len(seen) == 1:
                await executing.delete_runs([run_id])

    await asyncio.wait_for(tail(), 20)
    assert [e["type"] for e in seen] == ["progress", "error", "done"]
    assert (seen[-1]["session_id"], seen[-1]["thread_id"]) == ("s1", "t-2")
    await executing.shutdown()
    await reading.shutdown()


async def test_concurrent_claims_on_one_session_admit_one(app_on: Any) -> None:
    """Claims racing on the store (SQLite and PostgreSQL): exactly one wins."""
    from vent_agent.runs.manager import SessionBusy

    state = app_on.state.vent
    sid = await new_session(app_on)

    async def claim() -> str | None:
        try:
            run_id: str = await state.runs.reserve(
                "chat", session_id=sid, user_name="zhangsan", exclusive=True
            )
            return run_id
        except SessionBusy:
            return None

    won = [r for r in await asyncio.gather(*(claim() for _ in range(8))) if r]
    assert len(won) == 1
    await state.runs.abandon(won[0])
    assert await claim() is not None


# ---- delete mid-turn ------------------------------------------------------------------------------


def _store_rows_naming(db_url: str, needles: set[str]) -> list[str]:
    """``table.column = value`` for every row of every store table with a column equal to a needle."""

    async def scan() -> list[str]:
        database = Database(db_url)
        found = []
        try:
            async with database.engine.connect() as conn:
                for table in SQLModel.metadata.sorted_tables:
                    for column in table.columns:
                        if column.type.python_type is not str:
                            continue
                        rows = await conn.execute(
                            text(f'SELECT "{column.name}" FROM "{table.name}"')  # noqa: S608
                        )
                        found += [f"{table.name}.{column.name}={v}" for (v,) in rows if v in needles]
        finally:
            await database.close()
        return found

    return run_sync(scan())


def _checkpoint_threads(app: Any | None, store_url: str) -> list[str]:
    """Every checkpoint thread id (SQLite checkpointer file, or the PostgreSQL checkpointer tables)."""
    if store_url.startswith("sqlite"):
        assert app is not None, "the SQLite checkpointer's file is found through the app's settings"
        path = app.state.vent.settings.data_dir / "checkpoints.sqlite"
        with sqlite3.connect(path) as conn:
            return [
                t
                for table in ("checkpoints", "writes")
                for (t,) in conn.execute(f"SELECT thread_id FROM {table}")
            ]  # noqa: S608

    async def read() -> list[str]:
        conn = await asyncpg.connect(store_url.replace("+asyncpg", ""))
        try:
            out = []
            for table in ("checkpoints", "checkpoint_writes", "checkpoint_blobs"):
                out += [r["thread_id"] for r in await conn.fetch(f"SELECT thread_id FROM {table}")]  # noqa: S608
            return out
        finally:
            await conn.close()

    return run_sync(read())


async def test_delete_mid_turn_cancels_it_and_leaves_nothing(
    app_on: Any, store_url: str, plan_a_pdf: Path
) -> None:
    state = app_on.state.vent
    async with client_of(app_on) as c:
        # an earlier turn: a review, with its upload, report and provenance
        use_model(app_on, None)
        with plan_a_pdf.open("rb") as fh:
            r = await c.post(
                "/api/chat",
                data={"message": "帮我审查这份配风计划", "thread_id": "t-1"},
                files={"file": ("plan-a.pdf", fh, "application/pdf")},
                headers=TOKEN,
            )
        sid = r.headers["x-session-id"]
        report = next(e["download_url"] for e in parse_spec_stream(r.text) if e.get("download_url"))
        assert list(state.settings.reports_dir.rglob("*.provenance.json"))
        # the turn deleted mid-way: a tool call, then a slow answer
        use_model(app_on, slow_model())
        turn = asyncio.create_task(
            c.post("/api/chat", data={"message": "风速？", "session_id": sid}, headers=TOKEN)
        )
        async with asyncio.timeout(30):
            while not (run_ids := await _running(state, sid)):
                await asyncio.sleep(0.05)
        await wait_for_tokens(app_on, run_ids[0], count=3)
        all_runs = await _all_runs(state, sid)
        assert (await c.delete(f"/api/sessions/{sid}", headers=TOKEN)).status_code == 200
        events = parse_spec_stream((await turn).text)
        assert [e["type"] for e in events[-2:]] == ["error", "done"]
        assert (await c.get(report.replace("http://testserver", ""))).status_code == 404
    for deleted in all_runs:  # each run's body has stopped and its log is settled: nothing of it writes now
        await asyncio.wait_for(state.runs.wait(deleted), 30)
        await asyncio.wait_for(state.runs.writer.settle(deleted), 30)
    assert _store_rows_naming(store_url, {sid, *all_runs}) == []
    assert [t for t in _checkpoint_threads(app_on, store_url) if t.startswith(sid)] == []
    assert not (state.settings.uploads_dir / sid).exists()
    assert not list(state.settings.reports_dir.rglob("*.docx"))
    assert not list(state.settings.reports_dir.rglob("*.provenance.json"))


async def _running(state: Any, sid: str) -> list[str]:
    from vent_agent.sessions import store

    return await store.running_run_ids(state.db, sid)


async def _all_runs(state: Any, sid: str) -> list[str]:
    from vent_agent.sessions import store

    return await store.run_ids(state.db, sid)


# ---- a review with session_id is the session's turn too ---------------------------------------------

PLAN_A = Path(__file__).parent / "data" / "plan-2026-08-a.pdf"


async def post_review(c: httpx.AsyncClient, sid: str) -> httpx.Response:
    """``POST /api/vent/review/pdf`` of the sample plan in session ``sid`` (the whole stream)."""
    files = {"file": (PLAN_A.name, PLAN_A.read_bytes(), "application/pdf")}
    return await c.post("/api/vent/review/pdf", data={"session_id": sid}, files=files, headers=TOKEN)


async def until_history_len(c: httpx.AsyncClient, sid: str, count: int, timeout_s: float = 10.0) -> None:
    """Wait until the session's history holds ``count`` messages (a claimed review stores its user turn
    before its run starts)."""
    async with asyncio.timeout(timeout_s):
        while True:
            hist = (await c.get(f"/api/chat/history/{sid}", headers=TOKEN)).json().get("messages", [])
            if len(hist) >= count:
                return
            await asyncio.sleep(0.02)


def hold_review_slots(app: Any) -> int:
    """Take every free review slot (a review started now waits in its run, the session held); return
    how many to give back."""
    slots, held = app.state.vent.review_slots, 0
    while not slots.locked():
        assert slots._value > 0
        slots._value -= 1  # as acquire() without a wait
        held += 1
    return held


def release_review_slots(app: Any, held: int) -> None:
    for _ in range(held):
        app.state.vent.review_slots.release()


def assert_busy(r: httpx.Response) -> None:
    """The spec's 409: ``{"error": <Chinese message>}``, the session's turn taken."""
    assert r.status_code == 409 and set(r.json()) == {"error"} and BUSY_WORD in r.json()["error"]


def session_uploads(app: Any, sid: str) -> list[Path]:
    d = app.state.vent.settings.uploads_dir / sid
    return sorted(d.iterdir()) if d.exists() else []


async def test_a_session_review_while_a_chat_turn_runs_is_409(app_on: Any) -> None:
    """chat → review: the review is refused before its upload is saved or its turn stored."""
    use_model(app_on, slow_model())
    async with client_of(app_on) as c:
        sid = await new_session(app_on)
        first = asyncio.create_task(
            c.post("/api/chat", data={"message": "问题A", "session_id": sid}, headers=TOKEN)
        )
        await until_history_has(c, sid, "问题A")
        assert_busy(await post_review(c, sid))
        assert session_uploads(app_on, sid) == []
        events = parse_spec_stream((await first).text)
        assert events[-1]["type"] == "done" and "error" not in [e["type"] for e in events]
        hist = (await c.get(f"/api/chat/history/{sid}", headers=TOKEN)).json()["messages"]
        assert [(m["role"], m["content"]) for m in hist] == [("user", "问题A"), ("assistant", SLOW_ANSWER)]


async def test_a_chat_or_resume_while_a_session_review_runs_is_409(app_on: Any) -> None:
    """review → chat: the message and the resume are refused while the review runs; the history reads
    review request then review answer, and the session takes the next message once the review ended."""
    use_model(app_on, ScriptedChatModel(script=[], fallback=says("好的。")))
    async with client_of(app_on) as c:
        sid = await new_session(app_on)
        held = hold_review_slots(app_on)
        review = asyncio.create_task(post_review(c, sid))
        try:
            await until_history_len(c, sid, 1)
            assert_busy(
                await c.post("/api/chat", data={"message": "问题B", "session_id": sid}, headers=TOKEN)
            )
            resume = await c.post(
                "/api/chat/resume", json={"session_id": sid, "action": "approve"}, headers=TOKEN
            )
            assert_busy(resume)
        finally:
            release_review_slots(app_on, held)
        r = await review
        assert r.status_code == 200 and parse_spec_stream(r.text)[-1]["type"] == "done"
        hist = (await c.get(f"/api/chat/history/{sid}", headers=TOKEN)).json()["messages"]
        assert [(m["role"], m.get("kind")) for m in hist] == [("user", "review"), ("assistant", "review")]
        assert "问题B" not in str(hist)
        after = await c.post("/api/chat", data={"message": "问题C", "session_id": sid}, headers=TOKEN)
        assert after.status_code == 200 and parse_spec_stream(after.text)[-1]["type"] == "done"


async def test_a_second_session_review_while_one_runs_is_409(app_on: Any) -> None:
    """review → review: the second is refused before its upload is saved."""
    async with client_of(app_on) as c:
        sid = await new_session(app_on)
        held = hold_review_slots(app_on)
        first = asyncio.create_task(post_review(c, sid))
        try:
            await until_history_len(c, sid, 1)
            assert len(session_uploads(app_on, sid)) == 1
            assert_busy(await asyncio.wait_for(post_review(c, sid), 30))  # accepted, it would wait too
            assert len(session_uploads(app_on, sid)) == 1
        finally:
            release_review_slots(app_on, held)
        r = await first
        assert r.status_code == 200 and parse_spec_stream(r.text)[-1]["type"] == "done"
        hist = (await c.get(f"/api/chat/history/{sid}", headers=TOKEN)).json()["messages"]
        assert [m["role"] for m in hist] == ["user", "assistant"]
