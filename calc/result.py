"""Result types shared by every calculator in :mod:`calc`.

Every calculator returns a :class:`CalcResult` (one method) or a :class:`MaxResult` (every applicable
method of one location, the maximum and the governing method, with the wind-speed bounds checked beside
it). Air volumes are in m³/min throughout; see :func:`calc.units.m3s_to_m3min` for m³/s.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

CoefficientOrigin = Literal["given", "table", "default"]


class Coefficient(BaseModel):
    """One coefficient used by a calculation and where its value came from.

    ``origin`` is ``given`` (stated by the caller / the plan), ``table`` (looked up in a coefficient
    table of :mod:`calc.tables`) or ``default`` (a documented default, e.g. the midpoint of a range).
    ``valid_range`` is the documented range (inclusive), when there is one.
    """

    model_config = ConfigDict(frozen=True)

    symbol: str
    value: float
    origin: CoefficientOrigin
    valid_range: tuple[float, float] | None = None
    note: str = ""
    source: str = ""
    near_edge: float | None = None
    """The table row edge the coefficient's key lies within 5 % of (docs/DOMAIN.md §2: the next row changes Q
    by up to 25 %), e.g. 180.0 for a face 175 m long; None when not near an edge or not looked up."""
    key: str | None = None
    """The measured quantity the coefficient was looked up by (``face_length``, ``intake_temp`` …)."""
    key_value: float | None = None


class CalcResult(BaseModel):
    """The result of one required-air-volume method.

    - ``value``: the result, in ``unit`` (m³/min unless the method says otherwise, e.g. m² for areas);
    - ``method``: the calculator's tool name (``calc_face_by_gas`` …); ``method_cn``: its Chinese label;
    - ``formula``: the symbolic formula; ``substituted``: the formula with the numbers put in and the
      result, as a reviewer would write it (``Q = 100 × 4.20 × 1.5 = 630.0 m³/min``);
    - ``inputs``: the inputs by name, in their units; ``coefficients``: each coefficient and its origin;
    - ``source``: the clause the method rests on (AQ 1056-2008 / 《煤矿安全规程》 article);
    - ``warnings``: a coefficient outside its range, a value close to a bound, an older form used.
    """

    model_config = ConfigDict(frozen=True)

    value: float
    unit: str = "m³/min"
    method: str
    method_cn: str
    formula: str
    substituted: str
    inputs: dict[str, float | int | str | None] = Field(default_factory=dict)
    coefficients: list[Coefficient] = Field(default_factory=list)
    source: str = ""
    warnings: list[str] = Field(default_factory=list)
    unrounded: float | None = None
    """``value`` before rounding (air volumes are rounded half-up to 0.1 m³/min, see ``docs/CALC.md``)."""


class BoundCheck(BaseModel):
    """A wind-speed (or other) bound checked beside a required air volume.

    ``lower``/``upper`` are air volumes in m³/min derived from the speed bounds (None when the class
    has no such bound); ``ok`` is True when ``lower <= value <= upper``.
    """

    model_config = ConfigDict(frozen=True)

    name: str
    value: float
    lower: float | None
    upper: float | None
    ok: bool
    formula: str
    source: str = ""
    warnings: list[str] = Field(default_factory=list)


class MaxResult(CalcResult):
    """Every applicable method of one location, the maximum (``value``) and the governing method.

    ``methods`` holds each method's :class:`CalcResult`; ``governing`` is the ``method`` name of the
    largest; ``checks`` are the wind-speed bounds, reported beside the maximum, never inside it.
    """

    methods: list[CalcResult] = Field(default_factory=list)
    governing: str = ""
    checks: list[BoundCheck] = Field(default_factory=list)
    not_computed: list[str] = Field(default_factory=list)
    """Methods that apply to the location but could not be computed (inputs missing), as
    ``"calc_face_by_climate（按气象条件计算）：缺少 mining_height, roof_control_max"``. When not empty
    ``value`` is a maximum over an incomplete set, a lower bound: never the requirement (docs/DOMAIN.md §2)."""

    @property
    def complete(self) -> bool:
        """True when every method that applies was computed (``value`` is the requirement)."""
        return not self.not_computed


class SpeedCheckResult(CalcResult):
    """A wind-speed method: the air-volume bounds a location's speed limits give.

    ``value`` is the lower bound (the least air volume the minimum speed needs; 0.0 when the roadway
    class has no minimum), ``lower``/``upper`` the bounds in m³/min (None where 表6 sets none), and
    ``check`` the :class:`BoundCheck` of ``required_q`` against them when a required Q was given.
    A speed check is reported beside a maximum, never inside it.
    """

    lower: float | None = None
    upper: float | None = None
    v_min: float | None = None
    v_max: float | None = None
    check: BoundCheck | None = None


class EffectiveAreaResult(CalcResult):
    """A coal face's effective sections (m²): ``value`` is the mean of ``s_max`` and ``s_min``."""

    s_max: float
    s_min: float


class GasEmissionResult(CalcResult):
    """Gas emission back-calculated from an air survey (``value`` = total absolute CH₄ emission, m³/min).

    ``air_q`` is the surveyed air volume (m³/min), ``ventilation_emission`` the part carried by the air,
    ``drained`` the drained part, ``relative_emission`` m³/t (None without a daily output),
    ``high_gas`` whether a high-gas threshold is exceeded (None when no threshold applies) and why.
    """

    air_q: float
    ventilation_emission: float
    drained: float = 0.0
    relative_emission: float | None = None
    high_gas: bool | None = None
    high_gas_reasons: list[str] = Field(default_factory=list)
