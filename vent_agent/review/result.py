"""What one plan review produces: each reviewer's outcome, all findings, each location's recomputation.

Rendered to Markdown and Word by :mod:`reports`; serialised as JSON by ``vent-agent review --json``.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from calc.result import MaxResult
from vent_agent.review.findings import SEVERITY_ORDER, Finding

REVIEWERS: dict[str, str] = {
    "form-reviewer": "基本形式审查",
    "data-checker": "数据一致性审查",
    "calc-verifier": "计算核验审查",
}


class LocationRecalc(BaseModel):
    """One location's recomputation by calc/: every method, the maximum, the bound checks, against what
    the plan states (m³/min)."""

    location: str
    kind: str
    result: MaxResult | None = None
    stated_required: float | None = None
    allocated: float | None = None
    page: int | None = None
    note: str = ""


class ReviewerOutcome(BaseModel):
    """One reviewer's result: its findings, its remarks (model-written, optional), or its error."""

    agent: str
    findings: list[Finding] = Field(default_factory=list)
    remarks: list[str] = Field(default_factory=list)
    error: str | None = None
    duration_ms: int = 0

    @property
    def cn_name(self) -> str:
        return REVIEWERS.get(self.agent, self.agent)


class ReviewResult(BaseModel):
    """The whole review of one plan."""

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

    @property
    def findings(self) -> list[Finding]:
        """Every reviewer's findings, most severe first, then by page."""
        all_findings = [f for r in self.reviewers for f in r.findings]
        return sorted(all_findings, key=lambda f: (SEVERITY_ORDER[f.severity], f.page or 0))

    def counts(self) -> dict[str, int]:
        """Number of findings per severity."""
        out = {s.value: 0 for s in SEVERITY_ORDER}
        for f in self.findings:
            out[f.severity.value] += 1
        return out
