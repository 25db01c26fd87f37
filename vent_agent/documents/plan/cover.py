"""The front matter of a monthly air-distribution plan (月度配风计划): cover fields (title, mine, month,
version, prepared date), the basis (编制依据) items, and the regulation citations with their editions.

Part of :mod:`vent_agent.documents.plan.parser`, which calls :func:`read_front_matter` under its guard.
"""

from __future__ import annotations

import re

from vent_agent.documents.plan.model import Citation, Plan
from vent_agent.documents.plan.sections import Section, section
from vent_agent.documents.plan.text_primitives import Line, TextDoc, parse_date, parse_month, squeeze

_MINE_RE = re.compile(
    r"^(.{2,30}?(?:煤矿|煤业有限责任公司|煤业有限公司|煤业|矿业有限责任公司|矿业有限公司|矿业|矿井|矿))"
)
_DATE_PAT = r"\d{4}\s*[年./\-]\s*\d{1,2}\s*[月./\-]\s*\d{1,2}\s*日?"
_REG_NAME = r"\s*".join("煤矿安全规程")


def read_front_matter(plan: Plan, doc: TextDoc, sections: list[Section]) -> None:
    """Fill ``plan``'s title, mine, month, version, prepared date, basis, citations and regulation
    editions from ``doc``. Fields it cannot read stay ``None`` (or empty); it does not raise on content."""
    _cover(plan, doc, sections)
    plan.basis = _basis(doc, section(sections, "basis"))
    plan.citations = _citations(doc)
    plan.regulation_editions = _editions(plan.citations)


def _cover(plan: Plan, doc: TextDoc, sections: list[Section]) -> None:
    first_section = sections[0].first_line if sections else len(doc.lines)
    first_page = [line for line in doc.lines if line.page == doc.lines[0].page]
    cover = [
        line for line in doc.lines[: max(first_section, 1)] if line.page == doc.lines[0].page
    ] or doc.lines[:1]
    title_idx, title = _title(cover, first_page)
    plan.title = squeeze(title)
    head = "\n".join(x.text for x in cover)
    text = doc.text
    above = [x.text for x in cover[: title_idx + 1]] if title_idx >= 0 else []
    plan.mine = _mine(head, above, plan.title, [x.text for x in first_page], text)

    plan.month = parse_month(plan.title)
    if not plan.month:
        m = re.search(r"(?:计划月份|月份|执行月份|时间)\s*[:：]\s*([^\n]+)", head)
        plan.month = parse_month(m.group(1)) if m else None
    if not plan.month:
        m = re.search(r"\d{4}\s*年\s*\d{1,2}\s*月份", text)
        plan.month = parse_month(m.group(0)) if m else None

    # V1.0, Rev.3, 2.1, A/0 and A0 (edition letter / revision), B (an edition letter alone), 第2版
    version = r"((?:[A-Za-z]{1,3}\.?\s*)?\d+(?:[./]\d+)*[A-Za-z]?|[A-Za-z]\s*/\s*\d+|[A-Z](?![A-Za-z]))"
    page_one = "\n".join(x.text for x in first_page)
    m = (
        re.search(rf"版\s*本\s*号?\s*[:：]?\s*{version}", head)
        or re.search(rf"(?:^|\n)\s*版\s*本\s*号?\s*[:：]?\s*{version}\s*(?:\n|$)", page_one)
        or re.search(rf"版\s*本\s*号?\s*[:：]\s*{version}", text)
    )
    m = m or re.search(r"第\s*([\d一二三四五六七八九十]+)\s*版", head)
    m = m or re.search(r"(?<![A-Za-z])([Vv]\s*\d+(?:\.\d+)+)", head)
    plan.version = re.sub(r"\s+", "", m.group(1)) if m else None

    m = re.search(rf"编制(?:日期|时间)\s*[:：]?\s*({_DATE_PAT})", text)
    m = m or re.search(rf"(?:^|\n)\s*日\s*期\s*[:：]\s*({_DATE_PAT})", head)
    plan.prepared_date = parse_date(m.group(1)) if m else None


_PLAN_TITLE = re.compile(r"配风计划|风量计划|配风方案|风量分配计划|通风计划")
_DEPARTMENT = re.compile(
    r"(?:通风(?:区|科|队|部|工区)|调度(?:室|中心)|技术(?:科|部)|安全(?:科|部)|生产(?:科|部))$"
)
"""Organisational units of a mine: a 编制单位 or a running header names one of these, never the mine."""


def _title(cover: list[Line], first_page: list[Line]) -> tuple[int, str]:
    """(index in ``cover`` or -1, title): the first line of the first page naming a plan of this kind
    (``…配风计划``), joined with a year line just above it, else the cover's first line naming a
    计划/方案, else the first line."""
    for lines in (cover, first_page):
        idx = next((i for i, x in enumerate(lines) if _PLAN_TITLE.search(x.text)), None)
        if idx is None and lines is cover:
            idx = next((i for i, x in enumerate(lines) if re.search(r"计划|方案", x.text)), None)
        if idx is None:
            continue
        title = lines[idx].text
        if idx > 0 and not re.search(r"\d{4}", title) and re.search(r"\d{4}\s*年", lines[idx - 1].text):
            title = lines[idx - 1].text + title
        return (idx if lines is cover else -1), title
    return 0, cover[0].text


def _mine_in(line: str) -> str | None:
    """The mine a line starts with (``示范煤矿2026年9月份矿井配风计划`` → ``示范煤矿``,
    ``示范煤矿通风区`` → ``示范煤矿``); None for a department alone or a plan's own words."""
    bare = re.sub(r"\d{4}\s*年(?:度)?\s*(?:\d{1,2}\s*月(?:份)?)?", "", squeeze(line))
    mm = _MINE_RE.match(bare)
    if not mm or re.search(r"计划|方案|通风|编制|单位", mm.group(1)):
        return None
    return mm.group(1)


def _mine(head: str, cover_lines: list[str], title: str, first_page: list[str], text: str) -> str | None:
    """The mine's name (docs/DOMAIN.md §5): the title (or the cover lines above it) up to 煤矿/煤业…/矿, else a
    矿井名称/煤矿名称 field, else a line of the first page starting with a mine's name, else the
    overview's ``XX煤矿为…``. A 编制单位 line or a department (通风科, 通风区 …) is never the mine."""
    for line in [title, *reversed(cover_lines)]:
        if (hit := _mine_in(line)) is not None:
            return hit
    m = re.search(r"(?:矿井名称|煤矿名称|矿井|煤矿)\s*[:：]\s*(\S+)", head)
    if m and not _DEPARTMENT.search(m.group(1)) and (hit := _mine_in(m.group(1)) or squeeze(m.group(1))):
        return hit
    for line in first_page:
        if re.search(r"编制单位|编制部门", line):
            continue
        if (hit := _mine_in(line)) is not None:
            return hit
    om = re.search(r"([\u4e00-\u9fff]{2,12}?(?:煤矿|煤业|矿井))为", squeeze(text))
    return om.group(1) if om else None


def _basis(doc: TextDoc, sec: Section | None) -> list[str]:
    if sec is None:
        return []
    start, end = doc.span(sec.first_line + 1, sec.end_line)
    text = doc.text[start:end]
    # an item number: "1." at a line start or after ";" / "。" (even before a digit: "3.9月测风报表"),
    # elsewhere only when not a decimal ("能力 1.8Mt/a")
    strong = r"(?:^|(?<=[\n;；。]))\s*\d{1,2}\s*\."
    weak = r"(?<=\s)\d{1,2}\s*\.(?:(?!\d)|(?=\d{4}\s*年))"
    other = r"(?:^|(?<=[\s;；。]))(?:\d{1,2}\s*[、)]|\(\d{1,2}\)|[①-⑳])"
    items = re.split(rf"(?:{strong}|{weak}|{other})\s*", text)
    return [s for s in (squeeze(x.replace("\n", " ")).rstrip(";；。.，,") for x in items) if s]


_CN_DIGIT = {c: i for i, c in enumerate("零一二三四五六七八九")} | {"〇": 0}


def article_number(written: str) -> int | None:
    """An article number as written: ``157`` or in Chinese numerals (``一百五十七``, ``一百零三``,
    ``十二``); None when it is not a number."""
    if written.isdigit():
        return int(written)
    total, digit = 0, 0
    for ch in written:
        if ch in _CN_DIGIT:
            digit = _CN_DIGIT[ch]
        elif ch in "十百":
            total += (digit or 1) * (10 if ch == "十" else 100)
            digit = 0
        else:
            return None
    return total + digit or None


def _citations(doc: TextDoc) -> list[Citation]:
    text = doc.text
    out: list[Citation] = []
    reg = re.compile(
        rf"(?:(\d{{4}})\s*年?\s*版\s*)?《\s*{_REG_NAME}\s*》"
        rf"(?:\s*[(（]\s*(\d{{4}})\s*年?\s*(?:修订|修正)?\s*版?\s*(?:[，,、]\s*\d{{4}}\s*年?\s*(?:修订|修正)\s*)?[)）])?"
        rf"(?:\s*(\d{{4}})\s*年?\s*版)?"
        rf"(?:\s*[(（][^)）]{{0,16}}[)）])?(?:\s*第\s*(\d{{1,3}}|[一二三四五六七八九十百零〇]{{1,7}})\s*条)?"
    )
    for m in reg.finditer(text):
        edition = m.group(1) or m.group(2) or m.group(3)
        article = article_number(m.group(4)) if m.group(4) else None
        out.append(
            Citation(
                document="煤矿安全规程",
                edition=edition,
                article=article,
                text=squeeze(m.group(0)),
                page=doc.page_at(m.start()),
                context=squeeze(text[max(0, m.start() - 60) : m.start()].split("。")[-1]),
            )
        )
    for m in re.finditer(r"(?<![A-Za-z])(AQ|GB|MT)(/T)?\s*(\d{3,5}(?:\.\d+)?)\s*[-—–]\s*(\d{4})", text):
        doc_id = f"{m.group(1)}{m.group(2) or ''} {m.group(3)}-{m.group(4)}"
        out.append(
            Citation(
                document=doc_id, edition=m.group(4), text=squeeze(m.group(0)), page=doc.page_at(m.start())
            )
        )
    return out


def _editions(citations: list[Citation]) -> list[str]:
    out: list[str] = []
    for c in citations:
        if c.document == "煤矿安全规程":
            label = f"《煤矿安全规程》（{c.edition}年版）" if c.edition else "《煤矿安全规程》"
        else:
            label = c.document
        if label not in out:
            out.append(label)
    return out
