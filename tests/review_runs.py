"""Run the whole review pipeline on a PDF in a test (no HTTP): the findings to compare between inputs."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from vent_agent.documents.ocr import OcrEngine
from vent_agent.documents.upload import sha256_file
from vent_agent.events import EventModel
from vent_agent.review.findings import Finding
from vent_agent.review.reference import default_reference
from vent_agent.review.result import ReviewResult
from vent_agent.review.service.pipeline import ReviewRequest, review_plan
from vent_agent.settings import Settings


class Events:
    """An ``emit`` that keeps every event as (type, wire fields)."""

    def __init__(self) -> None:
        self.items: list[tuple[str, dict[str, Any]]] = []

    async def __call__(self, event: EventModel) -> None:
        fields = event.wire()
        self.items.append((fields.pop("type"), fields))

    def with_field(self, name: str) -> list[dict[str, Any]]:
        return [f for _, f in self.items if name in f]

    def messages(self) -> str:
        return "\n".join(str(f.get("message", "")) for _, f in self.items)


def review_file(
    path: Path, data_dir: Path, *, engine: OcrEngine | None = None, events: Events | None = None
) -> ReviewResult:
    """The review of the PDF at ``path`` (no cache), with the default reference data; ``engine`` replaces
    the configured OCR engine."""
    settings = Settings(_env_file=None, data_dir=data_dir)
    req = ReviewRequest(path, sha256_file(path), path.name, force_refresh=True)
    emit = events if events is not None else Events()
    return asyncio.run(review_plan(req, settings, emit, default_reference(), ocr_engine=engine))


def finding_key(f: Finding) -> tuple[Any, ...]:
    """What a finding says, without where the copies are: location, category, severity, message, figures,
    page."""
    return (f.location, f.category.value, f.severity.value, f.message, sorted(f.figures.items()), f.page)


def finding_keys(findings: list[Finding]) -> list[tuple[Any, ...]]:
    """The findings' keys, sorted (a multiset: a finding given twice is there twice)."""
    return sorted(map(finding_key, findings), key=repr)
