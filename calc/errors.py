"""Typed errors of the calculators.

Every invalid input (negative, zero where a positive is needed, NaN or infinite, a bool where a number is
expected, an unknown kind, mining method or roadway class…) raises :class:`CalcInputError`, which names
the parameter. Nothing is clamped or guessed silently.
"""

from __future__ import annotations

from typing import Any


class CalcInputError(ValueError):
    """An input a calculator cannot use.

    ``param`` is the keyword argument at fault (``"gas_emission"``), ``value`` the value received and
    ``reason`` a short explanation; ``str(err)`` reads ``gas_emission=-1.0: must be ≥ 0``.
    """

    def __init__(self, param: str, reason: str, value: Any = None) -> None:
        self.param = param
        self.reason = reason
        self.value = value
        shown = "" if value is None else f"={value!r}"
        super().__init__(f"{param}{shown}: {reason}")

    def to_dict(self) -> dict[str, str]:
        """A JSON-able description of the error (``{"error", "param", "reason"}``)."""
        return {"error": str(self), "param": self.param, "reason": self.reason}
