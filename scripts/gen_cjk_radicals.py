"""Generate ``vent_agent/data/cjk_radicals.json``: every CJK radical of U+2E80–U+2FDF (the CJK Radicals
Supplement and the Kangxi Radicals blocks) mapped to its equivalent unified ideograph.

Source: the Unicode Character Database's ``EquivalentUnifiedIdeograph.txt`` (property
Equivalent_Unified_Ideograph, UAX #44), e.g. Debian's ``unicode-data`` package
(``/usr/share/unicode/EquivalentUnifiedIdeograph.txt``). NFKC maps the Kangxi radicals already but not the
supplement (U+2EDB ⻛ stays ⻛), so the text normaliser ships this table. Run once when the UCD moves on:

    python scripts/gen_cjk_radicals.py [/usr/share/unicode/EquivalentUnifiedIdeograph.txt]
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

BLOCK = range(0x2E80, 0x2FE0)
OUT = Path(__file__).resolve().parent.parent / "vent_agent" / "data" / "cjk_radicals.json"
_LINE = re.compile(r"^([0-9A-F]{4,6})(?:\.\.([0-9A-F]{4,6}))?\s*;\s*([0-9A-F]{4,6})")
_NONE = re.compile(r"^#\s*([0-9A-F]{4,6});")


def main(src: str = "/usr/share/unicode/EquivalentUnifiedIdeograph.txt") -> None:
    text = Path(src).read_text(encoding="utf-8")
    version = re.search(r"EquivalentUnifiedIdeograph-([\d.]+)\.txt", text)
    mapping: dict[str, str] = {}
    without: list[str] = []
    for line in text.splitlines():
        if m := _LINE.match(line):
            first, last = int(m.group(1), 16), int(m.group(2) or m.group(1), 16)
            for cp in range(first, last + 1):
                if cp in BLOCK:
                    mapping[f"{cp:04X}"] = chr(int(m.group(3), 16))
        elif (m := _NONE.match(line)) and int(m.group(1), 16) in BLOCK:
            without.append(m.group(1))
    data = {
        "source": f"Unicode EquivalentUnifiedIdeograph-{version.group(1) if version else '?'}.txt",
        "block": "U+2E80..U+2FDF",
        "no_equivalent": sorted(without),
        "map": dict(sorted(mapping.items())),
    }
    OUT.write_text(json.dumps(data, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"{len(mapping)} radicals → {OUT}")


if __name__ == "__main__":
    main(*sys.argv[1:])
