"""A converged solve: every branch's Q and h, every node's p, the fans' operating points, and how the
solve went (method, iterations, residuals)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

REVERSE_TOLERANCE = 1e-6
"""A flow below ``-REVERSE_TOLERANCE`` m³/s runs against its branch's written direction."""


@dataclass(frozen=True)
class FanPoint:
    """A fan's operating point: flow ``q`` (m³/s), fan pressure ``h_fan`` (Pa), ``off_range`` when
    ``q`` lies outside the curve's given range, ``rising`` when on the curve's rising (unstable) side,
    ``reversed`` when the air runs back through the fan (``q`` < 0: a curve that cannot hold the
    system's pressure, such as one with ``a0`` < 0, converges there)."""

    branch_id: str
    q: float
    h_fan: float
    off_range: bool
    rising: bool

    @property
    def reversed(self) -> bool:
        """True when the air runs back through the fan (``q`` below ``-REVERSE_TOLERANCE``)."""
        return self.q < -REVERSE_TOLERANCE

    def to_json(self) -> dict[str, Any]:
        """``{"id", "q", "h_fan", "off_range", "rising", "reversed"}``."""
        return {
            "id": self.branch_id,
            "q": self.q,
            "h_fan": self.h_fan,
            "off_range": self.off_range,
            "rising": self.rising,
            "reversed": self.reversed,
        }


@dataclass(frozen=True)
class Solution:
    """The steady state of a network (only ever built from a converged solve).

    ``q`` maps branch id → flow (m³/s, negative against the written direction); ``h`` maps branch id →
    ``p(from) − p(to)`` (Pa, negative along the flow); ``p`` maps node id → pressure lost since the
    atmosphere (Pa). ``iterations`` counts every iteration spent (Newton, then Hardy Cross if it was
    needed; ``method`` names the one that converged), ``residual_q`` is the largest node imbalance
    (m³/s) and ``residual_h`` the largest branch pressure residual (Pa).
    """

    converged: bool
    iterations: int
    residual_q: float
    residual_h: float
    method: str
    q: dict[str, float]
    h: dict[str, float]
    p: dict[str, float]
    fans: tuple[FanPoint, ...]

    @property
    def reversed(self) -> list[str]:
        """Branches whose air runs against their written direction."""
        return [branch_id for branch_id, q in self.q.items() if q < -REVERSE_TOLERANCE]

    def to_json(self) -> dict[str, Any]:
        """The CLI's and API's shape: ``{"converged", "iterations", "residual_q", "residual_h", "method",
        "branches": [{"id", "q", "h"}], "nodes": [{"id", "p"}], "reversed": [id…], "fans": [...]}``."""
        return {
            "converged": self.converged,
            "iterations": self.iterations,
            "residual_q": self.residual_q,
            "residual_h": self.residual_h,
            "method": self.method,
            "branches": [{"id": k, "q": q, "h": self.h[k]} for k, q in self.q.items()],
            "nodes": [{"id": k, "p": p} for k, p in self.p.items()],
            "reversed": self.reversed,
            "fans": [fan.to_json() for fan in self.fans],
        }
