"""Plan parser on synthetic plans with other wording and layout than the samples (generated PDFs and
text-only extractions), its helpers, and a property test: damaged text never makes it fail."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import present
from tests.pdf_factory import Page, build_pdf
from tests.synthetic_plans import text_plan, variant_pdf
from vent_agent.documents.pdf_text import ExtractedPdf, PageText, extract_pdf
from vent_agent.documents.plan.model import Plan
from vent_agent.documents.plan.parser import parse_plan
from vent_agent.documents.plan.tables import classify_kind
from vent_agent.documents.plan.text_primitives import (
    match_name,
    name_key,
    normalize,
    numbers,
    parse_date,
    parse_number,
)

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def variant(tmp_path_factory: pytest.TempPathFactory) -> Plan:
    path = tmp_path_factory.mktemp("variant") / "variant.pdf"
    path.write_bytes(variant_pdf())
    return parse_plan(extract_pdf(path, max_pages=10))


# --- synthetic plans -------------------------------------------------------------------------------


def test_variant_layout_cover_and_sections(variant: Plan) -> None:
    assert (variant.mine, variant.month, variant.version, variant.prepared_date) == (
        "测试煤业有限公司",
        "2026-09",
        "2.1",
        "2026-08-26",
    )
    assert variant.section_pages == {"basis": 1, "calculation": 1, "allocation": 3, "totals": 3, "signoff": 4}
    assert len(variant.basis) == 5 and variant.basis[2] == "2026年9月份采掘作业计划"
    assert variant.regulation_editions == [
        "《煤矿安全规程》（2022年版）",
        "《煤矿安全规程》（2025年版）",
        "AQ 1056-2008",
    ]
    eds = {(c.edition, c.article) for c in variant.citations if c.document == "煤矿安全规程"}
    assert eds == {("2022", None), ("2025", 157)}


def test_variant_locations_without_a_list(variant: Plan) -> None:
    assert variant.listed_locations == ["3101综放工作面", "3102运输巷掘进工作面", "1号变电所"]
    kinds = [(loc.name, loc.kind, loc.rock) for loc in variant.locations]
    assert kinds == [
        ("3101综放工作面", "coal_face", None),
        ("3102运输巷掘进工作面", "heading", "half_coal"),
        ("1号变电所", "chamber_heat", None),
    ]
    face = variant.locations[0]
    assert face.inputs["face_length"].value == 180 and face.inputs["k_gas"].value == 1.6
    assert face.inputs["gas_emission"].value == 2.5 and face.inputs["gas_emission"].unit == "m³/min"
    assert [(m.method, present(m.stated).value) for m in face.methods] == [
        ("gas", 400.0),
        ("climate", 958.1),
        ("workers", 120.0),
    ]
    assert face.methods[0].symbols == {"q": 2.5, "k": 1.6}  # "100·q·k": a middle-dot product
    assert face.methods[1].operands == pytest.approx([60, 0.7, 1.2, 14.4, 1.1, 1.2])  # "1.\n1" joined
    assert present(face.stated_required).value == 958.1  # 需风量取值：… = max(…)
    speed = present(face.speed_check)
    assert (speed.lower, speed.upper) == (163.8, 2217.6)


def test_variant_block_across_page_break_with_running_header(variant: Plan) -> None:
    heading = variant.locations[1]
    assert present(heading.ref).page == 1
    assert heading.inputs["fan_intake_q"].value == 300 and heading.inputs["fan_count"].value == 2
    assert [(m.method, present(m.stated).value, present(m.stated).ref.page) for m in heading.methods] == [
        ("gas", 162.0, 2),
        ("fan_intake", 765.0, 2),
    ]
    assert present(heading.stated_required).value == 765.0
    chamber = variant.locations[2]
    req = chamber.stated_required
    assert req is not None and (req.value, req.unit, req.unit_written) == (187.2, "m³/min", "m³/s")
    assert chamber.inputs["power_kw"].value == 500


def test_variant_two_row_header_table_and_totals(variant: Plan) -> None:
    rows = variant.allocation
    assert [r.location for r in rows] == variant.listed_locations
    first = rows[0]
    allocated_q, measured_speed = present(first.allocated_q), present(first.measured_speed)
    assert allocated_q.value == 1000 and allocated_q.unit == "m³/min"  # "1,000"
    assert measured_speed.value == 1.45 and measured_speed.ref.column == "实测风速(m/s)"
    assert present(first.ch4).value == 0.42 and present(first.temperature).value == 21.0
    assert rows[2].measured_speed is None and first.planned_speed is None
    t = variant.totals
    stated_sum = present(t.stated_sum)
    assert stated_sum.value == 1910.5 and stated_sum.ref.row == 4  # the 合计 row
    assert stated_sum.ref.cell_row == 6  # two header rows above
    assert present(t.k_mine).value == 1.2 and present(t.mine_total).value == 2292.6
    assert present(t.max_people).value == 150 and present(t.capacity).value == 3000


def test_variant_transposed_signoff(variant: Plan) -> None:
    got = [(s.role, s.title, s.name, s.date) for s in variant.signoffs]
    assert got == [
        ("编制", "通风技术员", "张三", "2026-08-26"),
        ("审核", "通风区长", "李四", "2026-08-27"),
        ("审核", "通风副总工程师", "赵六", "2026-08-27"),
        ("批准", "总工程师", "王五", "2026-08-28"),
    ]
    approval = present(variant.signoffs[3].ref)
    assert approval.page == 4 and approval.row == 5


def test_text_only_plan() -> None:
    plan = parse_plan(text_plan())
    assert (plan.mine, plan.month, plan.version, plan.prepared_date) == (
        "红旗煤矿",
        "2026-10",
        "V2",
        "2026-09-25",
    )
    assert plan.basis == [
        "2026年10月采掘作业计划",
        "瓦斯等级鉴定报告",
        "9月测风报表",
        "《煤矿安全规程》(2025年版)",
    ]
    assert [(loc.name, loc.kind, loc.rock) for loc in plan.locations] == [
        ("8101采煤工作面", "coal_face", None),
        ("8102备用工作面", "standby_face", None),
        ("9201岩巷掘进工作面", "heading", "rock"),
    ]
    assert plan.locations[1].standby_of == "8101采煤工作面"
    face = plan.locations[0]
    assert present(face.methods[1].stated).value == 491.9 and present(face.methods[2].stated).ref.page == 2
    rows = plan.allocation
    assert [r.location for r in rows] == ["8101采煤工作面", "8102备用工作面", "9201岩巷掘进工作面"]
    req = rows[0].required_q
    assert req is not None and (req.value, req.unit, req.unit_written) == (900.0, "m³/min", "m³/s")
    assert req.ref.text == "15.0" and req.ref.confidence == "inferred"  # read by position from a text line
    assert rows[1].measured_speed is None and present(rows[1].allocated_q).value == 480.0
    ch4 = present(rows[2].ch4)
    assert ch4.value == 1.0 and ch4.ref.page == 2 and rows[2].ref.row == 3
    assert [(s.role, s.title, s.name, s.date) for s in plan.signoffs] == [
        ("编制", "通风技术员", "张三", "2026-09-25"),
        ("审核", "", "李四", "2026-09-26"),
        ("批准", "", None, None),
    ]
    assert any("文本行" in w for w in plan.warnings)


def test_text_signoff_grid_with_missing_names() -> None:
    text = """X煤矿2026年11月份配风计划
版本：1
一、审批
编制 审核 批准
职务 技术员 通风区长 总工程师
签字 甲 乙
日期 2026
年
10
月 25
日 2026年10月26日"""
    plan = parse_plan(ExtractedPdf(page_count=1, pages=[PageText(page=1, text=text)]))
    assert [(s.role, s.title, s.name, s.date) for s in plan.signoffs] == [
        ("编制", "技术员", "甲", "2026-10-25"),
        ("审核", "通风区长", "乙", "2026-10-26"),
        ("批准", "总工程师", None, None),
    ]
    assert any("按顺序对应" in w for w in plan.warnings)


def test_empty_and_unrelated_documents_do_not_raise() -> None:
    empty = parse_plan(
        ExtractedPdf(page_count=1, pages=[PageText(page=1, text="", source="none")], pages_without_text=[1])
    )
    assert empty.locations == [] and any("text layer" in w for w in empty.warnings)
    other = parse_plan(
        ExtractedPdf(page_count=1, pages=[PageText(page=1, text="会议纪要\n今天讨论了食堂菜单。")])
    )
    assert other.locations == [] and other.allocation == [] and other.month is None
    assert any("allocation" in w for w in other.warnings)


def test_generated_pdf_with_full_width_text_and_percent(tmp_path: Path) -> None:
    page = Page()
    for line in (
        "甲矿2027年1月配风计划",
        "一、需风量计算",
        "（1）1101 综采工作面",
        "基础参数：绝对瓦斯涌出量：３.５m3/min，瓦斯涌出不均匀系数：１.５，最多作业人数 40 人。",
        "按瓦斯涌出量计算：Q＝100×q×k＝100×3.5×1.5＝525.0m3/min",
        "按气象条件计算：Q＝60×70％×v×S×k采高×k面长＝60×70％×1.0×15.0×1.1×1.2＝831.6m3/min",
        "取最大值：Q需＝831.6m3/min",
    ):
        page.para(line)
    path = tmp_path / "fw.pdf"
    path.write_bytes(build_pdf([page]))
    plan = parse_plan(extract_pdf(path, max_pages=5))
    loc = plan.location("1101综采工作面")
    assert loc is not None and loc.kind == "coal_face"
    assert loc.inputs["gas_emission"].value == 3.5 and loc.inputs["gas_emission"].unit == "m³/min"
    assert loc.methods[1].operands == pytest.approx([60, 0.7, 1.0, 15.0, 1.1, 1.2])
    assert loc.methods[1].symbols["v"] == 1.0
    required = present(loc.stated_required)
    assert required.value == 831.6 and required.unit == "m³/min"


# --- helpers ---------------------------------------------------------------------------------------


def test_text_helpers() -> None:
    assert normalize("Q＝100（m³/min）：") == "Q=100(m³/min):"
    assert parse_number("1,200") == 1200 and parse_number("—") is None and parse_number(" 0.37% ") == 0.37
    assert parse_number("CH4(%)") is None and parse_number(None) is None
    assert numbers("60 × 70% × 1.0 × Q15216") == [60, 0.7, 1.0]
    assert parse_date("2026 年\n7 月 25\n日") == "2026-07-25" and parse_date("2026.8.26") == "2026-08-26"
    assert parse_date("2026年2月30日") is None
    assert name_key("15216 综采工作面") == "15216综采工作面"
    assert (
        match_name("15220运输顺槽", ["15220运输顺槽掘进工作面", "15220回风顺槽掘进工作面"])
        == "15220运输顺槽掘进工作面"
    )
    assert match_name("15216工作面", ["15216综采工作面", "15216辅运起坡段"]) is None


@pytest.mark.parametrize(
    ("label", "name", "kind"),
    [
        ("采煤工作面", "", "coal_face"),
        ("备用工作面", "", "standby_face"),
        ("掘进工作面", "", "heading"),
        ("机电硐室", "", "chamber_heat"),
        ("爆炸材料库", "", "explosives_store"),
        ("充电硐室", "", "charging"),
        ("其他用风巷道（胶轮车）", "", "diesel_roadway"),
        ("其他用风巷道", "", "other_roadway"),
        ("杂项", "", "other_roadway"),
        ("", "中央水泵房", "chamber_heat"),
        ("", "某地点", "unknown"),
    ],
)
def test_classify_kind(label: str, name: str, kind: str) -> None:
    assert classify_kind(normalize(label), name) == kind


@pytest.fixture(scope="module")
def sample_lines() -> list[str]:
    ex = extract_pdf(DATA / "plan-2026-08-a.pdf", max_pages=50)
    return [line for p in ex.pages for line in p.text.splitlines() if line.strip()]


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_parser_never_fails_on_shuffled_and_damaged_text(
    sample_lines: list[str], data: st.DataObject
) -> None:
    picked = data.draw(st.lists(st.sampled_from(sample_lines), max_size=60))
    noise = data.draw(
        st.lists(
            st.text(alphabet="0123456789.=×≤()（）：，— 按取计算煤巷工作面Q需m³/min%", max_size=30),
            max_size=10,
        )
    )
    lines = picked + noise
    data.draw(st.randoms(use_true_random=False)).shuffle(lines)
    cut = data.draw(st.integers(min_value=0, max_value=len(lines)))
    pages = [PageText(page=1, text="\n".join(lines[:cut])), PageText(page=2, text="\n".join(lines[cut:]))]
    plan = parse_plan(ExtractedPdf(page_count=2, pages=pages))
    assert not [w for w in plan.warnings if w.startswith("解析")], plan.warnings
    assert all(loc.name for loc in plan.locations)


def test_statement_wording_variants() -> None:
    text = """丙矿2026年12月份配风计划
一、风量计算
1. 1201 掘进工作面（煤巷）
断面 12.0 m²，瓦斯涌出量 0.5 m³/min。
瓦斯涌出量计算：Q=100×0.5×2.0=100.0 m³/min
局部通风机吸风量法：Q = 300 × 1 + 60 × 0.25 × 12.0 = 480.0 m³/min
故该工作面需风量为 480.0 m³/min。
风速验算：Q最小 = 60×0.25×12.0 = 180.0 m³/min，Q最大 = 60×4×12.0 = 2880.0 m³/min，满足要求。
2. 1202 掘进工作面（岩巷）
按炸药量计算：Q = 25 × 20 = 500.0 m³/min
Q需 = 500.0 m³/min
风速验算：Q需 = 500.0 ≤ 60 × 4 × 11.0 = 2640.0"""
    plan = parse_plan(ExtractedPdf(page_count=1, pages=[PageText(page=1, text=text)]))
    first, second = plan.locations
    assert (first.name, first.rock, second.rock) == ("1201掘进工作面", "coal", "rock")
    assert [(m.method, m.operands, present(m.stated).value) for m in first.methods] == [
        ("gas", [100, 0.5, 2.0], 100.0),
        ("fan_intake", [300, 1, 60, 0.25, 12.0], 480.0),
    ]
    assert present(first.stated_required).value == 480.0
    first_speed, second_speed = present(first.speed_check), present(second.speed_check)
    assert (first_speed.lower, first_speed.upper) == (180.0, 2880.0)
    assert present(second.stated_required).value == 500.0
    assert (second_speed.lower, second_speed.upper) == (None, 2640.0)


@pytest.mark.parametrize(
    ("cover", "signoff_lines"),
    [
        (
            "编号：X-TF-2026-09 版本: A/0 编制单位：通风科",
            "环节 职务 姓名 日期\n编制 通风技术员 李明 2026年8月27日\n审核 通风区区长 王建国 2026年8月28日\n"
            "批准 总工程师 陈卫东 2026年8月29日",
        ),
        (
            "版次：第二版",
            "编  制   通风技术员   李明    2026.8.27\n审  核   通风区区长   王建国  2026-08-28\n"
            "批  准   总工程师   陈卫东   2026/8/29",
        ),
        (
            "版本 V1.0",
            "编制人 通风技术员 李 明 8月27日\n审核 通风区区长 王建国 8月28日\n批准 总工程师 陈卫东 8月29日",
        ),
    ],
)
def test_signoff_table_read_as_text_lines_one_row_per_role(cover: str, signoff_lines: str) -> None:
    """A sign-off table whose ruling was lost (a photo, an unruled layout): each row a line starting with
    its role; the version written as A/0, 第二版 or V1.0."""
    text = f"红旗煤矿2026年9月份配风计划\n{cover}\n一、调风措施\n(1) 调风后30min内完成测风；\n二、编制与审批\n{signoff_lines}"
    plan = parse_plan(ExtractedPdf(page_count=1, pages=[PageText(page=1, text=text)]))
    assert plan.version
    assert [(s.role, s.title, s.name, s.date) for s in plan.signoffs] == [
        ("编制", "通风技术员", "李明", "2026-08-27"),
        ("审核", "通风区区长", "王建国", "2026-08-28"),
        ("批准", "总工程师", "陈卫东", "2026-08-29"),
    ]


def test_one_sentence_starting_with_a_role_is_not_a_signoff() -> None:
    text = "红旗煤矿2026年9月份配风计划\n一、调风措施\n审核 后方可调整风门，调风后30min内完成测风。\n"
    plan = parse_plan(ExtractedPdf(page_count=1, pages=[PageText(page=1, text=text)]))
    assert plan.signoffs == []
