"""What one plan review produces: each reviewer's outcome, all findings, each location's recomputation,
and the reviewers' model-written remarks.

Rendered to Markdown and Word by :mod:`reports`; serialised as JSON by ``vent-agent review --json``.
Rule findings and model remarks are kept apart: the counts and the verdict come from rule findings only
(docs/DESIGN.md: rules decide, the model writes).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from calc.result import MaxResult
from vent_agent.documents.quality import PageRead
from vent_agent.documents.repeats import RepeatedContent
from vent_agent.review.findings import CATEGORY_ORDER, SEVERITY_ORDER, Finding
from vent_agent.review.judgement.plausibility import Coverage

REVIEWERS: dict[str, str] = {
    "form-reviewer": "基本形式审查",
    "data-checker": "数据一致性审查",
    "calc-verifier": "计算核验审查",
}


class LocationRecalc(BaseModel):
    """One location's recomputation by calc/: every method, the maximum, the bound checks, against what
    the plan states (m³/min). A coefficient outside its range is never inherited (``adjustments``)."""

    location: str
    kind: str
    result: MaxResult | None = None
    stated_required: float | None = None
    allocated: float | None = None
    page: int | None = None
    note: str = ""
    adjustments: list[dict[str, Any]] = Field(default_factory=list)
    """Plan coefficients outside their range replaced by the nearest compliant value in ``result``
    (:class:`vent_agent.review.judgement.recompute.Adjustment` as dicts: symbol, given, compliant, default, low,
    high, q_compliant, q_default); ``result`` is the compliant recomputation."""
    reference_inputs: list[dict[str, Any]] = Field(default_factory=list)
    """Plan inputs contradicted by reference data, replaced by the reference figure in ``result``
    (:class:`vent_agent.review.checks.reference_inputs.ReferenceInput` as dicts: name, label, symbol, given,
    reference, unit, source)."""


class Remark(Finding):
    """A language-and-logic remark written by a chat model for one reviewer (``origin="model"``).

    Shaped like a finding (location, category, severity, message, figures, page) but never one of the
    rule findings: it is listed in its own section, not counted in the summary and never changes the
    verdict. ``severity`` is at most minor (see :mod:`vent_agent.review.outputs.remarks`); ``verified`` is False
    when a figure, location or page it cites was not found in the plan or in the rule findings (it is
    then kept as info); ``basis`` is the clause or requirement the model names (not checked against the
    knowledge base); ``note`` says what the review changed in the model's answer.
    """

    origin: Literal["model"] = "model"
    verified: bool = True
    basis: str | None = None
    note: str = ""


class ReviewerOutcome(BaseModel):
    """One reviewer's result: its rule findings, its model remarks (optional) or its error.

    ``remarks_model`` is the model that was asked for remarks (None: no model configured, or the
    reviewer failed before); ``remarks_note`` says why there are no remarks when a model was asked
    (time-out, malformed answer, error).
    """

    agent: str
    findings: list[Finding] = Field(default_factory=list)
    remarks: list[Remark] = Field(default_factory=list)
    remarks_model: str | None = None
    remarks_note: str | None = None
    error: str | None = None
    duration_ms: int = 0

    @property
    def cn_name(self) -> str:
        return REVIEWERS.get(self.agent, self.agent)


class ReviewResult(BaseModel):
    """The whole review of one plan. ``edition`` is the 《煤矿安全规程》 edition the review used."""

    file_name: str
    sha256: str
    title: str = ""
    mine: str | None = None
    month: str | None = None
    edition: str = "2025"
    created_at: str
    page_count: int = 0
    reviewers: list[ReviewerOutcome] = Field(default_factory=list)
    recalcs: list[LocationRecalc] = Field(default_factory=list)
    plan_warnings: list[str] = Field(default_factory=list)
    pages_read: list[PageRead] = Field(default_factory=list)
    """How each page was read: text layer or OCR and why, layer score, normalisation counts."""
    repeats: RepeatedContent | None = None
    """Copies of the plan found in the PDF (the plan was reviewed once); None when none."""
    extraction_cache: str | None = None
    """The cached extraction (pages, tables) the plan was parsed from; provenance checks cells in it."""
    reference_source: str | None = None
    reference_status: str | None = None
    reference_calls: list[dict[str, Any]] = Field(default_factory=list)
    """Every reference-data (MCP) call of the data-checker: tool, inputs, output or error, duration."""
    coverage: Coverage | None = None
    """What the review could read: locations found, figures read and not read (docs/DOMAIN.md §5)."""

    @property
    def findings(self) -> list[Finding]:
        """Every reviewer's rule findings, most severe first, then by page (model remarks excluded)."""
        all_findings = [f for r in self.reviewers for f in r.findings]
        return sorted(all_findings, key=lambda f: (SEVERITY_ORDER[f.severity], f.page or 0))

    @property
    def remarks(self) -> list[Remark]:
        """Every reviewer's model remarks, in the reviewers' order, each reviewer's in the model's order."""
        order = {agent: i for i, agent in enumerate(REVIEWERS)}
        outcomes = sorted(self.reviewers, key=lambda r: (order.get(r.agent, len(order)), r.agent))
        return [m for r in outcomes for m in r.remarks]

    def counts(self) -> dict[str, int]:
        """Number of rule findings per severity (model remarks are not counted)."""
        out = {s.value: 0 for s in SEVERITY_ORDER}
        for f in self.findings:
            out[f.severity.value] += 1
        return out


def sorted_findings(result: ReviewResult) -> list[Finding]:
    """All rule findings, most severe first, then by page, location, category and text: an order that
    does not depend on which reviewer finished first (the report's findings table and the provenance
    record number findings in it)."""
    return sorted(
        result.findings,
        key=lambda f: (
            SEVERITY_ORDER[f.severity],
            f.page or 0,
            f.location or "",
            CATEGORY_ORDER[f.category],
            f.message,
        ),
    )
