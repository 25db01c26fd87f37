"""Store faults during a run (found by bench/bench_clicks.py at 500 concurrent streams): a locked
database is retried, and a run whose closing events cannot be logged still ends instead of hanging its
subscribers."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from sqlalchemy.exc import OperationalError

from vent_agent.runs.manager import RunManager
from vent_agent.store.db import Database
from vent_agent.store.models import RunRow


@pytest.fixture
async def manager(tmp_path: Path):  # type: ignore[no-untyped-def]
    db = Database(f"sqlite+aiosqlite:///{tmp_path / 'runs.db'}")
    await db.migrate()
    yield RunManager(db, poll_s=0.05)
    await db.close()


async def test_a_locked_database_is_retried(manager: RunManager, monkeypatch: pytest.MonkeyPatch) -> None:
    failures = {"left": 2}
    real_session = manager.db.session

    def session():  # type: ignore[no-untyped-def]
        s = real_session()
        commit = s.commit

        async def locked_commit() -> None:
            if failures["left"] > 0:
                failures["left"] -= 1
                raise OperationalError("INSERT", {}, Exception("database is locked"))
            await commit()

        s.commit = locked_commit  # type: ignore[method-assign]
        return s

    async def body(em):  # type: ignore[no-untyped-def]
        await em.emit("progress", message="一")

    run_id = await manager.start("click_tun", body)
    monkeypatch.setattr(manager.db, "session", session)
    await manager.wait(run_id)
    monkeypatch.setattr(manager.db, "session", real_session)
    events = [e.type for e in await manager.events_after(run_id, 0)]
    assert events == ["progress", "done"] and failures["left"] == 0


async def test_a_run_whose_done_cannot_be_logged_still_ends(
    manager: RunManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = manager.append_event

    async def no_done(run_id, seq, payload):  # type: ignore[no-untyped-def]
        if payload.get("type") == "done":
            raise RuntimeError("disk full")
        await original(run_id, seq, payload)

    monkeypatch.setattr(manager, "append_event", no_done)

    async def body(em):  # type: ignore[no-untyped-def]
        await em.emit("progress", message="一")

    run_id = await manager.start("click_tun", body)
    await manager.wait(run_id)
    run = await manager.get(run_id)
    assert isinstance(run, RunRow) and run.status == "failed" and run.last_seq == 1
    # a subscriber is not left waiting for an event that was never logged
    seen = await asyncio.wait_for(_collect(manager, run_id), 5)
    assert [e.type for e in seen] == ["progress"]


async def _collect(manager: RunManager, run_id: str) -> list:
    return [ev async for ev in manager.subscribe(run_id, 0)]


async def test_cancelling_twice_still_records_the_cancellation(manager: RunManager) -> None:
    """A second cancel arriving while the run writes its error and done must not abort them (a run was
    left "running" for ever when the broker's cancel and the flag poll both hit it)."""
    started = asyncio.Event()

    async def body(em):  # type: ignore[no-untyped-def]
        started.set()
        await asyncio.sleep(30)

    run_id = await manager.start("click_tun", body)
    await started.wait()
    original = manager.append_event
    in_close = asyncio.Event()

    async def slow_append(run_id_, seq, payload):  # type: ignore[no-untyped-def]
        if payload.get("type") == "error":
            in_close.set()
            await asyncio.sleep(0.2)  # the close is under way when the second cancel lands
        await original(run_id_, seq, payload)

    manager.append_event = slow_append  # type: ignore[method-assign]
    assert await manager.cancel(run_id)
    await in_close.wait()
    assert await manager.cancel(run_id)  # the second request
    await asyncio.wait_for(manager.wait(run_id), 5)
    run = await manager.get(run_id)
    assert run is not None and run.status == "cancelled"
    assert [e.type for e in await manager.events_after(run_id, 0)][-2:] == ["error", "done"]
