"""One finding per root fault (DOMAIN.md §5): a location's root fault and what follows from it.

A wrong input or method at a location (a coefficient out of range, a method recomputed higher, an
arithmetic slip in the governing method, the maximum not taken) lowers the location's requirement; the
lower requirement leaves the allocation short, a standby face's requirement short (50 % of it) and the
mine total low. Those are consequences, listed under the root finding, which takes the severity of the
worst of them; they are not separate majors.
"""

from __future__ import annotations

from vent_agent.review.findings import SEVERITY_ORDER, Consequence, Finding, Severity

ROOT_ORDER = (
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
