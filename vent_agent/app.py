"""The FastAPI application factory: ``create_app(settings)``; the lifespan opens the store, the run
manager, the ventilation data source and the model."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

from fastapi import FastAPI
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from vent_agent.api import (
    alarms,
    chat,
    client_js,
    health,
    interpret,
    mine,
    model,
    network,
    reports,
    review,
    runs,
    sessions,
    skills,
)
from vent_agent.api import graph as graph_api
from vent_agent.api.console import mount_console
from vent_agent.api.cors import SpecCorsMiddleware
from vent_agent.api.errors import install_error_handlers
from vent_agent.api.openapi import install_openapi
from vent_agent.api.startup import StartupRefusalMessage
from vent_agent.api.store_errors import install_store_error_handlers
from vent_agent.api.uploads import ChineseBodyLimit, UploadRoute
from vent_agent.auth import make_user_service
from vent_agent.graph.service import open_graph, register_graph_readiness
from vent_agent.graphs.checkpoint import open_checkpointer
from vent_agent.kb.search import get_knowledge_base
from vent_agent.llm.openai_compat import make_interpret_model
from vent_agent.llm.registry import ModelRegistry
from vent_agent.observability.component_readiness import register_readiness
from vent_agent.observability.memory import freeze_startup_heap, thaw_startup_heap
from vent_agent.observability.readiness import readiness_registry
from vent_agent.runs.lifecycle import open_runs
from vent_agent.runs.slots import FairSlots
from vent_agent.settings import Settings
from vent_agent.skills import open_skill_registry
from vent_agent.state import AppState
from vent_agent.store.db import Database
from vent_agent.store.refusal import StartupRefused, migrate_or_refuse
from vent_agent.upstream import close_source, make_source

log = logging.getLogger(__name__)


def masked_url(url: str) -> str:
    """A database URL for the log: whole, its password replaced by ``***``."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "<unparseable database URL>"


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the app. ``settings`` default to the environment (``VENT_*``, ``.env``)."""
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        for d in (settings.data_dir, settings.reports_dir, settings.uploads_dir, settings.cache_dir):
            d.mkdir(parents=True, exist_ok=True)
        db = Database(settings.resolved_database_url)
        try:
            await migrate_or_refuse(db)  # a refusal is one line to the server (StartupRefusalMessage)
        except StartupRefused:
            await db.close()
            raise
        exits = AsyncExitStack()
        checkpointer = await exits.enter_async_context(open_checkpointer(settings))
        runs = await exits.enter_async_context(open_runs(settings, db))
        graph = await exits.enter_async_context(open_graph(settings, db, runs))
        state = AppState(
            settings=settings,
            db=db,
            runs=runs,
            source=make_source(settings),
            interpret_model=make_interpret_model(settings),
            review_slots=asyncio.Semaphore(settings.review_concurrency),
            ocr_slots=FairSlots(
                settings.ocr_concurrency,
                settings.ocr_concurrency_per_user or max(1, settings.ocr_concurrency - 1),
            ),
            users=make_user_service(settings),
            checkpointer=checkpointer,
            models=ModelRegistry(settings, db),
            skills=await open_skill_registry(settings, db),
            graph=graph,
        )
        app.state.vent = state
        register_readiness(app, state)
        register_graph_readiness(readiness_registry(app), graph)
        # the knowledge base's index is built once per process; build it now, not on the first question
        await asyncio.to_thread(get_knowledge_base(settings.kb_dir, settings.regulation_edition).index)
        if not state.models.available:
            log.warning(
                "no chat model configured (VENT_MODELS / VENT_LLM_*): chat answers with an error event"
            )
        if state.interpret_model is None:
            log.warning("no language model configured (VENT_LLM_*): interpretations are rule-based")
        freeze_startup_heap()  # the collector skips the start-up heap from now on
        if settings.warm_up:  # the OCR engine loads in a thread of its own; /readyz answers meanwhile
            readiness_registry(app).warm_up()
        log.info("vent-agent ready: data dir %s, database %s", settings.data_dir, masked_url(db.url))
        try:
            yield
        finally:
            thaw_startup_heap()
            await state.runs.shutdown()
            await state.users.aclose()
            await exits.aclose()
            await close_source(state.source)
            await db.close()

    app = FastAPI(
        title="vent-agent",
        version="0.1.0",
        description="通风数据解读、对话与配风计划审查服务（ventilation-api v2.0）",
        lifespan=lifespan,
    )
    if settings.cors_origins:
        app.add_middleware(
            SpecCorsMiddleware,
            allow_origins=settings.cors_origins,
            allow_methods=["GET", "POST", "PUT", "DELETE", "OPTIONS"],
            allow_headers=["x-access-token", "content-type", "last-event-id", "cache-control"],
            expose_headers=["X-Session-Id", "X-Run-Id"],
            max_age=600,
        )
    install_error_handlers(app)
    install_store_error_handlers(app)
    install_openapi(app)
    upload_limit = (settings.max_upload_mb << 20) + UploadRoute.body_overhead  # a 413 names max_upload_mb
    json_limit = settings.max_json_body_kb << 10
    app.add_middleware(ChineseBodyLimit)
    app.add_middleware(StartupRefusalMessage)
    for router in (
        *(
            m.router
            for m in (
                health,
                interpret,
                reports,
                runs,
                sessions,
                model,
                client_js,
                mine,
                network,
                alarms,
                graph_api,
            )
        ),
        chat.resume_router,
        skills.json_router,
    ):
        app.include_router(router, max_body_size=json_limit)
    for module in (review, chat, skills):  # multipart uploads
        app.include_router(module.router, max_body_size=upload_limit)
    mount_console(app)
    return app
