"""Calculations per second of the calculators (a plain script, not a test).

Run: ``.venv/bin/python bench/bench_calc.py [--seconds 0.5]``. Each case runs for about ``--seconds``
(default 0.5 s, at most 2 s) measured with ``time.perf_counter``, so the whole run stays well under 20 s.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from calc import (
    calc_chamber_by_equipment,
    calc_explosives_store,
    calc_face_air_volume_max,
    calc_face_by_climate,
    calc_face_by_gas,
    calc_face_by_wind_speed,
    calc_face_by_workers,
    calc_gas_emission_from_wind,
    calc_other_by_vehicle,
    calc_total_air_volume,
    calc_tunnel_air_volume_max,
    calc_tunnel_by_fan_intake,
    calc_tunnel_by_gas,
    calc_tunnel_by_wind_speed,
)

FACE = {"mining_height": 3.2, "roof_control_max": 5.8, "roof_control_min": 4.6}
FACE_MAX = {
    **FACE, "gas_emission": 4.2, "k_gas": 1.5, "co2_emission": 0.8, "k_co2": 1.5, "mining_method": "综采",
    "face_length": 220, "intake_temp": 19.0, "workers": 38,
}  # fmt: skip
HEADING_MAX = {
    "gas_emission": 0.2, "k_gas": 1.5, "explosive_kg": 24, "fan_intake_q": 300, "fan_count": 1, "area": 12.6,
    "heading_type": "rock", "workers": 14,
}  # fmt: skip

CASES: list[tuple[str, Callable[..., Any], dict[str, Any]]] = [
    ("calc_face_air_volume_max", calc_face_air_volume_max, FACE_MAX),
    ("calc_tunnel_air_volume_max", calc_tunnel_air_volume_max, HEADING_MAX),
    ("calc_face_by_gas", calc_face_by_gas, {"gas_emission": 4.2, "k_gas": 1.5, "mining_method": "综采"}),
    ("calc_face_by_climate", calc_face_by_climate, {**FACE, "face_length": 220, "intake_temp": 19.0}),
    ("calc_face_by_workers", calc_face_by_workers, {"workers": 38}),
    ("calc_face_by_wind_speed", calc_face_by_wind_speed, {**FACE, "required_q": 1132.2}),
    ("calc_tunnel_by_gas", calc_tunnel_by_gas, {"gas_emission": 0.8, "k_gas": 1.8}),
    ("calc_tunnel_by_fan_intake", calc_tunnel_by_fan_intake, {"fan_intake_q": 420, "area": 14.2, "heading_type": "coal"}),
    ("calc_tunnel_by_wind_speed", calc_tunnel_by_wind_speed, {"area": 14.2, "heading_type": "coal", "required_q": 633}),
    ("calc_chamber_by_equipment", calc_chamber_by_equipment, {"power_kw": 800, "theta": 0.02, "delta_t": 5.0}),
    ("calc_explosives_store", calc_explosives_store, {"volume_m3": 1200, "store_size": "中型"}),
    ("calc_other_by_vehicle", calc_other_by_vehicle, {"vehicle_kw": 70, "vehicles": 2}),
    ("calc_total_air_volume", calc_total_air_volume, {"location_qs": [1132.2, 633.0, 600.0], "k_mine": 1.18}),
    ("calc_gas_emission_from_wind", calc_gas_emission_from_wind, {"wind_speed": 1.74, "area": 11.6, "ch4_return": 0.37}),
]  # fmt: skip


def rate(func: Callable[..., Any], kwargs: dict[str, Any], seconds: float) -> tuple[float, int]:
    """Calls per second of ``func(**kwargs)`` over about ``seconds``, and the number of calls."""
    func(**kwargs)  # warm-up
    calls, batch = 0, 50
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for _ in range(batch):
            func(**kwargs)
        calls += batch
    return calls / elapsed, calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=0.5, help="time per case (max 2)")
    seconds = min(max(parser.parse_args().seconds, 0.05), 2.0)
    total = time.perf_counter()
    print(f"{'calculator':<30} {'calc/s':>10} {'µs/calc':>9} {'calls':>8}")
    for name, func, kwargs in CASES:
        per_second, calls = rate(func, kwargs, seconds)
        print(f"{name:<30} {per_second:>10.0f} {1e6 / per_second:>9.1f} {calls:>8}")
    print(f"total {time.perf_counter() - total:.1f} s")


if __name__ == "__main__":
    main()
