"""What the reader established, and what the review may therefore judge (docs/DOMAIN.md §5, "judge only what
was read").

Two things are worked out from a parsed :class:`~vent_agent.documents.plan.model.Plan` (and, where the mine has
reference data, the month's :class:`~vent_agent.review.reference.MonthlyReference`):

- **Established locations.** A name is a location only when it reads as one by the field's grammar (a
  designation and a kind word, item numbers stripped: ``15216综采工作面``, ``二采区轨道下山掘进工作面``,
  ``中央变电所``) *and* a second, independent place of the plan or the mine confirms it: the location list,
  the calculations, the allocation, the reference data's mining plan or air survey. Method labels,
  formula pieces, numbers and sentence fragments never pass the grammar; a name seen in one place only is
  not established.
- **Coverage of the parts.** Per part of a plan (cover, sign-offs, basis, calculations, allocation,
  totals) whether the reader found it and how sure it is (``high`` / ``low`` / ``none``).

:func:`judge_only_what_was_read` then keeps a finding only when what it rests on was read: a finding at
a location needs the location established; a finding that says something is *missing* needs the part it
would be missing from read with confidence. What is held back is listed in one info finding
(``form.unreadable_plan``) naming the parts not read, the names not established and the judgements not
made: what the reader does not understand loses findings, never makes them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field

from vent_agent.documents.plan.location_names import is_location_name, strip_enumerator
from vent_agent.documents.plan.model import Plan
from vent_agent.documents.plan.text_primitives import match_name
from vent_agent.review.findings import Finding, Severity
from vent_agent.review.reference import MonthlyReference
from vent_agent.review.rule_common import finding

Confidence = Literal["high", "low", "none"]
BlockRead = Literal["full", "partial", "stated", "empty"]
Place = Literal["list", "calculations", "allocation", "reference"]

PART_LABELS: dict[str, str] = {
    "cover": "封面（矿井、月份）",
    "signoff": "审批签字",
    "basis": "编制依据",
    "list": "用风地点清单",
    "calculations": "需风量计算",
    "allocation": "风量分配",
    "totals": "矿井总风量",
}
PLACE_LABELS: dict[str, str] = {
    "list": "用风地点清单",
    "calculations": "需风量计算",
    "allocation": "风量分配表",
    "reference": "矿井参考数据",
}

# --- establishing the locations --------------------------------------------------------------------


@dataclass
class NameSeen:
    """One name as the plan writes it, and the places it was seen in."""

    name: str
    places: set[str] = field(default_factory=set)


@dataclass
class Establishment:
    """The plan's names sorted into ``established`` (grammar and a second place) and
    ``not_established`` (each with why), by the name the plan uses."""

    established: list[str] = field(default_factory=list)
    not_established: dict[str, str] = field(default_factory=dict)
    places: dict[str, list[str]] = field(default_factory=dict)

    def is_established(self, name: str | None) -> bool:
        """True when ``name`` is (or names the same place as) an established location."""
        if not name:
            return False
        return match_name(strip_enumerator(name), self.established) is not None


def reference_names(monthly: MonthlyReference | None) -> list[str]:
    """The locations the mine's own lists name for the month: the mining plan (working and finished
    faces and headings), the air survey, the gas-grade report and the face procedures."""
    if monthly is None:
        return []
    names = [e.location for e in [*monthly.mining_plan, *monthly.completed]]
    names += list(monthly.air_survey) + list(monthly.gas_report) + list(monthly.face_procedures)
    return names


def establish(plan: Plan, reference: Iterable[str] = ()) -> Establishment:
    """Sort the names of ``plan`` (location list, calculation blocks, allocation rows) into established
    locations and the rest. ``reference`` names (from :func:`reference_names`) confirm a plan name but
    never add one."""
    seen: list[NameSeen] = []

    def add(raw: str, place: str) -> None:
        name = strip_enumerator(raw)
        if not name:
            return
        hit = match_name(name, [s.name for s in seen])
        entry = next((s for s in seen if s.name == hit), None) if hit else None
        if entry is None:
            entry = NameSeen(name)
            seen.append(entry)
        entry.places.add(place)

    for name in plan.listed_locations:
        add(name, "list")
    for loc in plan.locations:
        add(loc.name, "calculations")
    for row in plan.allocation:
        add(row.location, "allocation")
    ref = [strip_enumerator(n) for n in reference]
    out = Establishment()
    for s in seen:
        if ref and match_name(s.name, ref) is not None:
            s.places.add("reference")
        out.places[s.name] = sorted(s.places)
        if not is_location_name(s.name):
            out.not_established[s.name] = "不符合用风地点名称的写法"
        elif len(s.places) < 2:
            where = PLACE_LABELS[next(iter(s.places))]
            out.not_established[s.name] = f"仅见于{where}，无其他部分印证"
        else:
            out.established.append(s.name)
    return out


# --- coverage of the parts -------------------------------------------------------------------------


class PartCoverage(BaseModel):
    """Whether the reader found one part of the plan and how sure it is of what it read there."""

    part: str
    label: str
    found: bool
    confidence: Confidence
    pages: list[int] = Field(default_factory=list)
    note: str = ""


def _part(
    part: str, found: bool, high: bool, pages: Iterable[int | None] = (), note: str = ""
) -> PartCoverage:
    conf: Confidence = "none" if not found else ("high" if high else "low")
    ps = sorted({p for p in pages if p})
    return PartCoverage(part=part, label=PART_LABELS[part], found=found, confidence=conf, pages=ps, note=note)


def _share(hits: int, total: int) -> float:
    return hits / total if total else 0.0


def plan_parts(plan: Plan, est: Establishment) -> dict[str, PartCoverage]:
    """The coverage of each part of ``plan`` (:data:`PART_LABELS`), with the established locations
    ``est``. Calculations are read with confidence when the section was found by its heading (or
    calculation tables were read) and most established locations have at least one method read; the
    allocation when at least two rows with allocated air were read, most of them under names that read
    as locations; the location list when most of its names are established; sign-offs when a role
    (编制 / 审核 / 批准) was read."""
    sp = plan.section_pages
    cover_found = bool(plan.title or plan.mine or plan.month)
    # the cover is read when its title is: then a mine, month or version it does not give is missing
    # (the mine and month read are reported on their own, and select the reference data)
    parts = {"cover": _part("cover", cover_found, bool(plan.title), [1])}
    sign_pages = [s.ref.page if s.ref else None for s in plan.signoffs] + [sp.get("signoff")]
    parts["signoff"] = _part("signoff", bool(plan.signoffs), bool(plan.signoffs), sign_pages)
    parts["basis"] = _part("basis", "basis" in sp or bool(plan.basis), bool(plan.basis), [sp.get("basis")])

    listed = [n for n in plan.listed_locations if est.is_established(n)]
    list_high = len(listed) >= 2 and _share(len(listed), len(plan.listed_locations)) >= 0.7
    parts["list"] = _part(
        "list",
        bool(plan.listed_locations),
        list_high,
        [sp.get("locations")],
        f"{len(listed)}/{len(plan.listed_locations)} 个名称已确认",
    )
    with_methods = [loc for loc in plan.locations if loc.methods and est.is_established(loc.name)]
    share = _share(len(with_methods), len(est.established))
    fallback = any("未找到需风量计算章节" in w for w in plan.warnings)
    calc_found = bool(with_methods) or "calculation" in sp
    gaps = numbering_gaps([loc.ref.text if loc.ref else "" for loc in plan.locations])
    calc_high = calc_found and share >= (0.8 if fallback else 0.5) and not gaps
    note = f"{len(with_methods)}/{len(est.established)} 个已确认地点读出计算过程"
    if gaps:
        note += f"，地点编号不连续（缺 {'、'.join(map(str, gaps[:5]))}），可能缺页"
    calc_pages = [loc.ref.page if loc.ref else None for loc in with_methods] + [sp.get("calculation")]
    parts["calculations"] = _part("calculations", calc_found, calc_high, calc_pages, note)

    rows = plan.allocation
    allocated = [r for r in rows if r.allocated_q is not None]
    named = [r for r in rows if est.is_established(r.location)]
    alloc_high = len(allocated) >= 2 and _share(len(named), len(rows)) >= 0.7
    alloc_note = f"{len(rows)} 行，其中 {len(named)} 行为已确认地点"
    parts["allocation"] = _part(
        "allocation", bool(rows), alloc_high, [r.ref.page for r in rows] + [sp.get("allocation")], alloc_note
    )
    t = plan.totals
    stated = [f for f in (t.stated_sum, t.mine_total) if f is not None]
    parts["totals"] = _part(
        "totals", bool(stated), any(f.ref.confidence == "exact" for f in stated), [f.ref.page for f in stated]
    )
    return parts


_ITEM_NUMBER = re.compile(
    r"^\s*(?:[(（]\s*(?P<paren>\d{1,2}|[一二三四五六七八九十]+)\s*[)）]|(?:\d{1,2}\.)+(?P<sub>\d{1,2})(?![\d.])|(?P<dot>\d{1,2})\s*[.．、)）]"
    r"|(?P<cn>[一二三四五六七八九十]+)\s*[、．.]|(?P<circled>[①-⑳]))"
)
_CN_NUMBERS = {c: i for i, c in enumerate("一二三四五六七八九十", start=1)}


def _cn_number(text: str) -> int | None:
    """一 … 十九 as an integer (the item numbers of a plan), else None."""
    if text in _CN_NUMBERS:
        return _CN_NUMBERS[text]
    if text.startswith("十") and text[1:] in _CN_NUMBERS:
        return 10 + _CN_NUMBERS[text[1:]]
    return None


def item_number(heading: str) -> int | None:
    """The item number a location heading starts with: ``(3)`` ``3.`` ``4.3`` (→ 3) ``（三）`` ``三、``
    ``③``; None without one."""
    m = _ITEM_NUMBER.match(heading)
    if m is None:
        return None
    if m.group("circled"):
        return ord(m.group("circled")) - ord("①") + 1
    value = m.group("paren") or m.group("sub") or m.group("dot") or m.group("cn") or ""
    return int(value) if value.isdigit() else _cn_number(value)


def numbering_gaps(headings: list[str]) -> list[int]:
    """Item numbers missing between the numbered location headings, in document order (``(1) (2) (5)``
    → ``[3, 4]``): a sign of a page or a part the reader never saw. Empty when the headings are not
    numbered or run without a gap."""
    numbers = [n for n in (item_number(h) for h in headings) if n is not None]
    missing: list[int] = []
    for a, b in zip(numbers, numbers[1:], strict=False):
        if b > a + 1:
            missing += list(range(a + 1, b))
    return missing


# --- the gate --------------------------------------------------------------------------------------

ABSENCE_RULES: dict[str, tuple[str, ...]] = {
    "form.calculation_missing": ("calculations",),
    "form.required_not_stated": ("calculations",),
    "form.speed_check_missing": ("calculations",),
    "calc.required_missing": ("calculations",),
    "form.location_not_listed": ("list",),
    "form.allocation_missing": ("allocation",),
    "form.allocation_not_listed": ("list",),
    "form.approval_missing": ("signoff",),
    "form.signoff_missing": ("signoff",),
    "form.review_chain": ("signoff",),
    "form.basis": ("basis",),
    "form.cover": ("cover",),
    "data.location_missing": ("calculations", "allocation"),
}
"""Rules that say something is missing → the parts it would be missing from. The finding stands only
when one of them was read with confidence (both, for a location missing from the plan, would be
stricter than the plan's own evidence: one confident part that lacks it is enough)."""

LOCATION_FROM_REFERENCE = {"data.location_missing"}
"""Rules whose location comes from the mine's reference data, not from the plan: not required to be
established in the plan."""


class ReadScope(BaseModel):
    """What was read: the parts' coverage, the established locations, the names not established (with
    why), the mine and month, pages read with low confidence, and whether anything could be judged."""

    parts: list[PartCoverage] = Field(default_factory=list)
    locations: list[str] = Field(default_factory=list)
    names_not_established: dict[str, str] = Field(default_factory=dict)
    mine: str | None = None
    month: str | None = None
    pages_low_confidence: list[int] = Field(default_factory=list)
    blocks: dict[str, BlockRead] = Field(default_factory=dict)
    """Each calculation block read, by location: ``full`` (methods and the stated requirement),
    ``partial`` (methods, no stated requirement), ``stated`` (a stated requirement only), ``empty``
    (a heading with nothing read under it)."""
    allocation_required: list[str] = Field(default_factory=list)
    """Locations whose requirement the allocation states."""
    unmatched: dict[str, list[str]] = Field(default_factory=dict)
    """Per part (``list``, ``calculations``, ``allocation``), the names it holds that are not established
    locations: a name misread there (a scan's 并下 for 井下) may be the location a rule finds missing."""

    def block(self, name: str) -> BlockRead | None:
        """How the calculation block of location ``name`` was read; None when it has none."""
        hit = match_name(strip_enumerator(name), list(self.blocks))
        return self.blocks[hit] if hit else None

    @property
    def reviewable(self) -> bool:
        """False when no part of the plan was read with confidence: then nothing is judged."""
        return any(p.confidence == "high" for p in self.parts)

    def summary(self) -> dict[str, Any]:
        """The compact form for the ``done`` event's ``coverage``: each part's confidence and the pages it
        was read on (parts found on no page left out), counts of the locations established and the names
        not, mine, month, low-confidence pages, reviewable."""
        return {
            "parts": {p.part: p.confidence for p in self.parts},
            "part_pages": {p.part: p.pages for p in self.parts if p.pages},
            "locations_established": len(self.locations),
            "names_not_established": len(self.names_not_established),
            "mine": self.mine,
            "month": self.month,
            "pages_low_confidence": self.pages_low_confidence,
            "reviewable": self.reviewable,
        }

    def part(self, key: str) -> PartCoverage | None:
        """The coverage of part ``key``, or None."""
        return next((p for p in self.parts if p.part == key), None)

    def confident(self, key: str) -> bool:
        """True when part ``key`` was found and read with confidence."""
        p = self.part(key)
        return p is not None and p.confidence == "high"


def read_scope(plan: Plan, monthly: MonthlyReference | None = None) -> ReadScope:
    """The :class:`ReadScope` of ``plan``, with the mine's reference data for the month where known."""
    est = establish(plan, reference_names(monthly))
    parts = plan_parts(plan, est)
    low = sorted({p.page for p in plan.pages_read if p.low_confidence})
    blocks: dict[str, BlockRead] = {}
    for loc in plan.locations:
        stated = loc.stated_required is not None
        blocks[loc.name] = (
            ("full" if stated else "partial") if loc.methods else ("stated" if stated else "empty")
        )
    unmatched = {
        part: sorted({n for n in names if n and not est.is_established(n)})
        for part, names in (
            ("list", plan.listed_locations),
            ("calculations", [loc.name for loc in plan.locations]),
            ("allocation", [r.location for r in plan.allocation]),
        )
    }
    return ReadScope(
        unmatched={part: names for part, names in unmatched.items() if names},
        blocks=blocks,
        allocation_required=[r.location for r in plan.allocation if r.required_q is not None],
        parts=list(parts.values()),
        locations=est.established,
        names_not_established=est.not_established,
        mine=plan.mine,
        month=plan.month,
        pages_low_confidence=low,
    )


CALC_AT_LOCATION = frozenset(
    {
        "calc.arithmetic",
        "calc.method_coefficient",
        "calc.coefficient_range",
        "calc.reference_input",
        "calc.max_not_taken",
        "calc.required_low",
        "calc.allocation_short",
        "calc.speed_bounds",
        "calc.allocated_speed",
        "calc.speed_check_stated",
        "calc.required_inconsistent",
    }
)
"""Rules that judge a location's calculation: they need the calculation part read with confidence and
the location's own block read (a heading with nothing under it is not read, not wrong)."""
CALC_OF_THE_MINE = frozenset({"calc.total_low", "calc.sum_stated", "calc.total_arithmetic"})
"""Rules over every location's requirement: they need the calculation part read with confidence."""


MISSING_FROM: dict[str, tuple[str, ...]] = {
    "form.allocation_missing": ("allocation",),
    "form.allocation_not_listed": ("list",),
    "form.location_not_listed": ("list",),
    "form.calculation_missing": ("calculations",),
    "data.location_missing": ("calculations", "allocation"),
}
"""Rules that find a location missing from a part → that part: the finding needs every name the part holds
to be accounted for (one not established may be the location itself, misread)."""


def _held_reason(f: Finding, scope: ReadScope, est: Establishment) -> str | None:
    """Why ``f`` cannot stand on what was read, or None when it can."""
    if not scope.reviewable:
        return "计划各部分均未能可靠读取"
    rule = f.rule_id or ""
    if f.page is not None and f.page in scope.pages_low_confidence and rule not in LOCATION_FROM_REFERENCE:
        return f"第{f.page}页识别置信度低，其数值未作判定依据"
    needs = ABSENCE_RULES.get(rule)
    if needs and not any(scope.confident(p) for p in needs):
        return "、".join(PART_LABELS[p] for p in needs) + "部分未能可靠读取"
    if f.location and rule not in LOCATION_FROM_REFERENCE and not est.is_established(f.location):
        return f"“{f.location}”未能确认为用风地点"
    for part in MISSING_FROM.get(rule, ()):
        if odd := scope.unmatched.get(part):
            names = "、".join(f"“{n}”" for n in odd[:3])
            return f"{PART_LABELS[part]}中有未能确认的名称 {names}，可能即该地点"
    block = scope.block(f.location) if f.location else None
    if rule == "form.calculation_missing" and block is not None:
        return "该地点的计算过程未能识别"
    if rule == "calc.required_missing" and (
        block == "empty" or match_name(f.location or "", scope.allocation_required) is not None
    ):
        return "取最大值后的需风量未能识别，风量分配表列有该地点需风量"
    if (rule in CALC_AT_LOCATION or rule in CALC_OF_THE_MINE) and not scope.confident("calculations"):
        return "需风量计算部分未能可靠读取"
    if rule in CALC_AT_LOCATION and block == "empty":
        return "该地点的计算过程未能识别"
    return None


def judge_only_what_was_read(findings: list[Finding], scope: ReadScope) -> tuple[list[Finding], list[str]]:
    """``findings`` less those that rest on what was not read, and the major or critical judgements held
    back (Chinese lines for :func:`scope_finding`). Info findings pass unchanged; minor findings that rest
    on what was not read are dropped without a line (their names or parts are listed anyway)."""
    est = Establishment(established=list(scope.locations))
    kept: list[Finding] = []
    held: list[str] = []
    for f in findings:
        why = None if f.severity is Severity.INFO else _held_reason(f, scope, est)
        if why is None:
            kept.append(f)
        elif f.severity in (Severity.MAJOR, Severity.CRITICAL):
            held.append(f"{f.location or '计划整体'}：{f.message}（{why}）")
    return kept, held


def scope_finding(scope: ReadScope, held: list[str]) -> Finding | None:
    """The one info finding saying what could not be read and what was therefore not judged."""
    unread = [p for p in scope.parts if p.confidence != "high"]
    names = list(scope.names_not_established)
    if not unread and not names and not held:
        return None
    bits: list[str] = []
    if unread:
        shown = "；".join(
            f"{p.label}（{'未找到' if not p.found else '读取不完整'}{'，' + p.note if p.note else ''}）"
            for p in unread
        )
        bits.append(f"未能可靠读取的部分：{shown}")
    if names:
        shown_names = "、".join(f"“{n}”" for n in names[:12]) + ("等" if len(names) > 12 else "")
        bits.append(f"未能确认为用风地点的名称 {len(names)} 个：{shown_names}")
    if held:
        bits.append(
            f"据此未作判定的问题 {len(held)} 项：" + "；".join(held[:8]) + ("等" if len(held) > 8 else "")
        )
    if not scope.reviewable:
        bits.insert(0, "无法可靠审查：计划各部分均未能可靠读取，未作任何判定")
    pages = sorted({pg for p in unread for pg in p.pages})
    return finding(
        "form.unreadable_plan",
        None,
        "。".join(bits) + "。请人工核对原文。",
        page=pages[0] if pages else None,
        figures={"parts_not_read": len(unread), "names_not_established": len(names), "not_judged": len(held)},
    )
