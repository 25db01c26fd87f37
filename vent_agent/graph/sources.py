"""Source nodes, one per thing cited, with ids shared by every run that cites it: an article of
《煤矿安全规程》 (by edition), a standard (AQ 1056-2008…), a reference document of a mine and month
(瓦斯等级鉴定报告…, served by the reference-data MCP tools), or another named document."""

from __future__ import annotations

import re

from vent_agent.graph.model import Node
from vent_agent.kb.citations import KNOWN_STANDARDS
from vent_agent.kb.numerals import find_article_refs
from vent_agent.mcp.schemas import TOOL_LABELS as REFERENCE_TOOLS

REGULATION = "《煤矿安全规程》"
REFERENCE_DOCS = {tool: label.removeprefix("查询") for tool, label in REFERENCE_TOOLS.items()}
"""Reference-data MCP tool → the document it serves (瓦斯等级鉴定报告, 测风报表…)."""
_STANDARD = re.compile(r"(?:AQ|GB|MT)(?:/T)?\s*\d+(?:\.\d+)?\s*[-—–]\s*(?:19|20)\d{2}")


def article_source(article: int, edition: str) -> Node:
    """The Source node of article ``article`` of 《煤矿安全规程》 of ``edition`` (``"2025"``)."""
    return Node(
        id=f"src:rule:{edition}:{article}",
        kind="Source",
        label=f"{REGULATION}（{edition}版）第{article}条",
        props={"source_kind": "article", "article": article, "edition": edition},
    )


def standard_source(code: str) -> Node:
    """The Source node of a standard by its code (``AQ 1056-2008``), titled when known."""
    code = re.sub(r"\s*[-—–]\s*", "-", re.sub(r"^([A-Z/]+)\s*", r"\1 ", code.strip()))
    return Node(
        id=f"src:std:{code}",
        kind="Source",
        label=f"{code}{KNOWN_STANDARDS.get(code, '')}",
        props={"source_kind": "standard", "code": code},
    )


def reference_source(tool: str, mine: str | None, month: str | None) -> Node:
    """The Source node of the reference document ``tool`` serves for ``mine`` and ``month``
    (``瓦斯等级鉴定报告（示范煤矿 2026-08）``)."""
    doc = REFERENCE_DOCS.get(tool, tool)
    return Node(
        id=f"src:ref:{doc}:{mine or '-'}:{month or '-'}",
        kind="Source",
        label=f"{doc}（{mine or '未知矿井'} {month or '未知月份'}）",
        props={"source_kind": "reference", "document": doc, "tool": tool, "mine": mine, "month": month},
    )


def document_source(name: str) -> Node:
    """The Source node of another named document or requirement (``月度配风计划编制要求``)."""
    name = name.strip()
    return Node(id=f"src:doc:{name}", kind="Source", label=name, props={"source_kind": "document"})


def sources_in(text: str, edition: str, references: dict[str, Node] | None = None) -> list[Node]:
    """The sources a citation text names (``《煤矿安全规程》（2025版）第192条（2016版第173条）；AQ
    1056-2008《…》``): articles (an alias of an older edition written in brackets is not a second
    source), standards, and each ``；``-separated part naming neither as a document, or as the reference
    document of ``references`` (document name → its Source node of the run) when it is one."""
    found: dict[str, Node] = {}
    for part in re.split(r"[；;]", text):
        part = part.strip()
        if not part:
            continue
        named = False
        refs = find_article_refs(part)
        if refs and REGULATION in part:
            ref = refs[0]
            for number in ref.numbers:
                node = article_source(number, ref.edition or edition)
                found[node.id] = node
            named = True
        for m in _STANDARD.finditer(part):
            node = standard_source(m.group(0))
            found[node.id] = node
            named = True
        if not named:
            ref_node = next((n for doc, n in (references or {}).items() if doc in part), None)
            node = ref_node or document_source(part)
            found[node.id] = node
    return list(found.values())
