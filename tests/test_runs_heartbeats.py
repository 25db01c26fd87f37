"""Worker heartbeats: a dead worker's runs (and only its) are closed, with the turn a lost chat or review run
streamed kept in its session's history; a worker taken for dead stops its runs and registers again."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest

from tests.helpers import collect_run, present
from vent_agent.runs.emitter import Emitter
from vent_agent.runs.manager import LOST_MESSAGE, RunManager
from vent_agent.runs.worker_models import RunWorkerRow, WorkerRow
from vent_agent.runs.workers import WorkerHeartbeat
from vent_agent.store.db import Database
from vent_agent.store.models import EventRow, RunRow, utcnow


@pytest.fixture
async def live(db: Database) -> AsyncIterator[RunManager]:
    """One live worker (heartbeat registered; its loop effectively idle so sweeps are explicit)."""
    mgr = RunManager(db, poll_s=0.1)
    mgr.heartbeat = WorkerHeartbeat(mgr, interval_s=3600, dead_after_s=7200)
    await mgr.heartbeat.start()
    yield mgr
    await mgr.shutdown()
    await mgr.heartbeat.stop()


async def _sweep(mgr: RunManager) -> int:
    """One sweep of ``mgr``'s heartbeat: the number of runs it closed as lost."""
    return await present(mgr.heartbeat).sweep()


async def _foreign_run(
    database: Database, worker: str, *, host: str, pid: int, age_s: float, events: int = 2
) -> str:
    """A running run of another worker, with ``events`` logged events and a heartbeat ``age_s`` old."""
    run_id = f"run-of-{worker}"
    async with database.session() as s:
        if await s.get(WorkerRow, worker) is None:
            s.add(WorkerRow(id=worker, host=host, pid=pid, heartbeat_at=utcnow() - timedelta(seconds=age_s)))
        s.add(RunRow(id=run_id, kind="click_tun", last_seq=events))
        s.add(RunWorkerRow(run_id=run_id, worker_id=worker))
        for seq in range(1, events + 1):
            payload = f'{{"type":"progress","message":"m{seq}","seq":{seq},"run_id":"{run_id}"}}'
            s.add(EventRow(run_id=run_id, seq=seq, type="progress", payload=payload))
        await s.commit()
    return run_id


async def test_only_the_dead_workers_runs_are_closed(live: RunManager, db: Database) -> None:
    gate = asyncio.Event()

    async def body(em: Emitter) -> None:
        await em.emit("progress", message="mine")
        await gate.wait()

    own = await live.start("review", body)
    dead = await _foreign_run(db, "ghost", host="other-host", pid=1, age_s=3 * 3600)
    alive = await _foreign_run(db, "busy", host="other-host", pid=1, age_s=0)
    assert await _sweep(live) == 1

    events = await collect_run(live, dead)
    assert [e["type"] for e in events] == ["progress", "progress", "error", "done"]
    assert [e["seq"] for e in events] == [1, 2, 3, 4]
    assert events[2]["worker_lost"] is True and events[2]["message"]
    run = await live.get(dead)
    assert run is not None and run.status == "failed" and run.last_seq == 4
    assert present(await live.get(alive)).status == "running"
    assert present(await live.get(own)).status == "running"
    async with db.session() as s:
        assert await s.get(WorkerRow, "ghost") is None
        assert await s.get(WorkerRow, "busy") is not None
    assert await _sweep(live) == 0
    gate.set()


async def test_vanished_process_on_this_host_is_dead_at_once(live: RunManager, db: Database) -> None:
    proc = subprocess.Popen(["true"])
    proc.wait()
    run_id = await _foreign_run(db, "crashed", host=socket.gethostname()[:255], pid=proc.pid, age_s=0)
    assert await _sweep(live) == 1
    assert present(await live.get(run_id)).status == "failed"


async def test_runs_of_unknown_workers_are_closed_at_start_up(db: Database) -> None:
    """A run whose worker row is gone (or that has none) is closed when the next worker starts."""
    run_id = await _foreign_run(db, "forgotten", host="h", pid=1, age_s=0)
    async with db.session() as s:
        await s.delete(await s.get(WorkerRow, "forgotten"))
        s.add(RunRow(id="no-worker", kind="review"))
        await s.commit()
    mgr = RunManager(db)
    mgr.heartbeat = WorkerHeartbeat(mgr, interval_s=3600, dead_after_s=7200)
    await mgr.heartbeat.start()
    try:
        assert present(await mgr.get(run_id)).status == "failed"
        assert present(await mgr.get("no-worker")).status == "failed"
    finally:
        await mgr.heartbeat.stop()


async def test_a_worker_taken_for_dead_stops_its_runs_and_registers_again(
    live: RunManager, db: Database
) -> None:
    started = asyncio.Event()

    async def body(em: Emitter) -> None:
        await em.emit("progress", message="x")
        started.set()
        await asyncio.sleep(3600)

    run_id = await live.start("review", body)
    await started.wait()
    assert await live.fail_lost_run(run_id)  # a survivor closed it
    assert not await live.fail_lost_run(run_id)  # only once
    async with db.session() as s:
        await s.delete(await s.get(WorkerRow, live.worker_id))
        await s.commit()
    await present(live.heartbeat).beat()
    await live.wait(run_id)
    async with db.session() as s:
        assert await s.get(WorkerRow, live.worker_id) is not None
    run = await live.get(run_id)
    assert run is not None and run.status == "failed"  # the late worker does not overwrite it
    events = await collect_run(live, run_id)
    assert [e["type"] for e in events] == ["progress", "error", "done"]  # nothing appended after done
    assert events[1].get("worker_lost") is True


async def test_heartbeat_loop_refreshes_and_stop_removes_the_row(db: Database) -> None:
    mgr = RunManager(db)
    beat = WorkerHeartbeat(mgr, interval_s=0.05, dead_after_s=1)
    await beat.start()
    async with db.session() as s:
        first = present(await s.get(WorkerRow, mgr.worker_id)).heartbeat_at
    for _ in range(200):
        await asyncio.sleep(0.05)
        async with db.session() as s:
            row = await s.get(WorkerRow, mgr.worker_id)
        if row is not None and row.heartbeat_at > first:
            break
    assert row is not None and row.heartbeat_at > first
    await beat.stop()
    async with db.session() as s:
        assert await s.get(WorkerRow, mgr.worker_id) is None
    with pytest.raises(ValueError):
        WorkerHeartbeat(mgr, interval_s=5, dead_after_s=5)


async def test_a_lost_chat_run_keeps_its_turn_in_the_history(live: RunManager, db: Database) -> None:
    """A chat run closed because its worker died leaves the assistant turn it streamed, with the error,
    in its session's history; a click run (no session) leaves none, and a turn stored before the worker
    died is not stored twice."""
    from vent_agent.sessions import store as sessions

    session = await sessions.create_session(db, "alice")
    run_id = await _foreign_run(db, "gone", host="other-host", pid=1, age_s=3 * 3600, events=0)
    async with db.session() as s:
        run = await s.get(RunRow, run_id)
        assert run is not None
        run.kind, run.session_id, run.user_name, run.last_seq = "chat", session.id, "alice", 2
        s.add(run)
        for seq, content in ((1, "风量"), (2, "正常")):
            payload = (
                f'{{"type":"token","source":"main","content":"{content}","seq":{seq},"run_id":"{run_id}"}}'
            )
            s.add(EventRow(run_id=run_id, seq=seq, type="token", payload=payload))
        await s.commit()
    click = await _foreign_run(db, "gone-too", host="other-host", pid=1, age_s=3 * 3600)
    assert await _sweep(live) == 2
    history, total = await sessions.history(db, session.id, 50, 0)
    assert total == 1
    (turn,) = history
    assert turn["role"] == "assistant" and turn["content"] == "风量正常" and turn["run_id"] == run_id
    assert turn["error"] == LOST_MESSAGE
    assert present(await live.get(click)).status == "failed"
    from vent_agent.runs.lost_turn import store_lost_turn

    assert not await store_lost_turn(db, "chat", session.id, run_id, [])  # already stored


async def test_a_lost_session_review_keeps_its_turn_in_the_history(live: RunManager, db: Database) -> None:
    """A review of a session closed because its worker died: the history answers its request with the
    report streamed so far, the lost-worker error and what a review's turn carries (kind, thread)."""
    from vent_agent.sessions import store as sessions

    session = await sessions.create_session(db, "alice")
    run_id = await _foreign_run(db, "gone", host="other-host", pid=1, age_s=3 * 3600, events=0)
    async with db.session() as s:
        run = await s.get(RunRow, run_id)
        assert run is not None
        run.kind, run.session_id, run.user_name, run.last_seq = "review", session.id, "alice", 1
        s.add(run)
        payload = (
            f'{{"type":"token","source":"main","content":"# 配风计划审查报告","seq":1,"run_id":"{run_id}"}}'
        )
        s.add(EventRow(run_id=run_id, seq=1, type="token", payload=payload))
        await s.commit()
    assert await _sweep(live) == 1
    (turn,) = (await sessions.history(db, session.id, 50, 0))[0]
    assert (
        turn["role"] == "assistant" and turn["content"] == "# 配风计划审查报告" and turn["run_id"] == run_id
    )
    assert (
        turn["error"] == LOST_MESSAGE and turn["kind"] == "review" and turn["thread_id"] == session.thread_id
    )


async def test_a_lost_run_closes_the_agent_spans_it_left_open(live: RunManager, db: Database) -> None:
    """kill -9 during a chat turn's review: the agents whose ``agent_start`` has no ``agent_done`` or
    ``agent_error`` get an ``agent_done`` 中断 (innermost first, timed from their start to the last logged
    event) before ``error`` and ``done``; a closed span (「规程核查」) and a reviewer that failed are left."""
    run_id = await _foreign_run(db, "gone", host="other-host", pid=1, age_s=3 * 3600, events=0)
    now = utcnow()
    logged: list[tuple[dict[str, Any], float]] = [
        ({"type": "agent_start", "agent": "对话", "cn_agent": "对话", "message": "m"}, 0.0),
        ({"type": "agent_start", "agent": "规程核查", "cn_agent": "规程核查", "message": "m"}, 0.1),
        (
            {
                "type": "agent_done",
                "agent": "规程核查",
                "cn_agent": "规程核查",
                "message": "m",
                "duration_ms": 5,
            },
            0.2,
        ),
        ({"type": "agent_start", "agent": "配风计划审查", "cn_agent": "配风计划审查", "message": "m"}, 1.0),
        ({"type": "agent_start", "agent": "data", "cn_agent": "数据审查", "message": "m"}, 1.5),
        ({"type": "agent_error", "agent": "data", "message": "m", "error": "x", "progress": "1/3"}, 2.0),
        ({"type": "ocr_progress", "message": "第 3/9 页"}, 3.5),
    ]
    async with db.session() as s:
        run = await s.get(RunRow, run_id)
        assert run is not None
        run.kind, run.last_seq = "chat", len(logged)
        s.add(run)
        for seq, (fields, at) in enumerate(logged, start=1):
            payload = json.dumps({**fields, "seq": seq, "run_id": run_id}, ensure_ascii=False)
            created = now + timedelta(seconds=at)
            s.add(EventRow(run_id=run_id, seq=seq, type=fields["type"], payload=payload, created_at=created))
        await s.commit()
    assert await _sweep(live) == 1
    events = await collect_run(live, run_id)
    tail = events[len(logged) :]
    assert [(e["type"], e.get("agent")) for e in tail] == [
        ("agent_done", "配风计划审查"),
        ("agent_done", "对话"),
        ("error", None),
        ("done", None),
    ]
    review, chat = tail[0], tail[1]
    assert review["duration_ms"] == 2500 and review["message"] == "「配风计划审查」中断（2500ms）"
    assert review["cn_agent"] == "配风计划审查" and chat["duration_ms"] == 3500
    assert tail[2]["worker_lost"] is True
    assert [e["seq"] for e in events] == list(range(1, len(logged) + 5))
    assert present(await live.get(run_id)).last_seq == len(logged) + 4


@pytest.mark.parametrize(
    ("kind", "in_session", "thread"),
    [("chat", True, "t-7"), ("chat_resume", True, "t-8"), ("review", True, None), ("review", False, None)]
    + [("click_tun", False, None)],
)
async def test_a_lost_runs_done_carries_its_kinds_fields(
    live: RunManager, db: Database, kind: str, in_session: bool, thread: str | None
) -> None:
    """The ``done`` closing a lost run carries ``thread_id`` and ``session_id`` as the kind's own
    ``done`` does: a chat turn's thread as its run recorded it, the run id for a review or a click."""
    from vent_agent.sessions import store as sessions

    session = await sessions.create_session(db, "alice") if in_session else None
    run_id = await _foreign_run(db, "gone", host="other-host", pid=1, age_s=3 * 3600)
    async with db.session() as s:
        run = await s.get(RunRow, run_id)
        assert run is not None
        run.kind, run.thread_id = kind, thread
        run.session_id, run.user_name = (session.id, "alice") if session else (None, None)
        s.add(run)
        await s.commit()
    assert await _sweep(live) == 1
    done = (await collect_run(live, run_id))[-1]
    assert done["type"] == "done" and done["message"] == LOST_MESSAGE
    assert done["thread_id"] == (thread or run_id)
    assert "session_id" in done and done["session_id"] == (session.id if session else None)


async def test_a_chat_turn_lost_mid_answer_ends_with_its_thread(app, client) -> None:
    """``POST /api/chat`` with a ``thread_id``: the run records it, and when the run is closed as lost
    (its worker taken for dead) its ``done`` names that thread and the session, as the turn's would."""
    from tests.chat_helpers import TOKEN, use_model
    from tests.helpers import parse_standard_stream
    from tests.scripted_model import ScriptedChatModel, says

    use_model(app, ScriptedChatModel(script=[says("风量正常" * 50)], chunk_size=1, delay_s=0.05))
    manager: RunManager = app.state.vent.runs
    request = asyncio.create_task(
        client.post("/api/chat", data={"message": "风量？", "thread_id": "th-9"}, headers=TOKEN)
    )
    for _ in range(500):
        if manager.local_run_ids:
            break
        await asyncio.sleep(0.01)
    (run_id,) = manager.local_run_ids
    row = await manager.get(run_id)
    assert row is not None and row.thread_id == "th-9"
    assert await manager.fail_lost_run(run_id)  # a survivor closes it
    await manager.cancel(run_id)  # as the worker does once it learns it was taken for dead
    await asyncio.wait_for(request, 10)
    replay = await client.get(f"/api/runs/{run_id}/events", headers={**TOKEN, "Last-Event-ID": "0"})
    done = parse_standard_stream(replay.text)[-1][1]
    assert done["type"] == "done" and done["message"] == LOST_MESSAGE
    assert (done["thread_id"], done["session_id"]) == ("th-9", row.session_id)
