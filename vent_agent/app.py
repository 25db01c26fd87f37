"""The FastAPI application factory: ``create_app(settings)``; the lifespan opens the store, the run
manager, the ventilation data source and the model."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from vent_agent.api import health, interpret, reports, review, runs
from vent_agent.api.errors import install_error_handlers
from vent_agent.auth import make_user_service
from vent_agent.llm.openai_compat import make_interpret_model
from vent_agent.review.reference import default_reference
from vent_agent.runs.manager import RunManager
from vent_agent.settings import Settings
from vent_agent.state import AppState
from vent_agent.store.db import Database
from vent_agent.upstream.demo_mine import DemoMine

log = logging.getLogger(__name__)


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the app. ``settings`` default to the environment (``VENT_*``, ``.env``)."""
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        for d in (settings.data_dir, settings.reports_dir, settings.uploads_dir, settings.cache_dir):
            d.mkdir(parents=True, exist_ok=True)
        db = Database(settings.resolved_database_url)
        await db.create_all()
        state = AppState(
            settings=settings,
            db=db,
            runs=RunManager(db),
            source=DemoMine(timezone=settings.timezone),
            interpret_model=make_interpret_model(settings),
            review_slots=asyncio.Semaphore(settings.review_concurrency),
            ocr_slots=asyncio.Semaphore(settings.ocr_concurrency),
            reference=default_reference(),
            users=make_user_service(settings),
        )
        app.state.vent = state
        if state.interpret_model is None:
            log.warning("no language model configured (VENT_LLM_*): interpretations are rule-based")
        log.info("vent-agent ready: data dir %s, database %s", settings.data_dir, db.url.split("///")[0])
        try:
            yield
        finally:
            await state.runs.shutdown()
            await state.users.aclose()
            await db.close()

    app = FastAPI(
        title="vent-agent",
        version="0.1.0",
        description="通风数据解读、对话与配风计划审查服务（ventilation-api v2.0）",
        lifespan=lifespan,
    )
    install_error_handlers(app)
    for module in (health, interpret, review, reports, runs):
        app.include_router(module.router)
    return app
