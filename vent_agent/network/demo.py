"""The demo mine as one connected ventilation network (``vent_agent/data/demo_ventnet.json``,
docs/DEMO_MINE.md): each airway's R from its friction factor, length, perimeter and section
(R = α·L·U/S³ × (1 + local-resistance share), every figure with its source in the file), regulators and
the lumped district fitted to the monitored air by ``scripts/build_demo_ventnet.py``, the main fan with
its curve, local fans as fixed quantities, and a closed door."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ventnet import Branch, FanCurve, Network
from ventnet.changes import CLOSED_DOOR_RESISTANCE

DATA_PATH = Path(__file__).resolve().parent.parent / "data" / "demo_ventnet.json"


@dataclass(frozen=True)
class MainFanMotor:
    """The main fan's drive: ``motors`` motors of ``rated_kw_each`` kW at ``voltage_kv`` kV with power
    factor ``power_factor`` and efficiency ``efficiency``."""

    motors: int
    rated_kw_each: float
    voltage_kv: float
    power_factor: float
    efficiency: float

    def current_per_motor(self, input_kw: float) -> float:
        """The line current of each motor (A) drawing ``input_kw`` kW in all: ``I = P / (n·√3·U·cosφ)``."""
        return input_kw * 1000.0 / (self.motors * math.sqrt(3) * self.voltage_kv * 1000.0 * self.power_factor)

    def rated_current(self) -> float:
        """Each motor's rated current (A): ``P_rated / (√3·U·cosφ·η)``."""
        watts = self.rated_kw_each * 1000.0
        return watts / (math.sqrt(3) * self.voltage_kv * 1000.0 * self.power_factor * self.efficiency)


def friction_resistance(airway: dict[str, Any], data: dict[str, Any]) -> float:
    """``α·L·U/S³ × (1 + local share)`` (N·s²/m⁸) of an airway record; 0 for one without geometry (a
    lumped district or a local fan's duct, whose R is its added resistance or fixed quantity)."""
    if "length" not in airway:
        return 0.0
    area = float(airway["area"])
    perimeter = float(airway["perimeter_coefficient"]) * math.sqrt(area)
    alpha = float(data["friction_factors"][airway["alpha"]]["value"])
    return (
        alpha * float(airway["length"]) * perimeter / area**3 * (1.0 + float(data["local_factor"]["value"]))
    )


@lru_cache(maxsize=1)
def demo_data() -> dict[str, Any]:
    """The demo network file, parsed once."""
    data: dict[str, Any] = json.loads(DATA_PATH.read_text(encoding="utf-8"))
    return data


def demo_network() -> Network:
    """The demo mine's network, with the main fan running and the door FM-01 closed."""
    data = demo_data()
    fan = data["main_fan"]
    curve = FanCurve(fan["a0"], fan["a1"], fan["a2"], fan["q_min"], fan["q_max"])
    branches = []
    for airway in data["airways"]:
        added = float(airway.get("added_resistance", 0.0))
        if airway.get("door_closed"):
            added = CLOSED_DOOR_RESISTANCE
        branches.append(
            Branch(
                id=airway["id"],
                from_node=airway["from"],
                to_node=airway["to"],
                resistance=friction_resistance(airway, data),
                added_resistance=added,
                fan=curve if airway["id"] == fan["airway"] else None,
                fixed_q=airway.get("fixed_q"),
                area=airway.get("area"),
                kind=airway["kind"],
                name=airway["name"],
                roadway_class=airway.get("roadway_class"),
            )
        )
    return Network(tuple(branches), frozenset(data["atmosphere"]), joined=dict(data["joined"]))


def main_fan_motor() -> MainFanMotor:
    """The main fan's motor data."""
    motor = demo_data()["main_fan"]["motor"]
    return MainFanMotor(
        motor["motors"],
        motor["rated_kw_each"],
        motor["voltage_kv"],
        motor["power_factor"],
        motor["efficiency"],
    )
