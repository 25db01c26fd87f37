"""The citation check of an answer, against the knowledge base itself (not only the service's own
validation): every marker ``[[Rn]]`` of the answer is in the run's ``references`` event and names an
article the knowledge base holds; every ``第N条`` of 《煤矿安全规程》 is listed there; the words the answer
quotes (「…」, “…”) in a sentence with a citation are in the cited article's text; the service's check
removed nothing and flagged no figure; the articles the case expects are cited."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from vent_agent.evals.cases import Case
from vent_agent.evals.checks import Check
from vent_agent.evals.transcript import Transcript
from vent_agent.kb.citations import MARKER
from vent_agent.kb.numerals import find_article_refs
from vent_agent.kb.search import KnowledgeBase
from vent_agent.kb.thresholds import REGULATION_TITLE

_QUOTE = re.compile(r"[「“\"]([^」”\"]{2,80})[」”\"]")
_SENTENCE = re.compile(r"[^。！？!?\n]+")
# another document named right before a 第N条 (its own article, not the 规程's)
_OTHER_DOCUMENT = re.compile(
    r"(?:《(?!煤矿安全规程)[^》]{2,40}》|(?:AQ|GB|MT)[^，。；]{0,16}|细则|规范|标准)\s*$"
)
BAD_WARNINGS = ("unknown_marker", "not_in_kb", "not_retrieved", "figure_mismatch")


def _plain(text: str) -> str:
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))


def _cited_articles(sentence: str, refs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The references a sentence cites, by marker or by article number (aliases included)."""
    markers = {f"R{m.group(1)}" for m in MARKER.finditer(sentence)}
    numbers = {n for r in find_article_refs(sentence) for n in r.numbers}
    return [
        r
        for r in refs
        if r.get("marker") in markers
        or r.get("article") in numbers
        or numbers & set((r.get("aliases") or {}).values())
    ]


def _article_text(kb: KnowledgeBase, ref: dict[str, Any]) -> str | None:
    art = kb.find(REGULATION_TITLE, str(ref.get("edition")), int(ref.get("article") or 0))
    return art.text if art is not None else None


def check_citations(case: Case, t: Transcript, kb: KnowledgeBase) -> Check:
    """See the module doc; ``kb``: the knowledge base the service cites from."""
    answer = t.answer
    events = t.of_type("references")
    refs = [r for e in events for r in e.get("references", []) if r.get("in_kb", True)]
    problems: list[str] = []
    listed = {r.get("marker") for r in refs}
    for m in MARKER.finditer(answer):
        if f"R{m.group(1)}" not in listed:
            problems.append(f"引用标记 {m.group(0)} 在 references 中不存在（悬空引用）")
    numbers = {r.get("article") for r in refs} | {n for r in refs for n in (r.get("aliases") or {}).values()}
    for ref in find_article_refs(answer):
        if _OTHER_DOCUMENT.search(answer[max(0, ref.start - 40) : ref.start]):
            continue
        problems += [
            f"{ref.text} 未列入 references（未检索或不存在）" for n in ref.numbers if n not in numbers
        ]
    for r in refs:
        if _article_text(kb, r) is None:
            problems.append(f"第{r.get('article')}条（{r.get('edition')}版）不在知识库中")
    for sentence in _SENTENCE.findall(answer):
        cited = _cited_articles(sentence, refs)
        texts = [x for x in (_article_text(kb, r) for r in cited) if x]
        for quote in _QUOTE.findall(sentence) if texts else []:
            if not any(_plain(quote) in _plain(x) for x in texts):
                problems.append(f"引文「{quote}」不在所引条款原文中")
    warnings = [w for e in events for w in e.get("warnings", []) if w.get("kind") in BAD_WARNINGS]
    problems += [f"引用校验：{w.get('message')}" for w in warnings]
    problems += [f"应引用第{n}条" for n in case.expect.articles if n not in numbers]
    if case.expect.articles and not events:
        problems.append("没有 references 事件")
    return Check("citations", not problems, "；".join(dict.fromkeys(problems)))
