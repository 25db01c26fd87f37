"""How the service writes times in its answers: the mine's local time (``VENT_TIMEZONE``) as
``YYYY-MM-DDTHH:MM:SS``, without an offset, like the spec's examples of the session list
(``"created_at": "2024-01-15T10:30:00"``). Every time a route returns (sessions, history, context usage,
a report's provenance) goes through :func:`local_time` or :func:`stored_local_time`.

Times are kept in UTC (database columns; SQLite gives them back naive) or as aware ISO strings (JSON
records), and turned into the mine's local time only when answered, so a change of time zone applies to
everything already stored.
"""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo


def local_time(t: datetime, tz: str) -> str:
    """A stored time (UTC when naive, as SQLite gives it back) as the mine's local time in ``tz``,
    ``YYYY-MM-DDTHH:MM:SS``."""
    aware = t if t.tzinfo else t.replace(tzinfo=UTC)
    return aware.astimezone(ZoneInfo(tz)).replace(tzinfo=None).isoformat(timespec="seconds")


def stored_local_time(value: str | None, tz: str) -> str | None:
    """A time kept as text in a JSON record, in the format of :func:`local_time`; None stays None.

    An aware ISO time (``2026-12-01T05:46:13+08:00``, ``…+00:00``) is converted to the mine's time
    zone. A naive one (``2026-11-29 22:10:13``, written by earlier versions in the mine's local time) is
    taken as local and only rewritten. Text that is not a time is returned unchanged rather than lost."""
    if value is None:
        return None
    try:
        t = datetime.fromisoformat(value)
    except ValueError:
        return value
    if t.tzinfo is None:
        return t.isoformat(timespec="seconds")
    return local_time(t, tz)
