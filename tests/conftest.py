"""Shared fixtures: settings on a temporary data dir, the app with its lifespan, an ASGI client."""

from __future__ import annotations

import gc
import os
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from fastapi import FastAPI

from vent_agent.settings import Settings

# The app, the PDF reader and the parser are imported by the fixtures that use them, not here: under
# ``pytest -n`` the controller process loads this file, runs no test, and would only wait for them.
if TYPE_CHECKING:
    from vent_agent.documents.plan.model import Plan

# The PostgreSQL/Redis/worker fixtures (tests/pg.py) for every module, and the tier (unit, store, slow)
# every test is given at collection (tests/tiers.py).
pytest_plugins = ["tests.pg", "tests.tiers"]

DATA = Path(__file__).parent / "data"

# Never let a developer's .env or environment point tests at a real model or service.
for _name in list(os.environ):
    if _name.startswith("VENT_"):
        del os.environ[_name]
# Hundreds of apps start here: none loads the OCR engine in the background at start-up (a worker process
# and its models, seconds of CPU) unless its test asks for it (``warm_up=True``); /readyz still starts it.
os.environ["VENT_WARM_UP"] = "false"


@pytest.fixture
def serve() -> Iterator[Callable[[Any], str]]:
    """``serve(fake)`` starts a loopback fake model (``tests.fake_openai.FakeOpenAI``) on a free port and
    returns its ``/v1`` base URL; every server started is stopped after the test."""
    from tests.helpers import live_server

    stack: list[Any] = []

    def start(fake: Any) -> str:
        cm = live_server(fake.app)
        url = cm.__enter__()
        stack.append(cm)
        return f"{url}/v1"

    yield start
    for cm in reversed(stack):
        cm.__exit__(None, None, None)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(_env_file=None, data_dir=tmp_path / "data")


@pytest.fixture
async def app(settings: Settings) -> AsyncIterator[FastAPI]:
    from vent_agent.app import create_app

    application = create_app(settings)
    async with application.router.lifespan_context(application):
        yield application


@pytest.fixture
async def client(app) -> AsyncIterator[httpx.AsyncClient]:
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


def _parse(pdf: Path) -> Plan:
    """The plan of the sample ``pdf``, extracted and parsed."""
    from vent_agent.documents.pdf_text import extract_pdf
    from vent_agent.documents.plan.parser import parse_plan

    return parse_plan(extract_pdf(pdf, max_pages=50))


@pytest.fixture(scope="session")
def plan_a() -> Plan:
    """plan a parsed once per session; tests that change it work on ``model_copy(deep=True)``."""
    return _parse(DATA / "plan-2026-08-a.pdf")


@pytest.fixture(scope="session")
def plan_b() -> Plan:
    """plan b parsed once per session; tests that change it work on ``model_copy(deep=True)``."""
    return _parse(DATA / "plan-2026-08-b.pdf")


@pytest.fixture(scope="session")
def scanned_b_pdf() -> Path:
    """plan b printed and scanned (200 dpi, skewed, noisy, no text layer), a copy of the shared sample."""
    path = DATA / "plan-2026-08-b-scanned.pdf"
    assert path.is_file(), f"the scanned sample is missing: {path}"
    return path


@pytest.fixture(scope="session")
def scanned_b_cache(scanned_b_pdf: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The scanned sample OCR'd once per test session with the default engine (RapidOCR), through the
    review pipeline's own extraction, into a session cache directory; returns that directory. Tests
    copy its files into their own cache directory with ``seed_scanned_cache``."""
    import asyncio

    from vent_agent.documents.upload import sha256_file
    from vent_agent.review.service.pipeline import ReviewRequest, load_extracted

    data_dir = tmp_path_factory.mktemp("scanned-cache")
    settings = Settings(_env_file=None, data_dir=data_dir)
    req = ReviewRequest(scanned_b_pdf, sha256_file(scanned_b_pdf), scanned_b_pdf.name)

    async def no_events(_event: object) -> None:
        return None

    asyncio.run(load_extracted(req, settings, no_events))
    return settings.cache_dir


@pytest.fixture(scope="session")
def scanned_b_extracted(scanned_b_cache: Path):
    """The OCR'd scanned sample as an ``ExtractedPdf``."""
    from vent_agent.documents.pdf_text import ExtractedPdf

    (path,) = scanned_b_cache.glob("*.extract.json")
    return ExtractedPdf.model_validate_json(path.read_text(encoding="utf-8"))


@pytest.fixture
def seed_scanned_cache(scanned_b_cache: Path):
    """``seed(cache_dir)`` copies the session's OCR of the scanned sample into ``cache_dir``."""
    import shutil

    def seed(cache_dir: Path) -> None:
        cache_dir.mkdir(parents=True, exist_ok=True)
        for path in scanned_b_cache.glob("*.extract.json"):
            shutil.copy(path, cache_dir / path.name)

    return seed


def pytest_collection_finish(session: pytest.Session) -> None:
    """Move what start-up and collection built (modules, plugins, test items: about half a million
    objects, alive until the end) out of the garbage collector's reach (``gc.freeze``): the full
    collection a review runs after each plan (``release_memory``) and the collector's own full passes
    then walk only what the tests create, not the whole test process."""
    from vent_agent.observability.memory import freeze_startup_heap

    gc.collect()
    freeze_startup_heap()  # nests: an app's shutdown in a test then leaves this freeze in place
