"""Edition names and article-number aliases of 《煤矿安全规程》 (docs/DOMAIN.md §3).

The renumbered edition (``2025``, the shipped text, articles 156–197 of the ventilation chapter) and the
2016 edition (amended 2022, articles 135–176) number the same provisions differently; the known pairs
live in ``data/thresholds.json`` (``article_map``), with the other names of an edition
(``edition_aliases``: ``"2022"`` → ``"2016"``). A number without a pair has no alias: none is guessed.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from vent_agent.kb.thresholds import DATA_PATH, _read

_YEAR = re.compile(r"((?:19|20)\d{2})")


class ArticleAliases:
    """The article-number map between editions and the edition names.

    ``pairs``: ``{(from_edition, to_edition): {number: number}}`` in both directions;
    ``edition_aliases``: other name → edition (``{"2022": "2016"}``); ``default_edition``: the data's
    default (``"2025"``).
    """

    def __init__(
        self,
        pairs: dict[tuple[str, str], dict[int, int]],
        edition_aliases: dict[str, str],
        default_edition: str,
    ):
        self.pairs = pairs
        self.edition_aliases = edition_aliases
        self.default_edition = default_edition

    @classmethod
    def load(cls, path: Path | None = None) -> ArticleAliases:
        """The map of ``path`` (default: the shipped ``thresholds.json``), cached per path."""
        return _load(path or DATA_PATH)

    @property
    def editions(self) -> list[str]:
        """Every edition the map numbers (``["2025", "2016"]``)."""
        return list(dict.fromkeys(e for pair in self.pairs for e in pair))

    def edition(self, name: str | None) -> str | None:
        """The canonical edition of a name as written: ``"2016版"``, ``"2016年版"``, ``"2022年修订"``,
        ``"2022"`` → ``"2016"``; ``"2025版"`` → ``"2025"``. A year the data does not know is returned as
        the year (the caller decides); None for None or a name without a year."""
        if name is None:
            return None
        m = _YEAR.search(str(name))
        if not m:
            return None
        year = m.group(1)
        return self.edition_aliases.get(year, year)

    def map(self, number: int, from_edition: str, to_edition: str) -> int | None:
        """The number in ``to_edition`` of article ``number`` of ``from_edition`` (the same number when
        the editions are the same); None when the pair is not known."""
        if from_edition == to_edition:
            return number
        return self.pairs.get((from_edition, to_edition), {}).get(number)

    def aliases_of(self, number: int, edition: str) -> dict[str, int]:
        """The same provision's number in every other edition where known: 157 (2025) → ``{"2016": 136}``."""
        out: dict[str, int] = {}
        for (src, dst), table in self.pairs.items():
            if src == edition and number in table:
                out[dst] = table[number]
        return out


@lru_cache(maxsize=4)
def _load(path: Path) -> ArticleAliases:
    data = _read(path)
    amap = data["article_map"]
    forward = {int(a): int(b) for a, b in amap["pairs"]}
    pairs = {
        (amap["from"], amap["to"]): forward,
        (amap["to"], amap["from"]): {b: a for a, b in forward.items()},
    }
    return ArticleAliases(pairs, dict(data.get("edition_aliases", {})), data["default_edition"])
