"""An agent's span on a run's stream: its ``agent_start``, then its ``agent_done`` with the time it took and
its outcome (完成, 失败, or 中断 when the run was cancelled or timed out under it). For the agents the service runs around others: the chat turn's dialogue agent
(``vent_agent.chat.service``) and a review started from chat (``vent_agent.review.service.run``).

A run the service closes without its body (a lost worker, a failed log) gets an ``agent_done`` (中断) for
each span its log left open, before its ``error`` and ``done`` (:func:`interrupted_spans`)."""

from __future__ import annotations

import time
from collections.abc import Iterable
from datetime import datetime
from typing import Any, Literal

from vent_agent.events import AgentDone, AgentStart, Send

Outcome = Literal["完成", "失败", "中断"]
"""How an agent's span ended: it finished, it failed, or its run was cancelled or timed out under it."""


async def agent_start(send: Send, agent: str) -> float:
    """Send ``agent_start`` for ``agent``; return when it started (``time.monotonic()``, s) for
    :func:`agent_done`."""
    started = time.monotonic()
    await send(AgentStart(agent=agent, cn_agent=agent, message=f"「{agent}」开始处理..."))
    return started


async def agent_done(send: Send, agent: str, started: float, *, outcome: Outcome = "完成") -> None:
    """Send ``agent_done`` for ``agent`` with the time since ``started`` (``time.monotonic()``, s) in ms
    and its ``outcome`` in the message (``「agent」完成（812ms）``)."""
    ms = int((time.monotonic() - started) * 1000)
    await send(
        AgentDone(agent=agent, cn_agent=agent, duration_ms=ms, message=f"「{agent}」{outcome}（{ms}ms）")
    )


SPAN_EVENTS = ("agent_start", "agent_done", "agent_error")
"""The event types that open or close an agent's span."""


def interrupted_spans(
    events: Iterable[tuple[dict[str, Any], datetime | None]], ended: datetime | None
) -> list[dict[str, Any]]:
    """The ``agent_done`` payloads (中断) closing the spans a run's log left open, for a run the service
    closes without its body (its worker was lost, its log failed).

    ``events``: the run's span events (:data:`SPAN_EVENTS`) in ``seq`` order, each with when it was
    logged (None when unknown); a span is open when its ``agent_start`` has no later ``agent_done`` or
    ``agent_error`` of the same agent. ``ended``: when the run was last seen working (its last logged
    event). Innermost span first; ``duration_ms`` runs from the ``agent_start``'s time to ``ended``, 0
    when either is unknown. Same shape as :func:`agent_done`'s event."""
    still_open: list[tuple[dict[str, Any], datetime | None]] = []
    for payload, at in events:
        type_ = payload.get("type")
        if type_ == "agent_start":
            still_open.append((payload, at))
        elif type_ in ("agent_done", "agent_error"):
            for i in range(len(still_open) - 1, -1, -1):
                if still_open[i][0].get("agent") == payload.get("agent"):
                    del still_open[i]
                    break
    closings: list[dict[str, Any]] = []
    for payload, at in reversed(still_open):
        ms = max(0, int((ended - at).total_seconds() * 1000)) if at is not None and ended is not None else 0
        agent = str(payload.get("agent", ""))
        cn_agent = str(payload.get("cn_agent") or agent)
        event = AgentDone(
            agent=agent, cn_agent=cn_agent, duration_ms=ms, message=f"「{cn_agent}」中断（{ms}ms）"
        )
        closings.append({k: v for k, v in event.wire().items() if k not in ("seq", "run_id")})
    return closings
