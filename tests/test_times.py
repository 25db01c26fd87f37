"""The one way the service writes times: the mine's local time, ``YYYY-MM-DDTHH:MM:SS``."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from vent_agent.times import local_time, stored_local_time


def test_a_column_time_naive_or_aware_is_the_mines_local_time() -> None:
    assert local_time(datetime(2026, 11, 29, 14, 10, 13), "Asia/Shanghai") == "2026-11-29T22:10:13"
    aware = datetime(2026, 11, 29, 14, 10, 13, 999_000, tzinfo=UTC)
    assert local_time(aware, "Asia/Shanghai") == "2026-11-29T22:10:13"


@pytest.mark.parametrize(
    ("stored", "answered"),
    [
        ("2026-11-29T14:10:13+00:00", "2026-11-29T22:10:13"),  # a context time, kept in UTC
        ("2026-12-01T05:46:13+08:00", "2026-12-01T05:46:13"),  # a report's time, with its offset
        ("2026-11-29 22:10:13", "2026-11-29T22:10:13"),  # written before in the mine's local time
        ("not a time", "not a time"),
        (None, None),
    ],
)
def test_a_stored_time_is_answered_in_the_one_format(stored: str | None, answered: str | None) -> None:
    assert stored_local_time(stored, "Asia/Shanghai") == answered
