"""One finding per root fault (docs/DOMAIN.md §5): a location's root fault and what follows from it.

A wrong input or method at a location (an input contradicted by reference data, a coefficient out of range, a method recomputed higher, an
arithmetic slip in the governing method, the maximum not taken) lowers the location's requirement; the
lower requirement leaves the allocation short, a standby face's requirement short (50 % of it) and the
mine total low. Those are consequences, listed under the root finding, which takes the severity of the
worst of them; they are not separate majors.
"""

from __future__ import annotations

from vent_agent.review.findings import SEVERITY_ORDER, Consequence, Finding, Severity

ROOT_ORDER = (
    "calc.reference_input",
    "calc.coefficient_range",
    "calc.method_coefficient",
    "calc.arithmetic",
    "calc.max_not_taken",
    "calc.required_low",
    "calc.allocation_short",
)
"""Rules that can be a location's root fault, the most basic first."""
FOLLOWS = frozenset(
    {"calc.max_not_taken", "calc.required_low", "calc.allocation_short", "calc.allocated_speed"}
)
"""Rules that follow from a root fault at the same location (a lower maximum, an allocation short)."""
_SERIOUS = (Severity.CRITICAL, Severity.MAJOR)


def as_consequence(f: Finding) -> Consequence:
    """A finding recast as a consequence of another."""
    return Consequence(
        rule_id=f.rule_id or "",
        location=f.location,
        severity=f.severity,
        message=f.message,
        figures=f.figures,
        page=f.page,
    )


def worst(*severities: Severity) -> Severity:
    """The most severe of ``severities``."""
    return min(severities, key=lambda s: SEVERITY_ORDER[s])


def with_consequences(root: Finding, consequences: list[Consequence]) -> Finding:
    """``root`` with ``consequences`` appended, at the severity of the worst."""
    if not consequences:
        return root
    sev = worst(root.severity, *(c.severity for c in consequences))
    return root.model_copy(update={"consequences": [*root.consequences, *consequences], "severity": sev})


def root_of(findings: list[Finding]) -> Finding | None:
    """The root fault among one location's findings: the most basic serious finding of
    :data:`ROOT_ORDER`, or None."""
    serious = [f for f in findings if f.rule_id in ROOT_ORDER and f.severity in _SERIOUS]
    return min(serious, key=lambda f: ROOT_ORDER.index(f.rule_id or ""), default=None)


def consolidate(findings: list[Finding]) -> list[Finding]:
    """One location's findings with the followers of its root fault folded into it (order kept, the
    root where it stood)."""
    root = root_of(findings)
    if root is None:
        return findings
    followers = [f for f in findings if f is not root and f.rule_id in FOLLOWS]
    folded = with_consequences(root, [as_consequence(f) for f in followers])
    return [folded if f is root else f for f in findings if not any(f is x for x in followers)]


def attach(findings: list[Finding], location: str, consequence: Consequence) -> bool:
    """Append ``consequence`` to the root finding of ``location`` in ``findings`` (in place); False when
    the location has no root finding."""
    here = [f for f in findings if f.location == location]
    root = root_of(here)
    if root is None:
        return False
    i = next(i for i, f in enumerate(findings) if f is root)
    findings[i] = with_consequences(root, [consequence])
    return True


MISMATCH_OF_TOOL = {
    "query_gas_identification_report": "data.gas_emission",
    "query_working_face_procedure": "data.procedure_parameter",
    "query_ventilation_report": "data.climate_speed",
}
"""Reference tool whose figure replaced a plan input → the data-checker's rule for that mismatch."""


def fold_reference_mismatches(reviewers_findings: list[list[Finding]]) -> list[list[Finding]]:
    """One finding per contradicted input across reviewers: where the calc-verifier recomputed a location
    with a reference figure (``calc.reference_input``, which states both figures), the data-checker's
    mismatch finding on that input at that location is listed under it as a consequence instead of
    standing as a second major. ``reviewers_findings``: each reviewer's findings; returns them folded
    (order kept)."""
    roots = [f for fs in reviewers_findings for f in fs if f.rule_id == "calc.reference_input"]
    if not roots:
        return reviewers_findings
    wanted: dict[tuple[str | None, str], int] = {}
    for i, root in enumerate(roots):
        for ev in root.evidence:
            rule_id = MISMATCH_OF_TOOL.get(str(ev.detail.get("tool"))) if ev.kind == "reference" else None
            if rule_id:
                wanted[root.location, rule_id] = i
    folded: dict[int, list[Consequence]] = {}
    out: list[list[Finding]] = []
    for fs in reviewers_findings:
        kept: list[Finding] = []
        for f in fs:
            root_no = wanted.get((f.location, f.rule_id or ""))
            if root_no is None:
                kept.append(f)
            else:
                folded.setdefault(root_no, []).append(as_consequence(f))
        out.append(kept)
    by_id = {id(root): with_consequences(root, folded.get(i, [])) for i, root in enumerate(roots)}
    return [[by_id.get(id(f), f) for f in fs] for fs in out]
