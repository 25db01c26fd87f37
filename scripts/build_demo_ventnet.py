"""Fit the demo mine's regulators and lumped resistances so that its network carries the monitored air.

Reads ``vent_agent/data/demo_ventnet.json`` (airways with α, L, S and the perimeter coefficient, each
with its source; target flows from the demo monitoring baseline), walks the airways marked ``tree``
from the atmosphere to give every node its pressure at the target flows, and writes back each
``fit`` airway's added resistance ``ΔR = (p(to) − p(from)) / Q² − R_friction`` (a regulator, or the
lumped resistance of a district the demo does not detail) and the main fan's curve through the
operating point. Run it after editing the airways: ``python scripts/build_demo_ventnet.py``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

LOCAL_FACTOR = [0.0]
PATH = Path(__file__).resolve().parent.parent / "vent_agent" / "data" / "demo_ventnet.json"


def friction(airway: dict, alphas: dict) -> float:
    """R = α·L·U/S³ with U = C·√S (N·s²/m⁸)."""
    if "length" not in airway:
        return 0.0
    area = airway["area"]
    perimeter = airway["perimeter_coefficient"] * math.sqrt(area)
    return alphas[airway["alpha"]]["value"] * airway["length"] * perimeter / area**3 * (1.0 + LOCAL_FACTOR[0])


def main() -> None:
    data = json.loads(PATH.read_text(encoding="utf-8"))
    alphas = data["friction_factors"]
    LOCAL_FACTOR[0] = data["local_factor"]["value"]
    airways = data["airways"]
    pressure = {node: 0.0 for node in data["atmosphere"]}
    pending = [a for a in airways if a.get("role") == "tree"]
    while pending:
        for node, partner in data["joined"].items():
            if partner in pressure:
                pressure[node] = pressure[partner]
        progressed = False
        for airway in list(pending):
            q = airway["target_q"]
            drop = friction(airway, alphas) * q * q
            if airway["from"] in pressure:
                pressure[airway["to"]] = pressure[airway["from"]] + drop
            elif airway["to"] in pressure:
                pressure[airway["from"]] = pressure[airway["to"]] - drop
            else:
                continue
            pending.remove(airway)
            progressed = True
        if not progressed:
            raise SystemExit(f"tree airways not reached from the atmosphere: {[a['id'] for a in pending]}")
    for airway in airways:
        if airway.get("role") == "fit":
            q = airway["target_q"]
            needed = (pressure[airway["to"]] - pressure[airway["from"]]) / (q * q) - friction(airway, alphas)
            if needed < 0:
                raise SystemExit(f"{airway['id']}: needs negative added resistance {needed:.5f}")
            airway["added_resistance"] = round(needed, 6)
    fan = data["main_fan"]
    airway = next(a for a in airways if a["id"] == fan["airway"])
    q = airway["target_q"]
    needed = pressure[airway["from"]] + friction(airway, alphas) * q * q
    slope_at_peak = fan["peak_q"]
    a2 = fan["a2"]
    a1 = -2.0 * a2 * slope_at_peak
    fan["a1"] = round(a1, 6)
    fan["a0"] = round(needed - a1 * q - a2 * q * q, 3)
    fan["fitted_pressure"] = round(needed, 1)
    PATH.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: round(v, 1) for k, v in pressure.items()}, ensure_ascii=False))
    print("main fan pressure at the operating point:", round(needed, 1), "Pa")


if __name__ == "__main__":
    main()
