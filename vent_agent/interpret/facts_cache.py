"""The last facts computed for each clicked target, reused while its data reads the same.

A burst of clicks on the same tunnel or device recomputes nothing: :class:`FactsCache` keeps each target's
facts with the JSON of the data they were computed from (:func:`data_json`), and gives them back only
for byte-for-byte the same data, thresholds and knowledge base.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter

from vent_agent.kb.search import KnowledgeBase
from vent_agent.kb.thresholds import ThresholdTable
from vent_agent.upstream.models import DeviceData, Reading, TunnelData

if TYPE_CHECKING:
    from vent_agent.interpret.facts import InterpretationFacts

_WINDOWS = TypeAdapter(list[list[Reading]])
FACTS_CACHE_ENTRIES = 256


@dataclass
class _CachedFacts:
    table: ThresholdTable
    kb: KnowledgeBase
    data: bytes  # the JSON of the data and the anomaly windows the facts were computed from
    facts: InterpretationFacts


@dataclass
class FactsCache:
    """The last facts of up to ``max_entries`` targets (least recently used dropped), each with the data
    it was computed from. A hit needs the same thresholds and knowledge base objects and data whose JSON
    is byte for byte the same; the facts then get the caller's data-time fields (the clock moves on).
    The facts returned are shared with other runs: read them, never change them. ``hits``/``misses``:
    counts since creation."""

    max_entries: int = FACTS_CACHE_ENTRIES
    hits: int = 0
    misses: int = 0
    _entries: OrderedDict[tuple[str, str], _CachedFacts] = field(default_factory=OrderedDict)

    def get(
        self,
        key: tuple[str, str],
        table: ThresholdTable,
        kb: KnowledgeBase,
        data: bytes,
        timing: dict[str, Any],
    ) -> InterpretationFacts | None:
        """The facts of ``key`` (target kind, id) computed from ``data`` with ``table`` and ``kb``, with
        ``timing``'s data-time fields; None when not cached."""
        got = self._entries.get(key)
        if got is None or got.table is not table or got.kb is not kb or got.data != data:
            self.misses += 1
            return None
        self.hits += 1
        self._entries.move_to_end(key)
        return got.facts.model_copy(update=timing)

    def put(
        self,
        key: tuple[str, str],
        table: ThresholdTable,
        kb: KnowledgeBase,
        data: bytes,
        facts: InterpretationFacts,
    ) -> None:
        """Remember ``facts`` of ``key`` computed from ``data`` with ``table`` and ``kb``."""
        self._entries[key] = _CachedFacts(table, kb, data, facts)
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)


def data_json(data: TunnelData | DeviceData, windows: list[list[Reading]]) -> bytes:
    """What the facts are computed from, as JSON: the data read and the readings of each device's
    anomaly window."""
    return data.model_dump_json().encode() + b"\n" + _WINDOWS.dump_json(windows)
