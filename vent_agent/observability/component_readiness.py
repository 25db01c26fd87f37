"""The components' readiness checks for ``/readyz``: the LangGraph checkpointer answers, the knowledge
base's index is built (both required), the OCR engine loads (optional: only the review of scanned plans
needs it). They register into the app's registry of :mod:`vent_agent.observability.readiness`, which
runs them.

The OCR engine takes seconds to load, longer than a readiness probe waits, so its check is a
:class:`~vent_agent.observability.readiness.BackgroundCheck`: the load runs once in a thread of its own,
from start-up (``VENT_WARM_UP``, :meth:`~vent_agent.observability.readiness.ReadinessRegistry.warm_up`)
or from the first ``/readyz``, and ``/readyz`` answers from its state (``loading``, ``ok``, ``failed``).
The load is :func:`~vent_agent.documents.ocr.load_configured_engine`, as a review's: with
``VENT_OCR_ISOLATION=process`` (the default) it starts the OCR worker pool and loads the model in a
worker process, never in the service's, and the pool exits after ``VENT_OCR_WORKER_IDLE_S`` idle seconds
as after any OCR; with ``thread`` the model is loaded in the service's process, where a review keeps it.
"""

from __future__ import annotations

import asyncio

from fastapi import FastAPI

from vent_agent.documents.ocr import load_configured_engine
from vent_agent.graphs.checkpoint import POOL_WAIT_S
from vent_agent.kb.search import get_knowledge_base
from vent_agent.observability.readiness import BackgroundCheck, readiness_registry
from vent_agent.state import AppState

OCR_DEGRADES = "扫描件配风计划的审查"
"""What stops working when the OCR engine cannot load (``/readyz``'s ``degraded`` answer)."""


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

    def load_ocr() -> str:
        if settings.ocr_engine == "none":
            return "disabled (VENT_OCR_ENGINE=none)"
        engine = load_configured_engine(settings)  # raises OcrUnavailable when it cannot load
        return engine.name if engine is not None else "none"  # None only for "none", answered above

    # longer than the checkpointer pool's wait for a connection, so that its own error is reported
    registry.register("checkpointer", checkpointer, timeout_s=POOL_WAIT_S + 2)
    registry.register("knowledge_base", knowledge_base, timeout_s=30)
    registry.register("ocr_engine", BackgroundCheck("ocr_engine", load_ocr), degrades=OCR_DEGRADES)
