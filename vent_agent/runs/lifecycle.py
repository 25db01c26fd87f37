"""Opens the run layer for the app's lifespan: the broker chosen by the settings, the run manager, the
worker heartbeat and the retention sweep — and closes them in the right order.

Broker choice: Redis pub/sub when ``redis_url`` is set; PostgreSQL LISTEN/NOTIFY when the store is on
PostgreSQL; otherwise in-process (several processes on one SQLite file still see each other's runs by
polling the log every ``poll_s``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from vent_agent.review.service.retention import ReviewFileSweep
from vent_agent.runs.broker import Broker
from vent_agent.runs.broker_inprocess import InProcessBroker
from vent_agent.runs.manager import RunManager
from vent_agent.runs.retention import RetentionSweep
from vent_agent.runs.workers import WorkerHeartbeat, new_worker_id
from vent_agent.settings import Settings
from vent_agent.store.db import Database


def make_broker(db: Database, redis_url: str | None, worker_id: str, *, channel: str | None = None) -> Broker:
    """The broker for this deployment (see the module's doc); ``channel`` overrides the default
    channel name (tests)."""
    if redis_url:
        from vent_agent.runs.broker_redis import DEFAULT_CHANNEL, RedisBroker

        return RedisBroker(redis_url, worker_id, channel=channel or DEFAULT_CHANNEL)
    if db.is_postgres:
        from vent_agent.runs.broker_pg import DEFAULT_CHANNEL as PG_CHANNEL
        from vent_agent.runs.broker_pg import PgNotifyBroker

        return PgNotifyBroker(db.raw_dsn, worker_id, channel=channel or PG_CHANNEL)
    return InProcessBroker(worker_id)


@asynccontextmanager
async def open_runs(
    settings: Settings,
    db: Database,
    *,
    heartbeat_s: float | None = None,
    dead_after_s: float | None = None,
    poll_s: float = 1.0,
    broker_channel: str | None = None,
) -> AsyncIterator[RunManager]:
    """Yield a started :class:`RunManager` (``manager.heartbeat``, ``manager.retention`` attached).

    ``heartbeat_s`` / ``dead_after_s`` (s) default to ``settings.worker_heartbeat_s`` /
    ``settings.worker_dead_after_s``. On exit the runs still executing are recorded as cancelled, then
    the worker's row is removed and the broker closed.
    """
    heartbeat_s = heartbeat_s or settings.worker_heartbeat_s
    dead_after_s = dead_after_s or settings.worker_dead_after_s
    worker_id = new_worker_id()
    broker = make_broker(db, settings.redis_url, worker_id, channel=broker_channel)
    await broker.start()
    manager = RunManager(db, broker=broker, poll_s=poll_s, worker_id=worker_id)
    heartbeat = WorkerHeartbeat(manager, interval_s=heartbeat_s, dead_after_s=dead_after_s)
    retention = RetentionSweep(
        manager,
        retention_hours=settings.event_retention_hours,
        every_s=settings.retention_sweep_s,
        also=[ReviewFileSweep(settings, db).sweep],
    )
    try:
        await heartbeat.start()
        retention.start()
        manager.heartbeat, manager.retention = heartbeat, retention
        yield manager
    finally:
        await retention.stop()
        await manager.shutdown()
        await heartbeat.stop()
        await broker.close()
