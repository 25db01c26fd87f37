"""Form review: the sample plans, and variations of plan a with one form fault each."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import present
from tests.synthetic_plans import text_plan, variant_pdf
from vent_agent.documents.pdf_text import ExtractedPdf, PageText, extract_pdf
from vent_agent.documents.plan.model import Plan, SignOff, SourceRef
from vent_agent.documents.plan.parser import parse_plan
from vent_agent.review.checks.form_rules import review_form
from vent_agent.review.findings import Category, Finding, Severity

DATA = Path(__file__).parent / "data"
SERIOUS = {Severity.MAJOR, Severity.CRITICAL}


def _copy(plan: Plan) -> Plan:
    return plan.model_copy(deep=True)


def _only(findings: list[Finding], severity: Severity) -> list[Finding]:
    return [f for f in findings if f.severity == severity]


def test_plan_a_has_no_serious_form_finding(plan_a: Plan) -> None:
    findings = review_form(plan_a)
    assert not [f for f in findings if f.severity in SERIOUS]
    assert not _only(findings, Severity.MINOR)
    assert all(f.reviewer == "form-reviewer" and f.category == Category.FORM for f in findings)
    # the only remark: the 规程 is cited without an edition
    assert [f.rule_id for f in findings] == ["form.edition_unstated"]


def test_plan_b_approval_missing_is_major(plan_b: Plan) -> None:
    findings = review_form(plan_b)
    major = _only(findings, Severity.MAJOR)
    assert len(major) == 1
    f = major[0]
    assert f.location is None and f.category == Category.FORM
    assert "批准" in f.message and "总工程师" in f.message and "不能生效" in f.message
    assert f.figures["name"] is None and f.figures["date"] is None
    assert f.page == 5
    assert (f.evidence[0].kind, f.evidence[0].page, f.evidence[0].table, f.evidence[0].row) == (
        "pdf",
        5,
        1,
        1,
    )
    assert f.source and f.rule


def test_missing_approval_block_is_major(plan_a: Plan) -> None:
    plan = _copy(plan_a)
    plan.signoffs = [s for s in plan.signoffs if s.role != "批准"]
    major = _only(review_form(plan), Severity.MAJOR)
    assert len(major) == 1 and "批准" in major[0].message and major[0].page == 5


def test_missing_reviewer_signature_is_minor(plan_a: Plan) -> None:
    plan = _copy(plan_a)
    plan.signoffs[1].name = None
    findings = review_form(plan)
    assert not [f for f in findings if f.severity in SERIOUS]
    minor = _only(findings, Severity.MINOR)
    assert len(minor) == 1 and "审核（通风区长）签字缺失" in minor[0].message


def test_dates_order_and_prepared_date(plan_a: Plan) -> None:
    plan = _copy(plan_a)
    plan.signoffs[3].date = "2026-07-26"  # 批准 before both 审核
    plan.signoffs[0].date = "2026-07-24"  # 编制 before the prepared date
    minor = _only(review_form(plan), Severity.MINOR)
    texts = " / ".join(f.message for f in minor)
    assert "编制日期 2026-07-24 早于编制日期 2026-07-25" in texts
    # one root fault, one finding: the 批准 date, before both 审核 signatures (the same date, named once)
    approval = [f for f in minor if f.message.startswith("批准日期 2026-07-26 早于")]
    assert len(approval) == 1 and "审核日期 2026-07-27" in approval[0].message
    assert all(f.page == 5 for f in minor)


def test_approval_after_month_start(plan_a: Plan) -> None:
    plan = _copy(plan_a)
    plan.signoffs[3].date = "2026-08-03"
    minor = _only(review_form(plan), Severity.MINOR)
    assert len(minor) == 1 and "晚于计划月份开始" in minor[0].message


def test_cover_fields_missing(plan_a: Plan) -> None:
    plan = _copy(plan_a)
    plan.version = None
    plan.month = None
    plan.prepared_date = None
    findings = review_form(plan)
    cover = [f for f in findings if f.rule_id == "form.cover"]
    assert {f.severity for f in cover} == {Severity.MINOR} and len(cover) == 2
    assert any("版本号" in f.message for f in cover) and any("执行月份" in f.message for f in cover)
    rules = {f.rule_id: f.severity for f in findings}
    assert rules["form.prepared_date"] == Severity.INFO  # the 编制 signature's date stands in
    plan.signoffs = []
    rules = {f.rule_id: f.severity for f in review_form(plan)}
    assert rules["form.prepared_date"] == Severity.MINOR


def test_location_without_calculation_is_major(plan_a: Plan) -> None:
    plan = _copy(plan_a)
    plan.locations = [loc for loc in plan.locations if loc.name != "中央变电所"]
    present(plan.location("主排水泵房")).methods = []
    present(plan.location("15222切眼掘进工作面")).speed_check = None
    findings = review_form(plan)
    major = {f.location: f for f in _only(findings, Severity.MAJOR)}
    assert set(major) == {"中央变电所", "主排水泵房"}
    assert major["中央变电所"].page == 1 and "没有需风量计算过程" in major["中央变电所"].message
    assert major["主排水泵房"].page == 3
    minor = _only(findings, Severity.MINOR)
    assert [(f.location, f.rule_id) for f in minor] == [("15222切眼掘进工作面", "form.speed_check_missing")]


def test_location_missing_from_allocation_is_major(plan_a: Plan) -> None:
    plan = _copy(plan_a)
    plan.allocation = [r for r in plan.allocation if r.location != "充电硐室"]
    major = _only(review_form(plan), Severity.MAJOR)
    assert [(f.location, f.page) for f in major] == [("充电硐室", 4)]
    assert "风量分配表" in major[0].message


def test_basis_incomplete(plan_a: Plan) -> None:
    plan = _copy(plan_a)
    plan.basis = [b for b in plan.basis if "测风" not in b]
    minor = _only(review_form(plan), Severity.MINOR)
    assert len(minor) == 1 and "测风报表" in minor[0].message


def test_two_editions_cited_is_minor(tmp_path: Path) -> None:
    path = tmp_path / "variant.pdf"
    path.write_bytes(variant_pdf())
    findings = review_form(parse_plan(extract_pdf(path, max_pages=10)))
    editions = [f for f in findings if f.rule_id == "form.edition_mixed"]
    assert len(editions) == 1 and editions[0].severity == Severity.MINOR
    assert "2016版" in editions[0].message and "2025版" in editions[0].message
    assert not [f for f in findings if f.severity in SERIOUS]


def test_text_plan_approval_missing() -> None:
    findings = review_form(parse_plan(text_plan()))
    major = _only(findings, Severity.MAJOR)
    assert len(major) == 1 and major[0].location is None and major[0].page == 2
    assert not [f for f in findings if f.rule_id == "form.edition_unstated"]  # the plan names its edition


def test_a_signoff_finding_points_at_the_signature_cell_not_a_location_column(plan_b: Plan) -> None:
    from reports.content import places_line

    (approval,) = [f for f in review_form(plan_b) if f.rule_id == "form.approval_missing"]
    anchors = [(e.table, e.row, e.column) for e in approval.evidence if e.kind == "pdf"]
    assert anchors and all(column in {"signer", "signoff_date", "signoff_role"} for _, _, column in anchors)
    where = places_line(approval)
    assert "签字" in where and "地点名称" not in where


def _signed(*reviews: tuple[str, str]) -> Plan:
    plan = _copy(parse_plan(text_plan()))
    ref = SourceRef(page=3, text="审核")
    plan.signoffs = [
        SignOff(role="编制", title="通风技术员", name="张三", date="2026-09-25", ref=ref),
        *[SignOff(role="审核", title=t, name=n, date="2026-09-26", ref=ref) for t, n in reviews],
        SignOff(role="批准", title="总工程师", name="王五", date="2026-09-27", ref=ref),
    ]
    return plan


def test_a_review_without_the_deputy_chief_engineer_is_major() -> None:
    """审核 by 通风区长 and 通风副总工程师 (DOMAIN §4): every reviewer titled and none a deputy chief
    engineer is a major; an untitled reviewer says nothing either way."""
    chain = [f for f in review_form(_signed(("通风区区长", "王建国"))) if f.rule_id == "form.review_chain"]
    assert len(chain) == 1 and chain[0].severity == Severity.MAJOR and "通风副总工程师" in chain[0].message
    for reviews in (
        [("通风区长", "王建国"), ("通风副总工程师", "赵志强")],
        [("", "王建国")],
        [("通风副总", "赵志强")],
    ):
        assert not [f for f in review_form(_signed(*reviews)) if f.rule_id == "form.review_chain"]


def test_a_location_of_one_method_needs_no_separate_maximum() -> None:
    """The maximum of one method is its result: 未写明取最大值后的需风量 only for several methods."""
    plan = _copy(parse_plan(text_plan()))
    loc = next(x for x in plan.locations if len([m for m in x.methods if m.stated]) > 1)
    loc.stated_required = None
    assert "form.required_not_stated" in [f.rule_id for f in review_form(plan) if f.location == loc.name]
    loc.methods = [next(m for m in loc.methods if m.stated)]
    assert "form.required_not_stated" not in [f.rule_id for f in review_form(plan) if f.location == loc.name]


@pytest.mark.parametrize(
    ("basis", "speed_article", "mixed"),
    [
        ("《煤矿安全规程》（2016 年版，2022 年修订）", "第一百五十七条", True),  # 2025's 表6 number
        ("《煤矿安全规程》（2016 年版，2022 年修订）", "第一百三十六条", False),
        ("《煤矿安全规程》（2025年版）", "第157条", False),
        ("《煤矿安全规程》（2025年版）", "第136条", True),
    ],
)
def test_an_article_number_is_read_in_the_edition_its_topic_fits(
    basis: str, speed_article: str, mixed: bool
) -> None:
    """第157条 cited for a wind-speed check is the renumbered edition's 表6 (2016's is 第136条): beside a
    2016 basis it mixes editions; numbers in both editions' ranges are told by what they are cited for."""
    text = (
        f"示范煤矿2026年9月份矿井配风计划\n一、编制依据\n（1）{basis}。\n二、需风量计算\n1. 15216综采工作面\n"
        f"风速验算：194.9≤1153.2≤2473.0，符合《煤矿安全规程》{speed_article}规定。\n"
    )
    findings = review_form(parse_plan(ExtractedPdf(page_count=1, pages=[PageText(page=1, text=text)])))
    assert bool([f for f in findings if f.rule_id == "form.edition_mixed"]) == mixed
