"""The demo mine's monitoring history: deterministic hourly series with shift and daily patterns and a few
planted anomalies.

Each series is ``base + diurnal + shift effects + AR(1) noise``, rounded to the sensor's resolution:

- diurnal: ``diurnal · cos(2π(h − 15)/24)`` (largest at 15:00 mine time: surface air, natural
  ventilation pressure);
- shifts (三八制): coal is cut on the 中班 and 夜班 (16:00–08:00, ``production`` added), the 早班
  (08:00–16:00) is the maintenance shift (``maintenance`` added: material haulage, diesel vehicles); the
  first hour of each shift (handover) counts half;
- noise: AR(1) with coefficient ``ar`` and stationary standard deviation ``noise``, from a
  :class:`random.Random` seeded by (seed, device id, quantity), so a series does not depend on which
  other series were generated before it.

A :class:`PlantedAnomaly` blends the series towards ``peak`` along an envelope given in hours before
the latest reading: 0 before ``start_h``, rising linearly to 1 at ``peak_h``, held until ``hold_h``, back to
0 at ``end_h`` (``end_h`` < 0: still going at the latest reading).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Profile:
    """How one quantity of one device behaves (units of the quantity)."""

    base: float
    noise: float = 0.0
    ar: float = 0.6
    diurnal: float = 0.0
    production: float = 0.0
    maintenance: float = 0.0
    decimals: int = 2
    floor: float = 0.0


@dataclass(frozen=True)
class PlantedAnomaly:
    """A planted excursion of ``quantity`` on ``device_id`` towards ``peak`` (hours before the latest
    reading: ``start_h`` ≥ ``peak_h`` ≥ ``hold_h`` ≥ ``end_h``); ``jitter`` is the noise at the peak."""

    device_id: str
    quantity: str
    start_h: int
    peak_h: int
    hold_h: int
    end_h: int
    peak: float
    jitter: float = 0.0
    note: str = ""

    def envelope(self, hours_ago: int) -> float:
        """The blend weight (0–1) at ``hours_ago`` hours before the latest reading."""
        h = hours_ago
        if h >= self.start_h or h <= self.end_h:
            return 0.0
        if h > self.peak_h:
            return (self.start_h - h) / (self.start_h - self.peak_h)
        if h >= self.hold_h:
            return 1.0
        return (h - self.end_h) / (self.hold_h - self.end_h)


def shift_weights(hour: int) -> tuple[float, float]:
    """(production, maintenance) weights of a local clock hour (0–23): production 16:00–08:00,
    maintenance 08:00–16:00; the first hour of a shift counts half."""
    handover = 0.5 if hour in (0, 8, 16) else 1.0
    if 8 <= hour < 16:
        return 0.0, handover
    return handover, 0.0


def generate_series(
    key: str,
    profile: Profile,
    times: Sequence[datetime],
    anomalies: Sequence[PlantedAnomaly] = (),
) -> list[float]:
    """Values of one quantity at ``times`` (oldest first, local mine time), deterministic in ``key``.

    ``key`` seeds the noise (e.g. ``"20260801:WS-15216:wind_speed"``); ``anomalies`` are blended in by
    their envelopes, counted back from the last time.
    """
    rng = random.Random(key)
    jitter_rng = random.Random(key + ":anomaly")
    innovation = profile.noise * math.sqrt(1.0 - profile.ar**2)
    e = rng.gauss(0.0, profile.noise) if profile.noise else 0.0
    n = len(times)
    out: list[float] = []
    for i, t in enumerate(times):
        if i:
            e = profile.ar * e + (rng.gauss(0.0, innovation) if innovation else 0.0)
        production, maintenance = shift_weights(t.hour)
        v = (
            profile.base
            + profile.diurnal * math.cos(2 * math.pi * (t.hour - 15) / 24)
            + profile.production * production
            + profile.maintenance * maintenance
            + e
        )
        hours_ago = n - 1 - i
        for a in anomalies:
            w = a.envelope(hours_ago)
            if w:
                target = a.peak + (jitter_rng.gauss(0.0, a.jitter) if a.jitter else 0.0)
                v = (1.0 - w) * v + w * target
        out.append(round(max(profile.floor, v), profile.decimals))
    return out
