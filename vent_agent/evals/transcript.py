"""One case's conversation with the service, as the eval checks see it: every event of the turn (and of
the resume after a plan-mode interrupt), the time to the first event and to the end, the refused request
if any. Runs over HTTP with :class:`~vent_agent.client.ChatClient`, so an in-process app on a loopback
port and a running service are met the same way."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from vent_agent.client import ChatClient, ChatError
from vent_agent.evals.cases import Case, ToolUse

RESUME_TRIES = 50
RESUME_WAIT_S = 0.1
"""A decision refused with 409 while the interrupted turn closes is sent again, up to 5 s."""


@dataclass
class Transcript:
    """What the service sent for one case. ``events``: the turn's events as dicts (wire fields);
    ``resumed``: the events after the decision on a plan; ``first_event_s``, ``total_s``: seconds from
    the request; ``failure``: the refused request or broken connection (Chinese), else None."""

    events: list[dict[str, Any]] = field(default_factory=list)
    resumed: list[dict[str, Any]] = field(default_factory=list)
    first_event_s: float | None = None
    total_s: float = 0.0
    failure: str | None = None

    @staticmethod
    def _answer(events: list[dict[str, Any]]) -> str:
        text = ""
        for ev in events:
            if ev.get("type") == "token" and ev.get("source", "main") == "main":
                text = ev["content"] if ev.get("replace") else text + ev["content"]
        return text

    @property
    def answer(self) -> str:
        """The answer as streamed (``token`` events of the main agent), before and after a resume."""
        return self._answer(self.events) + self._answer(self.resumed)

    def tool_calls(self, resumed: bool | None = None) -> list[ToolUse]:
        """The ``tool_call`` events as tool uses: of the turn (``resumed`` False), after the resume
        (True) or both (None)."""
        events = {False: self.events, True: self.resumed, None: self.events + self.resumed}[resumed]
        return [
            ToolUse(name=e["tool"], args=e.get("args") or {}) for e in events if e.get("type") == "tool_call"
        ]

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        """Every event of ``kind``, before and after a resume."""
        return [e for e in self.events + self.resumed if e.get("type") == kind]


async def _collect(stream: Any, into: list[dict[str, Any]], started: float, transcript: Transcript) -> None:
    async for ev in stream:
        if transcript.first_event_s is None:
            transcript.first_event_s = time.monotonic() - started
        into.append(ev.model_dump(mode="json", exclude_none=True))


async def _resume(client: ChatClient, action: str, transcript: Transcript, started: float) -> None:
    """Send the decision; while the interrupted turn is still closing (its ``interrupt`` event came
    before the run released the session: 409), wait and send it again."""
    for _ in range(RESUME_TRIES - 1):
        try:
            await _collect(client.resume(action), transcript.resumed, started, transcript)
            return
        except ChatError as exc:
            if exc.status != 409 or transcript.resumed:
                raise
            await asyncio.sleep(RESUME_WAIT_S)
    await _collect(client.resume(action), transcript.resumed, started, transcript)


async def converse(base_url: str, token: str, case: Case, timeout_s: float) -> Transcript:
    """Send the case's message (in plan mode when the case says so), then its decision when the turn ends
    with a plan awaiting approval; never raises for what the service answers."""
    client = ChatClient(base_url, token, timeout_s=timeout_s, retries=0)
    transcript = Transcript()
    started = time.monotonic()
    try:
        await _collect(client.chat(case.message, mode=case.mode), transcript.events, started, transcript)
        if case.resume and any(e.get("type") == "interrupt" for e in transcript.events):
            await _resume(client, case.resume, transcript, started)
    except ChatError as exc:
        transcript.failure = f"请求被拒绝（HTTP {exc.status}）：{exc.message}"
    except httpx.HTTPError as exc:
        transcript.failure = f"连接失败：{type(exc).__name__} {exc}"
    transcript.total_s = time.monotonic() - started
    return transcript
