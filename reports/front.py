"""What page 1 of a review report says besides the counts: who issues it (report number, reviewing unit,
reviewer), each critical and major item in a line, and the plan's month checked against the review's date.

Pure functions of the :class:`~vent_agent.review.result.ReviewResult` and an :class:`Issuer`, shared by
the Markdown and the Word report (:mod:`reports.content`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from reports import labels as L
from vent_agent.review.findings import GENERAL_LOCATION, Finding, Severity

HANDWRITE = "_" * 12
"""What an unset 审查单位 or 审查人 prints: a blank line to fill in by hand (never "未设置", which reads as the
report's defect to whoever signs it)."""
ITEM_CHARS = 120
"""Longest text of one item on page 1 (characters, two printed lines); a longer message keeps its leading
clauses that fit and its last clause, which says what must be done or what follows."""
CLAUSE = re.compile(r"(?<=[：；。])")
"""A clause boundary: after a full-width colon, semicolon or full stop (a comma joins the parts of one
action: 停止工作，撤出人员)."""


@dataclass(frozen=True)
class Issuer:
    """Who issues the report: the reviewing unit (审查单位, ``VENT_REPORT_UNIT``) and the reviewer (审查人,
    ``VENT_REPORT_REVIEWER``); empty when the settings do not name them (the report then prints
    :data:`HANDWRITE`)."""

    unit: str = ""
    reviewer: str = ""


def report_number(sha256: str, created_at: str) -> str:
    """The report's number, ``配审-YYYYMMDD-HHMMSS-<first 6 hex digits of the plan's SHA-256, upper
    case>``: the review's local time and the file, so two reviews never share one and the Markdown and
    Word reports of one review say the same."""
    try:
        stamp = datetime.fromisoformat(created_at).strftime("%Y%m%d-%H%M%S")
    except ValueError:
        stamp = re.sub(r"\D", "", created_at)[:14] or "00000000"
    return f"配审-{stamp}-{sha256[:6].upper()}"


def month_check(month: str | None, created_at: str) -> str | None:
    """The plan's month (``YYYY-MM``) against the review's date (ISO): None when the plan is for the
    review's month or the next one (a monthly plan is written the month before), else a Chinese note
    saying it is past or more than a month ahead. None when either cannot be read."""
    found = re.fullmatch(r"(\d{4})-(\d{1,2})", (month or "").strip())
    try:
        day = datetime.fromisoformat(created_at)
    except ValueError:
        return None
    if not found:
        return None
    ahead = (int(found[1]) - day.year) * 12 + int(found[2]) - day.month
    when = f"审查日期 {day:%Y-%m-%d}"
    if ahead < 0:
        return f"计划月份早于{when}所在月份：计划已过期，请核实是否为本月应执行的计划。"
    if ahead > 1:
        return f"计划月份比{when}晚 {ahead} 个月：请核实计划月份。"
    return None


def shorten(text: str, limit: int = ITEM_CHARS) -> str:
    """``text`` whole when it has at most ``limit`` characters, else its leading clauses that fit with its
    last clause (the required action or the consequence), joined by ``……``: never cut inside a clause,
    so the first and the last clause are kept even when together they pass the limit."""
    clauses = [c for c in CLAUSE.split(text) if c]
    if len(text) <= limit or len(clauses) < 3:
        return text
    last, head = clauses[-1], clauses[0]
    for clause in clauses[1:-1]:
        if len(head) + len(clause) + len(last) + 2 > limit:
            break
        head += clause
    return f"{head}……{last}"


def _headline(finding: Finding) -> str:
    """A finding's message without its location in front, :func:`shorten`-ed."""
    text = finding.message
    if finding.location and text.startswith(finding.location):
        text = text[len(finding.location) :].lstrip("：:，, ")
    return shorten(text)


def key_items(findings: list[Finding]) -> tuple[str, ...]:
    """Each critical and major finding in one line, most severe first: ``【严重】地点：问题（第N页）``."""
    lines = []
    for f in findings:
        if f.severity not in (Severity.CRITICAL, Severity.MAJOR):
            continue
        page = f"（第{f.page}页）" if f.page else ""
        lines.append(
            f"【{L.severity_label(f.severity)}】{f.location or GENERAL_LOCATION}：{_headline(f)}{page}"
        )
    return tuple(lines)
