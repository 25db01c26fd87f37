"""Plane geometry of the map's drawn lines: a polyline is a list of points ``(x, y)`` in the layout's units
(m, x east, y north, :mod:`vent_agent.upstream.layout`). Used to place a facility on its airway and a local
fan on its intake airway (:mod:`vent_agent.network.drawing`, :mod:`vent_agent.network.local_fans`)."""

from __future__ import annotations

import itertools
import math

Point = tuple[float, float]


def length(points: list[Point]) -> float:
    """The length of a polyline (m)."""
    return sum(math.dist(a, b) for a, b in itertools.pairwise(points))


def point_at(points: list[Point], distance: float) -> Point:
    """The point ``distance`` m along a polyline from its first point, clamped to its ends."""
    rest = max(distance, 0.0)
    for a, b in itertools.pairwise(points):
        leg = math.dist(a, b)
        if leg > 0 and rest <= leg:
            t = rest / leg
            return (a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]))
        rest -= leg
    return points[-1]


def normal(a: Point, b: Point) -> Point:
    """The unit normal of segment a→b, to its left (x east, y north); ``(0, 0)`` for a segment of no
    length."""
    leg = math.dist(a, b)
    if leg == 0:
        return (0.0, 0.0)
    return (-(b[1] - a[1]) / leg, (b[0] - a[0]) / leg)


def side_of(a: Point, b: Point, p: Point) -> int:
    """+1 when ``p`` lies to the left of the line a→b, −1 to its right, +1 on it."""
    cross = (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
    return -1 if cross < 0 else 1


def offset(points: list[Point], distance: float) -> list[Point]:
    """A polyline moved ``distance`` m to its left (negative: to its right), each point along the mean of
    the normals of the segments meeting there (a bend's point along their bisector, kept at ``distance``
    from both legs)."""
    legs = [normal(a, b) for a, b in itertools.pairwise(points)]
    out = []
    for i, (x, y) in enumerate(points):
        near = [n for n in legs[max(i - 1, 0) : i + 1] if n != (0.0, 0.0)]
        if not near:
            out.append((x, y))
            continue
        nx, ny = sum(n[0] for n in near) / len(near), sum(n[1] for n in near) / len(near)
        # along the bisector, far enough to keep ``distance`` from both legs
        scale = distance / max(nx * near[0][0] + ny * near[0][1], 1e-6)
        out.append((x + nx * scale, y + ny * scale))
    return out
