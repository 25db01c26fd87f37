"""Typed errors of the calculators.

Every invalid input (negative, zero where a positive is needed, NaN or infinite, a bool where a number is
expected, an unknown kind, mining method or roadway class…) raises :class:`CalcInputError`, which names
the parameter. Nothing is clamped or guessed silently. Reasons are written in Chinese, for the
ventilation engineers who read them (the CLI, the chat agent's calculator tools, review findings);
parameter names, values, units and clause references stay as they are.
"""

from __future__ import annotations

from typing import Any

NO_PARAM = "inputs"
"""The ``param`` of an error about the inputs as a whole (no method applies), not one parameter."""


class CalcInputError(ValueError):
    """An input a calculator cannot use.

    ``param`` is the keyword argument at fault (``"gas_emission"``), ``value`` the value received and
    ``reason`` a short explanation in Chinese; ``str(err)`` reads ``gas_emission=-1.0：不能小于 0``
    (parameter, value when there is one, reason) and :meth:`describe` the sentence shown to a user,
    ``参数 gas_emission=-1.0 无效：不能小于 0``.
    """

    def __init__(self, param: str, reason: str, value: Any = None) -> None:
        self.param = param
        self.reason = reason
        self.value = value
        super().__init__(f"{param}{self._shown()}：{reason}")

    def _shown(self) -> str:
        return "" if self.value is None else f"={self.value!r}"

    def describe(self) -> str:
        """The error as one Chinese sentence for a user: ``参数 gas_emission=-1.0 无效：不能小于 0``,
        ``参数 k_gas：未给出，且无规定的默认值`` without a value, the bare reason for the inputs as a whole."""
        if self.param == NO_PARAM:
            return self.reason
        if self.value is None:
            return f"参数 {self.param}：{self.reason}"
        return f"参数 {self.param}{self._shown()} 无效：{self.reason}"

    def to_dict(self) -> dict[str, str]:
        """A JSON-able description of the error (``{"error", "param", "reason"}``; ``error`` is
        :meth:`describe`)."""
        return {"error": self.describe(), "param": self.param, "reason": self.reason}
