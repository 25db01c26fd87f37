"""The run and session a piece of work belongs to, as context variables: every log record made while
they are bound carries them (:mod:`vent_agent.observability.logging`). A run's task binds its own ids,
and asyncio copies them into the tasks it starts."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

run_id_var: ContextVar[str | None] = ContextVar("vent_run_id", default=None)
session_id_var: ContextVar[str | None] = ContextVar("vent_session_id", default=None)


def bind_run(run_id: str | None, session_id: str | None = None) -> None:
    """Bind the ids for the rest of the current task (a run's task calls this first)."""
    run_id_var.set(run_id)
    if session_id is not None:
        session_id_var.set(session_id)


@contextlib.contextmanager
def bound(run_id: str | None = None, session_id: str | None = None) -> Iterator[None]:
    """Bind the given ids inside the ``with`` block only (None leaves the current value)."""
    tokens = []
    if run_id is not None:
        tokens.append((run_id_var, run_id_var.set(run_id)))
    if session_id is not None:
        tokens.append((session_id_var, session_id_var.set(session_id)))
    try:
        yield
    finally:
        for var, token in reversed(tokens):
            var.reset(token)
