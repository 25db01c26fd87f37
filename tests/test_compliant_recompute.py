"""Recomputation never inherits an out-of-range coefficient (docs/DOMAIN.md §5), and one root fault is one
finding with its consequences: a synthetic text plan whose face uses v = 1.0 m/s at an intake of
23.5 °C (row 23–26 °C: 1.5–1.8) and k_l = 1.2 on a 220 m face (> 180 m: 1.30–1.40)."""

from __future__ import annotations

import pytest

from vent_agent.documents.pdf_text import ExtractedPdf, PageText
from vent_agent.documents.plan.parser import parse_plan
from vent_agent.review.checks.calc_rules import review_calc
from vent_agent.review.findings import Severity

PAGES = [
    """红旗煤矿 2026 年 10 月份配风计划
版本：V2　　编制日期：2026年9月25日
一、编制依据
1．2026年10月采掘作业计划；2．瓦斯等级鉴定报告；3．9月测风报表；4．《煤矿安全规程》（2025年版）。
二、用风地点
序号 用风地点 类别
1 8101 采煤工作面 采煤工作面
2 8102 备用工作面 备用工作面
3 9201 岩巷掘进工作面 掘进工作面（岩巷）
三、风量计算
（一）8101 采煤工作面
基础参数：工作面长度 220m，采高 2.2m，最大控顶距 4.8m，最小控顶距 4.0m，进风温度 23.5 ℃，
绝对瓦斯涌出量 3.0m³/min，瓦斯涌出不均匀系数 1.5，最多作业人数 25 人。
按瓦斯涌出量计算：Q = 100 × q × k = 100 × 3.0 × 1.5 = 450.0 m³/min
按气象条件计算：Q = 60 × 70% × v × S × k 采高 × k 面长 = 60 × 0.7 × 1.0 × 9.68 × 1.1 × 1.2
= 536.7 m³/min""",
    """按人数计算：Q = 4 × N = 4 × 25 = 100 m³/min
取最大值：Q 需 = 536.7 m³/min
（二）8102 备用工作面
按备用工作面计算：Q = 50% × Q8101 采煤工作面 = 0.5 × 536.7 = 268.4 m³/min
取最大值：Q 需 = 268.4 m³/min
（三）9201 岩巷掘进工作面
基础参数：断面 10.0m²，一次爆破最大炸药量 12kg。
按炸药量计算：Q = 25 × A = 25 × 12 = 300.0 m³/min
取最大值：Q 需 = 300.0 m³/min
风速验算：90.0 ≤ Q 需 ≤ 2400.0
三、风量分配
序号 用风地点 需风量(m³/min) 配风量(m³/min) 实测风速(m/s) CH4(%)
1 8101 采煤工作面 536.7 600 1.20 0.30
2 8102 备用工作面 268.4 300 — —
3 9201 岩巷掘进工作面 300.0 320 0.50 0.20
四、矿井总风量
矿井总需风量：Q矿 = (536.7 + 268.4 + 300.0) × 1.20 = 1326.1 m³/min；风量备用系数 K矿=1.20；
五、审批
编制：通风技术员 张三 2026年9月25日
审核：李四 2026年9月26日
批准：总工程师 王五 2026年9月27日""",
]


@pytest.fixture(scope="module")
def plan():
    pages = [PageText(page=i + 1, text=t) for i, t in enumerate(PAGES)]
    return parse_plan(ExtractedPdf(file_name="out-of-range.pdf", page_count=2, pages=pages))


async def test_the_face_is_judged_at_the_least_demanding_compliant_values(plan) -> None:
    face = plan.location("8101 采煤工作面") or plan.location("8101采煤工作面")
    assert face is not None and face.inputs["v_climate"].value == 1.0 and face.inputs["k_l"].value == 1.2
    findings, recalcs = await review_calc(plan)
    rec = next(r for r in recalcs if r.location == face.name)
    # v = 1.5 and k_l = 1.30: 60 × 0.7 × 1.5 × 9.68 × 1.1 × 1.30 = 872.1; default 1.65, 1.35: 996.2
    assert rec.result is not None and rec.result.value == 872.1
    assert {a["symbol"]: a["compliant"] for a in rec.adjustments} == {"v": 1.5, "k_l": 1.3}
    roots = [f for f in findings if f.location == face.name and f.severity == Severity.MAJOR]
    assert len(roots) == 1, [f.message for f in findings]
    root = roots[0]
    assert root.rule_id == "calc.coefficient_range"
    assert (
        "≥ 872.1 m³/min" in root.message and "996.2 m³/min" in root.message and "v = 1.0 m/s" in root.message
    )
    kinds = [c.rule_id for c in root.consequences]
    # the lower maximum, the allocation short of it, the standby face (50 %) and the mine total follow
    assert "calc.required_low" in kinds and "calc.allocation_short" in kinds and "calc.total_low" in kinds
    standby = [c for c in root.consequences if c.location and "8102" in c.location]
    assert standby and any(c.rule_id in ("calc.required_low", "calc.allocation_short") for c in standby)
    short = next(
        c for c in root.consequences if c.rule_id == "calc.allocation_short" and c.location == face.name
    )
    assert short.figures["allocated"] == 600.0 and short.figures["required"] == 872.1
    # no separate majors for the consequences
    assert not [f for f in findings if f.severity == Severity.MAJOR and f is not root]
