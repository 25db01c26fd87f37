"""Sections of a plan and the per-location calculation blocks of its 需风量计算 section.

Sections are found by what their heading says (编制依据, 用风地点, 需风量计算, 风量分配, 总需风量, 审批 …),
not by their number: headings numbered ``一、`` / ``1.`` / ``第一章`` / ``（一）`` or unnumbered all work,
and only the numbering style that most section headings share counts (so that ``1. 中央变电所需风量计算``
inside a ``四、`` section is not taken for a section).

A location block starts at a line naming a location (a name of the location list, or an enumerated
short line ending like a place: ``（1）15216 综采工作面``, ``2.3 中央变电所``) and runs to the next one,
across page breaks.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from vent_agent.documents.plan.text_primitives import TextDoc, name_key, squeeze

SECTION_KEYS: list[tuple[str, str]] = [
    ("signoff", r"审批|签字|签批|会签|审核意见"),
    ("basis", r"编制依据|依据"),
    ("overview", r"概况|基本情况"),
    ("totals", r"总需风量|总风量|矿井需风量|风量汇总|矿井总"),
    ("allocation", r"风量分配|配风表|分配表|配风情况|风量调配"),
    ("calculation", r"需风量计算|风量计算|需风量"),
    ("locations", r"用风地点|用风点"),
    ("measures", r"措施|调整|调风"),
]

_ENUMS: list[tuple[str, str]] = [
    ("chapter", r"第[一二三四五六七八九十\d]+[章节部分]"),
    ("cn", r"[一二三四五六七八九十]+\s*[、.]"),
    ("cn_paren", r"\([一二三四五六七八九十]+\)"),
    ("arabic", r"\d{1,2}\s*[、.](?!\d)"),
]
_BAD_HEADING_CHARS = re.compile(r"[:=;,，。；≤×]")
_NOTE_AFTER = re.compile(r"\s*[(（][^()（）]{1,30}[)）]\s*$")
"""A note after a heading's title (``四、各用风地点需风量计算（风量单位：m³/min）``): not part of the title."""

_LOC_ENUM = re.compile(
    r"^\s*(?:\(\s*\d{1,2}\s*\)|\d{1,2}(?:\.\d{1,2}(?!\d))*\s*[、.)]?|[一二三四五六七八九十]+\s*[、.]|"
    r"\([一二三四五六七八九十]+\)|[①-⑳])\s*"
)
_LOC_SUFFIX = re.compile(
    r"(?:工作面|硐室|泵房|变电所|变电站|配电室|材料库|炸药库|火药库|巷|段|上山|下山|石门|车场|煤仓|迎头|室|所|库|井)$"
)
_HEADING_TAIL = re.compile(r"(?:的)?(?:需风量计算|风量计算|需风量|计算)$")


@dataclass
class Section:
    """One top-level section: its key (see :data:`SECTION_KEYS`), heading text and line range."""

    key: str
    title: str
    first_line: int  # the heading line
    end_line: int  # exclusive
    page: int


def _heading(text: str) -> tuple[str, str] | None:
    """(enumerator style, title) when the line looks like a section heading with a known key."""
    style, title = "none", text
    for name, pattern in _ENUMS:
        m = re.match(rf"^\s*{pattern}\s*", text)
        if m:
            style, title = name, text[m.end() :]
            break
    title = _NOTE_AFTER.sub("", squeeze(title)).rstrip(":")
    if not title or len(title) > 20 or _BAD_HEADING_CHARS.search(title):
        return None
    if style == "none" and len(title) > 10:
        return None
    return (style, title) if _section_key(title) else None


def _section_key(title: str) -> str | None:
    for key, pattern in SECTION_KEYS:
        if re.search(pattern, title):
            return key
    return None


def find_sections(doc: TextDoc) -> list[Section]:
    """The document's top-level sections in order (possibly none)."""
    candidates = []
    for i, line in enumerate(doc.lines):
        h = _heading(line.text)
        if h:
            candidates.append((i, h[0], h[1]))
    styles = Counter(style for _, style, _ in candidates if style != "none")
    if styles:
        top = styles.most_common(1)[0][0]
        candidates = [c for c in candidates if c[1] == top]
    sections: list[Section] = []
    for n, (i, _, title) in enumerate(candidates):
        end = candidates[n + 1][0] if n + 1 < len(candidates) else len(doc.lines)
        key = _section_key(title) or "other"
        sections.append(Section(key=key, title=title, first_line=i, end_line=end, page=doc.lines[i].page))
    return sections


def section(sections: list[Section], key: str) -> Section | None:
    """The first section of that key."""
    return next((s for s in sections if s.key == key), None)


@dataclass
class Block:
    """The calculation text of one location: its heading line and the text up to the next block."""

    name: str
    heading: str
    hint: str  # a parenthesised remark after the name, e.g. 半煤岩巷
    first_line: int
    start: int  # offset of the text after the heading line
    end: int
    page: int
    outside: bool = False  # a sentence outside the calculation section (an overview's 校核 of a return)


def _heading_name(text: str, known: list[str]) -> tuple[str, str] | None:
    """(location name, kind hint in parentheses) when ``text`` is a location heading."""
    m = _LOC_ENUM.match(text)
    rest = text[m.end() :] if m else text
    key = _HEADING_TAIL.sub("", name_key(rest))
    hint = ""
    pm = re.search(r"\(([^()]*)\)$", key)
    if pm:
        hint, key = pm.group(1), key[: pm.start()]
        key = _HEADING_TAIL.sub("", key)
    if not key or key.startswith(("按", "取")):
        return None
    for name in sorted(known, key=len, reverse=True):
        if key == name_key(name):
            return name, hint
    if m and len(key) <= 24 and not _BAD_HEADING_CHARS.search(key) and _LOC_SUFFIX.search(key):
        return key, hint
    return None


def find_blocks(doc: TextDoc, first_line: int, end_line: int, known: list[str]) -> list[Block]:
    """The location blocks between lines ``first_line`` and ``end_line`` (exclusive)."""
    heads = []
    for i in range(first_line, end_line):
        h = _heading_name(doc.lines[i].text, known)
        if h:
            heads.append((i, h[0], h[1]))
    blocks = []
    for n, (i, name, hint) in enumerate(heads):
        stop = heads[n + 1][0] if n + 1 < len(heads) else end_line
        start, end = doc.span(i + 1, stop)
        block = Block(
            name, doc.lines[i].text, hint, first_line=i, start=start, end=end, page=doc.lines[i].page
        )
        blocks += narrative_blocks(doc, block, known)
    return blocks


_SENTENCE_START = re.compile(r"(?:^|[\n。；;])\s*$")


def narrative_blocks(doc: TextDoc, block: Block, known: list[str]) -> list[Block]:
    """A block under a heading that names a kind of place, not a place (``（三）掘进工作面``,
    ``（四）硐室及其他用风巷道``), split where a paragraph or a sentence starts with a known location's name
    (``15220 回风顺槽掘进工作面为煤巷，断面 13.8，…``): one block per location, its text up to the next
    such name. ``[block]`` when the heading names a place, or when no known name starts a sentence in it
    (never a name guessed from the text)."""
    if not known or any(name_key(block.name) == name_key(k) for k in known):
        return [block]
    text = doc.text[block.start : block.end]
    found: dict[int, tuple[int, str]] = {}
    for name in sorted({k for k in known if len(name_key(k)) >= 4}, key=len, reverse=True):
        pattern = r"\s*".join(re.escape(ch) for ch in name_key(name))
        for m in re.finditer(pattern, text):
            if _SENTENCE_START.search(text[: m.start()]) and not any(
                a <= m.start() < b for a, (b, _) in found.items()
            ):
                found[m.start()] = (m.end(), name)
    if not found:
        return [block]
    starts = sorted(found)
    out = []
    for n, at in enumerate(starts):
        name_end, name = found[at]
        stop = starts[n + 1] if n + 1 < len(starts) else len(text)
        offset = block.start + at
        out.append(
            Block(
                name,
                squeeze(text[at:name_end]),
                "",
                first_line=doc.line_at(offset),
                start=block.start + name_end,
                end=block.start + stop,
                page=doc.page_at(offset),
            )
        )
    return out


# --- statements inside a block ---------------------------------------------------------------------

STATEMENT_MARKERS: list[tuple[str, str]] = [
    ("params", r"(?:基础|基本|计算|已知|原始|主要|设计)参数"),
    (
        "method",
        r"按[^，,。；;：:=\n]{1,18}?(?:计算|确定|核算|校核)"
        r"|(?:瓦斯|二氧化碳|CO2|气象条件|人数|炸药量|局部通风机|局扇|胶轮车|发热量|库容|氢气|最低风量|备用工作面)"
        r"[^，,。；;：:=\n]{0,12}?(?:计算|法)(?=\s*:)"
        r"|按(?:瓦斯涌出量|二氧化碳涌出量|气象条件|温度|人数|炸药量|局部通风机吸风量|局扇吸风量|胶轮车功率|发热量)(?=\s*:|\s*\d)"
        r"|(?:按|则按)?(?:瓦斯|二氧化碳|CO2|炸药量|局部通风机|局扇|人数|库容|换气|氢气|每千瓦|胶轮车)"
        r"(?:(?!按|\d+\s*(?:台|人|辆))[^。；;=\n]){0,24}?需风(?=\s*\d)",
    ),
    (
        "max",
        r"取(?:其中)?(?:最大值|大值|最大者)|需风量取值|最终(?:确定)?需风量|综合(?:确定|取值)|需风量(?:确定)?为"
        r"|(?<![\w(])Q\s*需(?=\s*=)",
    ),
    ("speed", r"(?:按)?风速(?:验算|校核|核算)(?!用)|验算风速"),
    ("section", r"(?:工作面)?平均断面|有效断面|断面计算"),
]
_MARKER_RE = re.compile("|".join(f"(?P<{k}>{p})" for k, p in STATEMENT_MARKERS))
_LABEL_GAP = re.compile(r"\s*:?\s*")
"""Spaces and an optional colon between a statement's marker and its body."""


@dataclass
class Statement:
    """One statement of a block: its kind (params, method, max, speed, section), the label (e.g.
    ``按瓦斯涌出量计算``), and the body after the label. ``pos[i]`` is the document offset of ``body[i]``
    (line breaks are dropped next to CJK text and inside a number wrapped over two lines, else become
    a space)."""

    kind: str
    label: str
    body: str
    pos: list[int]

    def offset(self, i: int) -> int:
        """Document offset of ``body[i]`` (clamped to the body)."""
        if not self.pos:
            return 0
        return self.pos[max(0, min(i, len(self.pos) - 1))]


_CJK_RE = re.compile(r"[\u4e00-\u9fff\u3000-\u303f]")
_NUMCH = set("0123456789.")
_TRAILING_ENUM = re.compile(r"\s*(?:\(\s*\d{1,2}\s*\)|[①-⑳]|\d{1,2}\s*[)、])\s*$")


def joined_text(doc: TextDoc, start: int, end: int) -> tuple[str, list[int]]:
    """``doc.text[start:end]`` with its line breaks resolved, and each character's document offset."""
    raw = doc.text[start:end]
    chars: list[str] = []
    pos: list[int] = []
    for i, ch in enumerate(raw):
        if ch == "\n":
            prev = raw[i - 1] if i else ""
            nxt = raw[i + 1] if i + 1 < len(raw) else ""
            tight = doc.lines[doc.line_at(start + i)].soft_end and prev in _NUMCH and nxt in _NUMCH
            if tight or _CJK_RE.match(prev or " ") or _CJK_RE.match(nxt or " "):
                continue
            ch = " "
        chars.append(ch)
        pos.append(start + i)
    return "".join(chars), pos


def split_statements(doc: TextDoc, start: int, end: int) -> list[Statement]:
    """Split the text ``doc.text[start:end]`` at statement markers. Text before the first marker is a
    ``params`` statement; an enumerator left at the end of a statement (``(2)``) is dropped."""
    text, pos = joined_text(doc, start, end)
    marks: list[re.Match[str]] = []
    for m in _MARKER_RE.finditer(text):
        # "取最大值：Q需 = …" / "风速验算：Q需 = … ≤ …": a bare "Q需" right after a label belongs to it
        if m.group(0).startswith("Q") and marks and not text[marks[-1].end() : m.start()].strip(" :"):
            continue
        marks.append(m)
    spans: list[tuple[str, str, int, int]] = []
    first = marks[0].start() if marks else len(text)
    if text[:first].strip():
        spans.append(("params", "", 0, first))
    for n, m in enumerate(marks):
        stop = marks[n + 1].start() if n + 1 < len(marks) else len(text)
        gap = _LABEL_GAP.match(text, m.end(), stop)  # always matches: every part is optional
        body_start = gap.end() if gap else m.end()
        spans.append((m.lastgroup or "", squeeze(m.group(0)), body_start, stop))
    out = []
    for kind, label, a, b in spans:
        body = _TRAILING_ENUM.sub("", text[a:b])
        out.append(Statement(kind, label, body, pos[a : a + len(body)]))
    return out
