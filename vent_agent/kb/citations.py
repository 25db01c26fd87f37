"""Citations of 《煤矿安全规程》 in answers and reports: server-assigned markers, and validation.

Per run, a :class:`CitationRegistry` records every article ``query_knowledge_base`` retrieved and gives
each a marker (``[[R1]]``, ``[[R2]]``… in order of first retrieval; the same article keeps its marker).
:func:`validate_citations` then checks a text written in that run:

- a marker ``[[Rn]]`` not assigned in the run is removed (warning ``unknown_marker``);
- an article written out (``第157条``, ``第一百五十七条``, ``2016版第136条``, ``第192、193条``) that does not
  exist in the knowledge base for that edition is removed (``not_in_kb``); one that exists but was not
  retrieved in the run is removed too (``not_retrieved``); a 2016/2022 number is accepted as an alias
  (``alias``, info);
- a figure quoted next to a valid citation (same clause of the sentence, else the sentence) that the
  article does not state is flagged (``figure_mismatch``; the text is kept), e.g. "采煤工作面最高允许风速
  6 m/s[[R1]]" against 表6 of 第157条 (4 m/s);
- sources outside the knowledge base (AQ 1056-2008 and other standards, other documents in 《》,
  engineering practice) are listed by name with ``in_kb: false``; a ``第N条`` of such a document is
  not taken for an article of the 规程. A file named in 《》 is not a source: a title with a file
  extension (``《plan-2026-08-b.pdf》``, ``《配风计划.DOCX》``) or the name of a file the user attached,
  with or without its extension (``《8月配风计划》`` for ``8月配风计划.pdf``), is left out.

The result carries the cleaned text, the warnings and the reference list (marker, article, edition,
excerpt) for an additive ``references`` event before ``done``.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, Field

from vent_agent.kb.numerals import find_article_refs
from vent_agent.kb.quantities import FigureCheck, check_figures, find_quantities
from vent_agent.kb.quoted import CitationWarning, Reference
from vent_agent.kb.regulations import Article
from vent_agent.kb.search import Clause, KnowledgeBase
from vent_agent.kb.thresholds import REGULATION_TITLE, fmt_number

MARKER = re.compile(r"\[\[\s*R(\d+)\s*\]\]")
# Standards and documents cited by name (docs/DOMAIN.md sources); any other AQ/GB/MT code is read too.
KNOWN_STANDARDS = {
    "AQ 1056-2008": "《煤矿通风能力核定标准》",
    "AQ 1028-2006": "《煤矿井工开采通风技术条件》",
    "AQ 6201-2006": "《煤矿安全监控系统通用技术要求》",
}
_KNOWN_TITLES = {title: code for code, title in KNOWN_STANDARDS.items()}
_STANDARD = re.compile(
    r"(?P<code>(?:AQ|GB|MT)(?:/T)?)\s*(?P<no>\d+(?:\.\d+)?)\s*[-—–]\s*(?P<year>(?:19|20)\d{2})"
)
_TITLE = re.compile(r"《(?P<t>[^》]{2,40})》")
_PRACTICE = re.compile(r"工程实践|实践经验|行业惯例|经验值|经验数据")
# A document other than the 规程 named right before a 第N条 (its own article, not the 规程's).
_EXTERNAL_BEFORE = re.compile(
    r"(?:《(?!煤矿安全规程)[^》]{2,40}》|(?:AQ|GB|MT)(?:/T)?\s*\d+(?:\.\d+)?(?:\s*[-—–]\s*\d{4})?"
    r"|作业规程|操作规程|细则|规范|标准)\s*(?:[（(][^）)]{0,12}[)）])?\s*(?:中|的)?\s*$"
)
_ROADWAY_AFTER = re.compile(
    r"^(?:联络巷|回风巷|进风巷|运输巷|轨道巷|巷道|风巷|支巷|顺槽|风桥|风井|井筒|管路|风筒|工作面)"
)
# A file's extension ending a title: a dot and 2-5 letters or digits, the first a letter (.pdf, .docx,
# .xlsx, .wps, .ofd; not the "2.0" of a version).
_FILE_EXTENSION = re.compile(r"\.[a-z][a-z0-9]{1,4}$")
_SENTENCE = re.compile(r"[^。！？!?\n]*[。！？!?\n]?")
_CLAUSE_SPLIT = re.compile(r"[，,；;|]")


class RetrievedArticle(BaseModel):
    """An article retrieved in a run: its ``marker`` (``R1``), where it is, the excerpts shown and the
    queries that found it."""

    marker: str
    document: str = REGULATION_TITLE
    article: int
    edition: str
    label: str
    excerpt: str
    aliases: dict[str, int] = Field(default_factory=dict)
    queries: list[str] = Field(default_factory=list)


class CitationRegistry:
    """The articles retrieved in one run, each with its marker. Thread-safe (tools may run in threads).

    ``calls``: every retrieval as ``{"query", "edition", "articles": [marker…]}`` (the run's record of
    what the knowledge base returned)."""

    def __init__(self, kb: KnowledgeBase):
        self.kb = kb
        self._by_key: dict[tuple[str, str, int], RetrievedArticle] = {}
        self._by_marker: dict[str, RetrievedArticle] = {}
        self.calls: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def record(self, query: str, clauses: list[Clause], edition: str | None = None) -> list[str]:
        """Record one retrieval; returns the marker of each clause (``R1``…), assigning new ones."""
        markers: list[str] = []
        with self._lock:
            for c in clauses:
                key = (c.document, c.edition, c.article)
                got = self._by_key.get(key)
                if got is None:
                    got = RetrievedArticle(
                        marker=f"R{len(self._by_key) + 1}",
                        document=c.document,
                        article=c.article,
                        edition=c.edition,
                        label=c.label,
                        excerpt=c.excerpt,
                        aliases=dict(c.aliases),
                    )
                    self._by_key[key] = got
                    self._by_marker[got.marker] = got
                if query not in got.queries:
                    got.queries.append(query)
                markers.append(got.marker)
            self.calls.append({"query": query, "edition": edition, "articles": list(markers)})
        return markers

    def by_marker(self, marker: str) -> RetrievedArticle | None:
        """The article of ``R1`` (with or without brackets); None when not assigned in this run."""
        m = re.search(r"R\d+", marker)
        return self._by_marker.get(m.group(0)) if m else None

    def get(self, edition: str, number: int, document: str = REGULATION_TITLE) -> RetrievedArticle | None:
        """The retrieved article ``number`` of ``edition``, or None when it was not retrieved."""
        return self._by_key.get((document, edition, number))

    def retrieved(self) -> list[RetrievedArticle]:
        """Every article retrieved in the run, in marker order."""
        return list(self._by_marker.values())


class ValidatedText(BaseModel):
    """``text`` with bad citations removed, the ``warnings`` and the ``references`` used."""

    text: str
    warnings: list[CitationWarning] = Field(default_factory=list)
    references: list[Reference] = Field(default_factory=list)

    def event(self) -> dict[str, Any]:
        """The additive SSE event sent before ``done``:
        ``{"type": "references", "references": [...], "warnings": [...]}``."""
        return {
            "type": "references",
            "references": [r.model_dump(mode="json") for r in self.references],
            "warnings": [w.model_dump(mode="json") for w in self.warnings],
        }


def _is_external(text: str, start: int) -> bool:
    """True when the ``第N条`` at ``start`` is an article of another document named right before it
    (``《煤矿防治水细则》第10条``, ``AQ 1056-2008 第5条``, ``作业规程第3条``)."""
    return bool(_EXTERNAL_BEFORE.search(text[max(0, start - 60) : start]))


def _sentence_span(text: str, pos: int) -> tuple[int, int]:
    for m in _SENTENCE.finditer(text):
        if m.start() <= pos < max(m.end(), m.start() + 1):
            return m.start(), m.end()
    return 0, len(text)


def _scope(text: str, start: int, end: int) -> str:
    """The words a citation at ``start:end`` governs: its clause of the sentence (between ，；|), or the
    whole sentence when that clause has no figure; a marker right after a full stop belongs to the
    sentence before."""
    s0, s1 = _sentence_span(text, start)
    trailing = not text[s0:start].strip() and not MARKER.sub("", text[end:s1]).strip("。！？!? \n")
    if trailing and s0 > 0:  # a marker alone after a full stop: the sentence before
        s0 = _sentence_span(text, s0 - 1)[0]
    sentence_before, sentence_after = text[s0:start], text[end:s1]
    parts_before = _CLAUSE_SPLIT.split(sentence_before)
    parts_after = _CLAUSE_SPLIT.split(sentence_after)
    clause = parts_before[-1] + parts_after[0]
    if find_quantities(clause):
        return clause
    return sentence_before + sentence_after


def validate_citations(
    text: str,
    registry: CitationRegistry,
    *,
    edition: str | None = None,
    figures: bool = True,
    attachments: Iterable[str] = (),
) -> ValidatedText:
    """Check the citations of ``text`` against the run's ``registry`` (see the module doc); ``edition``:
    the edition the text is read in (default: the knowledge base's edition in force). ``figures`` False
    skips the check of the figures beside each citation (no ``figure_mismatch`` warnings): the
    service's own rule-based text, whose figures are measured readings, not the clause's.
    ``attachments``: the names of the files the user attached (this turn and earlier ones), which are
    not sources when the text names them in 《》."""
    kb = registry.kb
    warnings: list[CitationWarning] = []
    cuts: list[tuple[int, int]] = []
    cited: dict[str, tuple[RetrievedArticle, Article]] = {}  # marker -> article
    checks: list[tuple[Article, int, int, str]] = []  # article, span, citation text

    for m in MARKER.finditer(text):
        got = registry.by_marker(m.group(0))
        if got is None:
            warnings.append(
                CitationWarning(
                    kind="unknown_marker",
                    citation=m.group(0),
                    removed=True,
                    message=f"引用标记{m.group(0)}不是本次检索分配的标记，已删除",
                )
            )
            cuts.append(m.span())
            continue
        art = kb.find(got.document, got.edition, got.article)
        if art is not None:
            cited.setdefault(got.marker, (got, art))
            checks.append((art, m.start(), m.end(), m.group(0)))

    for ref in find_article_refs(text):
        if _is_external(text, ref.start) or _ROADWAY_AFTER.match(text[ref.end :]):
            continue
        found = [_check_number(kb, registry, ref.text, n, ref.edition, edition) for n in ref.numbers]
        good = [g for g, _ in found if g is not None]
        for _, w in found:
            if w is not None:
                w.removed = not good
                w.message += "；同一引用中其他条号有效，引用保留" if good else "，引用已删除"
                warnings.append(w)
        if not good:
            cuts.append(_citation_span(text, ref.start, ref.end))
        for got, art, note in good:
            if note:
                warnings.append(
                    CitationWarning(
                        kind="alias", citation=ref.text, article=art.number, edition=art.edition, message=note
                    )
                )
            cited.setdefault(got.marker, (got, art))
            checks.append((art, ref.start, ref.end, ref.text))

    done: set[tuple[str, int, str]] = set()
    for art, start, end, citation in checks if figures else []:
        scope = _scope(text, start, end)
        if (art.edition, art.number, scope) in done:
            continue
        done.add((art.edition, art.number, scope))
        for fc in check_figures(art, scope):
            warnings.append(_figure_warning(fc, art, citation))

    cleaned = _apply_cuts(text, cuts)
    references = [
        Reference(
            marker=got.marker,
            article=got.article,
            edition=got.edition,
            label=got.label,
            excerpt=got.excerpt,
            aliases=got.aliases,
        )
        for got, _ in sorted(cited.values(), key=lambda ga: int(ga[0].marker[1:]))
    ]
    references += external_sources(cleaned, {a.document for a in kb.articles}, attachments)
    return ValidatedText(text=cleaned, warnings=_dedupe(warnings), references=references)


def consecutive(checked: ValidatedText) -> ValidatedText:
    """``checked`` with its 规程 references numbered ``R1``, ``R2``… in the order listed, and the markers
    of its text and warnings changed to match. A run's markers follow its retrievals, so the articles
    a text cites may leave gaps (``[R1]``, ``[R3]`` when R2 was retrieved but not cited); a one-off text
    (an interpretation) shows them numbered without gaps. A conversation keeps the run's markers, which
    its later turns and the tool results they read cite."""
    listed = [r.marker for r in checked.references if r.marker]
    new = {old: f"R{i}" for i, old in enumerate(listed, start=1)}
    if all(old == to for old, to in new.items()):
        return checked

    def renumber(text: str) -> str:
        return MARKER.sub(lambda m: f"[[{new.get(f'R{m.group(1)}', f'R{m.group(1)}')}]]", text)

    return checked.model_copy(
        update={
            "text": renumber(checked.text),
            "references": [
                r.model_copy(update={"marker": new[r.marker]}) if r.marker else r for r in checked.references
            ],
            "warnings": [
                w.model_copy(update={"citation": renumber(w.citation), "message": renumber(w.message)})
                for w in checked.warnings
            ],
        }
    )


def _check_number(
    kb: KnowledgeBase,
    registry: CitationRegistry,
    citation: str,
    n: int,
    written_edition: str | None,
    edition: str | None,
) -> tuple[tuple[RetrievedArticle, Article, str | None] | None, CitationWarning | None]:
    """One number of a written citation: ``((retrieved, article, alias note), None)`` when valid, else
    ``(None, warning)`` (``not_in_kb`` or ``not_retrieved``)."""
    res = kb.resolve(n, written_edition or edition)
    if res is None:
        ed = kb.aliases.edition(written_edition or edition) or kb.edition
        return None, CitationWarning(
            kind="not_in_kb",
            citation=citation,
            article=n,
            edition=ed,
            message=f"{REGULATION_TITLE}（{ed}版）第{n}条在知识库中不存在",
        )
    got = registry.get(res.article.edition, res.article.number, res.article.document)
    if got is None:
        return None, CitationWarning(
            kind="not_retrieved",
            citation=citation,
            article=res.article.number,
            edition=res.article.edition,
            message=f"{res.article.label}未在本次回答中检索",
        )
    return (got, res.article, res.note), None


def _figure_warning(fc: FigureCheck, art: Article, citation: str) -> CitationWarning:
    q = fc.quantity
    expected = "、".join(f"{fmt_number(v)} {q.unit}" for v in fc.expected)
    return CitationWarning(
        kind="figure_mismatch",
        citation=citation,
        article=art.number,
        edition=art.edition,
        figure=f"{fmt_number(q.value)} {q.unit}",
        expected=list(fc.expected),
        message=f"引用{art.label}处的数值 {fmt_number(q.value)} {q.unit} 与条文不符（{fc.scope}：{expected}）",
    )


def _citation_span(text: str, start: int, end: int) -> tuple[int, int]:
    """The span to cut for a rejected citation: with the 《煤矿安全规程》 and edition written before it,
    and its brackets when nothing else is inside them."""
    head = text[max(0, start - 30) : start]
    m = re.search(
        r"(?:《煤矿安全规程》|煤矿安全规程|《规程》)?\s*(?:[（(]?\s*(?:19|20)\d{2}\s*年?\s*(?:版|修订版|修订)\s*[)）]?)?\s*$",
        head,
    )
    if m and m.group(0).strip():
        start -= len(m.group(0))
    before, after = text[:start], text[end:]
    b = re.search(r"[（(]\s*(?:依据|根据|见|参见|按照)?\s*$", before)
    a = re.match(r"^\s*(?:的)?(?:规定|要求)?\s*[)）]", after)
    if b and a:
        return start - len(b.group(0)), end + len(a.group(0))
    lead = re.search(r"(?:依据|根据|按照|参照|按)\s*$", before)
    if lead:  # "根据第999条（的规定），…" → "…"
        tail = re.match(r"^\s*(?:的)?(?:规定|要求)?\s*[，,：:]?", after)
        return start - len(lead.group(0)), end + (len(tail.group(0)) if tail else 0)
    return start, end


def _apply_cuts(text: str, cuts: list[tuple[int, int]]) -> str:
    out, pos = [], 0
    for a, b in sorted(set(cuts)):
        if a < pos:
            a = pos
        out.append(text[pos:a])
        pos = max(pos, b)
    out.append(text[pos:])
    return re.sub(r"[ \t]{2,}", " ", "".join(out))


def _file_key(name: str) -> str:
    """A file name or title as compared: NFKC (full-width letters and dots folded), case-folded, without
    spaces or 《》."""
    return re.sub(r"[\s《》]", "", unicodedata.normalize("NFKC", name)).casefold()


def _is_file(title: str, attachments: set[str]) -> bool:
    """True when ``title`` (the text in 《》) names a file, not a document one can cite: it ends with a
    file extension, or it is one of ``attachments`` (keys of :func:`_file_key`, each name with and
    without its extension)."""
    key = _file_key(title)
    return bool(_FILE_EXTENSION.search(key)) or key in attachments


def _attachment_keys(names: Iterable[str]) -> set[str]:
    """The keys of attached files' names (:func:`_file_key`), each with and without its extension."""
    keys: set[str] = set()
    for name in names:
        key = _file_key(name)
        if key:
            keys.add(key)
            stem = _FILE_EXTENSION.sub("", key)
            if stem:
                keys.add(stem)
    return keys


def external_sources(
    text: str, kb_titles: set[str] | None = None, attachments: Iterable[str] = ()
) -> list[Reference]:
    """Sources named in ``text`` that are not in the knowledge base: standards (AQ/GB/MT codes, the
    known ones with their titles; a known one named by its title alone is listed with its code),
    documents in 《》 other than ``kb_titles`` (the knowledge base's own, with their 《》) and
    engineering practice; each once. A file in 《》 is none of these: a title with
    a file extension, or one of ``attachments`` (the user's attached files, with or without their
    extension; compared without case, spaces or full-width forms)."""
    found: dict[str, Reference] = {}
    files = _attachment_keys(attachments)
    note = "知识库外来源：按名称引用，未经知识库检索核验"
    for m in _STANDARD.finditer(text):
        code = f"{m.group('code')} {m.group('no')}-{m.group('year')}"
        found.setdefault(
            code, Reference(label=f"{code}{KNOWN_STANDARDS.get(code, '')}", in_kb=False, note=note)
        )
    for m in _TITLE.finditer(text):
        title = m.group("t")
        if "煤矿安全规程" in title or f"《{title}》" in (kb_titles or set()) or _is_file(title, files):
            continue
        known = _KNOWN_TITLES.get(f"《{title}》")
        if known is not None:  # a known standard named by its title alone: listed as with its code
            found.setdefault(
                known, Reference(label=f"{known}{KNOWN_STANDARDS[known]}", in_kb=False, note=note)
            )
            continue
        found.setdefault(title, Reference(label=f"《{title}》", in_kb=False, note=note))
    if _PRACTICE.search(text):
        found.setdefault(
            "practice",
            Reference(label="工程实践", in_kb=False, note="工程实践取值，非规程条文，矿井可按实际覆盖"),
        )
    return list(found.values())


def _dedupe(warnings: list[CitationWarning]) -> list[CitationWarning]:
    seen: set[tuple[Any, ...]] = set()
    out = []
    for w in warnings:
        key = (w.kind, w.citation, w.article, w.figure)
        if key not in seen:
            seen.add(key)
            out.append(w)
    return out
