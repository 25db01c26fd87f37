"""What the agents' tools see of the run: the :class:`AgentContext` (LangGraph runtime context).

The lead builds an agent with ``create_agent(..., context_schema=AgentContext)`` and runs it with
``agent.astream(..., context=AgentContext(...))``; LangGraph hands the context to each tool through the
injected ``runtime: ToolRuntime`` argument (never shown to the model). The context is not checkpointed:
a resumed run (plan approval) passes a fresh one, so the caller's token is never stored.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from vent_agent.graph.store import GraphStore
from vent_agent.kb.citations import CitationRegistry
from vent_agent.settings import Settings
from vent_agent.store.db import Database
from vent_agent.upstream.base import VentilationSource


class ToolContextError(RuntimeError):
    """A tool ran without the context it needs (no runtime context, no user, no database)."""


@dataclass(frozen=True)
class AgentContext:
    """The run's context for tools.

    ``source``: the mine's ventilation data (demo mine or HTTP client); ``db``: the store (user
    preferences); ``settings``: time-outs (``tool_timeout_s``, seconds) and time zone; ``user_name``
    and ``token``: the authenticated caller (None for click interpretations, which have no user) – the
    token is forwarded to the ventilation system; ``run_id``/``session_id``/``thread_id``: the run
    record; ``citations``: the run's retrieved articles and their markers (``query_knowledge_base``);
    ``graph``: the provenance graph (``query_graph``); ``clock``: the time source of ``get_current_time`` (default the wall clock), for tests.
    """

    source: VentilationSource
    settings: Settings
    db: Database | None = None
    user_name: str | None = None
    token: str | None = None
    run_id: str | None = None
    session_id: str | None = None
    thread_id: str | None = None
    clock: Callable[[], datetime] | None = field(default=None, repr=False)
    citations: CitationRegistry | None = field(default=None, repr=False)
    graph: GraphStore | None = field(default=None, repr=False)

    def __repr__(self) -> str:  # never print the token
        return (
            f"AgentContext(user_name={self.user_name!r}, run_id={self.run_id!r}, "
            f"session_id={self.session_id!r}, source={type(self.source).__name__})"
        )

    @property
    def tool_timeout_s(self) -> float:
        """The time a tool may take, seconds (``settings.tool_timeout_s``)."""
        return float(self.settings.tool_timeout_s)

    def data_source(self) -> VentilationSource:
        """The data source bound to the caller's token when it forwards tokens (HTTP client), else the
        source itself."""
        bind = getattr(self.source, "with_token", None)
        return bind(self.token) if bind is not None and self.token else self.source

    def now(self) -> datetime:
        """The current time, aware, in the mine time zone (``settings.timezone``)."""
        tz = ZoneInfo(self.settings.timezone)
        t = self.clock() if self.clock else datetime.now(tz)
        return t.replace(tzinfo=tz) if t.tzinfo is None else t.astimezone(tz)


def context_of(runtime: Any) -> AgentContext:
    """The :class:`AgentContext` of an injected ``ToolRuntime``. Raises ToolContextError when the agent
    was run without one (a wiring bug, reported to the model as a tool error)."""
    ctx = getattr(runtime, "context", None)
    if not isinstance(ctx, AgentContext):
        raise ToolContextError("工具运行环境缺失（未提供 AgentContext），无法执行该工具")
    return ctx
