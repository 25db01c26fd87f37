"""Plane geometry of the map's drawn lines: a polyline is a list of points ``(x, y)`` in the layout's units
(m, x east, y north, :mod:`vent_agent.upstream.layout`). Used to place a facility on its airway
(:mod:`vent_agent.network.drawing`)."""

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
