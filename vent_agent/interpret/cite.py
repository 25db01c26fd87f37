"""What an interpretation may cite: only articles of 《煤矿安全规程》 the knowledge base holds.

A limit whose provision the knowledge base lacks (a threshold table citing an article no regulation file
holds) keeps its figure and its action, but its source is said without an article number
(``《煤矿安全规程》（2016版）相关条款（知识库未收录原文）``), so that every 第N条 of the text can be checked
against the knowledge base and listed in the ``references`` event. The provisions of the 2016 edition the
renumbered text lacks and the thresholds cite (第172条 main-return CH₄, 第655条 heat: docs/DOMAIN.md §3) are
shipped as excerpts (``vent_agent/data/regulations/SOURCE.md``), so they are cited with their number and
quoted as the other limits are.
"""

from __future__ import annotations

from vent_agent.kb.numerals import find_article_refs
from vent_agent.kb.search import KnowledgeBase

NOT_IN_KB = "相关条款（知识库未收录原文）"


def in_kb(label: str, kb: KnowledgeBase) -> bool:
    """True when every ``第N条`` of ``label`` (with the edition written before it) resolves in ``kb``;
    True for a label with no article number."""
    return all(
        kb.resolve(n, ref.edition) is not None for ref in find_article_refs(label) for n in ref.numbers
    )


def kb_label(label: str | None, kb: KnowledgeBase) -> str | None:
    """``label`` when the knowledge base holds its articles, else the label without its article
    numbers and with :data:`NOT_IN_KB` (``《煤矿安全规程》（2016版）第655条`` →
    ``《煤矿安全规程》（2016版）相关条款（知识库未收录原文）``); None stays None."""
    if label is None or in_kb(label, kb):
        return label
    refs = find_article_refs(label)
    head = label[: refs[0].start].rstrip() if refs else label
    return f"{head}{NOT_IN_KB}"
