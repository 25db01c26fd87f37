"""Checking a plan's stated arithmetic: evaluate the substituted numeric part of a written formula.

``Q = 100 × q × k = 100 × 0.80 × 1.8 = 114.0 m³/min`` → the numeric segment ``100 × 0.80 × 1.8`` is
evaluated (144.0) and compared with the stated result. Only numbers, ``× · * / ÷ + − -``, parentheses and
``%`` are accepted; anything else (symbols, words) is not evaluated.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable

from vent_agent.review.rules import ROUNDING_TOLERANCE

_NUMERIC = re.compile(r"^[\d.\s×·*/÷+\-−（）()%]+$")
_OPS: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}


def _normalise(segment: str) -> str:
    s = segment.strip()
    for a, b in (("×", "*"), ("·", "*"), ("÷", "/"), ("−", "-"), ("（", "("), ("）", ")")):
        s = s.replace(a, b)
    return re.sub(r"(\d+(?:\.\d+)?)\s*%", r"(\1/100)", s)


def _eval(node: ast.AST) -> float:
    if isinstance(node, ast.Expression):
        return _eval(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_eval(node.left), _eval(node.right))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval(node.operand)
    raise ValueError("unsupported expression")


def evaluate_numeric(segment: str) -> float | None:
    """The value of a purely numeric expression, or None when it is not one (or divides by zero)."""
    if not _NUMERIC.match(segment) or not re.search(r"\d", segment):
        return None
    try:
        return _eval(ast.parse(_normalise(segment), mode="eval"))
    except (ValueError, SyntaxError, ZeroDivisionError, RecursionError):
        return None


def substituted_value(expression: str) -> tuple[str, float] | None:
    """The last purely numeric segment of ``a = b = … = result`` that has an operator, and its value.

    Returns None when the expression has no such segment (e.g. ``不小于 100 m³/min = 100.0 m³/min``).
    """
    parts = [p.strip() for p in re.split(r"=", expression)]
    for seg in reversed(parts[:-1]):
        if re.search(r"[×·*/÷+\-−]", seg):
            value = evaluate_numeric(seg)
            if value is not None:
                return seg, value
    return None


def close(a: float, b: float, rel: float = ROUNDING_TOLERANCE, abs_tol: float = 0.051) -> bool:
    """Equal within rounding: ±0.5 % (docs/DOMAIN.md §5) or one unit of the last stated decimal (0.05)."""
    return abs(a - b) <= max(abs_tol, rel * max(abs(a), abs(b)))


def exceeds(value: float, limit: float | None) -> bool:
    """True when ``value`` is above ``limit`` by more than rounding (not :func:`close`); False when there
    is no ``limit``. Both in the same unit (m³/min for air volumes)."""
    return limit is not None and value > limit and not close(value, limit)
