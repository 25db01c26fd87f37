"""What the app's lifespan creates and the routes share (no other global mutable state)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from langchain_core.language_models import BaseChatModel
from langgraph.checkpoint.base import BaseCheckpointSaver

from vent_agent.auth import UserService
from vent_agent.graph.service import GraphService
from vent_agent.interpret.facts_cache import FactsCache
from vent_agent.llm.registry import ModelRegistry
from vent_agent.runs.manager import RunManager
from vent_agent.runs.slots import FairSlots
from vent_agent.settings import Settings
from vent_agent.skills.registry import SkillRegistry
from vent_agent.store.db import Database
from vent_agent.upstream.base import VentilationSource

CLICK_SLOTS = 4


@dataclass
class AppState:
    """The service's shared objects, created by :func:`vent_agent.app.lifespan`."""

    settings: Settings
    db: Database
    runs: RunManager
    source: VentilationSource
    interpret_model: BaseChatModel | None
    review_slots: asyncio.Semaphore
    ocr_slots: FairSlots
    users: UserService
    checkpointer: BaseCheckpointSaver[str]
    models: ModelRegistry
    skills: SkillRegistry
    graph: GraphService
    # click interpretations computing at once (data, facts, text); the others wait after their first
    # events, so that a burst of clicks still gets its first events at once
    click_slots: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(CLICK_SLOTS))
    # the last facts of each clicked target, reused while its data reads the same
    facts_cache: FactsCache = field(default_factory=FactsCache)
