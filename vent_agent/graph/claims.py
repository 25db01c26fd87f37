"""Claims and their evidence: a review's findings from its provenance record, an answer's statements
from its text and checked references. Both add to a run's :class:`~vent_agent.graph.builder.GraphBuilder`.

A finding is a Claim stated in the Word report and produced by its reviewer's Task; its evidence: a PDF
cell (extracted from the plan PDF), a calculator result, a reference record (produced by the reference
tool call, extracted from the month's document, e.g. 瓦斯等级鉴定报告（示范煤矿 2026-08）); it cites the
articles, standards and documents of its clause and ``source``. An answer's claim is a sentence with a
citation or a figure; it cites the articles its markers (``[[R1]]``) or its text (``第192条``) name,
supported by the excerpt the knowledge-base look-ups retrieved.
"""

from __future__ import annotations

import re
from typing import Any

from vent_agent.graph.builder import GraphBuilder
from vent_agent.graph.model import ARTIFACT_PREFIX, Node
from vent_agent.graph.sources import article_source, reference_source, sources_in
from vent_agent.kb.citations import MARKER
from vent_agent.kb.numerals import find_article_refs
from vent_agent.review.findings import Evidence, Finding
from vent_agent.review.outputs.provenance import ProvenanceRecord
from vent_agent.review.outputs.trace_words import method_title, threshold_words, tool_title

MAX_ANSWER_CLAIMS = 40
"""Claims taken from one answer at most (its first sentences with a citation or a figure)."""
ANSWER_KEPT_CHARS = 4000
"""Characters of an answer kept on its Artifact node."""
_SENTENCE = re.compile(r"[^。！？!?\n]+[。！？!?]?")
_KB_TOOL = "query_knowledge_base"


def _plan_artifact(g: GraphBuilder, record: ProvenanceRecord) -> Node:
    return g.node(
        Node(
            id=f"{ARTIFACT_PREFIX}plan:{g.run_id}",
            kind="Artifact",
            label=f"配风计划《{record.file_name}》",
            props={"artifact": "pdf", "sha256": record.sha256, "page_count": record.page_count},
        )
    )


def _reference_records(g: GraphBuilder, record: ProvenanceRecord) -> dict[str, tuple[Node, Node]]:
    """Each reference-data call of the review as Evidence (its record) produced by its ToolCall and
    extracted from the month's document; document name → (Source, Evidence) of its last answered call."""
    out: dict[str, tuple[Node, Node]] = {}
    for i, call in enumerate(record.reference_calls):
        tool = str(call.get("tool") or "")
        args: dict[str, Any] = call.get("arguments") or {}
        source = g.node(
            reference_source(tool, args.get("mine") or record.mine, args.get("month") or record.month)
        )
        ok = not call.get("error")
        evidence = g.node(
            Node(
                id=f"ev:{g.run_id}:ref:{i}",
                kind="Evidence",
                label=f"参考数据记录：{source.label}",
                props={"evidence": "reference", "tool": tool, "ok": ok, "error": call.get("error")},
            )
        )
        tool_call = g.find("ToolCall", tool=tool) or g.node(
            Node(id=f"call:{g.run_id}:ref:{i}", kind="ToolCall", label=tool_title(tool), props={"tool": tool})
        )
        g.edge(tool_call, evidence, "produces")
        g.edge(evidence, source, "extracts")
        if ok or source.props["document"] not in out:
            out[str(source.props["document"])] = (source, evidence)
    return out


def _evidence_node(g: GraphBuilder, claim: Node, k: int, ev: Evidence, clause: str = "") -> Node:
    """The Evidence node of a PDF cell or text, a calculator result, or a clause's threshold record
    (``clause``: the article's label)."""
    where = f"第{ev.page}页" + (
        f" 表{ev.table} 第{ev.row}行 {ev.column or ''}列" if ev.table is not None else ""
    )
    props: dict[str, Any]
    if ev.kind == "pdf":
        label, props = f"PDF {where}：{ev.text or ''}", {"page": ev.page, "table": ev.table, "row": ev.row}
        props |= {"column": ev.column, "text": ev.text, "cell_row": ev.detail.get("cell_row")}
    elif ev.kind == "clause":
        limits = threshold_words(ev.detail.get("key"), str(ev.detail.get("edition") or "2025"))
        label = f"条文记录{f'（{limits}）' if limits else ''}：{clause}"
        props = {"detail": ev.detail, "text": ev.text}
    else:
        method = str(ev.detail.get("method") or "")
        label = f"{method_title(method) if method else '核算'}：{ev.detail.get('substituted') or ''}".rstrip(
            "："
        )
        props = {"detail": ev.detail}
    return g.node(
        Node(
            id=f"ev:{claim.id.removeprefix('claim:')}:{k}",
            kind="Evidence",
            label=label,
            props={"evidence": ev.kind, **props},
        )
    )


def _finding_claim(
    g: GraphBuilder,
    record: ProvenanceRecord,
    report: Node,
    n: int,
    finding: Finding,
    refs: dict[str, tuple[Node, Node]],
) -> None:
    claim = g.node(
        Node(
            id=f"claim:{record.report_id}:{n}",
            kind="Claim",
            label=finding.message,
            props={
                "claim": "finding",
                "index": n,
                "report_id": record.report_id,
                "severity": finding.severity,
                "location": finding.location,
                "rule_id": finding.rule_id,
                "source": finding.source,
            },
        )
    )
    g.edge(claim, report, "stated_in")
    reviewer = g.find("Task", agent=finding.reviewer)
    if reviewer is not None:
        g.edge(reviewer, claim, "produces")
    plan = _plan_artifact(g, record)
    by_tool = {str(ev.props["tool"]): ev for _src, ev in refs.values()}
    for k, ev in enumerate(finding.evidence, start=1):
        if ev.kind == "clause":
            edition = str(ev.detail.get("edition") or record.edition)
            source = g.node(article_source(int(ev.detail["article"]), edition))
            g.edge(claim, source, "cites")
            node = _evidence_node(g, claim, k, ev, source.label)
            g.edge(node, source, "extracts")
            g.edge(node, claim, "supports")
        elif ev.kind == "reference" and str(ev.detail.get("tool")) in by_tool:
            g.edge(by_tool[str(ev.detail.get("tool"))], claim, "supports")
            claim.props.setdefault("reference_keys", []).append(ev.detail.get("key"))
        else:
            node = _evidence_node(g, claim, k, ev)
            g.edge(node, claim, "supports")
            if ev.kind == "pdf":
                g.edge(node, plan, "extracts")
    documents = {doc: source for doc, (source, _ev) in refs.items()}
    for source in sources_in(finding.source or "", record.edition, documents):
        g.edge(claim, g.node(source), "cites")
        doc = source.props.get("document")
        if doc in refs and not any(
            e.src == refs[str(doc)][1].id and e.dst == claim.id for e in g.edges.values()
        ):
            g.edge(refs[str(doc)][1], claim, "supports")


def review_claims(g: GraphBuilder, record: ProvenanceRecord, report: Node) -> None:
    """Add the findings of ``record`` (numbered as in the report) as claims stated in ``report``."""
    refs = _reference_records(g, record)
    for n, finding in enumerate(record.findings, start=1):
        _finding_claim(g, record, report, n, finding, refs)


def _answer_text(events: list[dict[str, Any]]) -> str:
    """The answer's text: the checked text of ``references`` when a citation was removed, else the main
    tokens (restarted at a ``replace``)."""
    text = ""
    for ev in events:
        if ev.get("type") == "token" and ev.get("source", "main") == "main":
            text = (
                (str(ev.get("content") or "")) if ev.get("replace") else text + str(ev.get("content") or "")
            )
        if ev.get("type") == "references" and ev.get("content"):
            text = str(ev["content"])
    return text


def answer_claims(g: GraphBuilder, events: list[dict[str, Any]], last: Node, *, edition: str) -> None:
    """Add an answer's claims when the run checked its citations (a ``references`` event: chat answers
    and interpretations, not a review's Markdown report)."""
    refs_event = next((e for e in reversed(events) if e.get("type") == "references"), None)
    text = _answer_text(events)
    if refs_event is None or not text.strip():
        return
    answer = g.node(
        Node(
            id=f"{ARTIFACT_PREFIX}answer:{g.run_id}",
            kind="Artifact",
            label="回答",
            props={"artifact": "answer", "text": text[:ANSWER_KEPT_CHARS]},
        )
    )
    g.edge(last, answer, "produces")
    references = [r for r in refs_event.get("references") or [] if isinstance(r, dict)]
    by_marker = {str(r.get("marker")): r for r in references if r.get("marker")}
    by_article = {int(r["article"]): r for r in references if r.get("in_kb", True) and r.get("article")}
    outside = [r for r in references if not r.get("in_kb", True)]
    kb_calls = [n for n in g.nodes.values() if n.kind == "ToolCall" and n.props.get("tool") == _KB_TOOL]
    author = next((n for n in reversed(list(g.nodes.values())) if n.kind == "Task"), None)
    sentences = [s.strip() for s in _SENTENCE.findall(text) if s.strip()]
    claimed = [s for s in sentences if MARKER.search(s) or re.search(r"\d|第.{1,6}条", s)]
    for i, sentence in enumerate(claimed[:MAX_ANSWER_CLAIMS], start=1):
        claim = g.node(
            Node(
                id=f"claim:{g.run_id}:{i}",
                kind="Claim",
                label=sentence,
                props={"claim": "answer", "index": i},
            )
        )
        g.edge(claim, answer, "stated_in")
        if author is not None:
            g.edge(author, claim, "produces")
        cited = [
            by_marker[f"R{m.group(1)}"] for m in MARKER.finditer(sentence) if f"R{m.group(1)}" in by_marker
        ]
        cited += [
            by_article[n] for ref in find_article_refs(sentence) for n in ref.numbers if n in by_article
        ]
        for ref in cited:
            source = g.node(article_source(int(ref["article"]), str(ref.get("edition") or edition)))
            g.edge(claim, source, "cites")
            excerpt = g.node(
                Node(
                    id=f"ev:{g.run_id}:kb:{source.props['edition']}:{source.props['article']}",
                    kind="Evidence",
                    label=f"检索摘录：{source.label}",
                    props={
                        "evidence": "excerpt",
                        "marker": ref.get("marker"),
                        "excerpt": ref.get("excerpt", ""),
                    },
                )
            )
            g.edge(excerpt, source, "extracts")
            g.edge(excerpt, claim, "supports")
            for call in kb_calls:
                g.edge(call, excerpt, "produces")
        for ref in outside:
            label = str(ref.get("label") or "")
            if label and (label in sentence or label.split("《")[0].strip() in sentence):
                for source in sources_in(label, edition):
                    g.edge(claim, g.node(source), "cites")
