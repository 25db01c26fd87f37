"""Episodes of a time series: runs of consecutive readings that cross a limit (alarms, anomalies)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class Episode:
    """A run of consecutive readings crossing a limit: first and last reading times, the worst value
    (``peak``) and when it occurred; ``ongoing`` when the run includes the series' last reading."""

    start: datetime
    end: datetime
    peak: float
    peak_time: datetime
    ongoing: bool


def find_episodes(
    times: Sequence[datetime],
    values: Sequence[float | None],
    crossed: Callable[[float], bool],
    *,
    worse: Callable[[float], Any],
) -> list[Episode]:
    """Runs of consecutive samples (``times``/``values`` in parallel, oldest first) that satisfy
    ``crossed``. The episode's peak is the value with the largest ``worse(value)`` (``lambda v: v`` for a
    maximum, ``lambda v: -v`` for a minimum). A missing value (None) ends a run.
    """
    episodes: list[Episode] = []
    run: list[tuple[datetime, float]] = []

    def close(ongoing: bool) -> None:
        if run:
            t, v = max(run, key=lambda tv: worse(tv[1]))
            episodes.append(Episode(run[0][0], run[-1][0], v, t, ongoing))
            run.clear()

    for t, v in zip(times, values, strict=True):
        if v is not None and crossed(v):
            run.append((t, v))
        else:
            close(False)
    close(True)
    return episodes
