"""Joining events that were sent in parts (``part``/``parts``, cut by :mod:`vent_agent.runs.frames` to keep
each frame within :data:`vent_agent.wire.FRAME_CAP`): what every reader of a stream or a log does first."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from vent_agent.events import CATALOGUE, EventModel


class PartJoiner:
    """Joins the parts of split events as they arrive: :meth:`feed` returns the whole event when its last
    part came (or at once for an event that is not split), None while parts are outstanding. The model's
    ``SPLIT_LISTS`` concatenate, its ``SPLIT_TEXT`` fields concatenate, the rest (``seq`` included) is the
    last part's."""

    def __init__(self) -> None:
        self._pending: dict[str, Any] | None = None

    def feed(self, payload: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The events complete after ``payload``: usually ``[payload]``; ``[]`` while a split event is
        incomplete; an interrupted split event first when another event breaks into it."""
        ev = dict(payload)
        out: list[dict[str, Any]] = []
        if ev.get("parts") is None:
            out.extend(self.drain())
            return [*out, ev]
        pending = self._pending
        if pending is None or pending.get("type") != ev.get("type") or ev.get("part") == 1:
            out.extend(self.drain())
            self._pending = ev
        else:
            model = CATALOGUE.get(str(ev.get("type")), EventModel)
            joined = {**pending, **ev}
            for key in model.SPLIT_LISTS:
                joined[key] = list(pending.get(key) or []) + list(ev.get(key) or [])
            for key in model.SPLIT_TEXT:
                if key in pending or key in ev:
                    joined[key] = (pending.get(key) or "") + (ev.get(key) or "")
            self._pending = joined
        if ev.get("part") == ev.get("parts"):
            done = self._pending or {}
            self._pending = None
            done.pop("part", None)
            done.pop("parts", None)
            out.append(done)
        return out

    def drain(self) -> list[dict[str, Any]]:
        """An unfinished split event, as received so far (or nothing)."""
        pending, self._pending = self._pending, None
        return [pending] if pending is not None else []


def merge_parts(events: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``events`` with the parts of split events joined (:class:`PartJoiner`); other events unchanged."""
    joiner = PartJoiner()
    out = [ev for payload in events for ev in joiner.feed(payload)]
    return out + joiner.drain()
