"""The review's shared vocabulary: a finding, its category and severity (docs/DESIGN.md, docs/DOMAIN.md §5)."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field


class Category(StrEnum):
    """What kind of fault a finding is about."""

    FORM = "form"
    DATA = "data"
    CALCULATION = "calculation"
    UNITS = "units"
    REGULATION = "regulation"


class Severity(StrEnum):
    """docs/DOMAIN.md §5: critical (a limit is reached now), major (plan not in effect or a safety margin
    broken), minor (a slip that does not change the governing value), info (a remark)."""

    CRITICAL = "critical"
    MAJOR = "major"
    MINOR = "minor"
    INFO = "info"


SEVERITY_ORDER = {Severity.CRITICAL: 0, Severity.MAJOR: 1, Severity.MINOR: 2, Severity.INFO: 3}
CATEGORY_ORDER = {c: i for i, c in enumerate(Category)}
"""The report's order of categories: form, data, calculation, units, regulation."""


class Evidence(BaseModel):
    """Where a compared figure came from: the PDF (page, table, row, column and the text read), a
    reference record (MCP tool and key), a calculator call, or a regulation clause."""

    kind: str  # "pdf" | "reference" | "calc" | "clause"
    page: int | None = None
    table: int | None = None
    row: int | None = None
    column: str | None = None
    text: str | None = None
    detail: dict[str, Any] = Field(default_factory=dict)


class Consequence(BaseModel):
    """A consequence of a finding's root fault (a lower maximum, an allocation short of it, a standby
    face or the mine total following): what rule it breaks, its severity on its own, the message and the
    figures compared, and where in the PDF the figure was read."""

    rule_id: str
    location: str | None = None
    severity: Severity
    message: str
    figures: dict[str, float | str | None] = Field(default_factory=dict)
    page: int | None = None


GENERAL_LOCATION = "计划整体"
"""How a finding without a location (about the plan as a whole) is shown: report, API, CLI, prompts."""


class Finding(BaseModel):
    """One review finding.

    ``figures`` holds the figures compared (e.g. ``{"stated": 114.0, "recomputed": 144.0}``, units in
    the keys' companion ``unit``); ``rule`` says what was checked and ``source`` the clause or standard
    it rests on; ``page`` is the PDF page (1-based) the main figure was read from. ``rule_id`` is the
    rule's id in :data:`vent_agent.review.rules.RULES`; ``consequences`` lists what the root fault leads
    to (docs/DOMAIN.md §5: one finding per root fault, at the severity of the worst of it and its consequences).
    """

    location: str | None
    category: Category
    severity: Severity
    message: str
    figures: dict[str, float | str | None] = Field(default_factory=dict)
    unit: str | None = None
    rule: str
    source: str
    page: int | None = None
    reviewer: str = "calc-verifier"
    evidence: list[Evidence] = Field(default_factory=list)
    rule_id: str | None = None
    consequences: list[Consequence] = Field(default_factory=list)
