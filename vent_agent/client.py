"""A Python client of the service's chat stream that never loses an answer.

``ChatClient.chat(message)`` posts ``/api/chat`` and yields the events as they arrive. When the
connection breaks, it reconnects to ``GET /api/runs/{run_id}/events`` with ``Last-Event-ID`` (the last
``seq`` it saw), so every event arrives exactly once; when the run is gone from the log, it falls back to
``GET /api/chat/history/{session_id}`` and yields the folded answer as one ``token`` event and ``done``.
Events are models of the catalogue (:mod:`vent_agent.events`), events sent in parts joined.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from vent_agent.event_parts import PartJoiner
from vent_agent.events import Done, EventModel, Token, parse_event


class ChatError(Exception):
    """The service refused the request (``status`` and its ``{"error"}`` message)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"HTTP {status}: {message}")
        self.status = status
        self.message = message


def _error_of(resp: httpx.Response) -> ChatError:
    try:
        message = resp.json().get("error", resp.text)
    except ValueError:
        message = resp.text
    return ChatError(resp.status_code, str(message))


async def _frames(resp: httpx.Response) -> AsyncIterator[dict[str, Any]]:
    """Parse an SSE body: ``data:`` lines joined per frame; comments (pings) and ``id:`` skipped."""
    data: list[str] = []
    async for line in resp.aiter_lines():
        if line.startswith("data:"):
            data.append(line[5:].lstrip())
        elif line == "" and data:
            yield json.loads("\n".join(data))
            data = []
    if data:
        yield json.loads("\n".join(data))


def _last_seq(payload: dict[str, Any], last: int) -> int:
    seq = payload.get("seq")
    return seq if isinstance(seq, int) else last


@dataclass
class ChatClient:
    """``base_url`` of the service and the user's ``token``. ``retries``: reconnections per answer."""

    base_url: str
    token: str
    timeout_s: float = 300.0
    retries: int = 5
    transport: httpx.AsyncBaseTransport | None = None
    session_id: str | None = None
    last_run_id: str | None = field(default=None, init=False)
    _joiner: PartJoiner = field(default_factory=PartJoiner, init=False, repr=False)

    def _client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            base_url=self.base_url.rstrip("/"),
            headers={"x-access-token": self.token},
            timeout=httpx.Timeout(self.timeout_s, connect=10.0),
            transport=self.transport,
        )

    async def chat(self, message: str, *, mode: str | None = None) -> AsyncIterator[EventModel]:
        """Send ``message`` in the client's session (a new one the first time) and yield every event of
        the answer once, reconnecting as needed. Raises :class:`ChatError` for a refused request."""
        form = {"message": message, **({"session_id": self.session_id} if self.session_id else {})}
        if mode and not self.session_id:
            form["mode"] = mode
        last_seq = 0
        run_id: str | None = None
        joiner = self._joiner = PartJoiner()
        async with self._client() as http:
            try:
                async with http.stream("POST", "/api/chat", data=form) as resp:
                    if resp.status_code != 200:
                        await resp.aread()
                        raise _error_of(resp)
                    run_id = resp.headers.get("x-run-id")
                    self.session_id = resp.headers.get("x-session-id") or self.session_id
                    self.last_run_id = run_id
                    async for payload in _frames(resp):
                        last_seq = _last_seq(payload, last_seq)
                        for ev in map(parse_event, joiner.feed(payload)):
                            yield ev
                            if ev.type in ("done", "interrupt"):
                                return
            except (httpx.TransportError, httpx.RemoteProtocolError):
                if run_id is None:
                    raise
            async for recovered in self._recover(http, run_id, last_seq):
                yield recovered

    async def _recover(
        self, http: httpx.AsyncClient, run_id: str | None, last_seq: int
    ) -> AsyncIterator[EventModel]:
        """The rest of the run after ``last_seq`` (parts of a split event already read are kept)."""
        joiner = self._joiner
        for attempt in range(self.retries):
            await asyncio.sleep(min(0.2 * 2**attempt, 3.0))
            try:
                async with http.stream(
                    "GET", f"/api/runs/{run_id}/events", headers={"Last-Event-ID": str(last_seq)}
                ) as resp:
                    if resp.status_code == 204:
                        return
                    if resp.status_code == 404:
                        break
                    if resp.status_code != 200:
                        await resp.aread()
                        raise _error_of(resp)
                    async for payload in _frames(resp):
                        last_seq = _last_seq(payload, last_seq)
                        for ev in map(parse_event, joiner.feed(payload)):
                            yield ev
                            if ev.type in ("done", "interrupt"):
                                return
                    return
            except (httpx.TransportError, httpx.RemoteProtocolError):
                continue
        async for kept in self._from_history(http, run_id):
            yield kept

    async def _from_history(self, http: httpx.AsyncClient, run_id: str | None) -> AsyncIterator[EventModel]:
        """The answer as the history kept it (the run's events are gone or unreachable)."""
        if not self.session_id:
            return
        resp = await http.get(f"/api/chat/history/{self.session_id}", params={"limit": 1000})
        if resp.status_code != 200:
            raise _error_of(resp)
        turns = [m for m in resp.json()["messages"] if m.get("role") == "assistant"]
        turn = next((m for m in reversed(turns) if m.get("run_id") == run_id), turns[-1] if turns else None)
        if turn is None:
            return
        yield Token.model_validate(
            {"source": "main", "content": turn.get("content", ""), "from_history": True}
        )
        yield Done.model_validate(
            {"session_id": self.session_id, "thread_id": turn.get("thread_id"), "from_history": True}
        )

    async def resume(self, action: str) -> AsyncIterator[EventModel]:
        """Approve or reject the pending plan of the client's session; yields the resumed stream."""
        async with (
            self._client() as http,
            http.stream(
                "POST", "/api/chat/resume", json={"session_id": self.session_id, "action": action}
            ) as resp,
        ):
            if resp.status_code != 200:
                await resp.aread()
                raise _error_of(resp)
            joiner = PartJoiner()
            async for payload in _frames(resp):
                for ev in map(parse_event, joiner.feed(payload)):
                    yield ev
