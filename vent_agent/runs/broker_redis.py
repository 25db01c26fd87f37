"""Redis pub/sub broker: wakes the subscribers and carries cancel requests across workers.

One client publishes (short time-outs: a hung Redis never stalls a run); a listener task keeps a
subscription open and reconnects with back-off when Redis goes away. While it is away the subscribers
poll the log, so nothing is lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import redis.asyncio as aioredis

from vent_agent.runs.broker import BACKOFF_FIRST_S, FanOutBroker, next_backoff

log = logging.getLogger(__name__)

DEFAULT_CHANNEL = "vent-agent:runs"


class RedisBroker(FanOutBroker):
    """Broker over Redis pub/sub at ``url`` (``redis://host:6379/0``) on ``channel``.

    ``connect_timeout_s``: how long :meth:`start` waits for the first subscription before it goes on
    in polling mode (it keeps trying in the background).
    """

    kind = "redis"

    def __init__(
        self, url: str, origin: str, *, channel: str = DEFAULT_CHANNEL, connect_timeout_s: float = 5.0
    ) -> None:
        super().__init__(origin)
        self.url = url
        self.channel = channel
        self.connect_timeout_s = connect_timeout_s
        name = f"vent-agent-{origin}"[:100].replace(" ", "_")
        self._pub = aioredis.from_url(url, socket_connect_timeout=2, socket_timeout=2, client_name=name)
        self._sub = aioredis.from_url(url, socket_connect_timeout=2, client_name=f"{name}-sub")
        self._subscribed = asyncio.Event()

    @property
    def connected(self) -> bool:
        """True while the subscription is open."""
        return self._subscribed.is_set()

    async def start(self) -> None:
        """Start the listener and wait up to ``connect_timeout_s`` for its first subscription."""
        self._task = asyncio.create_task(self._listen_forever(), name="redis-broker")
        try:
            await asyncio.wait_for(self._subscribed.wait(), self.connect_timeout_s)
        except TimeoutError:
            log.warning(
                "Redis broker at %s not reachable yet: live events across workers are polled", self.url
            )

    async def close(self) -> None:
        """Stop the listener and close both clients."""
        await self._stop_task()
        await self._pub.aclose()
        await self._sub.aclose()

    async def _send(self, message: str) -> None:
        await self._pub.publish(self.channel, message)

    async def _listen_forever(self) -> None:
        backoff = BACKOFF_FIRST_S
        while True:
            pubsub = self._sub.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(self.channel)
                if not self._subscribed.is_set():
                    self._subscribed.set()
                    self.wake_all()  # wake-ups may have been missed while away
                    log.info("Redis broker subscribed to %s", self.channel)
                backoff = BACKOFF_FIRST_S
                while True:
                    msg = await pubsub.get_message(timeout=5.0)
                    if msg is not None and msg.get("type") == "message":
                        self._received(msg["data"])
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # reconnect with back-off; subscribers poll meanwhile
                if self._subscribed.is_set():
                    log.warning("Redis broker lost its subscription (%s); retrying", exc)
                self._subscribed.clear()
                await asyncio.sleep(backoff)
                backoff = next_backoff(backoff)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]  # redis-py leaves PubSub.aclose unannotated
