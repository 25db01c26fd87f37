"""Ventilation network solving (通风网络解算, docs/DOMAIN.md §7): the square law, Kirchhoff's laws, fans with
quadratic curves, fixed-quantity branches and natural ventilation pressure, solved by node-pressure
Newton with a line search (Hardy Cross as fallback). See docs/NETWORK.md."""

from ventnet.errors import NetworkError, NotConverged
from ventnet.network import Branch, FanCurve, Network, require_driver
from ventnet.solution import FanPoint, Solution
from ventnet.solve import solve

__all__ = [
    "Branch",
    "FanCurve",
    "FanPoint",
    "Network",
    "NetworkError",
    "NotConverged",
    "Solution",
    "require_driver",
    "solve",
]
