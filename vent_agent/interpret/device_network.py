"""A clicked device's place in the ventilation network (issue 25): what stopping a fan, opening or
closing a door, or opening a regulator would do to the air, added to the device's interpretation
(:attr:`~vent_agent.interpret.facts.InterpretationFacts.network`), deterministic, without a model.

The click's ``device_type`` may also be ``door`` (风门) or ``regulator`` (调节风窗), additions to the
device-type dictionary: the demo mine monitors neither, so a door or regulator that its data source does
not know but its network holds (``device_id`` = the branch id, e.g. ``FM-01``) is interpreted from the
network alone, its missing monitoring data said so. Sensors get no network section. The network is the
demo mine's (:func:`vent_agent.network.service.device_effects`): with another data source the section
says that no network of that mine is loaded.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from datetime import datetime
from typing import Literal

from vent_agent.interpret.device_notes import intake_note
from vent_agent.interpret.facts import InterpretationFacts, gather_device_facts, no_data_timing
from vent_agent.interpret.facts_cache import FactsCache
from vent_agent.interpret.returns import with_fan_return_check
from vent_agent.kb.thresholds import ThresholdTable
from vent_agent.network.device_effect import NetworkEffects
from vent_agent.network.local_fans import intake_airway
from vent_agent.network.requests import demo_mine_network
from vent_agent.network.service import device_effects
from vent_agent.settings import Settings
from vent_agent.upstream.base import VentilationSource
from vent_agent.upstream.models import DEVICE_TYPE_LABELS, DeviceType, NotFoundError
from ventnet import Branch

FacilityType = Literal["door", "regulator"]
FACILITY_LABELS = {"door": "风门", "regulator": "调节风窗"}
"""The device types a click may name besides the dictionary's: ventilation facilities (通风设施)."""
ClickDeviceType = Literal[DeviceType, FacilityType]  # one Literal: one error naming every choice
CONTROL_TYPES = frozenset({"fan", "aux_fan", "door", "regulator"})
"""Device types a change of which moves the air: they get the network section."""


def type_label(code: str) -> str:
    """The Chinese name of a device type code (the dictionary's or a facility's), else the code."""
    return DEVICE_TYPE_LABELS.get(code) or FACILITY_LABELS.get(code, code)


def demo_network_source(settings: Settings) -> bool:
    """True when the data come from the embedded demo mine, whose network the service holds."""
    return not settings.upstream_url


def facility_branch(device_id: str, settings: Settings) -> Branch | None:
    """The door or regulator branch ``device_id`` names in the mine's network, or None."""
    if not demo_network_source(settings):
        return None
    branch = next((b for b in demo_mine_network().branches if b.id == device_id), None)
    return branch if branch is not None and branch.kind in FACILITY_LABELS else None


def effects_of(
    settings: Settings, device_type: str, device_id: str, tun_id: str | None, state: str | None
) -> NetworkEffects | None:
    """The network section of a device of ``device_type`` (None for a sensor)."""
    if device_type not in CONTROL_TYPES:
        return None
    return device_effects(
        device_type,
        device_id,
        tun_id,
        state,
        demo_mine=demo_network_source(settings),
        edition=settings.regulation_edition,
    )


async def clicked_device_effects(
    source: VentilationSource, device_id: str, settings: Settings
) -> NetworkEffects | None:
    """The network section of device ``device_id`` as its data source describes it (or, for a door or
    regulator the source does not know, as the network does); None for a sensor or an unknown device."""
    try:
        data = await source.query_device_data_by_id(device_id)
        device = data.device
    except NotFoundError:
        branch = facility_branch(device_id, settings)
        if branch is None:
            return None
        return await asyncio.to_thread(effects_of, settings, branch.kind, branch.id, None, None)
    effects = await asyncio.to_thread(
        effects_of, settings, device.device_type, device.device_id, device.tun_id, device.state
    )
    return with_measured_air(effects, measured_air(data.latest.values if data.latest else {}))


def measured_air(values: Mapping[str, float]) -> float | None:
    """A fan's measured air volume (m³/min) from its reading's ``values``: None when it is not running or
    the reading has none (a standby fan's figure is not the air it moves)."""
    if values.get("running", 1.0) < 1.0:
        return None
    return values.get("air_volume")


def with_measured_air(effects: NetworkEffects | None, q: float | None) -> NetworkEffects | None:
    """``effects`` with the device's measured air volume (``q_measured``) when it is on the network."""
    if effects is None or q is None or not effects.on_network:
        return effects
    return effects.model_copy(update={"q_measured": q})


async def gather_clicked_device_facts(
    source: VentilationSource,
    device_id: str,
    claimed_type: str,
    settings: Settings,
    *,
    now: datetime | None = None,
    cache: FactsCache | None = None,
) -> InterpretationFacts:
    """The facts of a clicked device (:func:`~vent_agent.interpret.facts.gather_device_facts`) with its
    network section; a door or regulator only the network holds gets facts from the network alone.
    Raises ``NotFoundError`` for a device neither knows."""
    try:
        facts = await gather_device_facts(source, device_id, settings, now, cache=cache)
    except NotFoundError:
        branch = facility_branch(device_id, settings)
        if branch is None:
            raise
        return facility_facts(branch, claimed_type, settings, now)
    assert facts.device is not None  # device facts always carry their device
    d = facts.device
    effects = effects_of(settings, d.device_type, d.device_id, d.tun_id, d.state)
    measured = next(
        (a.value for a in facts.assessments if a.quantity == "air_volume" and a.device_id == d.device_id),
        None,
    )
    running = next((a.value for a in facts.assessments if a.quantity == "running"), 1.0)
    effects = with_measured_air(effects, measured if (running or 0.0) >= 1.0 else None)
    notes = facts.notes
    if d.device_type == "aux_fan" and d.tun_id and demo_network_source(settings):
        intake = intake_airway(demo_mine_network(), d.tun_id)
        if intake is not None:  # before the heading it ventilates (device_notes: 供风地点, last)
            notes = [*notes[:-1], intake_note(intake.name or intake.id), *notes[-1:]]
    facts = await with_fan_return_check(source, facts)
    return facts.model_copy(update={"network": effects, "notes": notes})


def facility_facts(
    branch: Branch, claimed_type: str, settings: Settings, now: datetime | None = None
) -> InterpretationFacts:
    """The facts of a door or regulator that has no monitoring point: its kind, no data (said so, as
    unmonitored rather than stale: ``monitored`` false), and its network section; a warning when the
    click named another type."""
    table = ThresholdTable.load(settings.regulation_edition)
    label = FACILITY_LABELS[branch.kind]
    warnings = []
    if claimed_type != branch.kind:
        warnings.append(
            f"设备类型与实际不符：请求的类型为「{type_label(claimed_type)}」（{claimed_type}），"
            f"{branch.id}（{branch.name}）在通风网络中为「{label}」（{branch.kind}），已按实际类型解读。"
        )
    return InterpretationFacts(
        target="device",
        target_id=branch.id,
        name=branch.name or branch.id,
        kind_label=label,
        **(no_data_timing(settings, now) | {"stale": False}),
        monitored=False,
        edition=table.edition,
        edition_label=table.article_label(),
        notes=[f"该{label}在监测系统中没有测点，以下只有通风网络模型（解算）给出的状态与调整影响"],
        warnings=warnings,
        network=effects_of(settings, branch.kind, branch.id, None, None),
    )
