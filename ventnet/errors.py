"""Typed errors of the network solver; their messages are Chinese, for the engineers who read them."""

from __future__ import annotations


class NetworkError(ValueError):
    """A network that cannot be solved as given: unknown node, non-positive resistance, no branches,
    a disconnected part, a bad CSV row… ``str(err)`` is one Chinese sentence naming what is wrong."""


class NotConverged(RuntimeError):
    """The solve stopped without meeting the stopping rule (|ΔQ| ≤ 1e-4 m³/s, |Δh| ≤ 0.1 Pa within the
    iteration budget). An unconverged state is never returned as a result: this error carries how far it
    got instead.

    ``iterations`` is the number of iterations spent (all methods tried), ``residual_q`` the largest
    node imbalance (m³/s) and ``residual_h`` the largest branch pressure residual (Pa) at the last iterate.
    """

    def __init__(self, iterations: int, residual_q: float, residual_h: float, methods: str) -> None:
        self.iterations = iterations
        self.residual_q = residual_q
        self.residual_h = residual_h
        super().__init__(
            f"通风网络解算未收敛（{methods}，共 {iterations} 次迭代，风量残差 {residual_q:.3g} m³/s，"
            f"风压残差 {residual_h:.3g} Pa），不给出结果；请检查风机特性曲线与网络拓扑"
        )


QUOTE_LIMIT = 60  # characters of a user's input an error message quotes


def quoted(value: object, limit: int = QUOTE_LIMIT) -> str:
    """``value`` as an error message quotes it: its text, cut to its first ``limit`` characters and "…"
    when longer, so that an error never echoes a whole (possibly megabyte-long) input back."""
    text = str(value)
    return text if len(text) <= limit else f"{text[:limit]}…"
