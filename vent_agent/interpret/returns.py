"""The main fans' measured air, read once for the overview and the interpretations, and the check that the
return airways agree with it.

The main fans exhaust all the mine's return air (plus the leakage at the fan house: the fan's air volume
is the return's and the external leakage, 《煤矿安全规程》（2025版）第177条 allows up to 5 % without
hoisting and 15 % with it). A return airway's measured air volume above the running main fans' measured
air volume, by more than the measurement margin, is therefore physically inconsistent: one of the figures
is wrong (a wind sensor off the section's mean, a nominal section, the fan's flow reading). It is reported
as data to check (``source`` 数据核查, status ``warning``), never as a safety alarm (the overview's alarm
list leaves it out: :func:`~vent_agent.monitor.overview.is_alarm`), in the fan's interpretation (against
the largest return), in each return airway's, and in the overview's data-consistency notes.

A return airway is a tunnel whose 表6 class (第157条) is one of the return's: a class with 回风 in it (总回风巷,
采区回风巷, 装有带式输送机兼作回风的井筒), a fan shaft without hoisting (无提升设备的风井) or a fan drift (风硐).
With several main fans the comparison is against their sum: without the mine's network the service does
not know which fan a return feeds, and the sum never calls consistent data inconsistent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vent_agent.interpret.assess import Assessment
from vent_agent.interpret.heading import DATA_CHECK, FLOW_MARGIN, flow_within_supply
from vent_agent.interpret.network import wind_speed_of
from vent_agent.upstream.base import VentilationSource
from vent_agent.upstream.models import Tunnel

if TYPE_CHECKING:
    from vent_agent.interpret.facts import InterpretationFacts

RETURN_MARGIN = FLOW_MARGIN
"""Allowed excess of a return airway's measured air volume over the running main fans' before the two are
called inconsistent: the same combined uncertainty as a heading against its local fans (a point
wind-speed reading times a nominal section, and the fan's own flow reading) *(practice)*."""
RETURN_SHAFT_CLASSES = frozenset({"无提升设备的风井", "风硐"})
CHECK_SOURCE = DATA_CHECK
CHECK_QUANTITY = "fan_return_consistency"


def is_return_airway(tunnel: Tunnel) -> bool:
    """True for a return airway by its 表6 class (see the module doc)."""
    return "回风" in tunnel.roadway_class or tunnel.roadway_class in RETURN_SHAFT_CLASSES


async def read_main_fans(source: VentilationSource) -> list[dict[str, Any]]:
    """Each main fan with its latest reading: ``device_id``, ``tun_id``, ``name``, ``state`` (运行/备用),
    ``running``, and its duty point while it runs (``air_volume`` m³/min, ``negative_pressure`` Pa; None
    when stopped or not read). The one reading of the fans the overview's strip, its drift's row and the
    return check show."""
    out = []
    for fan in await source.get_device_list_by_kind("fan"):
        reading = await source.query_device_realtime_data(fan.device_id)
        running = (reading.value("running") or 0.0) >= 1.0
        out.append(
            {
                "device_id": fan.device_id,
                "tun_id": fan.tun_id,
                "name": fan.name,
                "state": fan.state,
                "running": running,
                "air_volume": reading.value("air_volume") if running else None,
                "negative_pressure": reading.value("negative_pressure") if running else None,
            }
        )
    return out


@dataclass(frozen=True)
class FanAir:
    """The running main fans' measured air volume (``q`` m³/min) and the words naming it."""

    q: float
    words: str


def main_fan_air(fans: list[dict[str, Any]]) -> FanAir | None:
    """The summed measured air volume of the running main fans of :func:`read_main_fans`; None when none
    runs or a running one has no air-volume reading (the sum would be short)."""
    running = [f for f in fans if f["running"]]
    if not running or any(f["air_volume"] is None for f in running):
        return None
    words = "、".join(f"{f['name']} 实测 {f['air_volume']:g} m³/min" for f in running)
    return FanAir(round(sum(f["air_volume"] for f in running), 1), words)


def return_consistency(q: float, where: str, fans: FanAir, others: str = "") -> Assessment:
    """The measured air volume ``q`` (m³/min) of return airway ``where`` against the main fans' ``fans``:
    ``ok`` within :data:`RETURN_MARGIN`, else a ``warning`` to check the data (see the module doc).
    ``others``: the other return airways' figures, for the basis."""
    listed = f"回风巷道实测风量：{others}；" if others else ""
    return flow_within_supply(
        q,
        fans.q,
        quantity=CHECK_QUANTITY,
        label="回风风量与主要通风机风量一致性",
        point=where,
        supply=f"{listed}主要通风机：{fans.words}",
        subject=f"{where}风量",
        why="主要通风机排出全部回风，回风巷道风量不超过其风量",
        action=f"数据不一致（非安全判定）：主要通风机排出全部回风，{where}风量不应超过主要通风机风量；"
        "请核查该巷道风速传感器位置与读数、巷道断面，以及主要通风机风量数据",
    )


def _measured_q(facts: InterpretationFacts) -> float | None:
    return next(
        (a.value for a in facts.assessments if a.quantity == "measured_q" and a.value is not None), None
    )


async def with_return_check(
    source: VentilationSource, facts: InterpretationFacts, main_fans: list[dict[str, Any]] | None = None
) -> InterpretationFacts:
    """A return airway's facts with its air volume checked against the running main fans'
    (:func:`return_consistency`); other facts, or a return without a measured air volume or without the
    fans' figure, as they are. ``main_fans``: :func:`read_main_fans` already read (the overview reads
    them once for all its tunnels), else read here."""
    tunnel, q = facts.tunnel, _measured_q(facts)
    if facts.target != "tunnel" or tunnel is None or q is None or not is_return_airway(tunnel):
        return facts
    fans = main_fan_air(main_fans if main_fans is not None else await read_main_fans(source))
    if fans is None:
        return facts
    check = return_consistency(q, tunnel.name, fans)
    return facts.model_copy(update={"assessments": [*facts.assessments, check]})


async def return_airways_q(source: VentilationSource) -> list[tuple[str, float]]:
    """``[(name, Q m³/min)]`` of the return airways with a wind speed (Q = 60·v·S), largest first."""
    found = []
    for tunnel in await source.query_tunnels_by_model():
        if not is_return_airway(tunnel):
            continue
        wind = wind_speed_of(await source.query_tun_data_by_id(tunnel.tun_id))
        if wind is not None:
            found.append((tunnel.name, round(60.0 * wind * tunnel.area, 1)))
    return sorted(found, key=lambda x: -x[1])


async def with_fan_return_check(source: VentilationSource, facts: InterpretationFacts) -> InterpretationFacts:
    """A running main fan's facts with the largest return airway's air volume checked against the main
    fans' (:func:`return_consistency`, the other returns in its basis); other facts as they are."""
    device = facts.device
    if device is None or device.device_type != "fan":
        return facts
    fans = main_fan_air(await read_main_fans(source))
    returns = await return_airways_q(source) if fans is not None else []
    if (
        fans is None
        or not returns
        or not any(a.quantity == "running" and (a.value or 0.0) >= 1.0 for a in facts.assessments)
    ):
        return facts
    (where, q), rest = returns[0], returns[1:]
    others = "、".join(f"{n} {v:.0f}" for n, v in returns) + " m³/min" if rest else ""
    check = return_consistency(q, where, fans, others)
    check = check.model_copy(
        update={"value_text": f"{check.value_text}（{where}）"}
    )  # the fan's table: no 测点
    return facts.model_copy(update={"assessments": [*facts.assessments, check]})
