"""The network model: branches with Atkinson resistances, fans with quadratic curves, fixed-quantity
branches, node elevations for natural ventilation pressure, and how the network is posed (reference
nodes at atmospheric pressure, air injected or drawn at nodes, nodes joined by zero resistance).

Units (docs/DOMAIN.md §7): Q in m³/s, pressure in Pa, R in N·s²/m⁸, elevation in m, density in kg/m³.
Sign convention (the published benchmark's): a node's pressure ``p`` is the pressure lost since the
atmosphere, so it grows downstream; a branch's ``h = p(from) − p(to)`` is negative when air flows from
``from`` to ``to``; an ordinary branch has ``|h| = R·Q²`` (square law, AQ 1056-2008 通风阻力测定 uses
the same law), a fan branch ``p(to) − p(from) = R·Q·|Q| − h_fan(Q) − h_N``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from ventnet.errors import NetworkError, quoted

GRAVITY = 9.81
"""Standard gravity, m/s²."""

STANDARD_AIR_DENSITY = 1.2
"""Air density used when none is given, kg/m³ (《煤矿安全规程》 and AQ 1056-2008 work at 1.2 kg/m³)."""


MAX_RESISTANCE = 1e6
"""Largest resistance accepted, N·s²/m⁸: well beyond a sealed stopping (about 1e4–1e5); more is a
number the solver cannot balance against ordinary airways, not an airway."""

MAX_FLOW = 1e4
"""Largest fixed quantity or injection accepted, m³/s (a large mine moves about 1e3)."""

MAX_FAN_COEFFICIENT = 1e6
"""Largest magnitude of a fan curve coefficient accepted (Pa, Pa·s/m³, Pa·s²/m⁶)."""


@dataclass(frozen=True)
class FanCurve:
    """A fan's pressure characteristic ``h_fan(Q) = a0 + a1·Q + a2·Q²`` (Pa, Q in m³/s, a2 < 0 for a
    real fan) over the maker's range ``q_min``…``q_max`` (m³/s; ``None`` where not given).

    The operating point is flagged when it falls outside that range or on the curve's rising side
    (``dh/dQ > 0``, the unstable left of the peak; docs/DOMAIN.md §7).
    """

    a0: float
    a1: float = 0.0
    a2: float = 0.0
    q_min: float | None = None
    q_max: float | None = None

    def pressure(self, q: float) -> float:
        """The fan pressure at flow ``q`` (m³/s), Pa."""
        return self.a0 + self.a1 * q + self.a2 * q * q

    def slope(self, q: float) -> float:
        """``dh_fan/dQ`` at ``q``, Pa per m³/s; positive on the rising (unstable) side."""
        return self.a1 + 2.0 * self.a2 * q


@dataclass(frozen=True)
class Branch:
    """One airway (or fan, door, regulator) from node ``from_node`` to node ``to_node``.

    ``resistance`` is the airway's own Atkinson resistance R (N·s²/m⁸: friction ``α·L·U/S³`` plus fixed
    local resistances); ``added_resistance`` the ΔR of a regulator or closed door in it (N·s²/m⁸), so
    the branch loses ``(R + ΔR)·Q·|Q|``. ``fan`` is a fan in the branch pushing from ``from_node`` to
    ``to_node``, counted while ``fan_on``; ``fixed_q`` a fixed quantity (m³/s) the branch carries
    whatever the pressures (a local fan and its duct; 0 while ``fan_on`` is false); ``area`` the net
    section (m²) for wind speed; ``kind`` a label (``"roadway"``, ``"door"``, ``"regulator"``, ``"fan"``,
    ``"local_fan"``, ``"coal_face"``, ``"heading"``…), ``name`` the mine's name for it; ``required_q``
    the plan's required air (需风量, m³/s) and ``roadway_class`` its 表6 class (《煤矿安全规程》第157条)
    where known, for judging a result.
    """

    id: str
    from_node: str
    to_node: str
    resistance: float
    fan: FanCurve | None = None
    fixed_q: float | None = None
    area: float | None = None
    kind: str = "roadway"
    name: str = ""
    added_resistance: float = 0.0
    fan_on: bool = True
    required_q: float | None = None
    roadway_class: str | None = None

    @property
    def total_resistance(self) -> float:
        """``R + ΔR``, N·s²/m⁸."""
        return self.resistance + self.added_resistance

    @property
    def running_fan(self) -> FanCurve | None:
        """The fan's curve while it runs, else None."""
        return self.fan if self.fan_on else None

    @property
    def carried_q(self) -> float | None:
        """The fixed quantity the branch carries (m³/s): ``fixed_q``, or 0 for a fixed-quantity local fan
        that is stopped (``fan_on`` false); None for a branch whose flow the pressures decide."""
        if self.fixed_q is None:
            return None
        return self.fixed_q if self.fan_on else 0.0


@dataclass(frozen=True)
class Network:
    """A ventilation network and how it is posed.

    ``reference_nodes`` are at atmospheric pressure (p = 0): the surface ends of shafts and adits.
    ``injections`` maps a node to the air entering it from outside (m³/s; negative: leaving), as the
    total airflow is posed when no fan drives it. ``joined`` maps a node to the node it is joined to by
    zero resistance (several outlets of one sink). ``elevations`` (m) give each branch the natural
    ventilation pressure ``ρ·g·(z_from − z_to)`` (Pa) along it; ``air_density`` is ρ (kg/m³).

    Raises :class:`NetworkError` (Chinese) on an empty network, a repeated branch id, a branch whose
    ends coincide, a negative or non-finite resistance, a non-finite fixed quantity, or no reference node
    and no fixed quantity to pin the pressures.
    """

    branches: tuple[Branch, ...]
    reference_nodes: frozenset[str]
    injections: Mapping[str, float] = field(default_factory=dict)
    joined: Mapping[str, str] = field(default_factory=dict)
    elevations: Mapping[str, float] = field(default_factory=dict)
    air_density: float = STANDARD_AIR_DENSITY

    def __post_init__(self) -> None:
        if not self.branches:
            raise NetworkError("通风网络没有分支")
        seen: set[str] = set()
        for branch in self.branches:
            _check_branch(branch, seen)
        if not self.reference_nodes:
            raise NetworkError("通风网络没有大气（参考）节点，无法确定风压")
        nodes = self.nodes()
        missing = sorted(set(self.reference_nodes) - nodes)
        if missing:
            raise NetworkError(f"参考节点 {quoted(', '.join(missing))} 不在网络中")
        for node, q in self.injections.items():
            if node not in nodes or not math.isfinite(q) or abs(q) > MAX_FLOW:
                raise NetworkError(
                    f"节点 {quoted(node)} 的进出风量无效（须为绝对值不超过 {MAX_FLOW:g} m³/s 的有限数）"
                )

    def nodes(self) -> set[str]:
        """Every node a branch names."""
        return {n for b in self.branches for n in (b.from_node, b.to_node)}

    def branch(self, branch_id: str) -> Branch:
        """The branch with that id; :class:`NetworkError` when there is none."""
        for branch in self.branches:
            if branch.id == branch_id:
                return branch
        raise NetworkError(f"网络中没有分支 {quoted(branch_id)}")

    def natural_pressure(self, branch: Branch) -> float:
        """The natural ventilation pressure along a branch, Pa: ``ρ·g·(z_from − z_to)`` where both ends'
        elevations are known, else 0 (docs/DOMAIN.md §7; summed round a loop it is the loop's H_N)."""
        z_from = self.elevations.get(branch.from_node)
        z_to = self.elevations.get(branch.to_node)
        if z_from is None or z_to is None:
            return 0.0
        return self.air_density * GRAVITY * (z_from - z_to)

    def with_branches(self, branches: Iterable[Branch]) -> Network:
        """The same posing with another set of branches."""
        return replace(self, branches=tuple(branches))


def _check_branch(branch: Branch, seen: set[str]) -> None:
    if branch.id in seen:
        raise NetworkError(f"分支编号 {quoted(branch.id)} 重复")
    seen.add(branch.id)
    if branch.from_node == branch.to_node:
        raise NetworkError(f"分支 {quoted(branch.id)} 的始末节点相同（{quoted(branch.from_node)}）")
    for value in (branch.resistance, branch.added_resistance):
        if not math.isfinite(value) or not 0 <= value <= MAX_RESISTANCE:
            raise NetworkError(
                f"分支 {quoted(branch.id)} 的风阻 {value} 无效：须为 0 至 {MAX_RESISTANCE:g} 之间的数（N·s²/m⁸）"
            )
    if branch.fixed_q is not None and not (math.isfinite(branch.fixed_q) and abs(branch.fixed_q) <= MAX_FLOW):
        raise NetworkError(
            f"分支 {quoted(branch.id)} 的固定风量无效（须为绝对值不超过 {MAX_FLOW:g} m³/s 的有限数）"
        )
    if branch.fan is not None:
        coefficients = (branch.fan.a0, branch.fan.a1, branch.fan.a2)
        if not all(math.isfinite(c) and abs(c) <= MAX_FAN_COEFFICIENT for c in coefficients):
            raise NetworkError(
                f"分支 {quoted(branch.id)} 的风机特性曲线系数无效（须为绝对值不超过 {MAX_FAN_COEFFICIENT:g} 的有限数）"
            )
    if branch.area is not None and not (math.isfinite(branch.area) and branch.area > 0):
        raise NetworkError(f"分支 {quoted(branch.id)} 的断面积 {branch.area} 无效：须为正数（m²）")


def require_driver(network: Network) -> None:
    """Raise :class:`NetworkError` when nothing in ``network`` moves the air: no running fan, no
    fixed-quantity branch carrying air, no air entering or leaving at a node, no difference of elevation (natural
    ventilation pressure). Such a network "solves" to zero flow everywhere, which is never what a user
    posing a network meant (a topology read without its total airflow, or without its fans)."""
    drives = (
        any(b.fan is not None and b.fan_on for b in network.branches)
        or any(b.carried_q for b in network.branches)
        or any(q for q in network.injections.values())
        or len({round(z, 6) for z in network.elevations.values()}) > 1
    )
    if not drives:
        raise NetworkError(
            "通风网络中没有运转的风机、定风量分支、进出风量或自然风压，空气没有驱动力，无从解算"
            "（无风机的网络请给出总风量，如 --total-airflow 或请求体的 total_airflow）"
        )
