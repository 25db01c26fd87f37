"""Helpers for chat tests: a model registry double that hands out a scripted model, and auth headers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from langchain_core.language_models import BaseChatModel

TOKEN = {"x-access-token": "demo-token"}  # zhangsan, the settings' built-in demo user
OTHER = {"x-access-token": "demo-token-2"}  # lisi


class ScriptedModels:
    """Stands in for the model registry: ``chat_model()`` returns the scripted model (or None)."""

    def __init__(self, model: BaseChatModel | None) -> None:
        self.model = model

    async def chat_model(self, streaming: bool = True) -> BaseChatModel | None:
        return self.model

    @property
    def available(self) -> list[str]:
        return ["scripted"] if self.model is not None else []

    def context_window(self, name: str | None = None) -> int:
        return 131072


def use_model(app: Any, model: BaseChatModel | None) -> None:
    """Make ``app`` answer chat turns with ``model``."""
    app.state.vent.models = ScriptedModels(model)


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
