"""The calculators' formula symbols as they write them (``Q_f``, ``v_min``, ``k_h``, ``q_CO₂``): the
pattern of a symbol with a subscript, the symbols of the catalogue, and :func:`notate`, which writes a
symbol that a plan spells without its underscore (``Qf``, as a PDF's text layer gives a subscript) the
calculators' way, so that every renderer sets its subscript (the Word report a subscript run,
``reports.docx_report.add_text``; the console ``<sub>``, ``vent_agent/static/console/md.js``).
"""

from __future__ import annotations

import re
from functools import cache

from calc.catalog import CATALOG, PARAMS

SUBSCRIPT = re.compile(r"(?<![A-Za-z0-9])([A-Za-zΣ])_([A-Za-z0-9₀-₉]+)")
"""A symbol with a subscript as the calculators write it (``k_h``, ``L_max``, ``q_CO₂``, ``Q_f``); the
console's ``SUBSCRIPT`` (md.js) is the same pattern (a browser test keeps the two equal)."""


@cache
def symbols() -> frozenset[str]:
    """Every subscripted symbol the calculators' glossary and descriptions write (``Q_f``, ``v_min``,
    ``k_mine``, ``c_p`` …)."""
    texts = [p.label_cn for p in PARAMS.values()]
    texts += [f"{c.title_cn} {c.description_cn}" for c in CATALOG.values()]
    return frozenset(m[0] for text in texts for m in SUBSCRIPT.finditer(text))


@cache
def _run_together() -> tuple[re.Pattern[str], dict[str, str]]:
    """The symbols written without their underscore (``Qf``), as one pattern of whole words, and each
    such spelling → the symbol."""
    spelled = {s.replace("_", ""): s for s in symbols()}
    words = "|".join(re.escape(w) for w in sorted(spelled, key=len, reverse=True))
    return re.compile(rf"(?<![A-Za-z0-9_])({words})(?![A-Za-z0-9_₀-₉])"), spelled


def notate(text: str) -> str:
    """``text`` with each catalogue symbol written without its underscore as a whole word (``Q = Qf × I``)
    written the calculators' way (``Q = Q_f × I``); other words (``Qfan``, ``m³/min``) as they are."""
    pattern, spelled = _run_together()
    return pattern.sub(lambda m: spelled[m[1]], text)
