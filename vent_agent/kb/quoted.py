"""What a citation check reports, as plain models: the reference list's entries and the warnings.

Kept apart from :mod:`vent_agent.kb.citations` (which loads the search index) so that the event
catalogue (:mod:`vent_agent.events`) and the Python client can use them without the knowledge base.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

WarningKind = Literal["unknown_marker", "not_in_kb", "not_retrieved", "figure_mismatch", "alias"]


class CitationWarning(BaseModel):
    """A problem found in a text's citations. ``kind``: ``unknown_marker``, ``not_in_kb``,
    ``not_retrieved`` (citation removed), ``figure_mismatch`` (figure flagged, text kept), ``alias``
    (info: a 2016/2022 number read through the alias table); ``message`` in Chinese; ``citation`` as
    written; ``article``/``edition`` where known; ``figure``/``expected`` for a figure mismatch."""

    kind: WarningKind
    message: str
    citation: str
    article: int | None = None
    edition: str | None = None
    figure: str | None = None
    expected: list[float] = Field(default_factory=list)
    removed: bool = False


class Reference(BaseModel):
    """One entry of the reference list: a 规程 article (``marker``, ``article``, ``edition``, ``label``,
    ``excerpt``, ``in_kb=True``) or a source outside the knowledge base (``label`` = its name,
    ``in_kb=False``, ``note`` says so)."""

    marker: str | None = None
    article: int | None = None
    edition: str | None = None
    label: str
    excerpt: str = ""
    in_kb: bool = True
    aliases: dict[str, int] = Field(default_factory=dict)
    note: str | None = None
