"""Helpers shared by the deterministic reviewers: building findings with their evidence, the edition of
《煤矿安全规程》 a plan cites, and regulation source labels from :mod:`vent_agent.kb.thresholds`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from calc.symbols import notate
from vent_agent.documents.plan.model import Citation, LocationPlan, Plan, SourceRef
from vent_agent.documents.plan.text_primitives import match_name
from vent_agent.kb.aliases import ArticleAliases
from vent_agent.kb.thresholds import Threshold
from vent_agent.review.findings import Consequence, Evidence, Finding, Severity
from vent_agent.review.rules import DEFAULT_EDITION, cite_article, rule


def pdf_evidence(ref: SourceRef | None, what: str | None = None) -> Evidence | None:
    """Evidence for a figure read from the PDF (page, table, row, column, text as read)."""
    if ref is None:
        return None
    detail: dict[str, Any] = {"what": what} if what else {}
    if ref.cell_row is not None:
        detail["cell_row"] = ref.cell_row  # the physical table row, for tracing (``row`` is the plan's)
    detail["confidence"] = ref.confidence
    return Evidence(
        kind="pdf",
        page=ref.page,
        table=ref.table,
        row=ref.row,
        column=ref.column,
        text=ref.text,
        detail=detail,
    )


def reference_evidence(tool: str, mine: str, month: str, key: str | None, text: str) -> Evidence:
    """Evidence for a figure from reference data (the MCP tool that serves it, mine, month, key)."""
    return Evidence(
        kind="reference", text=text, detail={"tool": tool, "mine": mine, "month": month, "key": key}
    )


def clause_evidence(t: Threshold) -> Evidence:
    """Evidence for the regulation clause a threshold rests on."""
    return Evidence(
        kind="clause",
        text=t.clause or t.action,
        detail={
            "key": t.key,
            "edition": t.edition,
            "article": t.article,
            "limit": t.limit,
            "op": t.breach_op,
        },
    )


def threshold_source(t: Threshold) -> str:
    """``《煤矿安全规程》（2025版）第192条（2016版第173条）`` (the one format, :func:`cite_article`); a
    provision only the other edition numbers is cited in that edition alone."""
    if t.article is not None:
        return cite_article(t.article, t.edition, numbered_in=t.edition)
    return t.article_label()


@dataclass(frozen=True)
class Where:
    """The location being checked: its name (None: the plan as a whole), its kind (the kind picks the
    rule's clauses) and the edition of 《煤矿安全规程》 to cite."""

    name: str | None
    kind: str | None
    edition: str


def finding(
    rule_id: str,
    location: str | Where | None,
    message: str,
    *,
    severity: Severity | None = None,
    kind: str | None = None,
    edition: str = DEFAULT_EDITION,
    source: str | None = None,
    reviewer: str | None = None,
    figures: dict[str, Any] | None = None,
    unit: str | None = None,
    ref: SourceRef | None = None,
    page: int | None = None,
    evidence: Sequence[Evidence | None] | None = None,
    consequences: list[Consequence] | None = None,
) -> Finding:
    """The one finding builder of the review: a finding of catalogue rule ``rule_id``.

    The rule's title, category, reviewer and default severity come from
    :data:`vent_agent.review.rules.RULES`; ``source`` defaults to the rule's clauses for the location
    ``kind`` cited in ``edition`` (pass it only for a clause more precise than the rule's, e.g. a
    threshold's). A formula symbol the ``message`` quotes as the plan spells it (``Qf``) is written the
    calculators' way (``Q_f``, :func:`calc.symbols.notate`), so every renderer sets its subscript. ``location`` is the location's name (None: the plan as a whole) or a :class:`Where`,
    whose kind and edition then stand for ``kind`` and ``edition``. ``ref`` (the main figure's place in
    the PDF) gives the page and the first evidence. Raises KeyError for an id not in the catalogue and
    ValueError for a major or critical finding of a rule the catalogue says never is
    (:attr:`~vent_agent.review.rules.Rule.can_be_serious`: such a finding would have no effect to show).
    Example::

        finding("form.unreadable_figure", "15216综采工作面", "采高无法可靠读取，未作核算", page=4)
    """
    r = rule(rule_id)
    if severity in (Severity.CRITICAL, Severity.MAJOR) and not r.can_be_serious:
        raise ValueError(f"rule {rule_id} is never {severity.value} in the catalogue")
    if isinstance(location, Where):
        kind, edition, location = location.kind, location.edition, location.name
    ev = [e for e in [pdf_evidence(ref), *(evidence or [])] if e is not None]
    return Finding(
        location=location,
        category=r.category,
        severity=severity or r.severity,
        message=notate(message),
        figures=dict(figures or {}),
        unit=unit,
        rule=r.title,
        source=source or r.source(kind, edition),
        page=page if page is not None else (ref.page if ref else None),
        reviewer=reviewer or r.reviewer,
        evidence=ev,
        rule_id=rule_id,
        consequences=list(consequences or []),
    )


def edition_family(year: str | None) -> str | None:
    """The numbering a cited edition year uses: 2016 (2016 edition, 2022 amendment) or 2025."""
    if not year or not year.isdigit():
        return None
    y = int(year)
    if 2016 <= y < 2025:
        return "2016"
    return "2025" if y >= 2025 else None


ARTICLE_TOPICS: dict[int, tuple[str, ...]] = {
    156: ("氧气", "一氧化碳", "有害气体", "空气成分"),
    157: ("风速",),
    158: ("进风井口", "空气温度", "进风温度"),
    159: ("人数", "每人", "人员", "千瓦", "功率", "胶轮车"),
    161: ("测风",),
    169: ("串联",),
    177: ("主要通风机", "备用通风机"),
    178: ("反风",),
    182: ("局部通风机", "局扇"),
    183: ("局部通风机", "局扇", "风电闭锁"),
    184: ("局部通风机", "局扇"),
    192: ("回风流",),
    194: ("二氧化碳",),
    197: ("恢复通风", "排放瓦斯"),
}
"""What an article of the ventilation chapter is about (renumbered 2025 edition, docs/DOMAIN.md §3), as
the words a plan writes beside it: to tell which edition a number in both ranges (156–176) belongs to."""


def article_family(article: int | None, context: str = "") -> str | None:
    """The edition an article number of the ventilation chapter belongs to (2016: 135–176, 2025:
    156–197). A number in both ranges is told by what it is cited for (``context``, the words before
    it): the edition whose article of that number is about those words (``风速验算…第157条`` is the 2025
    edition's 表6; 2016's 157 is another provision), None when neither or both fit."""
    if article is None:
        return None
    if 135 <= article < 156:
        return "2016"
    if 176 < article <= 197:
        return "2025"
    if not context or not 156 <= article <= 176:
        return None
    as_2016 = ArticleAliases.load().map(article, "2016", "2025")
    fits = {
        fam
        for fam, number in (("2025", article), ("2016", as_2016))
        if number is not None and any(word in context for word in ARTICLE_TOPICS.get(number, ()))
    }
    return fits.pop() if len(fits) == 1 else None


def cited_families(citations: list[Citation]) -> dict[str, list[Citation]]:
    """Edition family → the 规程 citations that show it (by edition year, or by article number and
    what it is cited for)."""
    out: dict[str, list[Citation]] = {}
    for c in citations:
        if c.document != "煤矿安全规程":
            continue
        fam = edition_family(c.edition) or article_family(c.article, c.context)
        if fam:
            out.setdefault(fam, []).append(c)
    return out


def plan_edition(plan: Plan, default: str = DEFAULT_EDITION) -> str:
    """The edition to cite for this plan: the one it cites when exactly one, else ``default``."""
    fams = cited_families(plan.citations)
    return next(iter(fams)) if len(fams) == 1 else default


def fmt(x: float | None) -> str:
    """A figure for a message: ``630.0`` → ``630``, ``1.05`` → ``1.05``; None → ``—``."""
    return "—" if x is None else f"{x:g}"


def plan_location(plan: Plan, name: str) -> LocationPlan | None:
    """The plan's calculation block naming the same location as ``name`` (see ``match_name``)."""
    hit = match_name(name, [loc.name for loc in plan.locations])
    return plan.location(hit) if hit else None


def plan_names(plan: Plan) -> list[str]:
    """Every location the plan names: the location list first, then calculation blocks and allocation
    rows not already in it (one entry per place, see ``match_name``)."""
    names = list(plan.listed_locations)
    for n in [loc.name for loc in plan.locations] + [r.location for r in plan.allocation]:
        if match_name(n, names) is None:
            names.append(n)
    return names
