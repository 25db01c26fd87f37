"""Ways of writing a plan the reader must read as they are written (issue [A] items 3, 4, 6): the mine by its
name (never a department), a section title with a note after it, item numbers before a designation,
thousands separators without a unit, sign-offs and an allocation told in sentences, and an appendix of
another month's figures that is context, never this month's allocation."""

from __future__ import annotations

import pytest

from vent_agent.documents.pdf_text import ExtractedPdf, PageText
from vent_agent.documents.plan.model import Plan
from vent_agent.documents.plan.parser import parse_plan
from vent_agent.documents.plan.text_primitives import join_thousands


def _plan(*pages: str) -> Plan:
    texts = [PageText(page=i + 1, text=t) for i, t in enumerate(pages)]
    return parse_plan(ExtractedPdf(file_name="p.pdf", page_count=len(texts), pages=texts))


@pytest.mark.parametrize(
    ("cover", "mine"),
    [
        ("示范煤矿\n2026年9月份矿井配风计划\n编制单位：通风科\n", "示范煤矿"),
        ("文件编号 SF-1\n编制单位 示范煤矿通风区\n示范煤矿2026年9月份矿井配风计划\n", "示范煤矿"),
        ("编制单位：通风区\n红星煤业2026年9月份配风计划\n", "红星煤业"),
        ("石门沟煤矿\n2026 年 8 月份矿井配风计划\n编制单位：通风科  版本：A/0\n", "石门沟煤矿"),
        ("2026年9月份矿井配风计划\n编制单位：通风队\n", None),
    ],
)
def test_the_mine_is_named_by_the_title_never_a_department(cover: str, mine: str | None) -> None:
    plan = _plan(cover + "一、编制依据\n1.采掘作业计划\n")
    assert plan.mine == mine
    assert plan.month is not None


def test_a_section_title_followed_by_a_note_is_found() -> None:
    plan = _plan(
        "示范煤矿2026年8月份配风计划\n一、编制依据\n1.采掘作业计划\n"
        "二、各用风地点需风量计算（风量单位：m³/min）\n1.15216综采工作面\n按人数计算：Q = 4 × 38 = 152.0 m³/min\n"
        "三、风量分配\n"
    )
    assert "calculation" in plan.section_pages
    assert not any("未找到需风量计算章节" in w for w in plan.warnings)
    assert [loc.name for loc in plan.locations] == ["15216综采工作面"]


@pytest.mark.parametrize(
    "heading", ["1.15216综采工作面", "1．15216综采工作面", "(1)15216综采工作面", "1、15216综采工作面"]
)
def test_an_item_number_before_a_designation_is_not_a_decimal(heading: str) -> None:
    plan = _plan(
        "示范煤矿2026年8月份配风计划\n一、需风量计算\n"
        f"{heading}\n按人数计算：Q = 4 × 38 = 152.0 m³/min\n"
        "2.3102工作面\n按人数计算：Q = 4 × 20 = 80.0 m³/min\n二、风量分配\n"
    )
    assert [loc.name for loc in plan.locations] == ["15216综采工作面", "3102工作面"]


@pytest.mark.parametrize(
    ("text", "joined"),
    [
        ("矿井通风能力 7,600。", "矿井通风能力 7600。"),
        ("总进风量 6,280,总回风量 6,460,井下", "总进风量 6280,总回风量 6460,井下"),
        ("4×1,200÷60=80.0", "4×1200÷60=80.0"),
        ("计划配风1,250(断面 11.65", "计划配风1250(断面 11.65"),
        ("Q = max(630,152)", "Q = max(630,152)"),
        ("6,075 m³/min", "6075 m³/min"),
    ],
)
def test_thousands_separators_with_or_without_a_unit(text: str, joined: str) -> None:
    assert join_thousands(text) == joined


PROSE = (
    "示范煤矿\n二〇二六年九月份矿井通风配风计划\n编制单位:通风区\n"
    "一、编制依据\n说明:本计划中凡未注明单位的风量数字,单位均为立方米每分钟(m³/min)。\n"
    "二、风量分配\n根据需风量计算结果,本月风量分配如下:15216 综采工作面需风量 1153.2,计划配风\n"
    "1,250(断面 11.65,计划风速 1.79);15218 工作面需风量 576.6,计划配风 600;中央变电所需\n"
    "风量 159.9,计划配风 150。各地点需风量合计 1889.7。\n"
    "三、编审意见\n本计划由通风技术员李明于 2026 年 8 月 27 日编制,经通风区区长王建国于 8 月 28 日审\n"
    "核,通风副总工程师赵志强于 8 月 28 日审核,总工程师陈卫东于 8 月 29 日批准执行。\n"
)


def test_sign_offs_told_in_a_sentence_are_read() -> None:
    plan = _plan(PROSE)
    got = [(s.role, s.title, s.name, s.date) for s in plan.signoffs]
    assert got == [
        ("编制", "通风技术员", "李明", "2026-08-27"),
        ("审核", "通风区区长", "王建国", "2026-08-28"),
        ("审核", "通风副总工程师", "赵志强", "2026-08-28"),
        ("批准", "总工程师", "陈卫东", "2026-08-29"),
    ]


def test_an_allocation_told_item_by_item_is_read_in_the_stated_unit() -> None:
    plan = _plan(PROSE)
    rows = [
        (r.location, r.required_q and r.required_q.value, r.allocated_q and r.allocated_q.value)
        for r in plan.allocation
    ]
    assert rows == [
        ("15216综采工作面", 1153.2, 1250.0),
        ("15218工作面", 576.6, 600.0),
        ("中央变电所", 159.9, 150.0),
    ]
    first = plan.allocation[0]
    assert first.area is not None and first.area.value == 11.65
    assert first.planned_speed is not None and first.planned_speed.value == 1.79
    assert first.allocated_q is not None and first.allocated_q.unit == "m³/min"
    assert first.ref.confidence == "inferred"


def test_an_appendix_of_another_months_figures_is_not_the_allocation() -> None:
    pages = (
        "示范煤矿2026年9月份配风计划\n一、风量分配\n15216综采工作面需风量 1153.2,计划配风 1250。\n",
        "附表 8月份各用风地点实测风量(参考资料,非本月配风)\n地点 实测风速 断面 实测风量\n",
    )
    plan = _plan(*pages)
    assert [r.location for r in plan.allocation] == ["15216综采工作面"]


@pytest.mark.parametrize(
    ("text", "month"),
    [("二〇二六年九月份", "2026-09"), ("二〇二六年十二月", "2026-12"), ("2026 年 8 月份", "2026-08")],
)
def test_a_month_written_in_chinese_numerals_is_read(text: str, month: str) -> None:
    from vent_agent.documents.plan.text_primitives import parse_month

    assert parse_month(text) == month


@pytest.mark.parametrize(("written", "k"), [("k=1.8", 1.8), ("k 取 1.6", 1.6), ("k=1.1", 1.1)])
def test_a_bare_k_among_the_parameters_is_the_emission_coefficient(written: str, k: float) -> None:
    plan = _plan(
        "示范煤矿2026年8月份配风计划\n一、需风量计算\n1.3104运输巷掘进工作面\n"
        f"参数:煤巷,断面 11.0m²,瓦斯涌出量 1.90m³/min,{written},k 采高=1.2,最多人数 18 人。\n"
        "按人数计算：Q = 4 × 18 = 72.0 m³/min\n二、风量分配\n"
    )
    loc = plan.locations[0]
    assert loc.inputs["k_gas"].value == k
    assert "k_h" not in loc.inputs or loc.inputs["k_h"].value == 1.2


def test_a_location_list_written_as_a_sentence_is_read_with_the_allocations_names() -> None:
    plan = _plan(
        "示范煤矿2026年9月份配风计划\n一、本月用风地点\n9 月份安排回采工作面 1 个(15216 综采工作面),掘进工作面 2 个(15220 回风顺槽、"
        "二采区轨道下山),硐室 2 处(中央变电所、充电硐室)。\n"
        "二、风量分配\n15216 综采工作面需风量 1153.2,计划配风 1250;15220 回风顺槽掘进工作面需风量 627.0,计划配风 650;"
        "二采区轨道下山掘进工作面需风量 413.4,计划配风 450;中央变电所需风量 159.9,计划配风 180;充电硐室需风量 100.0,计划配风 120。\n"
    )
    assert plan.listed_locations == [
        "15216综采工作面",
        "15220回风顺槽掘进工作面",
        "二采区轨道下山掘进工作面",
        "中央变电所",
        "充电硐室",
    ]


def test_a_calculation_told_in_sentences_keeps_the_coefficient_chosen_in_its_range() -> None:
    plan = _plan(
        "示范煤矿2026年9月份配风计划\n一、需风量计算\n(一)15220 回风顺槽掘进工作面\n"
        "该巷为煤巷,断面 13.8,绝对瓦斯涌出量 1.6,k 取 1.5~2.0 中的 1.8,按瓦斯需风 100×1.6×1.8=288.0;"
        "最多作业人数 16 人,按人数需风 4×16=64.0。取最大值,需风量 288.0。\n二、风量分配\n"
    )
    loc = plan.locations[0]
    assert loc.inputs["k_gas"].value == 1.8
    assert {m.method for m in loc.methods} >= {"gas", "workers"}
    gas = next(m for m in loc.methods if m.method == "gas")
    assert gas.stated is not None and gas.stated.value == 288.0


@pytest.mark.parametrize(
    ("overview", "read"),
    [
        ("按回风流瓦斯涌出量校核:Q = 100 ×\nq × k = 100 × 7.5 × 1.2 = 900.0m³/min。", True),
        ("实测回风量 60 × 1.93 × 18.6 = 2153.9m³/min。", False),  # a formula, but no method to read
    ],
)
def test_a_location_calculated_outside_the_calculation_section_is_read_there_or_is_a_gap(
    overview: str, read: bool
) -> None:
    """Never a missing calculation: read where the plan writes it, or a reading gap when it cannot be."""
    plan = _plan(
        "石门沟煤矿2026年8月份矿井配风计划\n一、矿井通风概况\n西翼回风大巷为西翼主要回风巷,断面 18.6m²,汇集各掘进工作面回\n"
        f"风,不计入需风量合计;{overview}\n"
        "二、需风量计算\n1.3102工作面\n按人数计算：Q = 4 × 32 = 128.0 m³/min\n"
        "三、风量分配\n3102工作面需风量 128.0,计划配风 200;西翼回风大巷需风量 900.0,计划配风 2150。\n"
    )
    gaps = [g for g in plan.gaps if g.topic == "calculation" and g.location == "西翼回风大巷"]
    located = plan.location("西翼回风大巷")
    if read:
        assert not gaps and located is not None and [m.method for m in located.methods] == ["gas"]
    else:
        assert gaps and "章节以外" in gaps[0].note and located is None
    assert not any(g.location == "3102工作面" for g in plan.gaps)


@pytest.mark.parametrize(
    "wrapped",
    [
        "本月用风地点5处：15216综采工作面、15218工作面（备用）、15220回风顺\n槽、中央变电所、充电\n硐室。",
        "用风地点共5处，分别为15216综采工作面，15218工作面(备用)，15220回\n风顺槽，中央变电所，充电硐室；\n"
        "15220运输顺槽掘进工作面已于8月28日贯通，本月不再配风。",
        "本月安排：15216综采工作面、15218工作面（备用）、\n15220回风顺槽、中央变电所、\n充电硐室",
    ],
)
def test_a_location_list_sentence_wrapped_mid_name_is_read_whole(wrapped: str) -> None:
    """A list written as a sentence, its lines wrapped inside a name (as a photo's OCR gives it): the
    names are read whole, never cut at the wrap."""
    plan = _plan(
        f"示范煤矿2026年9月份配风计划\n三、用风地点\n{wrapped}\n四、需风量计算\n1. 15216综采工作面\n"
    )
    assert plan.listed_locations == [
        "15216综采工作面",
        "15218工作面",
        "15220回风顺槽",
        "中央变电所",
        "充电硐室",
    ]
