"""The components' readiness checks for ``/readyz``: the LangGraph checkpointer answers, the knowledge
base's index is built, the OCR engine loads (once; the result is kept). They register into the app's
registry of :mod:`vent_agent.observability.readiness`, which runs them."""

from __future__ import annotations

import asyncio

from fastapi import FastAPI

from vent_agent.documents.ocr import OcrUnavailable, load_configured_engine
from vent_agent.kb.search import get_knowledge_base
from vent_agent.observability.readiness import readiness_registry
from vent_agent.state import AppState


def register_readiness(app: FastAPI, state: AppState) -> None:
    """Register the checkpointer, knowledge-base and OCR-engine checks of ``app``."""
    registry = readiness_registry(app)
    settings = state.settings

    async def checkpointer() -> str:
        await state.checkpointer.aget_tuple({"configurable": {"thread_id": "readyz", "checkpoint_ns": ""}})
        return type(state.checkpointer).__name__

    async def knowledge_base() -> str:
        kb = get_knowledge_base(settings.kb_dir, settings.regulation_edition)
        await asyncio.to_thread(kb.index)
        return f"{len(kb.articles)} articles, edition {kb.edition}"

    ocr_state: dict[str, str | bool] = {}

    async def ocr_engine() -> str | bool:
        if settings.ocr_engine == "none":
            return "disabled (VENT_OCR_ENGINE=none)"
        if not ocr_state:
            try:
                engine = await asyncio.to_thread(load_configured_engine, settings)
                # None only for VENT_OCR_ENGINE=none, answered above
                ocr_state["ok"], ocr_state["detail"] = True, engine.name if engine is not None else "none"
            except OcrUnavailable as exc:
                ocr_state["ok"], ocr_state["detail"] = False, str(exc)
        if not ocr_state["ok"]:
            raise RuntimeError(str(ocr_state["detail"]))
        return str(ocr_state["detail"])

    registry.register("checkpointer", checkpointer)
    registry.register("knowledge_base", knowledge_base, timeout_s=30)
    registry.register("ocr_engine", ocr_engine, timeout_s=60)
