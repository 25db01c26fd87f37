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
"""

from __future__ import annotations

import re

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
    ``"page:index"`` of the kept table (0-based index on its page)."""

    copies: list[list[int]] = Field(default_factory=list)
    reviewed: list[int] = Field(default_factory=list)
    same_as: dict[int, int] = Field(default_factory=dict)
    tables_same_as: dict[str, str] = Field(default_factory=dict)

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


def find_repeats(extracted: ExtractedPdf) -> RepeatedContent | None:
    """The repeated content of ``extracted`` (see the module docstring); None when nothing repeats."""
    classes, short = _page_classes(extracted)
    sizes: dict[int, int] = {}
    for c in classes.values():
        sizes[c] = sizes.get(c, 0) + 1
    repeated = {c for c, n in sizes.items() if n > 1}
    runs: list[list[int]] = [[]]
    seen: set[int] = set()
    for page in extracted.pages:
        c = classes.get(page.page)
        if c in repeated and c in seen:
            runs.append([])
            seen = set()
        runs[-1].append(page.page)
        if c is not None:
            seen.add(c)
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
    reviewed = sorted(keep_all - set(same_as))
    order = [best, *(i for i in range(len(runs)) if i != best)]
    copied = set(same_as) | set(same_as.values())
    copies = [cp for i in order if (cp := [p for p in runs[i] if classes.get(p) in repeated or p in copied])]
    return RepeatedContent(
        copies=copies,
        reviewed=reviewed,
        same_as=same_as,
        tables_same_as=_repeated_tables(extracted, set(reviewed)),
    )
