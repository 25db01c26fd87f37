"""Judge only what was read (docs/DOMAIN.md §5): the grammar of a location name, established locations,
the coverage of a plan's parts, and the gate that holds back what rests on what was not read.

The degradations here are of the plan as read (a part lost, a name garbled): each may only lose major
findings, never make one (the PDF-level property is in tests/test_read_degradation.py)."""

from __future__ import annotations

import pytest

from vent_agent.documents.plan.location_names import is_location_name, strip_enumerator
from vent_agent.documents.plan.model import Plan
from vent_agent.documents.quality import PageRead
from vent_agent.review.checks.data_rules import review_data
from vent_agent.review.checks.form_rules import review_form
from vent_agent.review.findings import Finding, Severity
from vent_agent.review.judgement.read_scope import (
    establish,
    judge_only_what_was_read,
    read_scope,
    reference_names,
    scope_finding,
)
from vent_agent.review.reference import default_reference

SERIOUS = {Severity.MAJOR, Severity.CRITICAL}

NAMES = [
    "15216综采工作面",
    "15218工作面",
    "15220回风顺槽掘进工作面",
    "二采区轨道下山掘进工作面",
    "中央变电所",
    "主排水泵房",
    "井下爆炸材料库",
    "充电硐室",
    "15216辅运起坡段",
    "3102工作面",
    "3104运输巷掘进工作面",
    "西翼回风大巷",
    "-650水平中央变电所",
    "N1203切眼",
]
NOT_NAMES = [
    "按人数",
    "需风量(取最大值)",
    "0℃(v=1.0m/s),k采高=1.2,k面长=1.35,瓦斯涌出量3.60m³/min",
    "80m³/min,最多人数38人",
    "01/(1.2×1.0006×60×",
    "0)",
    "5)",
    "440×1.2×1.1",
    "0×1+60×0.25×11.0",
    "3.03408.0符",
    "×0.25×14.2633.0",
    "月份安排回采工作面1个(15216综采工作面),备用工作面1个(15218工作面),掘",
    "15218工作面(备用);15220运输顺",
    "合计",
    "1132.2",
    "计算方法",
]


@pytest.mark.parametrize("name", NAMES)
def test_place_names_read_as_locations(name: str) -> None:
    assert is_location_name(name)


@pytest.mark.parametrize("text", NOT_NAMES)
def test_labels_formula_pieces_and_fragments_are_not_locations(text: str) -> None:
    assert not is_location_name(text)


@pytest.mark.parametrize(
    ("written", "name"),
    [
        ("1.15216综采工作面", "15216综采工作面"),
        ("1．3102工作面", "3102工作面"),
        ("1、3102工作面", "3102工作面"),
        ("(1)15216综采工作面", "15216综采工作面"),
        ("（二）中央变电所", "中央变电所"),
        ("①充电硐室", "充电硐室"),
        ("2.3中央变电所", "中央变电所"),
        ("第一节二采区轨道下山掘进工作面", "二采区轨道下山掘进工作面"),
        ("二采区轨道下山掘进工作面（岩巷）", "二采区轨道下山掘进工作面"),
        ("15216综采工作面", "15216综采工作面"),
    ],
)
def test_item_numbers_are_stripped_never_read_as_decimals(written: str, name: str) -> None:
    assert strip_enumerator(written) == name


def test_every_location_of_plan_b_is_established(plan_b: Plan) -> None:
    est = establish(plan_b)
    assert {strip_enumerator(n) for n in plan_b.listed_locations} <= set(est.established)
    assert not est.not_established


def test_a_name_seen_in_one_place_only_is_not_established(plan_b: Plan) -> None:
    plan = plan_b.model_copy(deep=True)
    plan.listed_locations.append("15299综采工作面")  # only in the list
    est = establish(plan)
    assert "15299综采工作面" in est.not_established and "15299综采工作面" not in est.established
    # the mine's own mining plan confirms a name the plan writes once
    monthly = default_reference().monthly("示范煤矿", "2026-08")
    assert monthly is not None
    plan.listed_locations.append("15222切眼掘进工作面")
    est = establish(plan, reference_names(monthly))
    assert "15222切眼掘进工作面" in est.established


def test_plan_b_is_read_with_confidence_in_every_part(plan_b: Plan) -> None:
    scope = read_scope(plan_b)
    assert {p.part: p.confidence for p in scope.parts} == {
        "cover": "high",
        "signoff": "high",
        "basis": "high",
        "list": "high",
        "calculations": "high",
        "allocation": "high",
        "totals": "high",
    }
    assert scope.reviewable and scope.mine == "示范煤矿" and scope.month == "2026-08"


def _serious(findings: list[Finding]) -> set[tuple[str | None, str | None]]:
    return {(f.rule_id, f.location) for f in findings if f.severity in SERIOUS}


def _judged(plan: Plan) -> list[Finding]:
    """Form and data findings of ``plan`` (demo mine's reference data), through the gate."""
    monthly = default_reference().monthly(plan.mine or "", plan.month or "")
    findings = review_form(plan) + review_data(plan, default_reference())
    kept, _ = judge_only_what_was_read(findings, read_scope(plan, monthly))
    return kept


def _lose_calculations(plan: Plan) -> None:
    for loc in plan.locations:
        loc.methods = []


def _garble_allocation(plan: Plan) -> None:
    for n, row in enumerate(plan.allocation):
        row.location = f"{n}0×1+60×0.25×1{n}.0"


def _lose_signoffs(plan: Plan) -> None:
    plan.signoffs = []


def _garble_list(plan: Plan) -> None:
    plan.listed_locations = [f"{name}(备用);{n}" for n, name in enumerate(plan.listed_locations)]


def _lose_section_pages(plan: Plan) -> None:
    plan.section_pages = {}
    plan.warnings.append("未找到需风量计算章节，全文查找 / no calculation section: searching the whole text")


@pytest.mark.parametrize(
    "degrade", [_lose_calculations, _garble_allocation, _lose_signoffs, _garble_list, _lose_section_pages]
)
def test_degrading_what_was_read_only_loses_major_findings(plan_b: Plan, degrade) -> None:
    clean = _serious(_judged(plan_b))
    plan = plan_b.model_copy(deep=True)
    degrade(plan)
    assert _serious(_judged(plan)) <= clean


def test_missing_calculations_of_an_unread_part_are_held_back(plan_b: Plan) -> None:
    plan = plan_b.model_copy(deep=True)
    _lose_calculations(plan)
    raw = review_form(plan)
    assert any(f.rule_id == "form.calculation_missing" and f.severity is Severity.MAJOR for f in raw)
    scope = read_scope(plan)
    assert not scope.confident("calculations")
    kept, held = judge_only_what_was_read(raw, scope)
    assert not any(f.rule_id == "form.calculation_missing" for f in kept)
    assert held and all("需风量计算部分未能可靠读取" in h for h in held if "没有需风量计算过程" in h)
    info = scope_finding(scope, held)
    assert info is not None and info.severity is Severity.INFO and info.rule_id == "form.unreadable_plan"
    assert "需风量计算" in info.message and "据此未作判定的问题" in info.message
    assert not any(ch.isascii() and ch.isalpha() for ch in info.message.replace("m³/min", ""))


def test_a_plan_with_no_part_read_is_not_judged(plan_b: Plan) -> None:
    plan = Plan(page_count=3, char_count=500, listed_locations=["按人数", "01/(1.2×1.0006×60×"])
    scope = read_scope(plan)
    assert not scope.reviewable
    findings = review_form(plan)
    kept, held = judge_only_what_was_read(findings, scope)
    assert not [f for f in kept if f.severity is not Severity.INFO]
    info = scope_finding(scope, held)
    assert info is not None and info.message.startswith("无法可靠审查")


def test_the_done_summary_stays_small(plan_b: Plan) -> None:
    summary = read_scope(plan_b).summary()
    assert summary["parts"]["calculations"] == "high"
    assert summary["locations_established"] == len(plan_b.listed_locations)
    assert summary["names_not_established"] == 0 and summary["reviewable"] is True


def test_the_done_summary_gives_the_pages_each_part_was_read_on(plan_b: Plan) -> None:
    scope = read_scope(plan_b)
    pages = scope.summary()["part_pages"]
    assert pages == {p.part: p.pages for p in scope.parts if p.found}, "every part found, with its pages"
    assert pages["cover"] == [1] and all(pages.values())


@pytest.mark.parametrize(
    ("headings", "gaps"),
    [
        (["(1)15216综采工作面", "(2)15218工作面", "(5)中央变电所"], [3, 4]),
        (["1.3102工作面", "2.3104运输巷掘进工作面", "3.3106回风巷掘进工作面"], []),
        (["4.1 15216综采工作面", "4.2 15218工作面", "4.4 中央变电所"], [3]),
        (["（一）15216综采工作面", "（三）中央变电所"], [2]),
        (["①充电硐室", "②主排水泵房"], []),
        (["15216综采工作面", "中央变电所"], []),
    ],
)
def test_a_gap_in_the_numbering_of_locations_is_found(headings: list[str], gaps: list[int]) -> None:
    from vent_agent.review.judgement.read_scope import numbering_gaps

    assert numbering_gaps(headings) == gaps


def test_a_gap_in_the_numbering_makes_the_calculations_not_read(plan_b: Plan) -> None:
    plan = plan_b.model_copy(deep=True)
    del plan.locations[2:4]  # the blocks of a page never seen
    scope = read_scope(plan)
    calculations = scope.part("calculations")
    assert calculations is not None and calculations.confidence == "low" and "缺页" in calculations.note


def test_a_heading_with_nothing_read_under_it_is_not_a_missing_calculation(plan_b: Plan) -> None:
    plan = plan_b.model_copy(deep=True)
    last = plan.locations[-1]
    last.methods, last.stated_required = [], None
    raw = review_form(plan)
    assert any(f.rule_id == "form.calculation_missing" and f.location == last.name for f in raw)
    kept, held = judge_only_what_was_read(raw, read_scope(plan))
    assert not any(f.rule_id == "form.calculation_missing" for f in kept)
    assert any("计算过程未能识别" in h for h in held)


def test_findings_on_a_page_read_with_low_confidence_are_held_back(plan_b: Plan) -> None:
    """A page OCR read with low confidence (vent_agent.documents.quality.low_confidence) gives its figures
    as not read: a major resting on a figure of that page is held back, with the page named."""
    plan = plan_b.model_copy(deep=True)
    findings = review_form(plan) + review_data(plan, default_reference())
    serious = [f for f in findings if f.severity in (Severity.MAJOR, Severity.CRITICAL) and f.page]
    assert serious
    page = serious[0].page
    plan.pages_read = [PageRead(page=page or 0, source="ocr", ocr_confidence=0.7, low_confidence=True)]
    scope = read_scope(plan)
    assert scope.pages_low_confidence == [page]
    kept, held = judge_only_what_was_read(findings, scope)
    assert not [f for f in kept if f.page == page and f.severity in (Severity.MAJOR, Severity.CRITICAL)]
    assert any(f"第{page}页识别置信度低" in line for line in held)


def test_a_location_missing_from_a_part_holding_a_misread_name_is_held_back(plan_b: Plan) -> None:
    """A scan's 并下爆炸材料库 in the allocation for 井下爆炸材料库: the location is not "missing from the
    allocation" while the allocation holds a name that is no established location (it may be that one)."""
    plan = plan_b.model_copy(deep=True)
    row = next(r for r in plan.allocation if r.location == "井下爆炸材料库")
    row.location = "并下爆炸材料库"
    scope = read_scope(plan)
    assert scope.unmatched.get("allocation") == ["并下爆炸材料库"]
    kept, held = judge_only_what_was_read(review_form(plan), scope)
    assert not [f for f in kept if f.rule_id == "form.allocation_missing"]
    assert any("并下爆炸材料库" in line and "可能即该地点" in line for line in held)
    # every name accounted for: the absence stands
    plan.allocation = [r for r in plan.allocation if r is not row]
    kept, _ = judge_only_what_was_read(review_form(plan), read_scope(plan))
    assert [f.location for f in kept if f.rule_id == "form.allocation_missing"] == ["井下爆炸材料库"]


def test_a_month_the_cover_does_not_give_is_found_missing(plan_b: Plan) -> None:
    """The cover is read when its title is: a month (or version) it does not give is a finding, never
    dropped because the cover's month was not read."""
    plan = plan_b.model_copy(deep=True)
    plan.month = None
    scope = read_scope(plan)
    assert next(p for p in scope.parts if p.part == "cover").confidence == "high"
    kept, _ = judge_only_what_was_read(review_form(plan), scope)
    assert any(f.rule_id == "form.cover" and "月份" in f.message for f in kept)
    plan.title = ""
    plan.mine = None
    kept, _ = judge_only_what_was_read(review_form(plan), read_scope(plan))
    assert not any(f.rule_id == "form.cover" and "月份" in f.message for f in kept)  # no cover read at all
