"""PostgreSQL LISTEN/NOTIFY broker: wakes the subscribers and carries cancel requests across workers
that share one database, with no other service.

One dedicated asyncpg connection listens and notifies (notifications are per database, so several
deployments on one server do not hear each other). A supervisor task checks it and reconnects with
back-off; while it is down the subscribers poll the log, so nothing is lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import asyncpg

from vent_agent.runs.broker import BACKOFF_FIRST_S, FanOutBroker, next_backoff

log = logging.getLogger(__name__)

DEFAULT_CHANNEL = "vent_agent_runs"


class PgNotifyBroker(FanOutBroker):
    """Broker over PostgreSQL ``NOTIFY`` on ``channel``; ``dsn``: a plain ``postgresql://`` URL.

    ``check_s``: how often the connection is checked (s).
    """

    kind = "postgres-notify"

    def __init__(
        self,
        dsn: str,
        origin: str,
        *,
        channel: str = DEFAULT_CHANNEL,
        check_s: float = 5.0,
        connect_timeout_s: float = 5.0,
    ) -> None:
        super().__init__(origin)
        self.dsn = dsn
        self.channel = channel
        self.check_s = check_s
        self.connect_timeout_s = connect_timeout_s
        self._conn: asyncpg.Connection | None = None
        self._lock = asyncio.Lock()

    @property
    def connected(self) -> bool:
        """True while the LISTEN connection is open."""
        return self._conn is not None and not self._conn.is_closed()

    async def start(self) -> None:
        """Open the LISTEN connection (on failure, go on polling) and start the supervisor."""
        try:
            await self._connect()
        except Exception as exc:  # keep serving: the supervisor retries, subscribers poll meanwhile
            log.warning("LISTEN connection failed (%s): live events across workers are polled", exc)
        self._task = asyncio.create_task(self._supervise(), name="pg-notify-broker")

    async def close(self) -> None:
        """Stop the supervisor and close the connection."""
        await self._stop_task()
        await self._drop()

    async def _connect(self) -> None:
        conn = await asyncpg.connect(self.dsn, timeout=self.connect_timeout_s)
        try:
            await conn.add_listener(self.channel, self._on_notify)
        except BaseException:
            await conn.close()
            raise
        self._conn = conn
        self.wake_all()  # wake-ups may have been missed while away

    async def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(conn.close(), 2)

    def _on_notify(self, _conn: object, _pid: int, _channel: str, payload: object) -> None:
        self._received(str(payload))  # asyncpg hands a NOTIFY's payload over as str

    async def _send(self, message: str) -> None:
        conn = self._conn
        if conn is None or conn.is_closed():
            return  # the supervisor reconnects; other workers poll meanwhile
        async with self._lock:
            await asyncio.wait_for(conn.execute("SELECT pg_notify($1, $2)", self.channel, message), 2)

    async def _supervise(self) -> None:
        backoff = BACKOFF_FIRST_S
        while True:
            await asyncio.sleep(self.check_s if self.connected else backoff)
            try:
                conn = self._conn
                if conn is not None and not conn.is_closed():
                    async with self._lock:
                        await asyncio.wait_for(conn.execute("SELECT 1"), 5)
                    backoff = BACKOFF_FIRST_S
                else:
                    await self._drop()
                    await self._connect()
                    log.info("LISTEN connection re-established")
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if self.connected:
                    log.warning("LISTEN connection lost (%s); reconnecting", exc)
                await self._drop()
                backoff = next_backoff(backoff)
