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


async def test_a_run_whose_done_cannot_be_logged_still_ends(manager: RunManager, monkeypatch: pytest.MonkeyPatch) -> None:
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
