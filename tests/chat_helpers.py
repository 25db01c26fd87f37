"""Helpers for chat tests: the app answering with a scripted model (through the eval's registry double,
:class:`~vent_agent.evals.replay.ReplayModels`), auth headers, and the runtime a tool is called with."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import httpx
from langchain.tools import ToolRuntime
from langchain_core.language_models import BaseChatModel

from vent_agent.evals.replay import ReplayModels

C = TypeVar("C")

TOKEN = {"x-access-token": "demo-token"}  # zhangsan, the settings' built-in demo user
OTHER = {"x-access-token": "demo-token-2"}  # lisi


def use_model(app: Any, model: BaseChatModel | None) -> None:
    """Make ``app`` answer chat turns with ``model`` (None: no model configured)."""
    app.state.vent.models = ReplayModels(model)


@contextmanager
def answering(app: Any, model: BaseChatModel | None) -> Iterator[None]:
    """``app`` answers chat turns with ``model`` inside the block, with the model registry it had
    after: a session seeded by a chat turn on a service that has no model (a turn without a model
    opens no session)."""
    state = app.state.vent
    models = state.models
    use_model(app, model)
    try:
        yield
    finally:
        state.models = models


async def chat_with_file(
    client: httpx.AsyncClient, pdf: Path | bytes, message: str, *, name: str | None = None
) -> httpx.Response:
    """``POST /api/chat`` as zhangsan with ``message`` and one attached PDF (a file, or its bytes) named
    ``name`` (default: the file's own name, or ``t.pdf`` for bytes)."""
    content = pdf if isinstance(pdf, bytes) else pdf.read_bytes()
    file_name = name or (pdf.name if isinstance(pdf, Path) else "t.pdf")
    return await client.post(
        "/api/chat",
        data={"message": message},
        files={"file": (file_name, content, "application/pdf")},
        headers=TOKEN,
    )


def tool_runtime(ctx: C) -> ToolRuntime[C, dict[str, Any]]:
    """The runtime LangGraph injects into a tool call, with ``ctx`` as the run's context (no state, no
    store, a stream writer that drops what it is given)."""
    return ToolRuntime(
        state={}, context=ctx, config={}, stream_writer=lambda _: None, tool_call_id="t", store=None
    )
