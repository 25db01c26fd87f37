"""The run layer: events logged before they are sent, replay + live tail with no loss or repeat,
runs outliving their client, token merging, cancel, failure paths — on SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.helpers import RUN_GUARD_S, present
from vent_agent.runs.log_writer import yields_after
from vent_agent.runs.manager import RunManager
from vent_agent.store.db import Database


@pytest.fixture
async def manager(db: Database):
    mgr = RunManager(db, poll_s=0.2)
    yield mgr
    await mgr.shutdown()


async def collect(mgr: RunManager, run_id: str, after: int = 0) -> list[dict[str, Any]]:
    return [ev.payload async for ev in mgr.subscribe(run_id, after)]


async def test_events_numbered_densely_and_done_appended(manager: RunManager) -> None:
    async def body(em):
        await em.emit("thinking", source="fast", node="x", message="m")
        await em.emit("progress", message="p")

    run_id = await manager.start("test", body, done_fields=lambda rid: {"thread_id": rid})
    events = await collect(manager, run_id)
    assert [e["type"] for e in events] == ["thinking", "progress", "done"]
    assert [e["seq"] for e in events] == [1, 2, 3]
    assert events[-1]["thread_id"] == run_id
    run = await manager.get(run_id)
    assert run is not None and run.status == "done" and run.last_seq == 3


async def test_replay_then_live_handover_loses_and_repeats_nothing(manager: RunManager) -> None:
    gate, first_half = asyncio.Event(), asyncio.Event()

    async def body(em):
        for i in range(5):
            await em.emit("progress", message=f"a{i}")
        first_half.set()
        await gate.wait()
        for i in range(5):
            await em.emit("progress", message=f"b{i}")
            await asyncio.sleep(0.01)

    run_id = await manager.start("test", body)
    await asyncio.wait_for(first_half.wait(), RUN_GUARD_S)
    assert len(await manager.events_after(run_id, 0)) == 5  # logged: the reader starts with a replay
    seen: list[int] = []

    async def reader():
        async for ev in manager.subscribe(run_id, after=2):
            seen.append(ev.seq)
            if ev.seq == 5:
                gate.set()

    await asyncio.wait_for(reader(), 10)
    assert seen == list(range(3, 12))  # 3..5 replayed, 6..10 live, 11 = done


@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)
async def test_a_burst_of_events_reaches_a_subscriber_while_the_body_is_still_making_it(
    manager: RunManager,
) -> None:
    """A body emitting many events without awaiting anything else still lets the writer commit and the
    subscriber send the first of them before it has made the last (``LogWriter.put`` yields). On SQLite
    only, where a small batch commits at once; PostgreSQL's round trip may outlast the whole burst."""
    assert manager.db.is_sqlite
    made = 0

    async def body(em):
        nonlocal made
        for i in range(300):
            await em.emit("progress", message=f"m{i}")
            made += 1

    run_id = await manager.start("test", body)
    made_at_first = None
    count = 0
    async for _ev in manager.subscribe(run_id, 0):
        if made_at_first is None:
            made_at_first = made
        count += 1
    assert count == 301 and made_at_first is not None and made_at_first < 100


def test_a_burst_is_committed_in_batches_that_double() -> None:
    assert [s for s in range(1, 5000) if yields_after(s)] == [32, 64, 128, 256, 512, 1024, 2048, 3072, 4096]


async def test_run_finishes_without_any_client(manager: RunManager) -> None:
    async def body(em):
        await asyncio.sleep(0.05)
        await em.emit("token", source="fast", content="x")

    run_id = await manager.start("test", body)
    await manager.wait(run_id)
    run = await manager.get(run_id)
    assert run is not None and run.status == "done"
    events = await collect(manager, run_id)
    assert [e["type"] for e in events] == ["token", "done"]


async def test_consecutive_tokens_are_merged_before_numbering(manager: RunManager) -> None:
    async def body(em):
        for ch in "根据监测数据":
            await em.emit("token", source="fast", content=ch)
        await em.emit("progress", message="p")
        await em.emit("token", source="fast", content="尾")

    run_id = await manager.start("test", body)
    events = await collect(manager, run_id)
    tokens = [e for e in events if e["type"] == "token"]
    assert "".join(t["content"] for t in tokens) == "根据监测数据尾"
    assert len(tokens) < 7
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert events[-2]["content"] == "尾"  # order kept: the last token after the progress event


async def test_failing_body_gives_error_then_done(manager: RunManager) -> None:
    async def body(em):
        await em.emit("progress", message="start")
        raise RuntimeError("boom")

    run_id = await manager.start("test", body)
    events = await collect(manager, run_id)
    assert [e["type"] for e in events] == ["progress", "error", "done"]
    assert "boom" not in events[1]["message"]  # no internals leak to the client
    run = await manager.get(run_id)
    assert run is not None and run.status == "failed" and "boom" in (run.error or "")


async def test_cancel_is_recorded(manager: RunManager) -> None:
    started = asyncio.Event()

    async def body(em):
        await em.emit("progress", message="working")
        started.set()
        await asyncio.sleep(30)

    run_id = await manager.start("test", body)
    await started.wait()
    assert await manager.cancel(run_id)
    await manager.wait(run_id)
    events = await collect(manager, run_id)
    assert [e["type"] for e in events] == ["progress", "error", "done"]
    assert events[1].get("cancelled") is True
    run = await manager.get(run_id)
    assert run is not None and run.status == "cancelled"
    assert not await manager.cancel(run_id)


async def test_subscribe_unknown_run_ends_immediately(manager: RunManager) -> None:
    assert await collect(manager, "nope") == []


async def test_purge_removes_old_finished_runs(manager: RunManager) -> None:
    from datetime import timedelta

    async def body(em):
        await em.emit("progress", message="x")

    run_id = await manager.start("click_tun", body)
    await manager.wait(run_id)
    assert await manager.purge_older_than({"click_tun"}, timedelta(hours=1)) == 0
    assert await manager.purge_older_than({"click_tun"}, timedelta(seconds=-1)) == 1
    assert await manager.get(run_id) is None
    assert await collect(manager, run_id) == []


async def test_cancel_before_the_first_step_is_recorded(manager: RunManager) -> None:
    """A task cancelled before it ever ran would leave its run 'running' for ever; it is recorded."""
    ran = []

    async def body(em):
        ran.append(True)

    starting = asyncio.create_task(manager.start("test", body))
    await asyncio.sleep(0)  # start() has queued the run and made its task, which has not run yet
    (run_id,) = manager.local_run_ids
    assert await manager.cancel(run_id)
    assert await starting == run_id
    await manager.wait(run_id)
    assert ran == []
    events = await collect(manager, run_id)
    assert [e["type"] for e in events] == ["error", "done"] and events[0]["cancelled"] is True
    assert present(await manager.get(run_id)).status == "cancelled"


async def test_shutdown_records_every_running_run_as_cancelled(manager: RunManager) -> None:
    running = asyncio.Event()

    async def body(em):
        await em.emit("progress", message="x")
        running.set()
        await asyncio.sleep(3600)

    started = await manager.start("test", body)
    await asyncio.wait_for(running.wait(), RUN_GUARD_S)
    fresh = await manager.start("test", body)  # not started yet when shutdown comes
    await manager.shutdown()
    for run_id in (started, fresh):
        assert present(await manager.get(run_id)).status == "cancelled"
        assert (await collect(manager, run_id))[-1]["type"] == "done"


def test_frames_are_joined_without_cutting_one() -> None:
    from vent_agent.api.sse import joined

    frames = [b"a" * 300, b"b" * 300, b"c" * 500, b"d" * 2000, b"e" * 10]
    assert list(joined(frames, 0)) == frames  # the spec's routes: each frame its own write
    assert list(joined(frames, 1024)) == [b"a" * 300 + b"b" * 300, b"c" * 500, b"d" * 2000, b"e" * 10]
    assert b"".join(joined(frames, 64 * 1024)) == b"".join(frames)
