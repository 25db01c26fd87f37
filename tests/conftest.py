"""Shared fixtures: settings on a temporary data dir, the app with its lifespan, an ASGI client."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from vent_agent.app import create_app
from vent_agent.documents.pdf_text import extract_pdf
from vent_agent.documents.plan import Plan
from vent_agent.documents.plan_parser import parse_plan
from vent_agent.settings import Settings

DATA = Path(__file__).parent / "data"

# Never let a developer's .env or environment point tests at a real model or service.
for _name in list(os.environ):
    if _name.startswith("VENT_"):
        del os.environ[_name]


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(_env_file=None, data_dir=tmp_path / "data")


@pytest.fixture
async def app(settings: Settings) -> AsyncIterator:
    application = create_app(settings)
    async with application.router.lifespan_context(application):
        yield application


@pytest.fixture
async def client(app) -> AsyncIterator[httpx.AsyncClient]:  # type: ignore[no-untyped-def]
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver", timeout=60) as c:
        yield c


@pytest.fixture
def plan_a_pdf() -> Path:
    """The correct sample plan (text layer)."""
    return DATA / "plan-2026-08-a.pdf"


@pytest.fixture
def plan_b_pdf() -> Path:
    """The sample plan with ten seeded faults (text layer)."""
    return DATA / "plan-2026-08-b.pdf"


@pytest.fixture(scope="session")
def plan_a() -> Plan:
    """plan a parsed once per session; tests that change it work on ``model_copy(deep=True)``."""
    return parse_plan(extract_pdf(DATA / "plan-2026-08-a.pdf", max_pages=50))


@pytest.fixture(scope="session")
def plan_b() -> Plan:
    """plan b parsed once per session; tests that change it work on ``model_copy(deep=True)``."""
    return parse_plan(extract_pdf(DATA / "plan-2026-08-b.pdf", max_pages=50))
