"""Findings about repeated content (:mod:`vent_agent.documents.repeats`): one form finding for a PDF that
carries the plan or its tables more than once, and the copies' pages added to every other finding.

The plan is read and reviewed once (from the most complete copy), so no finding is repeated per copy;
:func:`with_copy_pages` then lists, on each finding, the pages of the other copies where the same content
stands (a ``pdf`` evidence item per copy page: the report's page column shows them all).
"""

from __future__ import annotations

from vent_agent.documents.plan.model import Plan
from vent_agent.documents.repeats import RepeatedContent
from vent_agent.review.findings import Evidence, Finding
from vent_agent.review.rule_common import finding

RULE_ID = "form.repeated_content"
"""The rule's id in the catalogue (:data:`vent_agent.review.rules.RULES`)."""


def page_ranges(pages: list[int]) -> str:
    """``[1, 2, 3, 5]`` → ``1–3、5``."""
    out: list[str] = []
    for p in sorted(set(pages)):
        if out and p == int(out[-1].split("–")[-1]) + 1:
            out[-1] = f"{out[-1].split('–')[0]}–{p}"
        else:
            out.append(str(p))
    return "、".join(out)


def repeated_content_findings(plan: Plan) -> list[Finding]:
    """One finding of rule ``form.repeated_content`` (severity from the catalogue) when the plan's PDF
    carries its content more than once; [] otherwise."""
    rep = plan.repeats
    if rep is None or (len(rep.copies) < 2 and not rep.tables_same_as):
        return []
    if rep.differing:
        return [_conflicting_versions(rep)]
    if len(rep.copies) >= 2:
        where = "；".join(f"第{page_ranges(c)}页" for c in rep.copies)
        message = (
            f"文件中计划内容重复出现 {len(rep.copies)} 次（{where}），已按第{page_ranges(rep.copies[0])}页"
            "审查一次；请确认生效版本，正式文件只保留一份"
        )
        figures: dict[str, float | str | None] = {"copies": len(rep.copies), "copy_pages": where}
        pages = [c[0] for c in rep.copies]
    else:
        tables = sorted(rep.tables_same_as.items())
        where = "；".join(f"第{d.split(':')[0]}页表格与第{k.split(':')[0]}页相同" for d, k in tables)
        message = f"文件中表格重复出现（{where}），已只审查一次"
        figures = {"copies": len(tables) + 1, "copy_pages": where}
        pages = [int(k.split(":")[0]) for _, k in tables[:1]] + [int(d.split(":")[0]) for d, _ in tables]
    return [
        finding(
            RULE_ID,
            None,
            message,
            figures=figures,
            page=pages[0],
            evidence=[Evidence(kind="pdf", page=p) for p in pages[1:]],
        )
    ]


def _conflicting_versions(rep: RepeatedContent) -> Finding:
    """The finding of rule ``form.conflicting_versions``: copies whose contents differ, the one reviewed,
    and the pages that differ from it."""
    where = "；".join(f"第{page_ranges(c)}页" for c in rep.copies)
    pairs = sorted(rep.differing.items())
    shown = "、".join(f"第{p}页与第{k}页" for p, k in pairs[:6]) + ("等" if len(pairs) > 6 else "")
    message = (
        f"文件中含 {len(rep.copies)} 份内容不一致的配风计划（{where}），{shown}内容不同；生效版本不明，"
        f"仅审查了第{page_ranges(rep.reviewed)}页，其余版本未审查。请确认生效版本，正式文件只保留一份"
    )
    pages = sorted({rep.copies[0][0], *rep.differing})
    return finding(
        "form.conflicting_versions",
        None,
        message,
        figures={"copies": len(rep.copies), "copy_pages": where, "differing_pages": len(pairs)},
        page=pages[0],
        evidence=[Evidence(kind="pdf", page=p) for p in pages[1:]],
    )


def with_copy_pages(findings: list[Finding], repeats: RepeatedContent | None) -> list[Finding]:
    """``findings`` with, for each page they cite, the same place on every other copy added as ``pdf``
    evidence (page, table, row, column and text as on the reviewed copy). Findings without a page and
    pages without copies are left as they are."""
    if repeats is None or not repeats.same_as:
        return findings
    out = []
    for f in findings:
        extra: list[Evidence] = []
        cited = [e for e in f.evidence if e.kind == "pdf" and e.page is not None]
        if f.page is not None and not any(e.page == f.page for e in cited):
            cited.insert(0, Evidence(kind="pdf", page=f.page))
        have = {e.page for e in f.evidence if e.kind == "pdf"}
        for ev in cited:
            for copy in repeats.copies_of(ev.page or 0):
                if copy not in have:
                    extra.append(ev.model_copy(update={"page": copy}))
                    have.add(copy)
        out.append(f.model_copy(update={"evidence": [*f.evidence, *extra]}) if extra else f)
    return out
