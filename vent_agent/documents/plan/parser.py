"""Monthly air-distribution plan (月度配风计划) PDF text → :class:`~vent_agent.documents.plan.model.Plan`.

``parse_plan(extracted)`` reads the genre, not one file: sections are found by their heading words,
tables by their header words, locations by their names, figures by their labels. It never raises on
content: what it cannot read it records in ``plan.warnings``. Modules:

- :mod:`text_primitives`: normalisation, numbers, units, dates, names, the page-aware document text;
- :mod:`sections`: sections, location blocks, statements of a block;
- :mod:`blocks`: a block's inputs, methods, stated maximum and speed check;
- :mod:`tables`: ruled tables (location list, allocation, sign-off), joined over page breaks;
- :mod:`unruled_tables`: the same three read from text lines when there is no ruled table;
- :mod:`cover`: cover fields (title, mine, month, version, prepared date), basis, citations;
- this module: the location list, allocation, sign-offs, calculations, totals, and putting it together.

Pages are 1-based; table references are 1-based table-on-page and row-in-table numbers.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from vent_agent.documents.pdf_text import ExtractedPdf
from vent_agent.documents.plan.blocks import parse_block, rock_of
from vent_agent.documents.plan.calc_tables import CalcGroup, anchor_groups, calc_groups, is_calc_table
from vent_agent.documents.plan.cover import read_front_matter
from vent_agent.documents.plan.gaps import (
    calculation_gaps,
    calculations_elsewhere,
    elsewhere_blocks,
    signoff_gaps,
)
from vent_agent.documents.plan.inputs import apply_input_sheets
from vent_agent.documents.plan.location_names import is_location_name
from vent_agent.documents.plan.matrix import is_method_matrix, matrix_groups
from vent_agent.documents.plan.methods import kind_of
from vent_agent.documents.plan.model import (
    AllocationRow,
    Figure,
    LocationPlan,
    Plan,
    SignOff,
    SourceRef,
    Totals,
)
from vent_agent.documents.plan.prose import (
    prose_allocation,
    prose_location_list,
    prose_signoffs,
    stated_default_unit,
)
from vent_agent.documents.plan.sections import Block, Section, find_blocks, find_sections, section
from vent_agent.documents.plan.tables import (
    LogicalTable,
    allocation_rows,
    classify_kind,
    location_rows,
    logical_tables,
    signoffs,
)
from vent_agent.documents.plan.text_primitives import (
    NUM,
    Line,
    TextDoc,
    build_doc,
    match_name,
    name_key,
    squeeze,
    unit_after,
)
from vent_agent.documents.plan.units import (
    UNIT_TEXT,
    canonical_unit,
    convert_figure,
    infer_column_units,
    is_flow,
    read_figure,
)
from vent_agent.documents.plan.unruled_tables import (
    ROLE_INLINE,
    allocation_lines,
    location_lines,
    signoff_lines,
)

log = logging.getLogger(__name__)
T = TypeVar("T")
Listed = tuple[str, str, SourceRef]
"""A location of the plan's list: its name key, its label as written, where it was read."""


def parse_plan(extracted: ExtractedPdf) -> Plan:
    """Parse an extracted plan PDF. Never raises on content: what cannot be read goes to
    ``plan.warnings`` (an unexpected error in one part is logged and the other parts still parse)."""
    doc = build_doc(extracted)
    sections = find_sections(doc)
    plan = Plan(page_count=extracted.page_count, char_count=extracted.char_count)
    warnings = plan.warnings
    if extracted.pages_without_text:
        warnings.append(f"无文字层的页 / pages without a text layer: {extracted.pages_without_text}")
    if not doc.lines:
        warnings.append("文档没有可读文字 / the document has no readable text")
        return plan
    plan.section_pages = {}
    for s in sections:
        plan.section_pages.setdefault(s.key, s.page)

    tables: list[LogicalTable] = _guarded(plan, "tables", lambda: logical_tables(extracted.tables), [])
    _guarded(plan, "cover", lambda: read_front_matter(plan, doc, sections), None)
    listed: list[Listed] = _guarded(
        plan, "locations list", lambda: _listed(doc, sections, tables, warnings), []
    )
    plan.listed_locations = [name for name, _, _ in listed]
    total_row: dict[str, Figure] = _guarded(
        plan, "allocation", lambda: _allocation(plan, doc, sections, tables), {}
    )
    listed = _as_allocated(listed, plan.allocation)
    plan.listed_locations = [name for name, _, _ in listed]
    _guarded(plan, "sign-off", lambda: _signoffs(plan, doc, sections, tables), None)
    _guarded(plan, "calculation", lambda: _locations(plan, doc, sections, listed, tables), None)
    _guarded(plan, "parameter sheet", lambda: apply_input_sheets(plan, tables), None)
    _guarded(plan, "allocation units", lambda: _allocation_units(plan), None)
    if not plan.listed_locations:
        plan.listed_locations = [loc.name for loc in plan.locations] or [r.location for r in plan.allocation]
    plan.totals = _guarded(plan, "totals", lambda: _totals(doc, sections, total_row), Totals())
    for key, what in (("month", plan.month), ("title", plan.title)):
        if not what:
            warnings.append(f"未识别 {key} / {key} not found")
    return plan


def _guarded(plan: Plan, part: str, fn: Callable[[], T], default: T) -> T:
    """``fn()``, or ``default`` with a warning when it fails unexpectedly (a parser bug on odd input
    must not lose the rest of the plan)."""
    try:
        return fn()
    except Exception as exc:
        log.exception("plan parser: %s failed", part)
        plan.warnings.append(f"解析“{part}”时出错 / error while parsing {part}: {type(exc).__name__}: {exc}")
        return default


# --- locations -------------------------------------------------------------------------------------


def _section_lines(doc: TextDoc, sec: Section | None) -> list[Line]:
    return doc.lines[sec.first_line + 1 : sec.end_line] if sec else []


def _listed(
    doc: TextDoc, sections: list[Section], tables: list[LogicalTable], warnings: list[str]
) -> list[Listed]:
    for t in tables:
        if t.kind == "locations":
            return [(name_key(n), label, ref) for n, label, ref in location_rows(t)]
    sec = section(sections, "locations")
    listed = location_lines(_section_lines(doc, sec))
    named = [x for x in listed if is_location_name(x[0])]
    if sec is not None:  # a list written as a sentence, maybe wrapped mid-name: the reading naming more
        start, end = doc.span(sec.first_line + 1, sec.end_line)
        prose = prose_location_list(doc, start, end)
        if len(prose) > len(named) or len(named) < max(2, len(listed) // 2):
            listed = prose or listed
    if not listed and sec is None:
        warnings.append("未找到用风地点清单 / no location list found")
    return listed


def _as_allocated(listed: list[Listed], rows: list[AllocationRow]) -> list[Listed]:
    """Names picked out of a list written as a sentence (references ``inferred``) are often shortened
    (``15220 回风顺槽``): each takes the allocation's full name of the same place, when there is one."""
    names = [r.location for r in rows]
    out: list[Listed] = []
    for name, label, ref in listed:
        full = match_name(name, names) if ref.confidence == "inferred" else None
        out.append((name_key(full) if full else name, label, ref))
    return out


def _allocation(
    plan: Plan, doc: TextDoc, sections: list[Section], tables: list[LogicalTable]
) -> dict[str, Figure]:
    rows: list[AllocationRow] = []
    total: dict[str, Figure] = {}
    warns: list[str] = []
    sec = section(sections, "allocation")
    context_from = appendix_page(doc)
    for t in tables:
        if t.kind == "allocation" and (context_from is None or t.page < context_from):
            lines = _section_lines(doc, sec) if sec else [x for x in doc.lines if x.page == t.page]
            got, tot, w = allocation_rows(t, caption_unit(lines))
            rows += got
            total = total or tot
            warns += w
    if not rows:
        rows, total, warns = allocation_lines(_section_lines(doc, section(sections, "allocation")))
    if not rows and sec is not None:
        start, end = doc.span(sec.first_line + 1, sec.end_line)
        rows = prose_allocation(doc, start, end, stated_default_unit(doc))
    if not rows:
        warns.append("未找到风量分配表 / no allocation table found")
    plan.allocation = rows
    plan.warnings.extend(warns)
    return total


_APPENDIX = re.compile(r"^\s*附\s*(?:表|录|件|图)")
_CONTEXT = re.compile(r"参考|非本月|上月|实测|对比|仅供")


def appendix_page(doc: TextDoc) -> int | None:
    """The first page of an appendix that gives other figures for context (``附表 8月份实测风量（参考资料，
    非本月配风）``): its tables are never this month's allocation. None when there is no such appendix."""
    for line in doc.lines:
        if _APPENDIX.match(line.text) and _CONTEXT.search(line.text):
            return line.page
    return None


def caption_unit(lines: list[Line]) -> str | None:
    """A flow unit stated for a table in its caption or a note (``（单位：m³/s）``), if any."""
    for line in lines:
        m = re.search(rf"单\s*位\s*[:：]\s*({UNIT_TEXT})", line.text)
        if m and is_flow(unit := canonical_unit(m.group(1))):
            return unit
    return None


def _allocation_units(plan: Plan) -> None:
    """Allocation flow columns written without a unit, whose figures are 60 times off the same
    locations' calculated requirement, were written in m³/s (or m³/h): converted, and said so."""
    columns: dict[str, list[tuple[Figure, float | None]]] = {}
    for row in plan.allocation:
        loc = plan.location(match_name(row.location, [x.name for x in plan.locations]) or row.location)
        ref = loc.stated_required.value if loc and loc.stated_required else None
        for fld in ("required_q", "allocated_q", "measured_q"):
            fig = getattr(row, fld)
            if fig is not None:
                columns.setdefault(fld, []).append((fig, ref))
    for fld, unit in infer_column_units(columns).items():
        for row in plan.allocation:
            fig = getattr(row, fld)
            if fig is not None and fig.unit_written is None:
                setattr(row, fld, convert_figure(fig, unit))
        plan.warnings.append(
            f"风量分配表 {fld} 列未注明单位，按与计算部分的对比判为 {unit} 并换算 / unit inferred"
        )


def _signoffs(plan: Plan, doc: TextDoc, sections: list[Section], tables: list[LogicalTable]) -> None:
    """Sign-offs from a sign-off table, else from the sign-off section's lines, else from role lines
    (``编制：…``) anywhere in the document (a cover or the last page), else from the last lines."""
    for t in tables:
        if t.kind == "signoff":
            plan.signoffs = signoffs(t, plan.month)
            return
    sec = section(sections, "signoff")
    candidates = [_section_lines(doc, sec)] if sec else []
    candidates.append([line for line in doc.lines if ROLE_INLINE.search(line.text)])
    candidates.append(doc.lines[-12:])
    for lines in candidates:
        plan.signoffs, warns = signoff_lines(lines, plan.month)
        if plan.signoffs:
            plan.warnings.extend(warns)
            break
    prose = prose_signoffs(doc, plan.month)
    if prose and _more_complete(prose, plan.signoffs):
        plan.signoffs = prose
    if not plan.signoffs:
        plan.warnings.append("未找到审批签字栏 / no sign-off block found")
    plan.gaps += signoff_gaps(doc, plan.signoffs)


def _more_complete(prose: list[SignOff], read: list[SignOff]) -> bool:
    """True when the sign-offs stated in sentences name more roles with a name than those read from a
    sign-off block (a cover's bare ``编制人：`` line does not outweigh ``总工程师…于…批准执行``)."""

    def named(signoffs: list[SignOff]) -> set[str]:
        return {s.role for s in signoffs if s.name}

    return len(named(prose)) > len(named(read))


Tabled = tuple[dict[int, list[CalcGroup]], dict[int, list[tuple[int, int]]], list[CalcGroup]]


def _calc_tables(doc: TextDoc, tables: Sequence[LogicalTable], blocks: list[Block]) -> Tabled:
    """Calculation tables → (block index → its groups, block index → document spans of table lines to
    leave out of its prose, groups naming a location that has no block). A group with a location
    column goes to the block of that name, one without to the block holding its lines."""
    groups = [g for t in tables if is_calc_table(t) for g in calc_groups(t)]
    groups += [g for t in tables if not is_calc_table(t) and is_method_matrix(t) for g in matrix_groups(t)]
    methods: dict[int, list[CalcGroup]] = {}
    skips: dict[int, list[tuple[int, int]]] = {}
    for g, first, last in anchor_groups(doc, groups):
        i = next((n for n, b in reversed(list(enumerate(blocks))) if b.first_line <= first), None)
        if i is not None:
            skips.setdefault(i, []).append(doc.span(first, last + 1))
            if g.location is None:
                methods.setdefault(i, []).append(g)
    names = [b.name for b in blocks]
    unplaced = []
    for g in (g for g in groups if g.location):
        hit = match_name(g.location or "", names)
        if hit is None:
            unplaced.append(g)
        else:
            methods.setdefault(names.index(hit), []).append(g)
    return methods, skips, unplaced


def _locations(
    plan: Plan,
    doc: TextDoc,
    sections: list[Section],
    listed: list[Listed],
    tables: Sequence[LogicalTable] = (),
) -> None:
    calc = section(sections, "calculation")
    if calc is not None:
        first, end = calc.first_line + 1, calc.end_line
    else:
        first, end = 0, len(doc.lines)
        plan.warnings.append(
            "未找到需风量计算章节，全文查找 / no calculation section: searching the whole text"
        )
    known = [name for name, _, _ in listed] + [r.location for r in plan.allocation]
    labels = {name: label for name, label, _ in listed}
    by_name: dict[str, LocationPlan] = {}
    located: dict[int, LocationPlan] = {}
    blocks = find_blocks(doc, first, end, known)
    tabled, skips, unplaced = _calc_tables(doc, tables, blocks)
    for g in unplaced:  # one table over all locations, without a heading per location
        name = g.location or ""
        blocks.append(Block(name, name, "", first_line=end, start=0, end=0, page=g.page))
        tabled[len(blocks) - 1] = [g]
    have = {match_name(b.name, known) or b.name for b in blocks}
    outside = elsewhere_blocks(doc, [k for k in dict.fromkeys(known) if k not in have], first, end, [])
    for n, block in enumerate(blocks + outside):
        listed_name = match_name(block.name, list(labels)) or block.name
        label = labels.get(listed_name, "")
        kind = classify_kind(label, listed_name)
        if kind == "unknown" and block.hint:
            kind = classify_kind("", block.hint)
        label = label or block.hint
        groups = tabled.get(n, [])
        loc, warns = parse_block(
            doc,
            block,
            known,
            kind,
            skip=skips.get(n, []),
            tabled=[m for g in groups for m in g.methods],
            tabled_required=next((g.stated_required for g in groups if g.stated_required), None),
            tabled_speed=next((g.speed_check for g in groups if g.speed_check), None),
            flow_unit=next((g.unit for g in groups if g.unit), None),
        )
        plan.warnings.extend(warns)
        if kind == "unknown":
            kind = next((k for m in loc.methods if (k := kind_of(m.method)) is not None), "other_roadway")
        loc = loc.model_copy(update={"name": listed_name, "kind": kind, "kind_label": label})
        if kind == "heading" and loc.rock is None:
            loc.rock = rock_of(label) or rock_of(block.hint) or rock_of(listed_name)
            if loc.rock is None:
                plan.warnings.append(
                    f"{listed_name}: 未注明煤巷/半煤岩巷/岩巷 / heading rock type not stated"
                )
        if block.outside and not any(m.stated for m in loc.methods):
            continue  # nothing read there: the gap below says so
        if kind == "standby_face":
            loc.standby_of = _standby_of(loc, known, label)
        if listed_name in by_name:  # a heading repeated (e.g. "续") continues the same location
            prev = by_name[listed_name]
            prev.methods.extend(loc.methods)
            prev.inputs = {**loc.inputs, **prev.inputs}
            prev.stated_required = prev.stated_required or loc.stated_required
            prev.speed_check = prev.speed_check or loc.speed_check
        else:
            by_name[listed_name] = loc
        located[n] = by_name[listed_name]
    plan.locations = list(by_name.values())
    plan.gaps += calculation_gaps(
        doc, first, end, blocks, {n: x for n, x in located.items() if n < len(blocks)}
    )
    names = [name for name, _, _ in listed] + [r.location for r in plan.allocation]
    plan.gaps += calculations_elsewhere(doc, list(dict.fromkeys(names)), first, end, list(by_name))


def _standby_of(loc: LocationPlan, known: list[str], label: str) -> str | None:
    texts = [squeeze(m.expression) for m in loc.methods if m.method == "standby"] + [name_key(label)]
    for text in texts:
        key = name_key(text)
        for name in sorted(known, key=len, reverse=True):
            if name_key(name) != name_key(loc.name) and name_key(name) in key:
                return name
    return None


# --- totals ----------------------------------------------------------------------------------------


def _sentences(doc: TextDoc, sec: Section | None) -> list[tuple[str, int]]:
    start, end = doc.span(sec.first_line + 1, sec.end_line) if sec else (0, len(doc.text))
    text = doc.text[start:end].replace("\n", " ")
    out, pos = [], 0
    for m in re.finditer(r"[;；。]|\.(?!\d)|$", text):  # an OCR'd full stop may come out as "."
        out.append((squeeze(text[pos : m.start()]), start + pos))
        pos = m.end()
    return [(s, off) for s, off in out if s]


def _fig(doc: TextDoc, sentence: str, offset: int, m: re.Match[str] | None) -> Figure | None:
    if m is None:
        return None
    return read_figure(
        float(m.group(1)), unit_after(sentence, m.end(1)), SourceRef(page=doc.page_at(offset), text=sentence)
    )


_TIMES_K = re.compile(rf"[^\d=]{{0,12}}?[=:：为]?\s*({NUM})\s*[×*]")
"""A sum stated as the figure the mine coefficient multiplies (``之和计算：3,880.0×1.18=…``)."""


def _last_eq(sentence: str) -> re.Match[str] | None:
    return re.search(rf"=\s*({NUM})(?!.*=)", sentence)


def _totals(doc: TextDoc, sections: list[Section], total_row: dict[str, Figure]) -> Totals:
    totals = Totals()
    for sentences in (_sentences(doc, section(sections, "totals")), _sentences(doc, None)):
        for s, off in sentences:
            said = re.search(r"[Σ∑]Q(?:i|需)?=|需风量(?:之和|总和|合计)", s)
            if totals.stated_sum is None and said:
                # "Σ = 3,880.0 × 1.18 = 4,578.4": the sum is the figure multiplied by k, not the product
                times_k = _TIMES_K.match(s, said.end())
                totals.stated_sum = _fig(doc, s, off, times_k or _last_eq(s))
            if totals.k_mine is None:
                m = re.search(
                    rf"(?:需风系数|备用系数|富余系数|风量系数|k矿|K矿)[^=\d]{{0,10}}(?:=|取|为)?\s*[kK]?\s*=?\s*({NUM})",
                    s,
                )
                totals.k_mine = _fig(doc, s, off, m)
            if totals.mine_total is None and re.search(r"Q矿(?:井)?(?:需)?=|矿井总需风量(?:为|=|:)", s):
                totals.mine_total = _fig(doc, s, off, _last_eq(s))
            if totals.max_people is None:
                totals.max_people = _fig(
                    doc, s, off, re.search(rf"最多[^\d]{{0,6}}人数[^;。]{{0,24}}?4×({NUM})", s)
                )
            if totals.capacity is None:
                totals.capacity = _fig(doc, s, off, re.search(rf"通风能力[^\d]{{0,12}}({NUM})", s))
        if totals.stated_sum and totals.mine_total:
            break
    if totals.max_people is None:
        pattern = rf"(?:井下|矿井|全矿)[^\d,;。]{{0,12}}最多[^\d]{{0,6}}人数[^\d]{{0,8}}({NUM})人"
        for s, off in _sentences(doc, None):
            m = re.search(pattern, s)
            if m:
                totals.max_people = _fig(doc, s, off, m)
                break
    if totals.stated_sum is None and "required_q" in total_row:
        totals.stated_sum = total_row["required_q"]
    return totals
