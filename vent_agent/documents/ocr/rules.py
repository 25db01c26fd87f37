"""Ruled lines of a rendered (upright) page: the horizontal and vertical strokes that draw tables.

Morphological opening of the binarised page with a long thin kernel keeps only strokes at least that long
in that direction: scan speckle, text and its strokes vanish (the kernels are a few text heights long
horizontally, about two text heights vertically). What is left is cut into segments; segments that cross
each other form the grid of a ruled table (:func:`ruled_grids`).

Coordinates are pixels of the upright image; ``tol`` is the tolerance in pixels for "the same line".
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np


@dataclass(frozen=True)
class Segment:
    """A ruled stroke: ``pos`` is its y (horizontal) or x (vertical); ``start``/``end`` its extent
    along its direction."""

    pos: float
    start: float
    end: float

    @property
    def length(self) -> float:
        return self.end - self.start


@dataclass
class Rules:
    """The page's ruled strokes as masks (bool, image-sized) and as segments."""

    h_mask: np.ndarray
    v_mask: np.ndarray
    horizontal: list[Segment] = field(default_factory=list)
    vertical: list[Segment] = field(default_factory=list)
    tol: float = 4.0


@dataclass
class Grid:
    """A ruled table's grid: row lines ``ys`` and column lines ``xs`` (both ascending, pixels)."""

    xs: list[float]
    ys: list[float]

    @property
    def bbox(self) -> tuple[float, float, float, float]:
        return self.xs[0], self.ys[0], self.xs[-1], self.ys[-1]


def binarise(gray: np.ndarray) -> np.ndarray:
    """Ink as 255, paper as 0 (Otsu's threshold), uint8."""
    _, binary = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY_INV | cv2.THRESH_OTSU)
    return binary


def _segments(mask: np.ndarray, horizontal: bool, tol: float, gap: float) -> list[Segment]:
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    raw = []
    for i in range(1, n):
        x, y, w, h, _ = stats[i]
        if horizontal:
            raw.append(Segment(y + h / 2, float(x), float(x + w)))
        else:
            raw.append(Segment(x + w / 2, float(y), float(y + h)))
    raw.sort(key=lambda s: (s.pos, s.start))
    merged: list[Segment] = []
    for s in raw:  # one line broken by scan noise arrives as several pieces: join them
        for i, m in enumerate(merged):
            if abs(m.pos - s.pos) <= tol and s.start <= m.end + gap and m.start <= s.end + gap:
                merged[i] = Segment((m.pos + s.pos) / 2, min(m.start, s.start), max(m.end, s.end))
                break
        else:
            merged.append(s)
    return merged


def find_rules(gray: np.ndarray, text_height: float) -> Rules:
    """The ruled strokes of an upright grayscale page whose text is about ``text_height`` px high."""
    th = max(text_height, 8.0)
    binary = binarise(gray)
    h_len, v_len = int(max(25, 3.5 * th)), int(max(15, 1.6 * th))
    h_mask = cv2.morphologyEx(binary, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (h_len, 1)))
    v_mask = cv2.morphologyEx(binary, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (1, v_len)))
    tol = max(3.0, th / 6)
    return Rules(
        h_mask=h_mask > 0,
        v_mask=v_mask > 0,
        horizontal=_segments(h_mask, True, tol, gap=th),
        vertical=_segments(v_mask, False, tol, gap=th / 2),
        tol=tol,
    )


def _cluster(values: list[float], tol: float) -> list[float]:
    out: list[list[float]] = []
    for v in sorted(values):
        if out and v - out[-1][-1] <= tol:
            out[-1].append(v)
        else:
            out.append([v])
    return [sum(c) / len(c) for c in out]


def ruled_grids(rules: Rules) -> list[Grid]:
    """The grids of ruled tables: groups of at least two horizontal and two vertical segments that cross
    one another, top to bottom."""
    hs, vs, tol = rules.horizontal, rules.vertical, rules.tol
    parent = list(range(len(hs) + len(vs)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, h in enumerate(hs):
        for j, v in enumerate(vs):
            crosses = h.start - tol <= v.pos <= h.end + tol and v.start - tol <= h.pos <= v.end + tol
            if crosses:
                parent[find(i)] = find(len(hs) + j)
    groups: dict[int, tuple[list[Segment], list[Segment]]] = {}
    for i, h in enumerate(hs):
        groups.setdefault(find(i), ([], []))[0].append(h)
    for j, v in enumerate(vs):
        groups.setdefault(find(len(hs) + j), ([], []))[1].append(v)
    grids = []
    for g_h, g_v in groups.values():
        ys = _cluster([h.pos for h in g_h], tol)
        xs = _cluster([v.pos for v in g_v], tol)
        if len(ys) >= 2 and len(xs) >= 2:
            grids.append(Grid(xs=xs, ys=ys))
    return sorted(grids, key=lambda g: (g.ys[0], g.xs[0]))


def v_coverage(rules: Rules, x: float, y0: float, y1: float) -> float:
    """The share of ``y0..y1`` along which a vertical stroke runs at ``x`` (0…1)."""
    h, w = rules.v_mask.shape
    t = int(round(rules.tol))
    a, b = max(0, int(y0)), min(h, int(y1))
    if b <= a:
        return 0.0
    band = rules.v_mask[a:b, max(0, int(x) - t) : min(w, int(x) + t + 1)]
    return float(band.any(axis=1).mean()) if band.size else 0.0


def h_coverage(rules: Rules, y: float, x0: float, x1: float) -> float:
    """The share of ``x0..x1`` along which a horizontal stroke runs at ``y`` (0…1)."""
    h, w = rules.h_mask.shape
    t = int(round(rules.tol))
    a, b = max(0, int(x0)), min(w, int(x1))
    if b <= a:
        return 0.0
    band = rules.h_mask[max(0, int(y) - t) : min(h, int(y) + t + 1), a:b]
    return float(band.any(axis=0).mean()) if band.size else 0.0
