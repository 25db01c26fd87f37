"""Retrieval over the regulation corpus: BM25 (bm25s) over jieba tokens of passages, and exact look-up
by article number in any form (``第一百三十六条``, ``第136条``, ``136条``, ``article 136``), 2016/2022
numbers accepted as aliases (docs/DOMAIN.md §3, :mod:`vent_agent.kb.aliases`).

Passages are an article's paragraphs (an item ``（一）…`` with its article's lead sentence as context)
and each row of its tables (``表6 …：采煤工作面、掘进中的煤巷和半煤岩巷，最低允许风速 0.25 m/s，最高允许风速 4 m/s。``),
so a question about one row of the wind-speed table finds that row. Hits are grouped by article: a
clause carries its best passage as ``excerpt``.

:func:`get_knowledge_base` builds the corpus once per process and key (kb_dir, edition), lazily; the
BM25 index is built on the first search, under a lock.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal

import bm25s
import numpy as np
from pydantic import BaseModel, Field

from vent_agent.kb.aliases import ArticleAliases
from vent_agent.kb.numerals import ArticleRef, find_article_refs
from vent_agent.kb.regulations import ITEM, Article, load_corpus
from vent_agent.kb.thresholds import REGULATION_TITLE
from vent_agent.kb.tokens import tokens

MAX_EXCERPT = 1500
SEARCH_CACHE = 1024  # searches remembered per knowledge base (query, k, edition)
ARTICLE_WEIGHT = 0.5  # share of the whole article's BM25 score added to each of its passages
MAX_PASSAGES = 2  # passages of one article joined into its excerpt
SECOND_PASSAGE_RATIO = 0.8  # a second passage joins when it scores at least this share of the best
# A question asking for a figure (最高/最低/多少/限值…) prefers passages with figures (a table row, a limit).
FIGURE_CUES = frozenset({
    "最高", "最低", "最大", "最小", "多少", "几", "上限", "下限", "限值", "范围", "不得超过", "不低于", "不超过", "允许",
})  # fmt: skip
FIGURE_BOOST = 1.3
_COORDINATED = re.compile(r"([\u4e00-\u9fff]{0,4}?)进、回(风[巷井])")
_SHAFT_AS = re.compile(r"([进回])风的井筒")


class Clause(BaseModel):
    """One article found: ``article`` number in ``edition``, ``label`` (``《煤矿安全规程》（2025版）第157条``),
    ``heading`` (``第一百五十七条``), ``chapter``/``section``; ``excerpt``: the passage that matched (the
    whole article for a look-up by number without other words); ``score``: BM25 score of that passage
    (None for a look-up by number); ``match``: ``"number"`` or ``"bm25"``; ``table_row``: the table row
    the excerpt is (e.g. ``采煤工作面、掘进中的煤巷和半煤岩巷``); ``aliases``: the same provision's number
    in other editions (``{"2016": 136}``); ``note``: how an alias was resolved (``2016版第136条即2025版第157条``).
    """

    document: str = REGULATION_TITLE
    article: int
    edition: str
    label: str
    heading: str
    chapter: str | None = None
    section: str | None = None
    excerpt: str
    score: float | None = None
    match: Literal["number", "bm25"]
    table_row: str | None = None
    aliases: dict[str, int] = Field(default_factory=dict)
    note: str | None = None


@dataclass(frozen=True)
class Resolution:
    """An article number resolved: the ``article``, the number and edition as asked, and a ``note`` when
    an alias was followed (None when the number is the article's own)."""

    article: Article
    number: int
    edition: str
    note: str | None = None


@dataclass(frozen=True)
class _Passage:
    article: int  # index into KnowledgeBase.articles
    text: str
    table_row: str | None
    tokens: tuple[str, ...]
    lead: str | None = None  # the article's lead sentence an item depends on


@dataclass
class _Hit:
    score: float
    passages: list[_Passage]

    @property
    def excerpt(self) -> str:
        """The passages' text, each item after its lead sentence (once)."""
        lines: list[str] = []
        for p in self.passages:
            if p.lead and p.lead not in lines:
                lines.append(p.lead)
            lines.append(p.text)
        return "\n".join(lines)

    @property
    def table_row(self) -> str | None:
        return next((p.table_row for p in self.passages if p.table_row), None)


@dataclass(frozen=True)
class _Index:
    passages_bm25: bm25s.BM25
    passages: list[_Passage]
    articles_bm25: bm25s.BM25
    article_rows: list[int]  # article index of each document of articles_bm25
    owner: np.ndarray  # article index of each passage
    has_figure: np.ndarray  # passage states a figure
    edition: np.ndarray  # edition of each passage's article


def _build_index(articles: list[Article]) -> _Index:
    passages = [p for i, a in enumerate(articles) for p in _passages(i, a) if p.tokens]
    by_passage = bm25s.BM25()
    by_passage.index([list(p.tokens) for p in passages], show_progress=False)
    docs = [(i, tokens(_expand(a.text))) for i, a in enumerate(articles)]
    docs = [(i, t) for i, t in docs if t]
    by_article = bm25s.BM25()
    by_article.index([t for _, t in docs], show_progress=False)
    return _Index(
        by_passage, passages, by_article, [i for i, _ in docs],
        owner=np.array([p.article for p in passages], dtype=int),
        has_figure=np.array([any(ch.isdigit() for ch in p.text) for p in passages], dtype=bool),
        # edition of each passage's article; other documents than the 规程 match every edition
        edition=np.array([articles[p.article].edition if articles[p.article].document == REGULATION_TITLE
                          else "*" for p in passages], dtype=object),
    )  # fmt: skip


class KnowledgeBase:
    """The articles of the corpus with a BM25 index over their passages.

    ``edition``: the edition in force (a setting, default ``"2025"``; ``"2022"`` means ``"2016"``);
    ``problems``: regulation files that were skipped, and why.
    """

    def __init__(
        self,
        articles: list[Article],
        *,
        edition: str = "2025",
        aliases: ArticleAliases | None = None,
        problems: list[str] | None = None,
    ):
        self.aliases = aliases or ArticleAliases.load()
        self.edition = self.aliases.edition(edition) or edition
        self.articles = list(articles)
        self.problems = list(problems or [])
        self._by_key = {a.key: a for a in self.articles if a.document == REGULATION_TITLE}
        self._lock = threading.Lock()
        self._index: _Index | None = None
        # the corpus never changes once built: a search is a function of its arguments
        self._searched = lru_cache(maxsize=SEARCH_CACHE)(self._search)

    # -- articles ---------------------------------------------------------------------------------------

    @property
    def text_editions(self) -> list[str]:
        """Editions with text in the corpus (excerpts of an edition are not its text:
        :attr:`~vent_agent.kb.regulations.Article.excerpt`), the edition in force first when it has text."""
        eds = list(dict.fromkeys(a.edition for a in self._by_key.values() if not a.excerpt))
        return sorted(eds, key=lambda e: e != self.edition)

    def article(self, number: int, edition: str | None = None) -> Article | None:
        """The article ``number`` of ``edition`` (default: in force) as the corpus has it; no aliasing."""
        return self._by_key.get((self.aliases.edition(edition) or self.edition, number))

    def find(self, document: str, edition: str, number: int) -> Article | None:
        """The article ``number`` of ``edition`` of ``document`` (any title), or None."""
        if document == REGULATION_TITLE:
            return self._by_key.get((edition, number))
        return next((a for a in self.articles if (a.document, a.edition, a.number) == (document, edition, number)),
                    None)  # fmt: skip

    def resolve(self, number: int, edition: str | None = None) -> Resolution | None:
        """The article meant by ``number`` written with ``edition`` (None: not written).

        Order: the edition's own article; the same provision in another edition that has text (through
        the alias table); when no edition was written and the edition in force has no such article,
        ``number`` read as another edition's number (``第136条`` in force 2025 → 2016's 136 = 2025's 157).
        None when nothing matches: the article does not exist in the knowledge base.
        """
        explicit = self.aliases.edition(edition) if edition else None
        target = explicit or self.edition
        if art := self._by_key.get((target, number)):
            return Resolution(art, number, target)
        if hit := self._via_alias(number, target):
            return hit
        if explicit:
            return None
        others = [e for e in dict.fromkeys([*self.aliases.editions, *self.text_editions]) if e != target]
        for other in others:  # another edition's number of a provision of the edition in force
            mapped = self.aliases.map(number, other, target)
            if mapped is not None and (art := self._by_key.get((target, mapped))):
                return Resolution(art, number, other, f"{other}版第{number}条即{target}版第{mapped}条")
        for other in others:
            if art := self._by_key.get((other, number)):
                return Resolution(art, number, other, f"第{number}条按{other}版条号理解")
            if hit := self._via_alias(number, other):
                return hit
        return None

    def _via_alias(self, number: int, edition: str) -> Resolution | None:
        for other in self.text_editions:
            if other == edition:
                continue
            mapped = self.aliases.map(number, edition, other)
            if mapped is not None and (art := self._by_key.get((other, mapped))):
                return Resolution(art, number, edition, f"{edition}版第{number}条即{other}版第{mapped}条")
        return None

    def lookup(self, number: int, edition: str | None = None) -> Clause | None:
        """The whole article for ``number`` (aliases followed, see :meth:`resolve`) as a clause; None
        when it does not exist in the knowledge base."""
        res = self.resolve(number, edition)
        return (
            None
            if res is None
            else self._clause(res.article, _cap(res.article.text), None, "number", None, res.note)
        )

    def table_row(self, number: int, row: str, edition: str | None = None) -> Clause | None:
        """The clause of one table row of article ``number`` (aliases followed): ``row`` is the row label
        as printed or a name in it (``表6`` of 第157条, ``采煤工作面`` → the row 采煤工作面、掘进中的煤巷和
        半煤岩巷); the excerpt is the row as a sentence. None when the article or the row is not found."""
        res = self.resolve(number, edition)
        if res is None:
            return None
        for table in res.article.tables:
            for r, cells in enumerate(table.rows):
                if row == cells[0] or (len(row) >= 2 and row in cells[0]):
                    return self._clause(res.article, table.row_text(r), None, "number", cells[0], res.note)
        return None

    # -- search -----------------------------------------------------------------------------------------

    def search(self, query: str, k: int = 5, edition: str | None = None) -> list[Clause]:
        """Up to ``k`` clauses for ``query``, best first: the articles it names by number (excerpt: the
        article's passage best matching the rest of the query, or the whole article), then BM25 hits
        over the passages of ``edition`` (default: in force; every edition when that one has no text),
        one clause per article. Raises ValueError for ``k < 1``.

        The last :data:`SEARCH_CACHE` searches are remembered (the corpus and its index never change
        once built): the same query gets copies of the same clauses without tokenising and ranking
        again, e.g. the provisions every click on a tunnel of one kind looks up."""
        if k < 1:
            raise ValueError("k must be at least 1")
        # a copy each (its one mutable field too): no caller changes another's or the remembered ones
        return [c.model_copy(update={"aliases": dict(c.aliases)}) for c in self._searched(query, k, edition)]

    def _search(self, query: str, k: int, edition: str | None) -> tuple[Clause, ...]:
        refs = find_article_refs(query, bare=True, english=True)
        rest = _strip_refs(query, refs)
        rest_tokens = tokens(_expand(rest))
        out: list[Clause] = []
        seen: set[tuple[str, int]] = set()
        for ref in refs:
            for n in ref.numbers[:10]:
                res = self.resolve(n, ref.edition or edition)
                if res is None or res.article.key in seen:
                    continue
                seen.add(res.article.key)
                out.append(self._exact(res, rest_tokens))
        if rest_tokens and len(out) < k:
            target = self.aliases.edition(edition) or self.edition
            for idx, score, hit in self._ranked(rest_tokens, target):
                art = self.articles[idx]
                if art.key in seen and art.document == REGULATION_TITLE:
                    continue
                seen.add(art.key)
                out.append(self._clause(art, _cap(hit.excerpt), round(score, 4), "bm25", hit.table_row))
                if len(out) >= k:
                    break
        return tuple(out[:k])

    def _exact(self, res: Resolution, rest_tokens: list[str]) -> Clause:
        art = res.article
        if rest_tokens:
            idx = self.articles.index(art)
            best = next(iter(self._ranked(rest_tokens, None, only=idx)), None)
            if best is not None:
                hit = best[2]
                return self._clause(art, _cap(hit.excerpt), None, "number", hit.table_row, res.note)
        return self._clause(art, _cap(art.text), None, "number", None, res.note)

    def _ranked(
        self, query_tokens: list[str], edition: str | None, only: int | None = None
    ) -> list[tuple[int, float, _Hit]]:
        """Articles by the score of their best passage (> 0), best first, each with its hit.

        A passage scores its own BM25 plus ``ARTICLE_WEIGHT`` × its article's BM25 over whole articles,
        so a row of 表6 (whose words 最高/允许风速 recur in every row) still wins over a long paragraph of
        another article that repeats the question's rarer words."""
        idx = self.index()
        asks_for_figure = any(t in FIGURE_CUES for t in query_tokens)
        ids = idx.passages_bm25.get_tokens_ids(query_tokens)
        if not ids:
            return []
        scores = np.asarray(idx.passages_bm25.get_scores_from_ids(ids), dtype=float)
        art_ids = idx.articles_bm25.get_tokens_ids(query_tokens)
        art_scores = (
            np.asarray(idx.articles_bm25.get_scores_from_ids(art_ids), dtype=float)
            if art_ids
            else np.zeros(len(idx.article_rows))
        )
        owner = idx.owner
        boost = np.zeros(len(self.articles))
        boost[idx.article_rows] = art_scores
        scores = np.where(scores > 0, scores + ARTICLE_WEIGHT * boost[owner], 0.0)
        if asks_for_figure:
            scores = np.where(idx.has_figure, scores * FIGURE_BOOST, scores)
        if only is not None:
            scores = np.where(owner == only, scores, 0.0)
        elif edition in self.text_editions:
            scores = np.where((idx.edition == edition) | (idx.edition == "*"), scores, 0.0)
        order = np.argsort(-scores, kind="stable")
        best: dict[int, _Hit] = {}
        for i in order:
            score = float(scores[i])
            if score <= 0:
                break
            p = idx.passages[int(i)]
            hit = best.get(p.article)
            if hit is None:
                best[p.article] = _Hit(score, [p])
            elif len(hit.passages) < MAX_PASSAGES and score >= SECOND_PASSAGE_RATIO * hit.score:
                hit.passages.append(p)
        return [(a, h.score, h) for a, h in best.items()]

    def index(self) -> _Index:
        """The BM25 indexes (passages, whole articles), built on first use (thread-safe)."""
        if self._index is None:
            with self._lock:
                if self._index is None:
                    self._index = _build_index(self.articles)
        return self._index

    def _clause(
        self,
        art: Article,
        excerpt: str,
        score: float | None,
        match: Literal["number", "bm25"],
        table_row: str | None,
        note: str | None = None,
    ) -> Clause:
        return Clause(
            document=art.document,
            article=art.number,
            edition=art.edition,
            label=art.label,
            heading=art.heading,
            chapter=art.chapter,
            section=art.section,
            excerpt=excerpt,
            score=score,
            match=match,
            table_row=table_row,
            aliases=self.aliases.aliases_of(art.number, art.edition)
            if art.document == REGULATION_TITLE
            else {},
            note=note,
        )


def _passages(idx: int, art: Article) -> list[_Passage]:
    """An article's passages: paragraphs (an item ``（一）…`` under a lead sentence ending in ``：`` carries
    that sentence as ``lead``) and table rows."""
    out: list[_Passage] = []
    first = f"{art.heading} {art.paragraphs[0]}" if art.paragraphs else art.heading
    lead = first if first.endswith(("：", ":")) else None
    for i, para in enumerate(art.paragraphs):
        if i == 0:
            out.append(_Passage(idx, first, None, tuple(tokens(_expand(para)))))
            continue
        ctx = lead if lead and ITEM.match(para) else None
        out.append(_Passage(idx, para, None, tuple(tokens(_expand(f"{ctx or ''} {para}"))), ctx))
    for table in art.tables:
        for r in range(len(table.rows)):
            text = table.row_text(r)
            out.append(_Passage(idx, text, table.rows[r][0], tuple(tokens(_expand(text)))))
    return out


def _expand(text: str) -> str:
    """Other spellings of roadway names, for the tokens: ``采区进、回风巷`` → ``采区进风巷 采区回风巷``;
    ``兼作进风的井筒`` → ``兼作进风井``."""
    extra = [f"{m.group(1)}进{m.group(2)} {m.group(1)}回{m.group(2)}" for m in _COORDINATED.finditer(text)]
    extra += [f"{m.group(1)}风井" for m in _SHAFT_AS.finditer(text)]
    return " ".join([text, *extra])


def _strip_refs(query: str, refs: list[ArticleRef]) -> str:
    out, pos = [], 0
    for r in refs:
        out.append(query[pos : r.start])
        pos = r.end
    out.append(query[pos:])
    text = "".join(out)
    return re.sub(
        r"(?:19|20)\d{2}\s*年?\s*(?:版|修订版|修订|edition)|《煤矿安全规程》|煤矿安全规程", " ", text
    )


def _cap(text: str, limit: int = MAX_EXCERPT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


@lru_cache(maxsize=4)
def _cached(kb_dir: str | None, edition: str) -> KnowledgeBase:
    articles, problems = load_corpus(Path(kb_dir) if kb_dir else None, edition)
    return KnowledgeBase(articles, edition=edition, problems=problems)


def get_knowledge_base(kb_dir: Path | None = None, edition: str = "2025") -> KnowledgeBase:
    """The knowledge base of the shipped text plus ``kb_dir`` (``settings.kb_dir``) with ``edition`` in
    force (``settings.regulation_edition``), built once per process and key; the index is built on the
    first search."""
    return _cached(str(Path(kb_dir).resolve()) if kb_dir else None, edition)


def clear_cache() -> None:
    """Forget the cached knowledge bases (tests; a changed ``kb_dir``)."""
    _cached.cache_clear()
