"""Calculations told as a narrative (issue [A]): several locations under one heading that names a kind of
place, each a paragraph or a sentence starting with the location's name; the result of a method is the
figure of its own clause, never a number of the next one; parameters stated before a calculation in
the same sentence; the sum stated as the figure the mine coefficient multiplies."""

from __future__ import annotations

import pytest

from vent_agent.documents.pdf_text import ExtractedPdf, PageText
from vent_agent.documents.plan.model import Plan
from vent_agent.documents.plan.parser import parse_plan

HEAD = """示范煤矿2026年9月份矿井配风计划
三、本月用风地点
掘进工作面 2 个（15220 回风顺槽掘进工作面、二采区轨道下山掘进工作面），硐室 2 处（中央变电所、井下爆炸材料库）。
四、需风量计算
"""
HEADINGS = """（一）掘进工作面
15220 回风顺槽掘进工作面为煤巷，断面 13.8，绝对瓦斯涌出量 1.6，k 取 1.5~2.0 中的
1.8，按瓦斯需风 100×1.6×1.8=288.0；选用 FBD-No6.3/2×30 局部通风机 1 台，吸风量
420，按局部通风机吸风量需风 420×1+60×0.25×13.8=627.0；最多作业人数 16 人，按人数
需风 4×16=64.0。取最大值，需风量 627.0。
二采区轨道下山掘进工作面为岩巷，断面 12.6，绝对瓦斯涌出量 0.3，k 取 1.5~2.0 中的
1.5，按瓦斯需风 100×0.3×1.5=45.0；一次最大装药量 24kg，按炸药量需风
10×24=240.0；选用 FBD-No5.6/2×15 局部通风机 1 台，吸风量 300，按局部通风机吸风量
需风 300×1+60×0.15×12.6=413.4。取最大值，需风量 413.4。
（二）硐室
中央变电所运行设备总功率 800kW，发热系数 θ 取 0.02，进回风温差 5.0℃。井下爆炸材料库为中型库，
库容 1,200m³，按每小时换气 4 次需风 4×1,200÷60=80.0。
五、矿井总风量
按各用风地点需风量之和计算：3,880.0×1.18=4,578.4；矿井需风量为 4,578.4。
"""


def _plan(text: str) -> Plan:
    return parse_plan(ExtractedPdf(page_count=1, pages=[PageText(page=1, text=text)]))


@pytest.fixture(scope="module")
def narrative() -> Plan:
    return _plan(HEAD + HEADINGS)


def test_locations_under_a_heading_of_their_kind_are_read_one_by_one(narrative: Plan) -> None:
    names = [loc.name for loc in narrative.locations]
    assert names == ["15220回风顺槽掘进工作面", "二采区轨道下山掘进工作面", "中央变电所", "井下爆炸材料库"]


def test_a_method_result_is_its_own_clause_never_a_number_of_the_next(narrative: Plan) -> None:
    by_name = {loc.name: loc for loc in narrative.locations}
    heading = {m.method: m.stated.value for m in by_name["15220回风顺槽掘进工作面"].methods if m.stated}
    assert heading == {"gas": 288.0, "fan_intake": 627.0, "workers": 64.0}  # not 30 of "2×30"
    rock = {
        m.method: (m.operands, m.stated.value)
        for m in by_name["二采区轨道下山掘进工作面"].methods
        if m.stated
    }
    assert rock["explosives"] == ([10.0, 24.0], 240.0)  # not 15 of "2×15"
    inputs = {k: v.value for k, v in by_name["二采区轨道下山掘进工作面"].inputs.items()}
    assert (inputs["explosive_kg"], inputs["fan_intake_q"], inputs["area"]) == (24.0, 300.0, 12.6)
    assert by_name["二采区轨道下山掘进工作面"].rock == "rock"


def test_the_sum_is_the_figure_the_mine_coefficient_multiplies(narrative: Plan) -> None:
    assert narrative.totals.stated_sum is not None and narrative.totals.stated_sum.value == 3880.0


def test_a_heading_naming_a_place_is_never_split_at_another_name() -> None:
    text = HEAD + (
        "1. 15220回风顺槽掘进工作面\n按瓦斯涌出量计算：Q=100×1.6×1.8=288.0m³/min\n"
        "中央变电所的风量由本巷回风中分出，不另计。\n取最大值：Q需=288.0m³/min\n"
    )
    (heading,) = _plan(text).locations
    assert heading.name == "15220回风顺槽掘进工作面" and heading.stated_required is not None


def test_a_climate_calculation_told_in_a_sentence_reads_its_parameters_and_coefficients() -> None:
    text = HEAD.replace("掘进工作面 2 个", "回采工作面 1 个（15216 综采工作面），掘进工作面 2 个") + (
        "（一）15216 综采工作面\n工作面长度 220m，采高 3.2m，最大控顶距 5.8m，最小控顶距 4.6m，最多作业人数 38 人。"
        "绝对瓦斯涌出量 4.8，k 取 1.4，则按瓦斯涌出量需风 100×4.8×1.4=672.0；二氧化碳涌出量 0.8，k 取 1.5，"
        "需风 67×0.8×1.5=80.4。\n按气象条件：进风温度 22.5℃，风速 v 取 1.0~1.5 中的 1.25；工作面断面 "
        "S=3.2×（5.8+4.6）/2=16.640；k 采高取 1.2；k 面长按 120~150m 取 1.1，需风\n"
        "60×0.7×1.25×16.640×1.2×1.1=1,153.2。按人数 4×38=152.0。上述各项取最大值，该面需风量为 1,153.2。\n"
    )
    face = next(loc for loc in _plan(text).locations if loc.name == "15216综采工作面")
    got = {m.method: m.stated.value for m in face.methods if m.stated}
    assert got == {"gas": 672.0, "co2": 80.4, "climate": 1153.2, "workers": 152.0}
    climate = next(m for m in face.methods if m.method == "climate")
    assert climate.operands == [60.0, 0.7, 1.25, 16.64, 1.2, 1.1]
    assert face.inputs["intake_temp"].value == 22.5
    assert face.inputs["area"].value == 16.64  # the worked value, never the 3.2 it starts from


OVERVIEW = """石门沟煤矿2026年8月份矿井配风计划
二、矿井通风概况
西翼回风大巷为西翼主要回风巷，断面 18.6m²，汇集西翼各掘进工作面回风，不计入需风量合计；按回风流瓦斯涌出量校核：
Q = 100 × q × k = 100 × 7.5 × 1.2 = 900.0m³/min，实际回风量 2150m³/min，满足要求。
三、用风地点
本月用风地点 3 处：采煤工作面 1 个（3102 工作面，综采）；掘进工作面 1 个（3104 运输巷掘进工作面）；回风巷校核 1 处（西翼回风大巷）。
四、各用风地点需风量计算
1．3102 工作面
按瓦斯涌出量计算：Q=100×q×k=100×6.80×1.1=748.0m³/min
取最大值：Q需=748.0m³/min
2．3104 运输巷掘进工作面
按人数计算：Q=4×N=4×18=72.0m³/min
取最大值：Q需=72.0m³/min
"""


def test_a_location_calculated_in_the_overview_is_read_there() -> None:
    """A return's gas check written in the overview, outside the calculation section: read as that
    location's calculation (a method with its inputs), not a gap and not a missing calculation."""
    plan = _plan(OVERVIEW)
    by_name = {loc.name: loc for loc in plan.locations}
    ret = by_name["西翼回风大巷"]
    assert [(m.method, m.operands, m.stated.value if m.stated else None) for m in ret.methods] == [
        ("gas", [100.0, 7.5, 1.2], 900.0)
    ]
    assert (ret.inputs["gas_emission"].value, ret.inputs["k_gas"].value) == (7.5, 1.2)
    assert plan.gaps == []
    assert by_name["3102工作面"].kind_label == "综采"  # the mining method noted after the name in the list


def test_a_full_stop_read_as_a_period_ends_the_sentence_of_the_mine_total() -> None:
    """OCR gives 。 as "." : the mine total is the figure of its own sentence, never the next one's."""
    text = (
        "示范煤矿2026年9月份矿井配风计划\n六、矿井总需风量\n"
        "各用风地点需风量之和ΣQ=4265.9m3/min；矿井需风系数取k=1.18；矿井总需风量Q\n矿 =ΣQ×k = 4265.9×1.18 = "
        "5033.8 m³/min. 按井下同时工作最多人数验算：4×420=1680m³/min，小于Q矿。\n"
    )
    totals = _plan(text).totals
    assert totals.mine_total is not None and totals.mine_total.value == 5033.8
    assert totals.stated_sum is not None and totals.stated_sum.value == 4265.9
