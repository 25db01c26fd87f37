"""Several workers on one store, in one process: a run executing on worker A is tailed and cancelled from
worker B through each broker (PostgreSQL NOTIFY, Redis, or polling of the log); retention purges
click-interpretation runs; brokers and the log writer survive a lost connection."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from pydantic import ValidationError
from sqlalchemy import update
from sqlmodel import select

from tests.helpers import RUN_GUARD_S, collect_run, present
from tests.pg import REDIS_URL, require_postgres, require_redis, store_url_for, unique_channel
from vent_agent.runs.broker import Broker
from vent_agent.runs.broker_inprocess import InProcessBroker
from vent_agent.runs.broker_pg import PgNotifyBroker
from vent_agent.runs.broker_redis import RedisBroker
from vent_agent.runs.emitter import Emitter
from vent_agent.runs.lifecycle import make_broker, open_runs
from vent_agent.runs.manager import RunManager
from vent_agent.runs.retention import RetentionSweep
from vent_agent.runs.worker_models import RunWorkerRow, WorkerRow
from vent_agent.runs.workers import WorkerHeartbeat, new_worker_id
from vent_agent.settings import Settings
from vent_agent.store.db import Database
from vent_agent.store.models import RunRow, utcnow


@dataclass
class Pair:
    """Two workers on one store, with their heartbeats."""

    a: RunManager
    b: RunManager
    kind: str


def _broker(kind: str, database: Database, origin: str, channel: str) -> Broker:
    if kind == "notify":
        return PgNotifyBroker(database.raw_dsn, origin, channel=channel, check_s=0.2)
    if kind == "redis":
        return RedisBroker(REDIS_URL, origin, channel=channel)
    return InProcessBroker(origin)  # each worker its own: B learns of A's events only by polling


async def _worker(
    database: Database, kind: str, channel: str, *, poll_s: float, heartbeat_s: float
) -> RunManager:
    wid = new_worker_id()
    broker = _broker(kind, database, wid, channel)
    await broker.start()
    mgr = RunManager(database, broker=broker, poll_s=poll_s, worker_id=wid)
    mgr.heartbeat = WorkerHeartbeat(mgr, interval_s=heartbeat_s, dead_after_s=heartbeat_s * 5)
    await mgr.heartbeat.start()
    return mgr


async def _close(mgr: RunManager) -> None:
    await mgr.shutdown()
    assert mgr.heartbeat is not None
    await mgr.heartbeat.stop()
    await mgr.broker.close()


# (store, broker). With a broker, polling and heartbeats are too slow to matter (60 s): only the broker
# can deliver within the guard. With polling, polls (0.1 s) and heartbeats (0.2 s) are quick.
PAIRS = [("sqlite", "poll"), ("postgres", "poll"), ("postgres", "notify"), ("sqlite", "redis")]


@pytest.fixture(params=PAIRS, ids=[f"{s}-{b}" for s, b in PAIRS])
async def pair(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Pair]:
    store, kind = request.param
    if store == "postgres":
        require_postgres()
    if kind == "redis":
        require_redis()
    database = Database(store_url_for(store, request, tmp_path))
    quick = kind == "poll"
    channel = unique_channel()
    a = await _worker(database, kind, channel, poll_s=0.1 if quick else 60, heartbeat_s=0.2 if quick else 60)
    b = await _worker(database, kind, channel, poll_s=0.1 if quick else 60, heartbeat_s=0.2 if quick else 60)
    try:
        yield Pair(a, b, kind)
    finally:
        await _close(a)
        await _close(b)
        await database.close()


async def test_other_worker_tails_a_run_live_and_misses_nothing(pair: Pair) -> None:
    first_half, second_half = asyncio.Event(), asyncio.Event()

    async def body(em: Emitter) -> None:
        for i in range(5):
            await em.emit("progress", message=f"a{i}")
        first_half.set()
        await second_half.wait()
        for i in range(5):
            await em.emit("token", source="fast", content=f"风量{i} ")
            await em.emit("progress", message=f"b{i}")

    run_id = await pair.a.start("click_tun", body)
    await first_half.wait()
    seen: list[dict[str, Any]] = []

    async def tail() -> None:
        async for ev in pair.b.subscribe(run_id, after=2):
            seen.append(ev.payload)
            if ev.seq == 5:
                second_half.set()  # the rest happens while B is waiting on its broker

    await asyncio.wait_for(tail(), RUN_GUARD_S)
    assert [e["seq"] for e in seen] == list(range(3, 17))
    assert seen[-1]["type"] == "done"
    assert seen == (await collect_run(pair.a, run_id))[2:]


async def test_replay_to_live_handover_under_load_on_both_workers(pair: Pair) -> None:
    """Several busy runs on A; readers join each at staggered moments from various ``after`` points, on A
    (in-memory tail, kept small so late readers catch up from the log first) and on B (log + broker):
    every reader gets exactly the events after its point, in order, as logged."""
    pair.a.tail_bytes = 4096  # a few dozen events: readers joining late start behind the window
    bursts, per_burst = 15, 40

    async def body(em: Emitter) -> None:
        for b in range(bursts):
            for i in range(per_burst):
                await em.emit("progress", message=f"burst {b} event {i} " + "风" * 20)
            await asyncio.sleep(0.01)

    run_ids = [await pair.a.start("click_tun", body) for _ in range(4)]
    total = bursts * per_burst + 1  # + done

    async def reader(
        mgr: RunManager, run_id: str, delay_s: float, after: int
    ) -> tuple[int, list[dict[str, Any]]]:
        await asyncio.sleep(delay_s)
        got = [ev.payload async for ev in mgr.subscribe(run_id, after)]
        return after, got

    readers = [
        reader(mgr, run_id, delay, after)
        for run_id in run_ids
        for mgr in (pair.a, pair.b)
        for delay, after in ((0, 0), (0.03, 0), (0.05, 7), (0.08, 150), (0.12, 0), (0.2, 400))
    ]
    results = await asyncio.wait_for(asyncio.gather(*readers), RUN_GUARD_S * 2)
    logs = {run_id: await collect_run(pair.b, run_id) for run_id in run_ids}
    for log_ in logs.values():
        assert [e["seq"] for e in log_] == list(range(1, total + 1)) and log_[-1]["type"] == "done"
    for (after, got), (run_id, _mgr, _d) in zip(
        results,
        [(r, m, d) for r in run_ids for m in (pair.a, pair.b) for d in range(6)],
        strict=True,
    ):
        assert got == logs[run_id][after:], f"reader after {after} of {run_id}"


async def test_cancel_from_the_other_worker(pair: Pair) -> None:
    started = asyncio.Event()

    async def body(em: Emitter) -> None:
        await em.emit("progress", message="working")
        started.set()
        await asyncio.sleep(3600)

    run_id = await pair.a.start("review", body)
    await started.wait()
    assert not await pair.b.cancel(run_id)  # not executing on B
    await pair.b.request_cancel(run_id)
    run = await pair.b.wait_ended(run_id, RUN_GUARD_S)
    assert run is not None and run.status == "cancelled"
    events = await collect_run(pair.b, run_id)
    assert [e["type"] for e in events] == ["progress", "error", "done"]
    assert events[1]["cancelled"] is True
    assert await pair.b.worker_of(run_id) == pair.a.worker_id


async def test_wait_ended_returns_the_running_row_when_time_is_up(pair: Pair) -> None:
    gate = asyncio.Event()

    async def body(em: Emitter) -> None:
        await gate.wait()

    run_id = await pair.a.start("review", body)
    run = await pair.b.wait_ended(run_id, 0.05)
    assert run is not None and run.status == "running"
    gate.set()
    await pair.a.wait(run_id)
    assert present(await pair.b.wait_ended(run_id, RUN_GUARD_S)).status == "done"
    assert await pair.b.wait_ended("no-such-run", 0.05) is None


# ---- retention ---------------------------------------------------------------------------------------


async def test_retention_purges_only_old_finished_click_runs(db: Database) -> None:
    mgr = RunManager(db)

    async def body(em: Emitter) -> None:
        await em.emit("progress", message="x")

    ids = {kind: await mgr.start(kind, body) for kind in ("click_tun", "click_device", "review")}
    for run_id in ids.values():
        await mgr.wait(run_id)
    gate = asyncio.Event()

    async def waiting(em: Emitter) -> None:
        await gate.wait()

    running = await mgr.start("click_tun", waiting)
    async with db.session() as s:
        await s.exec(update(RunRow).values(created_at=utcnow() - timedelta(hours=5)))
        await s.commit()
    sweep = RetentionSweep(mgr, retention_hours=4, every_s=3600)
    assert await sweep.sweep() == 2
    assert await mgr.get(ids["click_tun"]) is None and await mgr.get(ids["click_device"]) is None
    assert await mgr.get(ids["review"]) is not None and await mgr.get(running) is not None
    async with db.session() as s:
        left = set(await s.exec(select(RunWorkerRow.run_id)))
        assert left == {ids["review"], running}
    assert await RetentionSweep(mgr, retention_hours=6, every_s=1).sweep() == 0
    gate.set()
    await mgr.shutdown()
    with pytest.raises(ValueError):
        RetentionSweep(mgr, retention_hours=1, every_s=0)


# ---- lifecycle and brokers ---------------------------------------------------------------------------


async def test_open_runs_picks_the_broker_and_closes_cleanly(
    db: Database, store_url: str, tmp_path: Path
) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path, database_url=store_url, retention_sweep_s=3600)
    started = asyncio.Event()

    async def body(em: Emitter) -> None:
        started.set()
        await asyncio.sleep(3600)

    async with open_runs(settings, db, heartbeat_s=0.1, dead_after_s=1) as mgr:
        expected = PgNotifyBroker if db.is_postgres else InProcessBroker
        assert type(mgr.broker) is expected
        run_id = await mgr.start("review", body)
        await started.wait()
        worker_id = mgr.worker_id
    assert present(await mgr.get(run_id)).status == "cancelled"
    async with db.session() as s:
        assert await s.get(WorkerRow, worker_id) is None
    assert isinstance(make_broker(db, "redis://127.0.0.1:6379/0", "w"), RedisBroker)


@pytest.mark.parametrize("field", ["worker_heartbeat_s", "worker_dead_after_s"])
def test_a_zero_heartbeat_setting_is_refused(field: str, tmp_path: Path) -> None:
    """open_runs takes the heartbeat from the settings as they are: a zero would beat in a busy loop
    (or take every worker for dead), so the settings refuse it."""
    with pytest.raises(ValidationError, match=field):
        zero: dict[str, Any] = {field: 0}
        Settings(_env_file=None, data_dir=tmp_path, **zero)


async def test_runs_go_on_by_polling_when_redis_is_unreachable(db: Database) -> None:
    broker = RedisBroker("redis://127.0.0.1:9/0", "w-down", connect_timeout_s=0.3)
    await broker.start()
    try:
        assert not broker.connected
        mgr = RunManager(db, broker=broker, poll_s=0.05)

        async def body(em: Emitter) -> None:
            await em.emit("progress", message="x")

        run_id = await mgr.start("review", body)
        events = await collect_run(mgr, run_id)
        assert [e["type"] for e in events] == ["progress", "done"]
        await mgr.request_cancel("not-running-anywhere")  # a lost broker never raises
    finally:
        await broker.close()


async def _wait_until(predicate, what: str) -> None:
    for _ in range(int(RUN_GUARD_S / 0.05)):
        if predicate():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


async def test_notify_broker_reconnects_after_its_connection_is_killed(pg_module_url: str) -> None:
    database = Database(pg_module_url)
    channel = unique_channel()
    sender = PgNotifyBroker(database.raw_dsn, "sender", channel=channel, check_s=0.05)
    receiver = PgNotifyBroker(database.raw_dsn, "receiver", channel=channel, check_s=0.05)
    await sender.start()
    await receiver.start()
    try:
        backend = present(receiver._conn).get_server_pid()
        admin = await asyncpg.connect(database.raw_dsn)
        await admin.execute("SELECT pg_terminate_backend($1)", backend)
        await admin.close()
        await _wait_until(
            lambda: (
                receiver.connected
                and receiver._conn is not None
                and receiver._conn.get_server_pid() != backend
            ),
            "the LISTEN connection to come back",
        )
        waiter = receiver.listen("r1")
        await sender.publish("r1")
        await asyncio.wait_for(waiter.wait(), RUN_GUARD_S)
        cancelled: list[str] = []
        receiver.on_cancel(cancelled.append)
        await sender.request_cancel("r2")
        await _wait_until(lambda: cancelled == ["r2"], "the cancel request")
    finally:
        await sender.close()
        await receiver.close()
        await database.close()


async def test_redis_broker_resubscribes_after_its_connection_is_killed() -> None:
    require_redis()
    import redis.asyncio as aioredis

    channel = unique_channel()
    sender = RedisBroker(REDIS_URL, "sender-x", channel=channel)
    receiver = RedisBroker(REDIS_URL, f"receiver-{channel}", channel=channel)
    await sender.start()
    await receiver.start()
    admin = aioredis.from_url(REDIS_URL)
    try:
        assert receiver.connected
        clients = await admin.client_list(_type="pubsub")
        ours = [c for c in clients if c.get("name") == f"vent-agent-receiver-{channel}-sub"]
        assert len(ours) == 1
        await admin.client_kill_filter(_id=ours[0]["id"])
        waiter = receiver.listen("r1")

        async def publish_until_woken() -> None:  # messages sent while it resubscribes are lost: resend
            while not waiter.is_set():
                await sender.publish("r1")
                await asyncio.sleep(0.1)

        await asyncio.wait_for(publish_until_woken(), RUN_GUARD_S)
        assert receiver.connected
    finally:
        await admin.aclose()
        await sender.close()
        await receiver.close()


async def test_malformed_and_own_messages_are_ignored() -> None:
    broker = InProcessBroker("me")
    waiter = broker.listen("r")
    cancelled: list[str] = []
    broker.on_cancel(cancelled.append)
    broker._received(b"not json")
    broker._received('{"op": "run"}')
    broker._received('{"op": "run", "run": "r", "from": "me"}')
    assert not waiter.is_set()
    broker._received('{"op": "run", "run": "r", "from": "other"}')
    broker._received('{"op": "cancel", "run": "x", "from": "other"}')
    assert waiter.is_set() and cancelled == ["x"]


async def test_the_log_writer_reconnects_when_its_connection_is_killed(pg_module_url: str) -> None:
    """The writer keeps its own PostgreSQL connection; a broken one is replaced and the batch retried:
    the run goes on with nothing lost."""
    database = Database(pg_module_url)
    mgr = RunManager(database, poll_s=0.1)
    step = asyncio.Event()

    async def body(em: Emitter) -> None:
        await em.emit("progress", message="before")
        await step.wait()
        await em.emit("progress", message="after")

    try:
        run_id = await mgr.start("review", body)
        await mgr.writer.settle(run_id)
        raw = await present(mgr.writer._conn).get_raw_connection()
        admin = await asyncpg.connect(database.raw_dsn)
        await admin.execute(
            "SELECT pg_terminate_backend($1)", present(raw.driver_connection).get_server_pid()
        )
        await admin.close()
        step.set()
        events = await collect_run(mgr, run_id)
        assert [(e["seq"], e.get("message")) for e in events][:2] == [(1, "before"), (2, "after")]
        assert events[-1]["type"] == "done" and present(await mgr.get(run_id)).status == "done"
    finally:
        await mgr.shutdown()
        await database.close()
