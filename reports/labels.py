"""Chinese labels shared by the Markdown and Word renderers: severities, categories, reviewers, location
kinds, calculation methods, compared figures, evidence kinds, editions, and the report's fixed texts.

Every lookup falls back to the key itself, so a new key renders as its identifier rather than failing.
"""

from __future__ import annotations

import re

from calc.catalog import PARAMS
from vent_agent.review.findings import Category, Severity
from vent_agent.review.result import REVIEWERS

SEVERITY_LABELS: dict[Severity, str] = {
    Severity.CRITICAL: "严重",
    Severity.MAJOR: "重大",
    Severity.MINOR: "一般",
    Severity.INFO: "提示",
}

CATEGORY_LABELS: dict[Category, str] = {
    Category.FORM: "形式",
    Category.DATA: "数据",
    Category.CALCULATION: "计算",
    Category.UNITS: "单位",
    Category.REGULATION: "规程",
}

#: The reviewers' Chinese names live with the review result; re-exported here for the renderers.
REVIEWER_LABELS: dict[str, str] = REVIEWERS

LOCATION_KIND_LABELS: dict[str, str] = {
    "coal_face": "采煤工作面",
    "standby_face": "备用工作面",
    "heading": "掘进工作面",
    "chamber": "硐室",
    "chamber_heat": "机电硐室",
    "electro_chamber": "机电硐室",
    "explosives_store": "爆炸材料库",
    "charging": "充电硐室",
    "charging_chamber": "充电硐室",
    "other_roadway": "其他用风巷道",
    "diesel_roadway": "胶轮车运行巷道",
    "mine_total": "矿井总风量",
    "unknown": "未识别类型",
}

#: Fallback labels of calculator methods; a :class:`calc.result.CalcResult` carries its own
#: ``method_cn``, which takes precedence (see :func:`method_label`).
METHOD_LABELS: dict[str, str] = {
    "calc_face_by_gas": "按瓦斯涌出量",
    "calc_face_by_co2": "按二氧化碳涌出量",
    "calc_face_by_climate": "按气象条件",
    "calc_face_by_climate_legacy": "按气象条件（旧式）",
    "calc_face_by_workers": "按工作人数",
    "calc_face_by_explosives": "按炸药用量",
    "calc_heading_by_gas": "按瓦斯涌出量",
    "calc_heading_by_explosives": "按炸药用量",
    "calc_heading_by_fan": "按局部通风机吸风量",
    "calc_heading_by_workers": "按工作人数",
    "calc_heading_by_diesel": "按胶轮车功率",
    "calc_chamber_by_heat": "按机电设备发热量",
    "calc_explosives_store": "按爆炸材料库换气次数",
    "calc_charging_chamber": "按充电硐室氢气涌出量",
    "calc_roadway_by_gas": "按瓦斯涌出量",
    "calc_mine_total": "矿井总需风量",
}

COEFFICIENT_ORIGIN_LABELS: dict[str, str] = {
    "given": "计划给定",
    "table": "查表",
    "default": "默认值",
}

FIGURE_LABELS: dict[str, str] = {
    "stated": "计划值",
    "plan": "计划值",
    "recomputed": "核算值",
    "required": "需风量",
    "allocated": "配风量",
    "reference": "参考值",
    "report": "鉴定报告值",
    "measured": "实测值",
    "back_calculated": "反算值",
    "expected": "应为",
    "actual": "实际",
    "limit": "限值",
    "threshold": "限值",
    "lower": "下限",
    "upper": "上限",
    "difference": "差值",
    "deviation": "偏差",
    "tolerance": "容差",
    "sum_stated": "计划合计",
    "sum_computed": "核算合计",
    "concentration": "浓度",
    "speed": "风速",
    "value": "计划值",
    "op": "判定",
    "survey": "测风报表值",
    "procedure": "作业规程值",
    "mining_plan_state": "采掘计划状态",
    "in_plan": "列入配风计划",
    "deviation_pct": "偏差（%）",
    "plan_v": "计划风速",
    "required_v": "应取风速",
    "temperature": "温度",
    "capacity": "通风能力",
    "low": "下限",
    "high": "上限",
    "role": "审批环节",
    "copies": "副本数",
    "copy_pages": "副本所在页",
    "differing_pages": "内容不同的页数",
    "not_read": "未能可靠识别的数据项数",
    "not_judged": "未据以判定的问题数",
    "title": "职务",
    "name": "签字",
    "date": "日期",
    "signed": "签字日期",
    "approved": "批准日期",
    "prepared_date": "编制日期",
    "month": "计划月份",
    "month_start": "计划月份起始日",
    "mine": "矿井",
    "tool": "参考数据",
    "missing": "缺少",
    "editions": "引用版本",
}
COUNT_FIGURES = frozenset({"copies", "differing_pages", "not_read", "not_judged"})
"""Figures that are counts: written as whole numbers."""

OPERATOR_LABELS: dict[str, str] = {">=": "≥（达到）", ">": "＞", "<=": "≤", "<": "＜", "==": "＝"}

#: The reference-data tools (MCP) a data finding cites, by the document they serve.
TOOL_LABELS: dict[str, str] = {
    "query_monthly_mining_plan": "月度采掘计划",
    "query_working_face_procedure": "作业规程",
    "query_gas_identification_report": "瓦斯等级鉴定报告",
    "query_ventilation_report": "测风报表",
}

CHECK_LABELS: dict[str, str] = {"wind_speed": "风速校验"}

#: Inputs of calculators that the glossary (:data:`calc.catalog.PARAMS`) does not name.
EXTRA_INPUT_LABELS: dict[str, tuple[str, str]] = {
    "total_kw": ("胶轮车总功率", "kW"),
    "roadway_class": ("巷道类别", ""),
}

EVIDENCE_KIND_LABELS: dict[str, str] = {
    "pdf": "原文",
    "reference": "参考数据",
    "calc": "核算",
    "clause": "规程条款",
}

EDITION_LABELS: dict[str, str] = {
    "2025": "《煤矿安全规程》2025 版（条款重新编号版）",
    "2016": "《煤矿安全规程》2016 版（2022 年修订）",
    "2022": "《煤矿安全规程》2016 版（2022 年修订）",
}

REMARK_STATUS_VERIFIED = "已核实"
REMARK_STATUS_UNVERIFIED = "未核实"

VERDICT_CRITICAL = "存在严重问题，须立即处置"
VERDICT_MAJOR = "存在重大问题，计划不能执行"
VERDICT_CLEAR = "未发现重大问题"
VERDICT_UNREADABLE = "无法可靠审查：计划各部分均未能可靠读取，未作判定"
VERDICT_PARTLY_READ = "（部分内容未能可靠读取，见识别情况）"
NO_FINDINGS = "未发现问题"
EMPTY = "—"

NOTICE = (
    "说明：本报告中的数值取自计划原文、参考数据（采掘计划、瓦斯等级鉴定报告、作业规程、测风报表）"
    "和确定性计算模块；问题及其严重程度由确定性规则判定。"
)
NOTICE_REMARKS = "第{chapter}部分的模型意见由语言模型撰写，仅作补充说明，不改变、不隐藏规则判定的结论。"
"""What :data:`NOTICE` adds when a language model wrote remarks (``chapter``: their chapter's numeral)."""


def severity_label(severity: Severity | str) -> str:
    """Chinese label of a severity (严重/重大/一般/提示)."""
    return SEVERITY_LABELS.get(Severity(severity), str(severity))


def category_label(category: Category | str) -> str:
    """Chinese label of a category (形式/数据/计算/单位/规程)."""
    return CATEGORY_LABELS.get(Category(category), str(category))


def reviewer_label(agent: str) -> str:
    """Chinese name of a reviewer, or its identifier when unknown."""
    return REVIEWER_LABELS.get(agent, agent)


def location_kind_label(kind: str) -> str:
    """Chinese label of a location kind (coal_face → 采煤工作面)."""
    return LOCATION_KIND_LABELS.get(kind, kind)


def method_label(method: str, method_cn: str = "") -> str:
    """Chinese label of a calculation method: the calculator's own ``method_cn`` when it has one."""
    return method_cn or METHOD_LABELS.get(method, method)


def figure_label(key: str) -> str:
    """Chinese label of a compared figure's key (stated → 计划值; ``审核_date`` → 审核日期)."""
    if key not in FIGURE_LABELS and key.endswith("_date"):
        return key.removesuffix("_date") + "日期"
    return FIGURE_LABELS.get(key, key)


def operator_label(op: str) -> str:
    """A comparison operator as the report writes it (``>=`` → ``≥（达到）``)."""
    return OPERATOR_LABELS.get(op, op)


def tool_label(tool: str) -> str:
    """The document a reference-data tool serves (query_ventilation_report → 测风报表)."""
    return TOOL_LABELS.get(tool, tool)


def check_label(name: str) -> str:
    """Chinese label of a bound check (wind_speed → 风速校验)."""
    return CHECK_LABELS.get(name, name)


def input_text(key: str, value: float | int | str | None, number: str) -> str:
    """One calculator input as ``label = value unit`` (``number`` is the value already formatted);
    a coded value (``rock``) is written in Chinese when the glossary gives its name (岩巷)."""
    doc = PARAMS.get(key)
    label, unit = (doc.label_cn, doc.unit) if doc else EXTRA_INPUT_LABELS.get(key, (key, ""))
    label, _, options = label.partition("：")
    if isinstance(value, str):
        named = re.search(rf"(?<![A-Za-z_]){re.escape(value)}\s+([^\s/]+)", options)
        return f"{label} = {named.group(1) if named else value}"
    return f"{label} = {number} {unit}".rstrip()


def edition_label(edition: str) -> str:
    """Full name of the 《煤矿安全规程》 edition used."""
    return EDITION_LABELS.get(edition, f"《煤矿安全规程》{edition} 版")


COLUMN_LABELS = {
    "name": "地点名称",
    "location": "地点名称",
    "required_q": "需风量",
    "allocated_q": "配风量",
    "planned_speed": "计划风速",
    "measured_speed": "实测风速",
    "measured_q": "实测风量",
    "area": "断面",
    "ch4": "甲烷浓度",
    "co2": "二氧化碳浓度",
    "temperature": "温度",
    "signoff_role": "审批环节",
    "signer": "签字",
    "signoff_date": "签字日期",
}


def column_label(column: str) -> str:
    """Chinese name of a plan table column read by the parser (``allocated_q`` → 配风量); a column
    already named in Chinese as is; an unknown code name → empty (not shown)."""
    if column in COLUMN_LABELS:
        return COLUMN_LABELS[column]
    return "" if re.fullmatch(r"[A-Za-z0-9_]+", column) else column


_SOURCE_WORDS = (
    ("; ", "；"),
    ("ranges: ", "系数范围："),
    ("k: ", "系数 k："),
    ("k_mine: ", "矿井需风系数："),
    ("intake air: ", "进风要求："),
    ("minimum: ", "最小风量："),
    (" (same structure as CH₄)", "（与甲烷法相同）"),
    ("工程实践 (practice)", "工程实践"),
    ("older textbook form", "旧式公式"),
    ("current form: ", "现行公式："),
)


def source_text(source: str | None) -> str:
    """A calculator's source in Chinese (``AQ 1056-2008…; ranges: 工程实践 (practice)`` →
    ``AQ 1056-2008…；系数范围：工程实践``)."""
    text = source or ""
    for a, b in _SOURCE_WORDS:
        text = text.replace(a, b)
    return text
