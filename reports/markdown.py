"""The review report as Chinese Markdown (what the review stream sends as ``token`` events)."""

from __future__ import annotations

from reports.blocks import Block, Bullets, Heading, Para, Table
from reports.content import build_report
from reports.front import Issuer
from vent_agent.review.result import ReviewResult


def escape_cell(text: str) -> str:
    """A table cell's text on one line: ``|`` escaped, line breaks as ``<br>``."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("|", "\\|")
    return "<br>".join(line.strip() for line in text.split("\n"))


def _one_line(text: str) -> str:
    """Heading, paragraph and list text on one line."""
    return " ".join(part.strip() for part in text.splitlines() if part.strip())


def _table(table: Table) -> list[str]:
    lines = [
        "| " + " | ".join(escape_cell(h) for h in table.header) + " |",
        "|" + "|".join("---" for _ in table.header) + "|",
    ]
    lines += ["| " + " | ".join(escape_cell(c) for c in row.cells) + " |" for row in table.rows]
    return lines


def _block(block: Block) -> list[str]:
    """One block as Markdown lines (without the blank line that separates blocks)."""
    match block:
        case Heading(text=text, level=level):
            return ["#" * (level + 1) + " " + _one_line(text)]
        case Para(text=text, strong=strong):
            return [f"**{_one_line(text)}**" if strong else _one_line(text)]
        case Bullets(items=items):
            return [f"- {_one_line(item)}" for item in items]
        case Table():
            return _table(block)
    raise TypeError(f"unknown block {block!r}")


def render_markdown(result: ReviewResult, issuer: Issuer | None = None) -> str:
    """Render a review result as the final review report in Chinese Markdown; ``issuer`` names the
    reviewing unit and reviewer (:class:`~reports.front.Issuer`).

    Deterministic: the same result gives the same text (findings in a fixed order, no current time).
    """
    parts = [lines for block in build_report(result, issuer).blocks if (lines := _block(block))]
    return "\n\n".join("\n".join(lines) for lines in parts) + "\n"
