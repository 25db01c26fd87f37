"""Table cells rebuilt from a ruled grid and the OCR boxes inside it.

Rows and columns are the grid's ruled lines (:mod:`vent_agent.documents.ocr.rules`). A cell whose border
with its neighbour is not drawn is merged with it (a spanning cell): as pdfplumber does for text-layer
tables, the merged region's text goes to its top-left cell and the other cells of the region get
``None``. An OCR box that runs over a drawn column border (two cells read as one line) is split there in
proportion to the characters' widths. Each cell's text keeps its lines, joined by ``\\n``.

A column whose numbers are written with a decimal point gets a misread point (``0:77``, ``0;77``)
repaired; nothing else in the text is changed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vent_agent.documents.ocr.layout import Placed, group_lines, line_text
from vent_agent.documents.ocr.rules import Grid, Rules, h_coverage, v_coverage

_DRAWN = 0.5  # a border counts as drawn when a stroke runs along at least this share of it
_DECIMAL = re.compile(r"^-?\d+\.\d+$")
_MISREAD_POINT = re.compile(r"^(-?\d+)[:;：；](\d+)$")


@dataclass
class GridCell:
    """One cell of the rebuilt table: 0-based row and column, and its text (None for the continuation of
    a merged cell)."""

    row: int
    col: int
    text: str | None


def _char_width(ch: str) -> float:
    return 0.55 if ord(ch) < 0x2E80 else 1.0


def split_at(box: Placed, cuts: list[float]) -> list[Placed]:
    """``box`` cut at the x positions ``cuts`` (inside it), its characters shared out by their widths
    (a CJK character counts 1, others 0.55)."""
    text = box.text
    if not cuts or not text:
        return [box]
    total = sum(_char_width(c) for c in text)
    scale = (box.x1 - box.x0) / total if total else 0.0
    pieces: list[list[str]] = [[] for _ in range(len(cuts) + 1)]
    pos = box.x0
    for ch in text:
        w = _char_width(ch) * scale
        centre = pos + w / 2
        pieces[sum(1 for c in cuts if centre >= c)].append(ch)
        pos += w
    edges = [box.x0, *cuts, box.x1]
    return [
        Placed("".join(p).strip(), box.score, edges[i], box.y0, edges[i + 1], box.y1)
        for i, p in enumerate(pieces)
        if "".join(p).strip()
    ]


def _index(lines: list[float], v: float) -> int | None:
    for i in range(len(lines) - 1):
        if lines[i] <= v < lines[i + 1]:
            return i
    return None


def build_cells(grid: Grid, boxes: list[Placed], rules: Rules) -> tuple[list[GridCell], list[Placed]]:
    """The cells of ``grid`` filled with the boxes whose centres fall inside it; returns the cells
    (row-major, every position present) and the boxes used."""
    xs, ys = grid.xs, grid.ys
    n_rows, n_cols = len(ys) - 1, len(xs) - 1
    tol = rules.tol
    # union of cells whose shared border is not drawn
    owner = {(r, c): (r, c) for r in range(n_rows) for c in range(n_cols)}

    def root(rc: tuple[int, int]) -> tuple[int, int]:
        while owner[rc] != rc:
            rc = owner[rc]
        return rc

    def join(a: tuple[int, int], b: tuple[int, int]) -> None:
        ra, rb = root(a), root(b)
        if ra != rb:
            first, second = sorted((ra, rb))
            owner[second] = first

    for r in range(n_rows):
        for c in range(1, n_cols):
            if v_coverage(rules, xs[c], ys[r] + tol, ys[r + 1] - tol) < _DRAWN:
                join((r, c - 1), (r, c))
    for r in range(1, n_rows):
        for c in range(n_cols):
            if h_coverage(rules, ys[r], xs[c] + tol, xs[c + 1] - tol) < _DRAWN:
                join((r - 1, c), (r, c))

    x0, y0, x1, y1 = grid.bbox
    inside = [b for b in boxes if x0 <= b.cx <= x1 and y0 <= b.cy <= y1]
    content: dict[tuple[int, int], list[Placed]] = {}
    for box in inside:
        row = _index(ys, box.cy)
        if row is None:
            continue
        margin = 0.25 * box.height
        cuts = [
            x
            for x in xs[1:-1]
            if box.x0 + margin < x < box.x1 - margin
            and v_coverage(rules, x, ys[row] + tol, ys[row + 1] - tol) >= _DRAWN
        ]
        for piece in split_at(box, cuts):
            col = _index(xs, piece.cx)
            if col is not None:
                content.setdefault(root((row, col)), []).append(piece)
    cells = []
    for r in range(n_rows):
        for c in range(n_cols):
            if root((r, c)) != (r, c):
                cells.append(GridCell(r, c, None))
                continue
            lines = group_lines(content.get((r, c), []))
            cells.append(GridCell(r, c, "\n".join(line_text(line) for line in lines)))
    _repair_decimal_columns(cells, n_cols)
    return cells, inside


def _repair_decimal_columns(cells: list[GridCell], n_cols: int) -> None:
    """In a column where at least half the numbers have a decimal point, ``0:77`` / ``0;77`` is a misread ``0.77``."""
    for c in range(n_cols):
        column = [cell for cell in cells if cell.col == c and cell.text]
        decimals = sum(1 for cell in column if _DECIMAL.match(cell.text or ""))
        numeric = sum(1 for cell in column if re.fullmatch(r"-?\d+(?:[.:;：；]\d+)?", cell.text or ""))
        if decimals and decimals * 2 >= numeric:
            for cell in column:
                cell.text = _MISREAD_POINT.sub(r"\1.\2", cell.text or "")
