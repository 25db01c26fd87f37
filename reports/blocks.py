"""The neutral blocks a review report is made of (rendered by :mod:`reports.markdown` and
:mod:`reports.docx_report`) and the number/time formatting both renderers share."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from reports import labels as L
from vent_agent.review.findings import Severity


@dataclass(frozen=True)
class Heading:
    """A heading; level 0 is the document title."""

    text: str
    level: int


@dataclass(frozen=True)
class Para:
    """A paragraph; ``strong`` paragraphs (the verdict) are set in bold."""

    text: str
    strong: bool = False


@dataclass(frozen=True)
class Bullets:
    """A bulleted list."""

    items: tuple[str, ...]


@dataclass(frozen=True)
class Row:
    """A table row. A cell's lines are separated by ``\\n``; ``severity`` shades the severity cell."""

    cells: tuple[str, ...]
    severity: Severity | None = None


@dataclass(frozen=True)
class Table:
    """A table with a header row; ``severity_col`` is the column whose cell is shaded by severity."""

    header: tuple[str, ...]
    rows: tuple[Row, ...]
    severity_col: int | None = None


Block = Heading | Para | Bullets | Table


@dataclass
class ReportContent:
    """The report's blocks, plus what a renderer needs besides them (document properties, the running
    footer's notice)."""

    title: str
    subject: str
    blocks: list[Block] = field(default_factory=list)
    footer: str = ""


def fmt_num(value: float | int | str | None) -> str:
    """A figure as an engineer writes it: at least one decimal, at most three (144.0, 0.8, 1.05)."""
    if value is None:
        return L.EMPTY
    if isinstance(value, str):
        return value
    if isinstance(value, int):  # bool included
        return str(value)
    text = f"{value:.3f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


def fmt_time(created_at: str) -> str:
    """An ISO time as ``YYYY-MM-DD HH:MM:SS`` (with its UTC offset when it has one); other text as is."""
    try:
        moment = datetime.fromisoformat(created_at)
    except ValueError:
        return created_at
    text = moment.strftime("%Y-%m-%d %H:%M:%S")
    offset = moment.strftime("%z")
    return f"{text}（时区 {offset[:3]}:{offset[3:]}）" if offset else text


def fmt_month(month: str | None) -> str:
    """``2026-08`` as ``2026年8月``; other text as is."""
    if not month:
        return "未识别"
    match = re.fullmatch(r"(\d{4})-(\d{1,2})", month.strip())
    return f"{match[1]}年{int(match[2])}月" if match else month


def fmt_range(low: float | None, high: float | None) -> str:
    """``low–high`` with each bound formatted (``—`` for a missing one)."""
    return f"{fmt_num(low)}–{fmt_num(high)}"


def page_runs(pages: Iterable[int | None]) -> str:
    """PDF pages as runs, in order, each page once: ``[4, 3, 5, 8]`` → ``3–5、8``; ``—`` for none (a
    page cell stays one short line however many copies or cells a finding cites; the console's
    ``pageRuns`` writes the same)."""
    runs: list[list[int]] = []
    for page in sorted({p for p in pages if p}):
        if runs and page == runs[-1][1] + 1:
            runs[-1][1] = page
        else:
            runs.append([page, page])
    return "、".join(f"{a}" if a == b else f"{a}–{b}" for a, b in runs) or L.EMPTY
