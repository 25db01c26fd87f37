"""What a plan shows but the reader could not attribute (:class:`~vent_agent.documents.plan.model.ReadingGap`).

A missing calculation or sign-off is a major fault of a plan, but only when the plan really lacks it:
calculation statements outside every location block, or approval lines that no sign-off was read from,
mean the reader failed, and the review then says so instead of judging (docs/DOMAIN.md §5).
"""

from __future__ import annotations

import re

from vent_agent.documents.plan.model import LocationPlan, ReadingGap, SignOff
from vent_agent.documents.plan.sections import Block
from vent_agent.documents.plan.text_primitives import NUM, TextDoc, squeeze

_CALC_LINE = re.compile(rf"^按.{{1,18}}?(?:计算|核算)\s*[:：]|^Q\s*需?\s*=.*{NUM}")
_APPROVAL = re.compile(r"(?:^|[\s【\[(（])批\s*准\s*(?:人)?\s*(?:[:：】\]）)]|\s+\S)")


def calculation_gaps(
    doc: TextDoc, first: int, end: int, blocks: list[Block], located: dict[int, LocationPlan]
) -> list[ReadingGap]:
    """Calculation statements between lines ``first`` and ``end`` outside every block, and blocks
    (``located``: block index → its location) with formulas in their text but no method read."""
    inside = {
        i
        for n, b in enumerate(blocks)
        for i in range(b.first_line, blocks[n + 1].first_line if n + 1 < len(blocks) else end)
    }
    orphans = [i for i in range(first, end) if i not in inside and _CALC_LINE.search(doc.lines[i].text)]
    gaps = []
    if orphans:
        page = doc.lines[orphans[0]].page
        note = f"{len(orphans)} 行计算式未能归属到用风地点（第{page}页起）"
        gaps.append(ReadingGap(topic="calculation", page=page, note=note))
    for n, loc in located.items():
        block = blocks[n]
        if not loc.methods and re.search(rf"=\s*{NUM}", doc.text[block.start : block.end]):
            note = f"{loc.name}的计算式未能识别"
            gaps.append(ReadingGap(topic="calculation", location=loc.name, page=block.page, note=note))
    return gaps


_FORMULA_AFTER = re.compile(rf"Q\s*需?\s*=|{NUM}\s*[×*]\s*{NUM}[^。；;\n]{{0,40}}=\s*{NUM}")


def _elsewhere(
    doc: TextDoc, names: list[str], first: int, end: int, located: list[str]
) -> list[tuple[str, int, int]]:
    """``(name, name's offset, end of its sentence)`` for each name of ``names`` without a block of its
    own (``located``) that is followed, outside lines ``first``–``end`` (the calculation section), by a
    formula in the same sentence."""
    start, stop = doc.span(first, end)
    out = []
    for name in names:
        if name in located or not name:
            continue
        for m in re.finditer(re.escape(name), doc.text):
            if start <= m.start() < stop:
                continue
            sentence = doc.text[m.end() : m.end() + 240].split("。")[0]
            if _FORMULA_AFTER.search(sentence.replace("\n", "")):
                out.append((name, m.start(), m.end() + len(sentence)))
                break
    return out


def elsewhere_blocks(doc: TextDoc, names: list[str], first: int, end: int, located: list[str]) -> list[Block]:
    """A block (``outside``) for each location calculated in a sentence outside the calculation section
    (an overview's ``西翼回风大巷…按回风流瓦斯涌出量校核：Q = 100 × q × k = … = 900.0``): the sentence from
    the name on, read like a block of the section."""
    return [
        Block(name, name, "", doc.line_at(at), at + len(name), stop, doc.page_at(at), outside=True)
        for name, at, stop in _elsewhere(doc, names, first, end, located)
    ]


def calculations_elsewhere(
    doc: TextDoc, names: list[str], first: int, end: int, located: list[str]
) -> list[ReadingGap]:
    """Locations of ``names`` without a block of their own (``located``) whose name is followed, outside
    lines ``first``–``end`` (the calculation section), by a formula in the same sentence: the plan
    calculates them elsewhere (an overview's ``按回风流瓦斯涌出量校核：Q = 100 × q × k = …``), so a missing
    calculation would be the reader's failure, not the plan's."""
    gaps = []
    for name, at, _ in _elsewhere(doc, names, first, end, located):
        page = doc.page_at(at)
        note = f"{name}的计算写在需风量计算章节以外（第{page}页），未能识别"
        gaps.append(ReadingGap(topic="calculation", location=name, page=page, note=note))
    return gaps


def signoff_gaps(doc: TextDoc, signoffs: list[SignOff]) -> list[ReadingGap]:
    """An approval line (``批准：…``, ``【批准】…``, ``批准 总工程师 …``) when no 批准 sign-off was read."""
    if any(s.role == "批准" for s in signoffs):
        return []
    lines = [x for x in doc.lines if _APPROVAL.search(x.text) and len(squeeze(x.text)) > 3]
    if not lines:
        return []
    page = lines[-1].page
    return [ReadingGap(topic="signoff", page=page, note=f"第{page}页有批准栏字样，但未能读出批准签字")]
