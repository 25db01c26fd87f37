"""An agent's span on a run's stream: its ``agent_start``, then its ``agent_done`` with the time it took and
its outcome (完成, 失败, or 中断 when the run was cancelled or timed out under it). For the agents the service runs around others: the chat turn's dialogue agent
(``vent_agent.chat.service``) and a review started from chat (``vent_agent.review.run``)."""

from __future__ import annotations

import time
from typing import Literal

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
