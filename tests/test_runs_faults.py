"""Store faults during a run (found by bench/bench_clicks.py at 500 concurrent streams): a locked
database is retried, and a run whose closing events cannot be logged still ends instead of hanging its
subscribers."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError

from tests.helpers import RUN_GUARD_S, present
from vent_agent.runs import log_writer, sqlite_writer
from vent_agent.runs.manager import RunManager
from vent_agent.runs.tail import StoredEvent
from vent_agent.store.db import Database
from vent_agent.store.models import RunRow


@pytest.fixture
async def manager(tmp_path: Path):
    db = Database(f"sqlite+aiosqlite:///{tmp_path / 'runs.db'}")
    await db.migrate()
    mgr = RunManager(db, poll_s=0.05)
    yield mgr
    await mgr.shutdown()
    await db.close()


class Flaky:
    """The log writer's transactions, of which the next ``fail`` raise ``error`` (nothing written)."""

    def __init__(self, write_once, error: Exception, fail: int) -> None:
        self.write_once, self.error, self.left = write_once, error, fail

    async def __call__(self, writes):
        if self.left > 0:
            self.left -= 1
            raise self.error
        return await self.write_once(writes)


def _flaky(manager: RunManager, monkeypatch: pytest.MonkeyPatch, error: Exception, fail: int) -> Flaky:
    flaky = Flaky(manager.writer._write_once, error, fail)
    monkeypatch.setattr(manager.writer, "_write_once", flaky)
    return flaky


async def test_a_locked_database_is_retried(manager: RunManager, monkeypatch: pytest.MonkeyPatch) -> None:
    gate = asyncio.Event()

    async def body(em):
        await gate.wait()
        await em.emit("progress", message="一")

    run_id = await manager.start("click_tun", body)
    flaky = _flaky(manager, monkeypatch, OperationalError("INSERT", {}, Exception("database is locked")), 2)
    gate.set()
    await manager.wait(run_id)
    events = [e.type for e in await manager.events_after(run_id, 0)]
    assert events == ["progress", "done"] and flaky.left == 0
    assert present(await manager.get(run_id)).status == "done"


async def test_a_run_whose_events_cannot_be_written_ends_failed_and_sends_nothing_unwritten(
    manager: RunManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch that fails for good (not a lock): its events are never delivered, the run is stopped and
    ends with error + done right after its last committed event."""
    step = asyncio.Event()
    reached = []

    async def body(em):
        await em.emit("progress", message="一")
        await step.wait()
        await em.emit("progress", message="二")  # this batch fails
        await asyncio.sleep(0.5)
        reached.append(True)
        await em.emit("progress", message="三")

    run_id = await manager.start("click_tun", body)
    seen: list[dict[str, Any]] = []

    async def read() -> None:
        async for ev in manager.subscribe(run_id, 0):
            seen.append(ev.payload)
            if ev.seq == 1:
                _flaky(manager, monkeypatch, RuntimeError("disk I/O error"), 1)
                step.set()

    await asyncio.wait_for(read(), 10)
    await manager.wait(run_id)
    assert not reached  # the body was stopped
    assert [(e["seq"], e["type"]) for e in seen] == [(1, "progress"), (2, "error"), (3, "done")]
    assert (seen[-1]["thread_id"], seen[-1]["session_id"]) == (run_id, None)  # as a click's done says
    assert "二" not in str(seen)
    logged = [e.payload for e in await manager.events_after(run_id, 0)]
    assert logged == seen
    run = await manager.get(run_id)
    assert run is not None and run.status == "failed" and run.last_seq == 3


async def test_a_run_whose_log_failed_closes_the_agent_spans_it_left_open(
    manager: RunManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The log fails under an agent's span (a chat turn's 「配风计划审查」): after the last committed event
    comes that agent's ``agent_done`` 中断, then error + done, so no agent is left spinning."""
    from vent_agent.runs.agent_span import agent_start

    step = asyncio.Event()

    async def body(em):
        await agent_start(em.send, "配风计划审查")
        await em.emit("progress", message="一")
        await step.wait()
        await em.emit("progress", message="二")  # this batch fails
        await asyncio.sleep(3600)

    run_id = await manager.start("chat", body)
    seen: list[dict[str, Any]] = []

    async def read() -> None:
        async for ev in manager.subscribe(run_id, 0):
            seen.append(ev.payload)
            if ev.seq == 2:
                _flaky(manager, monkeypatch, RuntimeError("disk I/O error"), 1)
                step.set()

    await asyncio.wait_for(read(), 10)
    await manager.wait(run_id)
    assert [e["type"] for e in seen] == ["agent_start", "progress", "agent_done", "error", "done"]
    closing = seen[2]
    assert closing["agent"] == closing["cn_agent"] == "配风计划审查" and closing["duration_ms"] >= 0
    assert closing["message"] == f"「配风计划审查」中断（{closing['duration_ms']}ms）"
    assert [e["seq"] for e in seen] == [1, 2, 3, 4, 5]
    assert [e.payload for e in await manager.events_after(run_id, 0)] == seen
    run = await manager.get(run_id)
    assert run is not None and run.status == "failed" and run.last_seq == 5


async def test_one_runs_failed_write_does_not_break_the_others(manager: RunManager) -> None:
    """A batch failing for one run only (here a seq already taken, as when another worker closed the
    run) is split: the other runs' events in it are written and delivered."""
    gate = asyncio.Event()

    async def body(em):
        await gate.wait()
        for i in range(20):
            await em.emit("progress", message=f"m{i}")

    good = [await manager.start("click_tun", body) for _ in range(3)]

    first_sent = asyncio.Event()

    async def bad_body(em):
        await em.emit("progress", message="first")
        first_sent.set()
        await gate.wait()
        em.seq = 0  # the next event takes seq 1 again: a unique-key violation
        await em.emit("progress", message="again")
        await asyncio.sleep(3600)

    bad = await manager.start("click_tun", bad_body)
    await asyncio.wait_for(first_sent.wait(), RUN_GUARD_S)
    assert len(await manager.events_after(bad, 0)) == 1  # "first" is logged before the clashing event
    gate.set()
    for run_id in good:
        events = [e.payload async for e in manager.subscribe(run_id, 0)]
        assert [e["seq"] for e in events] == list(range(1, 22)) and events[-1]["type"] == "done"
        assert present(await manager.get(run_id)).status == "done"
    await asyncio.wait_for(manager.wait(bad), 10)
    events = [e.payload async for e in manager.subscribe(bad, 0)]
    assert [e["type"] for e in events] == ["progress", "error", "done"] and events[0]["message"] == "first"
    assert present(await manager.get(bad)).status == "failed"


async def test_a_run_whose_done_cannot_be_logged_still_ends(
    manager: RunManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = manager.append_event

    async def no_done(run_id, seq, payload, data=None):
        if payload.get("type") == "done":
            raise RuntimeError("disk full")
        await original(run_id, seq, payload, data)

    monkeypatch.setattr(manager, "append_event", no_done)

    async def body(em):
        await em.emit("progress", message="一")

    run_id = await manager.start("click_tun", body)
    await manager.wait(run_id)
    run = await manager.get(run_id)
    assert isinstance(run, RunRow) and run.status == "failed" and run.last_seq == 1
    # a subscriber is not left waiting for an event that was never logged
    seen = await asyncio.wait_for(_collect(manager, run_id), 5)
    assert [e.type for e in seen] == ["progress"]


async def _collect(manager: RunManager, run_id: str) -> list[StoredEvent]:
    return [ev async for ev in manager.subscribe(run_id, 0)]


async def test_cancelling_twice_still_records_the_cancellation(
    manager: RunManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second cancel arriving while the run writes its error and done must not abort them (a run was
    left "running" for ever when the broker's cancel and the flag poll both hit it)."""
    started = asyncio.Event()

    async def body(em):
        started.set()
        await asyncio.sleep(30)

    run_id = await manager.start("click_tun", body)
    await started.wait()
    original = manager.append_event
    in_close = asyncio.Event()

    async def slow_append(run_id_, seq, payload, data=None):
        if payload.get("type") == "error":
            in_close.set()
            await asyncio.sleep(0.2)  # the close is under way when the second cancel lands
        await original(run_id_, seq, payload, data)

    monkeypatch.setattr(manager, "append_event", slow_append)
    assert await manager.cancel(run_id)
    await in_close.wait()
    assert await manager.cancel(run_id)  # the second request
    await asyncio.wait_for(manager.wait(run_id), 5)
    run = await manager.get(run_id)
    assert run is not None and run.status == "cancelled"
    assert [e.type for e in await manager.events_after(run_id, 0)][-2:] == ["error", "done"]


async def test_small_batches_commit_on_the_loop_and_a_held_write_lock_sends_them_to_the_thread(
    manager: RunManager, tmp_path: Path
) -> None:
    """The loop's connection never waits for SQLite's write lock: while another connection holds it, a
    batch goes to the writer's thread, which waits for the lock, and the loop keeps running meanwhile."""

    async def body(em):
        await em.emit("progress", message="一")

    run_id = await manager.start("click_tun", body)
    await manager.wait(run_id)
    sqlite = manager.writer._sqlite
    assert sqlite is not None and sqlite.inline_commits >= 1 and sqlite.thread_commits == 0

    holder = sqlite3.connect(tmp_path / "runs.db", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another writer holds the lock
    starting = asyncio.create_task(manager.start("click_tun", body))  # its rows wait in the thread
    ticks = 0
    for _ in range(10):
        await asyncio.sleep(0.02)
        ticks += 1
    assert ticks == 10 and not starting.done()  # the loop ran while the batch waited for the lock
    holder.execute("COMMIT")
    holder.close()
    run_id = await asyncio.wait_for(starting, 5)
    await manager.wait(run_id)
    assert [e.type for e in await manager.events_after(run_id, 0)] == ["progress", "done"]
    assert sqlite.thread_commits >= 1


async def test_the_loops_connection_asks_the_thread_for_checkpoints(
    manager: RunManager, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The loop's connection does not checkpoint the WAL itself; every ``CHECKPOINT_EVERY_BYTES`` of
    events it commits, the thread runs a passive checkpoint (else the WAL would only grow)."""
    monkeypatch.setattr(sqlite_writer, "CHECKPOINT_EVERY_BYTES", 4096)
    original = sqlite_writer.SqliteTransactions._checkpoint
    threads: list[str] = []

    def checkpoint(self: sqlite_writer.SqliteTransactions) -> None:
        threads.append(threading.current_thread().name)
        original(self)

    monkeypatch.setattr(sqlite_writer.SqliteTransactions, "_checkpoint", checkpoint)

    async def body(em):
        for i in range(40):
            await em.emit("progress", message=f"{i} " + "x" * 400)
            await asyncio.sleep(0)  # a batch each

    run_id = await manager.start("click_tun", body)
    await manager.wait(run_id)
    # 40 events of ~450 bytes, a checkpoint per 4,096 committed on the loop (a commit meeting the
    # checkpoint's lock goes to the thread and is not counted)
    assert 1 <= len(threads) <= 5
    assert all(name.startswith("run-log-sqlite") for name in threads)
    inline = present(manager.writer._sqlite)._inline
    assert inline is not None and inline.execute("PRAGMA wal_autocheckpoint").fetchone() == (0,)
    with contextlib.closing(sqlite3.connect(tmp_path / "runs.db")) as conn:
        assert conn.execute("PRAGMA wal_autocheckpoint").fetchone() == (1000,)  # others' as ever
        assert len(conn.execute("SELECT * FROM run_events WHERE run_id = ?", (run_id,)).fetchall()) == 41


def test_compiled_rows_convert_every_value_as_the_bind_processor_does() -> None:
    """The SQLite writer's parameter tuples: values picked by name, constants for the missing ones,
    each non-null value through the column's converter (a repeated object converted once)."""
    compiled = sqlite_writer.compile_insert(
        log_writer.EVENTS, ("run_id", "seq", "type", "payload", "created_at")
    )
    a, b = datetime(2026, 8, 20, 2, 37, tzinfo=UTC), datetime(2026, 8, 20, 2, 38, 1, 5, tzinfo=UTC)
    rows = [
        {"run_id": "r", "seq": 1, "type": "token", "payload": "{}", "created_at": a},
        {"run_id": "r", "seq": 2, "type": "token", "payload": "{}", "created_at": a},
        {"run_id": "r", "seq": 3, "type": "done", "payload": "{}", "created_at": b},
        {"run_id": "r", "seq": 4, "type": "done", "payload": "{}", "created_at": None},
    ]
    process = log_writer.EVENTS.c.created_at.type.bind_processor(sqlite_writer.DIALECT)
    assert process is not None

    def convert(v):
        out = process(v)  # then what sqlite3 binds for it: its adapter's text for a datetime
        adapt = sqlite3.adapters.get((type(out), sqlite3.PrepareProtocol))
        return adapt(out) if adapt else out

    expected = [
        (
            r["run_id"],
            r["seq"],
            r["type"],
            r["payload"],
            convert(r["created_at"]) if r["created_at"] else None,
        )
        for r in rows
    ]
    assert compiled.rows(rows) == expected and expected[0][4] != expected[2][4]
    assert isinstance(expected[0][4], str)  # stored as the driver stores a datetime
    partial = [{k: v for k, v in r.items() if k != "type"} for r in rows]
    assert compiled.rows(partial, {"type": "token", "seq": 99}) == [
        (*e[:2], "token", *e[3:]) for e in expected
    ]


async def _run_ready_tasks() -> None:
    """Let every task that can run do so until it waits (no clock: a few turns of the event loop, each
    running every ready callback once), so that a test may then assert what is still waiting."""
    for _ in range(5):
        await asyncio.sleep(0)


async def test_the_write_queue_holds_producers_back_when_full_and_hands_out_batches() -> None:
    queue = log_writer.WriteQueue(3)
    items = [log_writer.EventItem("r", seq, "progress", "{}") for seq in range(1, 8)]
    for item in items[:3]:
        await queue.put(item)
    blocked = [asyncio.create_task(queue.put(item)) for item in items[3:6]]
    await _run_ready_tasks()
    assert not any(t.done() for t in blocked) and len(queue) == 3  # full: they wait
    blocked[1].cancel()  # a waiting producer gives up: its place goes to the next
    assert await queue.take(2) == items[:2]
    await asyncio.wait_for(asyncio.gather(blocked[0], blocked[2]), 10)  # the two places taken
    assert blocked[1].cancelled() and len(queue) == 3
    assert await queue.take(10) == [items[2], items[3], items[5]]
    joined = asyncio.create_task(queue.join())
    await _run_ready_tasks()
    assert not joined.done()  # taken, not yet dealt with
    queue.finished(5)
    await asyncio.wait_for(joined, 1)
    taker = asyncio.create_task(queue.take(10))
    await _run_ready_tasks()
    assert not taker.done()  # nothing queued: it waits
    await queue.put(items[6])
    assert await asyncio.wait_for(taker, 1) == [items[6]]
