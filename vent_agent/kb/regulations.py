"""The regulation corpus: text files of 《煤矿安全规程》 read into articles (edition, number, chapter,
section, repaired text, tables).

Sources, in order (a later file replaces an article with the same edition and number):

1. the shipped text in ``vent_agent/data/regulations/`` (chapter 4 通风 of the renumbered edition
   ``2025``; its ``SOURCE.md`` gives the edition and the licence);
2. every ``*.txt`` in ``settings.kb_dir``.

A file's edition and title come from a front matter at its top (``---`` lines around ``edition: 2016``,
``title: 《煤矿安全规程》``, and ``excerpts: true`` for a file of a few articles of an edition, not its text:
:attr:`Article.excerpt`), else from ``manifest.json`` in its directory (``{"files": {"name.txt":
{"edition": "2025"}}}``), else the default edition given to :func:`load_corpus` (see docs/KB.md).

The text is what a Word export gives: a heading line ``第四章 通风`` / ``第一节 …``, each article starting
on its own line with ``第一百五十七条`` (or ``第157条``) and a space; paragraphs one a line; page breaks
as blank lines that may cut a sentence (repaired here: a line that does not end a sentence is joined to
the next text line unless that one starts an item, an article or a table); tables flattened one cell a
line (:mod:`vent_agent.kb.regulation_tables`).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, Field

from vent_agent.kb.aliases import ArticleAliases
from vent_agent.kb.numerals import NUM, article_heading, cn_to_int
from vent_agent.kb.regulation_tables import TITLE, RegTable, build_table, is_table_end
from vent_agent.kb.thresholds import REGULATION_TITLE, article_label

log = logging.getLogger(__name__)

SHIPPED_DIR = Path(__file__).resolve().parent.parent / "data" / "regulations"
MANIFEST = "manifest.json"

_CHAPTER = re.compile(rf"^第\s*(?P<n>{NUM})\s*章\s*(?P<title>.*)$")
_SECTION = re.compile(rf"^第\s*(?P<n>{NUM})\s*节\s*(?P<title>.*)$")
_ARTICLE = re.compile(rf"^第\s*(?P<n>{NUM})\s*条(?:[\s\u3000]+(?P<rest>.*))?$")
ITEM = re.compile(r"^(?:[（(][一二三四五六七八九十]+[)）]|\d+[.．、]|[①-⑳])")
_SENTENCE_END = ("。", "；", "：", "！", "？", "”", ";", ":")
_STRAY_PERCENT = re.compile(r"([。；！？])\s*[%％]$")


class KBError(ValueError):
    """A regulation file that cannot be read (no articles found, unreadable front matter)."""


class Article(BaseModel):
    """One article of the regulation.

    ``document`` (``《煤矿安全规程》``), ``edition`` (``"2025"``), ``number`` (157), ``heading``
    (``第一百五十七条``), ``chapter`` (``第四章 通风``), ``section`` (``第一节 …`` or None);
    ``paragraphs``: the prose, page breaks repaired, one paragraph per item; ``tables``; ``text``: the
    whole article (heading, paragraphs and rendered tables, in order); ``source``: the file it came from.
    """

    document: str = REGULATION_TITLE
    edition: str
    number: int
    heading: str
    chapter: str | None = None
    section: str | None = None
    paragraphs: list[str] = Field(default_factory=list)
    tables: list[RegTable] = Field(default_factory=list)
    text: str = ""
    source: str = ""
    excerpt: bool = False
    """From a file of excerpts (front matter ``excerpts: true``): a few articles of an edition, not its
    text; cited and looked up by number like any article, but its edition does not count as having text
    (:attr:`~vent_agent.kb.search.KnowledgeBase.text_editions`: a search in that edition still ranks every
    edition's articles)."""

    @property
    def key(self) -> tuple[str, int]:
        """``(edition, number)``."""
        return (self.edition, self.number)

    @property
    def label(self) -> str:
        """``《煤矿安全规程》（2025版）第157条`` (another document: ``《…》（2020版）第12条``)."""
        if self.document == REGULATION_TITLE:
            return article_label(self.edition, self.number)
        return f"{self.document}（{self.edition}版）第{self.number}条"


# -- page-break repair --------------------------------------------------------------------------------


def _starts_block(line: str) -> bool:
    return bool(ITEM.match(line) or _ARTICLE.match(line) or TITLE.match(line) or _CHAPTER.match(line))


def repair_paragraphs(lines: Iterable[str]) -> list[str]:
    """Paragraphs from text lines, blank lines being page breaks: a line that does not end a sentence
    (``。；：！？``) is continued by the next non-blank line unless that one starts an item (``（一）``,
    ``1.``), an article, a chapter or a table. Inner runs of spaces are tidied (``H2  S`` → ``H2S``,
    ``0.5％ ，`` → ``0.5％，``); a stray ``%`` after a full stop (an export artefact) is dropped."""
    paras: list[str] = []
    current = ""
    for raw in lines:
        line = _tidy(raw)
        if not line:
            continue
        line = _STRAY_PERCENT.sub(r"\1", line)
        if current and not current.endswith(_SENTENCE_END) and not _starts_block(line):
            current += line
            continue
        if current:
            paras.append(current)
        current = line
    if current:
        paras.append(current)
    return paras


def _tidy(line: str) -> str:
    s = line.replace("\u3000", " ").strip()
    s = re.sub(r"\s+(?=[，。；：、）)％%℃°”])", "", s)
    s = re.sub(r"(?<=[（(])\s+", "", s)
    s = re.sub(r"(?<=[A-Za-z0-9])\s{2,}(?=[A-Za-z）)])", "", s)
    s = re.sub(r"(?<=\d)\s+(?=°)|(?<=°)\s+(?=[\u4e00-\u9fff])", "", s)
    return re.sub(r"\s{2,}", " ", s)


# -- files --------------------------------------------------------------------------------------------


def _front_matter(text: str) -> tuple[dict[str, str], str]:
    """``(metadata, body)``: ``key: value`` lines between a leading ``---`` and the next ``---``."""
    stripped = text.lstrip("\ufeff")
    if not stripped.startswith("---"):
        return {}, stripped
    lines = stripped.splitlines()
    try:
        end = lines.index("---", 1)
    except ValueError as err:
        raise KBError("front matter opened with --- but never closed") from err
    meta = {}
    for line in lines[1:end]:
        if ":" in line:
            k, v = line.split(":", 1)
            meta[k.strip().lower()] = v.strip()
    return meta, "\n".join(lines[end + 1 :])


def _manifest(directory: Path) -> dict[str, dict[str, str]]:
    path = directory / MANIFEST
    if not path.is_file():
        return {}
    return dict(json.loads(path.read_text(encoding="utf-8")).get("files", {}))


def parse_text(
    text: str, *, edition: str, source: str = "", document: str = REGULATION_TITLE
) -> list[Article]:
    """The articles of one regulation text (see the module doc for the layout). Article numbers must
    increase through a file: a line starting ``第N条`` with N not above the previous number, or without a
    space after 条, is text (a cross-reference cut by a page break), not a new article.

    Raises KBError when the text has no article.
    """
    articles: list[Article] = []
    chapter: str | None = None
    section: str | None = None
    current: tuple[int, str, list[str]] | None = None  # number, heading, body lines
    last = 0

    def close() -> None:
        if current is not None:
            number, heading, body = current
            articles.append(
                _build_article(
                    number, heading, body, edition, chapter_at[number], section_at[number], source, document
                )
            )

    chapter_at: dict[int, str | None] = {}
    section_at: dict[int, str | None] = {}
    for raw in text.splitlines():
        line = raw.replace("\u3000", " ").strip()
        if m := _CHAPTER.match(line):
            close()
            current = None
            chapter, section = _heading_text(m, "章"), None
            continue
        if m := _SECTION.match(line):
            close()
            current = None
            section = _heading_text(m, "节")
            continue
        m = _ARTICLE.match(line)
        if m and (m.group("rest") is not None or line.endswith("条")):
            try:
                n = cn_to_int(m.group("n"))
            except ValueError:
                n = 0
            if n > last:
                close()
                last = n
                chapter_at[n], section_at[n] = chapter, section
                current = (
                    n,
                    line[: m.start("rest")].strip() if m.group("rest") else line,
                    [m.group("rest") or ""],
                )
                continue
        if current is not None:
            current[2].append(raw)
    close()
    if not articles:
        raise KBError(f"no article (第N条) found in {source or 'text'}")
    return articles


def _heading_text(m: re.Match[str], kind: str) -> str:
    title = re.sub(r"\s+", " ", m.group("title").strip())
    return f"第{m.group('n')}{kind} {title}".strip()


def _build_article(
    number: int,
    heading: str,
    body: list[str],
    edition: str,
    chapter: str | None,
    section: str | None,
    source: str,
    document: str,
) -> Article:
    prose: list[str] = []
    tables: list[RegTable] = []
    order: list[str | RegTable] = []  # paragraphs and tables in text order
    i = 0

    def flush() -> None:
        paras = repair_paragraphs(prose)
        order.extend(paras)
        prose.clear()

    while i < len(body):
        line = body[i].replace("\u3000", " ").strip()
        t = TITLE.match(line)
        if t and not line.endswith("。"):
            flush()
            cells: list[str] = []
            i += 1
            while i < len(body) and not is_table_end(body[i]) and not _ARTICLE.match(body[i].strip()):
                cells.append(_tidy(body[i]))
                i += 1
            notes: list[str] = []
            while i < len(body) and body[i].strip().startswith(("*", "＊", "注")):
                notes.append(_tidy(body[i]))
                i += 1
            table = build_table(f"表{t.group('no')}", _tidy(t.group("title")), cells, notes)
            if table is None:  # not a table after all: keep the lines as text
                prose.extend([line, *cells, *notes])
            else:
                tables.append(table)
                order.append(table)
            continue
        prose.append(body[i])
        i += 1
    flush()
    paragraphs = [p for p in order if isinstance(p, str)]
    heading_cn = heading if not heading[1:-1].strip().isdigit() else article_heading(number)
    parts = [p if isinstance(p, str) else p.render() for p in order]
    if order and isinstance(order[0], str):
        parts[0] = f"{heading_cn} {parts[0]}"
    else:
        parts.insert(0, heading_cn)
    return Article(
        document=document,
        edition=edition,
        number=number,
        heading=heading_cn,
        chapter=chapter,
        section=section,
        paragraphs=paragraphs,
        tables=tables,
        text="\n".join(parts),
        source=source,
    )


def load_file(
    path: Path, default_edition: str, manifest: dict[str, dict[str, str]] | None = None
) -> list[Article]:
    """The articles of one file; edition from its front matter, else ``manifest``, else
    ``default_edition`` (an edition name such as ``2022`` or ``2016版`` read as its edition, ``2016``).
    Raises KBError (no articles, bad front matter) or OSError."""
    meta, body = _front_matter(path.read_text(encoding="utf-8"))
    info = {**(manifest or {}).get(path.name, {}), **meta}
    written = str(info.get("edition") or default_edition).strip()
    edition = ArticleAliases.load().edition(written) or written  # "2022", "2016版" → "2016"
    document = info.get("title") or REGULATION_TITLE
    articles = parse_text(body, edition=edition, source=path.name, document=document)
    if str(info.get("excerpts", "")).strip().lower() in ("true", "yes", "1"):
        articles = [a.model_copy(update={"excerpt": True}) for a in articles]
    return articles


def regulation_files(directory: Path) -> list[Path]:
    """The ``*.txt`` files of a directory, by name (none when it does not exist)."""
    return sorted(directory.glob("*.txt")) if directory.is_dir() else []


def load_corpus(
    kb_dir: Path | None = None, default_edition: str = "2025", *, shipped: bool = True
) -> tuple[list[Article], list[str]]:
    """Every article of the shipped text and of ``kb_dir``; ``(articles, problems)`` where ``problems``
    names each file that could not be read and why (it is skipped, the rest still loads). An article of
    a later file replaces one with the same edition and number."""
    dirs = ([SHIPPED_DIR] if shipped else []) + ([kb_dir] if kb_dir else [])
    by_key: dict[tuple[str, str, int], Article] = {}
    problems: list[str] = []
    for directory in dirs:
        manifest = _manifest(directory)
        for path in regulation_files(directory):
            try:
                arts = load_file(path, default_edition, manifest)
            except (KBError, OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
                problems.append(f"{path}: {err}")
                log.warning("regulation file skipped: %s: %s", path, err)
                continue
            for a in arts:
                by_key[(a.document, a.edition, a.number)] = a
    return list(by_key.values()), problems
