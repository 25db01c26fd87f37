"""A review result for the report tests: three reviewers, findings of every severity and category,
model remarks, a recalculated face; helpers reading the rendered Markdown."""

from __future__ import annotations

import re

from calc.result import BoundCheck, CalcResult, Coefficient, MaxResult
from vent_agent.review.findings import Category, Evidence, Finding, Severity
from vent_agent.review.result import LocationRecalc, Remark, ReviewerOutcome, ReviewResult

CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")


FACE = "15216综采工作面"


def finding(severity: Severity, category: Category, message: str, **kw) -> Finding:
    """A finding with the fields a test does not care about filled in."""
    kw.setdefault("location", FACE)
    kw.setdefault("rule", "规则")
    kw.setdefault("source", "AQ 1056-2008")
    return Finding(severity=severity, category=category, message=message, **kw)


def remark(agent: str, message: str, **kw) -> Remark:
    """A model remark with the fields a test does not care about filled in."""
    kw.setdefault("location", None)
    kw.setdefault("category", Category.FORM)
    kw.setdefault("severity", Severity.INFO)
    return Remark(
        message=message, rule="语言与逻辑审查（模型意见）", source="语言模型意见", reviewer=agent, **kw
    )


def face_recalc() -> LocationRecalc:
    """The 15216 face: three methods, the climate method governs, one speed check."""
    gas = CalcResult(
        value=630.0,
        method="calc_face_by_gas",
        method_cn="按瓦斯涌出量",
        formula="Q = 100·q·k",
        substituted="Q = 100 × 4.20 × 1.5 = 630.0 m³/min",
        inputs={"gas_emission": 4.2, "mining_method": "综采"},
        coefficients=[Coefficient(symbol="k", value=1.5, origin="given", valid_range=(1.2, 1.6))],
        source="AQ 1056-2008 附录",
    )
    climate = CalcResult(
        value=1132.2,
        method="calc_face_by_climate",
        method_cn="按气象条件",
        formula="Q = 60·0.70·v·S·k_h·k_l",
        substituted="Q = 60 × 0.70 × 1.2 × 18.72 × 1.2 × 1.0 = 1132.2 m³/min",
        warnings=["v 取 20–23 °C 区间中值"],
    )
    workers = CalcResult(
        value=120.0,
        method="calc_face_by_workers",
        method_cn="按工作人数",
        formula="Q = 4·N",
        substituted="Q = 4 × 30 = 120.0 m³/min",
        source="《煤矿安全规程》第159条",
    )
    check = BoundCheck(
        name="风速校验",
        value=1132.2,
        lower=282.6,
        upper=3014.4,
        ok=True,
        formula="60 × 0.25 × 18.84 ≤ Q ≤ 60 × 4 × 12.56",
        source="《煤矿安全规程》第157条",
    )
    best = MaxResult(
        value=1132.2,
        method="calc_coal_face",
        method_cn="采煤工作面需风量",
        formula="max(...)",
        substituted="max(630.0, 1132.2, 120.0) = 1132.2 m³/min",
        methods=[gas, climate, workers],
        governing="calc_face_by_climate",
        checks=[check],
    )
    return LocationRecalc(
        location=FACE, kind="coal_face", result=best, stated_required=630.0, allocated=700.0, page=5
    )


def make_result(*, reviewers: list[ReviewerOutcome] | None = None) -> ReviewResult:
    """Three reviewers, findings of every severity and category, data-checker failed part-way."""
    if reviewers is None:
        form = ReviewerOutcome(
            agent="form-reviewer",
            findings=[
                finding(
                    Severity.MAJOR,
                    Category.FORM,
                    "批准（总工程师）签字及日期缺失，计划未生效",
                    location=None,
                    page=1,
                    reviewer="form-reviewer",
                ),
                finding(
                    Severity.INFO,
                    Category.REGULATION,
                    "引用规程版本一致",
                    location=None,
                    reviewer="form-reviewer",
                ),
            ],
            remarks=[
                remark("form-reviewer", "封面“编制日期”与签字日期写法不一致，建议统一为 YYYY年M月D日。")
            ],
            remarks_model="fake-model",
            duration_ms=1200,
        )
        data = ReviewerOutcome(
            agent="data-checker",
            findings=[
                finding(
                    Severity.MAJOR,
                    Category.DATA,
                    "瓦斯涌出量与鉴定报告不符",
                    location="15220回风顺槽掘进工作面",
                    figures={"plan": 1.10, "report": 1.6},
                    unit="m³/min",
                    page=7,
                    reviewer="data-checker",
                    evidence=[
                        Evidence(kind="reference", text="瓦斯等级鉴定报告", detail={"tool": "get_gas_report"})
                    ],
                )
            ],
            error="MCP 工具超时：get_air_survey",
            duration_ms=30000,
        )
        calc = ReviewerOutcome(
            agent="calc-verifier",
            findings=[
                finding(
                    Severity.CRITICAL,
                    Category.REGULATION,
                    "回风流中甲烷浓度 1.05% 达到 1.0%，须停止工作、撤出人员",
                    location="15220回风顺槽掘进工作面",
                    figures={"measured": 1.05, "limit": 1.0},
                    unit="%",
                    source="《煤矿安全规程》第192条",
                    page=9,
                ),
                finding(
                    Severity.MAJOR,
                    Category.CALCULATION,
                    "需风量应取最大值 1132.2，计划取 630.0",
                    figures={"stated": 630.0, "recomputed": 1132.2, "allocated": 700.0},
                    unit="m³/min",
                    page=5,
                    evidence=[Evidence(kind="pdf", page=5, table=2, row=4, column="需风量", text="630.0")],
                ),
                finding(
                    Severity.MINOR,
                    Category.UNITS,
                    "需风量单位 m³/s | m³/min 混用\n第二行说明",
                    location="井下爆炸材料库",
                    figures={"stated": 1.33, "recomputed": 80.0},
                    page=11,
                ),
            ],
            remarks=[
                remark(
                    "calc-verifier",
                    "15216综采工作面取值说明只写“取最大值”，未写明取自哪一方法。",
                    location=FACE,
                    category=Category.CALCULATION,
                    severity=Severity.MINOR,
                    figures={"计划取值": 630.0},
                    page=5,
                    basis="AQ 1056-2008",
                ),
                remark(
                    "calc-verifier",
                    "合计一节引用的 999 m³/min 在计划中未见。",
                    verified=False,
                    figures={"合计": 999.0},
                    note="所引数值 999 未在计划或规则核算结果中找到；未核实，仅作提示",
                ),
            ],
            remarks_model="fake-model",
            remarks_note="1 条与规则结论重复或为空的意见已略去",
            duration_ms=800,
        )
        reviewers = [form, data, calc]
    return ReviewResult(
        file_name="plan-2026-08-b.pdf",
        sha256="0123456789abcdef" * 4,
        title="2026年8月配风计划",
        mine="示范煤矿",
        month="2026-08",
        created_at="2026-08-03T09:30:00+08:00",
        page_count=14,
        reviewers=reviewers,
        recalcs=[face_recalc(), LocationRecalc(location="中央变电所", kind="chamber", note="缺少设备功率")],
        plan_warnings=["第 12 页表格跨页，已合并"],
    )


def findings_rows(markdown: str) -> list[str]:
    """The data rows of the findings table."""
    section = markdown.split("## 二、问题清单", 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if re.match(r"\| \d+ \|", line)]


def section(markdown: str, heading: str) -> str:
    """The text of one chapter (from its ``## `` heading to the next)."""
    return markdown.split(f"## {heading}", 1)[1].split("\n## ", 1)[0]
