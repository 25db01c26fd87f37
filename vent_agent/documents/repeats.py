"""Repeated content: a PDF that carries the plan (or its tables) more than once is read once.

Plans are often bound with appendices and earlier copies: the same pages twelve times, or the allocation
table again in an appendix. Read as one text, every location and figure would be read once per copy and
every finding given once per copy. :func:`find_repeats` recognises the copies on the extracted pages,
before parsing; :meth:`RepeatedContent.reviewed` gives the extraction with one copy only.

How pages are compared: each page's cleaned text, folded for parsing, one entry per non-blank line with
its whitespace removed; two pages hold the same content when their line sets share at least
:data:`SAME_PAGE` of the larger set's lines (a page number, a stamp or a date that differs between copies
does not make a copy new). A short page (fewer than :data:`MIN_LINES` lines or :data:`MIN_CHARS`
characters: a sign-off box, a divider) is never what makes a copy: it goes with the copy it stands in,
and is dropped with it when the reviewed copy has a page of exactly the same lines.

Copies: the pages in order are cut into runs, a new run starting at a page whose content already
occurred in the current run. The run holding the most distinct contents is the copy reviewed (the most
complete copy; the first of equals); from the other runs, a page whose content is in the reviewed
copy (or was already kept) is dropped, anything else (an appendix, a page only one copy has) is kept.
A ruled table on a kept page whose cells equal those of a table already kept is dropped too.

Copies that differ: when a dropped page's lines are not those of the kept page it matched (beyond page
numbers), the copies are different versions of the plan (a draft bound with the final one, two months'
plans). Mixing them would review one version's calculations against another's tables, so then only the
reviewed copy's run is read (every other run left out whole) and ``differing`` names the pages that
differ: the review says the effective version is unclear instead of guessing.
"""

from __future__ import annotations

import re
from collections import Counter

from pydantic import BaseModel, Field

from vent_agent.documents.normalize import fold
from vent_agent.documents.pdf_text import ExtractedPdf, ExtractedTable

SAME_PAGE = 0.8
"""Share of common lines for two pages to hold the same content."""
MIN_LINES = 3
MIN_CHARS = 40
MIN_TABLE_CELLS = 4
"""A table with fewer filled cells is not compared (a one-row label box repeats legitimately)."""
_WS = re.compile(r"\s+")


class RepeatedContent(BaseModel):
    """The copies found in one PDF (1-based pages).

    ``copies``: each copy's pages that repeat content of another copy, in document order, the copy
    reviewed first; ``reviewed``: the pages kept for reading; ``same_as``: each dropped page → the kept
    page with its content; ``tables_same_as``: ``"page:index"`` of each dropped table on a kept page →
    ``"page:index"`` of the kept table (0-based index on its page); ``differing``: see the module
    docstring."""

    copies: list[list[int]] = Field(default_factory=list)
    reviewed: list[int] = Field(default_factory=list)
    same_as: dict[int, int] = Field(default_factory=dict)
    tables_same_as: dict[str, str] = Field(default_factory=dict)
    differing: dict[int, int] = Field(default_factory=dict)
    """Each page of another copy whose content differs from the reviewed copy's → that page."""

    def copies_of(self, page: int) -> list[int]:
        """The other pages holding the content of kept ``page`` (empty when it has none)."""
        return sorted(p for p, kept in self.same_as.items() if kept == page)

    def reviewed_extraction(self, extracted: ExtractedPdf) -> ExtractedPdf:
        """``extracted`` with the dropped pages and tables left out (page numbers unchanged)."""
        keep = set(self.reviewed)
        tables = [
            t for t in extracted.tables if t.page in keep and f"{t.page}:{t.index}" not in self.tables_same_as
        ]
        return extracted.model_copy(
            update={
                "pages": [p for p in extracted.pages if p.page in keep],
                "tables": tables,
                "pages_without_text": [n for n in extracted.pages_without_text if n in keep],
            }
        )


def _lines(text: str) -> frozenset[str]:
    return frozenset(x for line in fold(text).splitlines() if (x := _WS.sub("", line)))


_PAGE_NUMBER = re.compile(r"^(第?\d+页?(共\d+页)?|-?\d+-?|\d+/\d+|page\d+(of\d+)?)$", re.IGNORECASE)


def _differs(a: frozenset[str], b: frozenset[str]) -> bool:
    """True when two pages matched as the same content differ in a line other than a page number."""
    return any(not _PAGE_NUMBER.match(line) for line in a ^ b)


def _similar(a: frozenset[str], b: frozenset[str]) -> bool:
    return len(a & b) >= SAME_PAGE * max(len(a), len(b))


def _page_classes(extracted: ExtractedPdf) -> tuple[dict[int, int], dict[int, frozenset[str]]]:
    """Page → content class (the first page of that content), and the short pages' line sets (left out
    of the classes)."""
    reps: list[tuple[int, frozenset[str]]] = []
    exact: dict[frozenset[str], int] = {}
    classes: dict[int, int] = {}
    short: dict[int, frozenset[str]] = {}
    for page in extracted.pages:
        lines = _lines(page.text)
        if len(lines) < MIN_LINES or sum(map(len, lines)) < MIN_CHARS:
            if lines:
                short[page.page] = lines
            continue
        hit = exact.get(lines)
        if hit is None:
            hit = next((rep for rep, rep_lines in reps if _similar(lines, rep_lines)), None)
        if hit is None:
            reps.append((page.page, lines))
            exact[lines] = page.page
            hit = page.page
        classes[page.page] = hit
    return classes, short


def _table_key(table: ExtractedTable) -> tuple[str, ...] | None:
    cells = tuple(_WS.sub("", fold(c.text or "")) for c in sorted(table.cells, key=lambda c: (c.row, c.col)))
    return cells if sum(1 for c in cells if c) >= MIN_TABLE_CELLS else None


def _repeated_tables(extracted: ExtractedPdf, keep: set[int]) -> dict[str, str]:
    seen: dict[tuple[str, ...], str] = {}
    dropped: dict[str, str] = {}
    for table in extracted.tables:
        if table.page not in keep or (key := _table_key(table)) is None:
            continue
        name = f"{table.page}:{table.index}"
        if key in seen and not seen[key].startswith(f"{table.page}:"):
            dropped[name] = seen[key]
        else:
            seen.setdefault(key, name)
    return dropped


def _lead_pages(run: list[int], first_at: int, classes: dict[int, int], repeated: set[int]) -> list[int]:
    """Move to a new copy the pages at the end of ``run`` that stand before its first repeated page:
    the copy whose repeated page sits at ``first_at`` in ``run`` had that many pages before it (a cover,
    a contents page), and so has the next copy. Only pages of no repeated content move (a page the
    current copy shares with others stays in it). Returns the moved pages, removed from ``run``."""
    moved: list[int] = []
    for p in reversed(run[first_at + 1 :]):
        if len(moved) == first_at or classes.get(p) in repeated:
            break
        moved.insert(0, p)
    del run[len(run) - len(moved) :]
    return moved


def find_repeats(extracted: ExtractedPdf) -> RepeatedContent | None:
    """The repeated content of ``extracted`` (see the module docstring); None when nothing repeats."""
    classes, short = _page_classes(extracted)
    sizes = Counter(classes.values())
    repeated = {c for c, n in sizes.items() if n > 1}
    runs: list[list[int]] = [[]]
    seen: dict[int, int] = {}  # class → its page in the current run
    for page in extracted.pages:
        c = classes.get(page.page)
        if c in repeated and c in seen:
            runs.append(_lead_pages(runs[-1], runs[-1].index(seen[c]), classes, repeated))
            seen = {classes[p]: p for p in runs[-1] if p in classes}
        runs[-1].append(page.page)
        if c is not None:
            seen.setdefault(c, page.page)
    keep_all = {p.page for p in extracted.pages}
    if not repeated:
        dropped_tables = _repeated_tables(extracted, keep_all)
        return (
            RepeatedContent(reviewed=sorted(keep_all), tables_same_as=dropped_tables)
            if dropped_tables
            else None
        )

    def score(run: list[int]) -> int:  # the most complete copy: the most distinct contents
        return len({classes[p] for p in run if p in classes})

    best = max(range(len(runs)), key=lambda i: (score(runs[i]), -i))
    kept_of_class = {classes[p]: p for p in runs[best] if p in classes}
    kept_short = {short[p]: p for p in runs[best] if p in short}
    same_as: dict[int, int] = {}
    for i, run in enumerate(runs):
        if i == best:
            continue
        for p in run:
            c = classes.get(p)
            if c is None:
                if p in short and short[p] in kept_short:
                    same_as[p] = kept_short[short[p]]
            elif c in kept_of_class:
                same_as[p] = kept_of_class[c]
            else:
                kept_of_class[c] = p
    lines = {page.page: _lines(page.text) for page in extracted.pages}
    differing = {p: k for p, k in same_as.items() if _differs(lines[p], lines[k])}
    # different versions: read the reviewed copy alone, never a mixture of versions
    dropped = {p for i, run in enumerate(runs) if i != best for p in run} if differing else set(same_as)
    reviewed = sorted(keep_all - dropped)
    order = [best, *(i for i in range(len(runs)) if i != best)]
    copied = set(same_as) | set(same_as.values())
    copies = [cp for i in order if (cp := [p for p in runs[i] if classes.get(p) in repeated or p in copied])]
    return RepeatedContent(
        copies=copies,
        reviewed=reviewed,
        same_as={} if differing else same_as,  # another version's page is no copy of a finding's place
        tables_same_as=_repeated_tables(extracted, set(reviewed)),
        differing=differing,
    )
