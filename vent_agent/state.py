"""What the app's lifespan creates and the routes share (no other global mutable state)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel

from vent_agent.auth import UserService
from vent_agent.review.reference import ReferenceData
from vent_agent.runs.manager import RunManager
from vent_agent.settings import Settings
from vent_agent.store.db import Database
from vent_agent.upstream.base import VentilationSource


@dataclass
class AppState:
    """The service's shared objects, created by :func:`vent_agent.app.lifespan`."""

    settings: Settings
    db: Database
    runs: RunManager
    source: VentilationSource
    interpret_model: BaseChatModel | None
    review_slots: asyncio.Semaphore
    ocr_slots: asyncio.Semaphore
    reference: ReferenceData | None
    users: UserService
