"""Synthetic plans in other wordings and layouts than the sample PDFs, for the parser and rule tests.

- :func:`variant_pdf`: a four-page PDF (built with :mod:`pdf_factory`): mine name on its own cover
  line, arabic section numbers, no location list (names come from the allocation table), ``2.1``
  location headings, 基本参数 / 不均衡系数 / ``·`` operators / 需风量取值 / 风速校核 wording, a block
  split by a page break under a running header and ``第 N 页 共 M 页`` footers, a two-row allocation
  header with m3/min units and a 合计 row, a transposed sign-off table, and two editions of the 规程.
- :func:`text_plan`: an :class:`ExtractedPdf` made of text only (no ruled tables): the location list,
  the allocation table (m³/s, a name wrapped over two lines) and inline sign-offs read from lines.
"""

from __future__ import annotations

from tests.pdf_factory import Page, build_pdf
from vent_agent.documents.pdf_text import ExtractedPdf, PageText

HEADER = "测试煤业有限公司2026年9月份矿井配风计划"


def _page(no: int, total: int) -> Page:
    p = Page()
    p.text(57, 30, HEADER, 9)
    p.text(260, 800, f"第 {no} 页 共 {total} 页", 9)
    return p


def variant_pdf() -> bytes:
    """The four-page variant plan described in the module docstring."""
    total = 4
    p1 = _page(1, total)
    p1.y = 70
    for line in ("测试煤业有限公司", "2026年9月份矿井配风计划", "版本号：2.1", "编制日期：2026-08-26"):
        p1.para(line, 14 if "计划" in line else 10.5)
    for line in (
        "1、编制依据",
        "（1）《煤矿安全规程》（2022年版）；",
        "（2）AQ 1056—2008《煤矿通风能力核定标准》；",
        "（3）2026年9月份采掘作业计划；",
        "（4）矿井瓦斯等级鉴定报告；",
        "（5）8月下旬测风报表。",
        "2、用风地点及需风量计算",
        "2.1 3101综放工作面",
        "基本参数：工作面斜长 180 m，采放高度 3.0 m，最大控顶距 5.2 m，最小控顶距 4.4 m，瓦斯绝对涌出量为 "
        "2.50 m³/min，瓦斯涌出不均衡系数取 1.6，进风温度 21 ℃，同时作业最多人数 30 人。",
        "（1）按瓦斯（CH₄）涌出量计算：Q = 100·q·k = 100 × 2.50 × 1.6 = 400.0 m³/min",
        "（2）按工作面温度计算：Q = 60 × 70% × v × S × kh × kl = 60 × 0.7 × 1.2 × 14.4 × 1.1 × 1.2 = 958.1 m³/min",
        "（3）按人数计算：Q = 4 × 30 = 120 m³/min",
        "需风量取值：Q需 = max(400.0, 958.1, 120) = 958.1 m³/min",
        "风速校核：60 × 0.25 × 10.92 = 163.8 ≤ 958.1 ≤ 60 × 4 × 9.24 = 2217.6，满足2025年版《煤矿安全规程》第157条要求。",
        "2.2 3102运输巷掘进工作面（半煤岩巷）",
        "巷道断面 11.0 m²，绝对瓦斯涌出量 0.9 m³/min，不均匀系数 1.8，局扇 FBDNo6.0/2×22（单台吸风量 300 m³/min，2台），"
        "最多作业人数 12 人。",
    ):
        p1.para(line)
    p2 = _page(2, total)
    p2.y = 60
    for line in (
        "按瓦斯涌出量计算：Q = 100 × q × k = 100 × 0.9 × 1.8 = 162.0 m³/min",
        "按局部通风机吸风量计算：Q = Qf × I + 60 × 0.25 × S = 300 × 2 + 60 × 0.25 × 11.0 = 765.0 m³/min",
        "取最大值 Q需 = 765.0 m³/min",
        "2.3 1号变电所",
        "按机电设备发热量计算：Q = 3600 × ΣW × θ / (ρ × Cp × 60 × Δt) = 3600 × 500 × 0.03 / (1.2 × 1.0006 × 60 × 4) "
        "= 187.4 m³/min",
        "取最大值：Q需 = 3.12 m³/s",
    ):
        p2.para(line)
    p3 = _page(3, total)
    p3.y = 60
    p3.para("3、风量分配表")
    p3.table(
        [
            ["序号", "地点名称", "需风量(m3/min)", "配风量(m3/min)", "实测", "", "", "备注"],
            ["", "", "", "", "风速(m/s)", "CH4(%)", "温度(℃)", ""],
            ["1", "3101综放工作面", "958.1", "1,000", "1.45", "0.42", "21.0", "—"],
            ["2", "3102运输巷掘进工作面", "765.0", "800", "1.10", "0.35", "20.0", ""],
            ["3", "1号变电所", "187.4", "200", "—", "—", "—", ""],
            ["", "合计", "1910.5", "2000", "", "", "", ""],
        ],
        [36, 96, 62, 62, 52, 52, 52, 48],
    )
    for line in (
        "4、矿井总风量",
        "矿井总需风量：Q矿 = (958.1 + 765.0 + 187.4) × 1.20 = 2292.6 m³/min；风量备用系数 K矿=1.20；",
        "矿井通风能力为 3000 m³/min，井下最多人数 150 人，4 × 150 = 600 m³/min。",
    ):
        p3.para(line)
    p4 = _page(4, total)
    p4.y = 60
    p4.para("5、签字")
    p4.table(
        [
            ["审批环节", "姓名", "职务", "日期"],
            ["编制", "张三", "通风技术员", "2026.8.26"],
            ["审核", "李四", "通风区长", "2026.8.27"],
            ["审核", "赵六", "通风副总工程师", "2026.8.27"],
            ["批准", "王五", "总工程师", "2026.8.28"],
        ],
        [80, 100, 120, 100],
    )
    return build_pdf([p1, p2, p3, p4])


TEXT_PAGES = [
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
基础参数：工作面长度 150m，采高 2.2m，最大控顶距 4.8m，最小控顶距 4.0m，
绝对瓦斯涌出量 3.0m³/min，瓦斯涌出不均匀系数 1.5，最多作业人数 25 人。
按瓦斯涌出量计算：Q = 100 × q × k = 100 × 3.0 × 1.5 = 450.0 m³/min
按气象条件计算：Q = 60 × 70% × v × S × k 采高 × k 面长 = 60 × 0.7 × 1.0 × 9.68 × 1.1 × 1.1
= 491.9 m³/min""",
    """按人数计算：Q = 4 × N = 4 × 25 = 100 m³/min
取最大值：Q 需 = 900.0 m³/min
（二）8102 备用工作面
按备用工作面计算：Q = 50% × Q8101 采煤工作面 = 0.5 × 900.0 = 450.0 m³/min
取最大值：Q 需 = 450.0 m³/min
（三）9201 岩巷掘进工作面
基础参数：断面 10.0m²，一次爆破最大炸药量 12kg。
按炸药量计算：Q = 25 × A = 25 × 12 = 300.0 m³/min
取最大值：Q 需 = 360.0 m³/min
风速验算：90.0 ≤ Q 需 ≤ 2400.0
三、风量分配
序号 用风地点 需风量(m³/s) 配风量(m³/s) 实测风速(m/s) CH4(%)
1 8101 采煤工作面 15.0 16.0 1.20 0.30
2 8102 备用工作面 7.5 8.0 — —
3 9201 岩巷掘进
工作面 6.0 6.5 0.10 1.00
四、审批
编制：通风技术员 张三 2026年9月25日
审核：李四 2026年9月26日
批准：""",
]


def text_plan() -> ExtractedPdf:
    """The text-only plan (two pages, no ruled tables)."""
    pages = [PageText(page=i + 1, text=t) for i, t in enumerate(TEXT_PAGES)]
    return ExtractedPdf(file_name="text-plan.pdf", page_count=len(pages), pages=pages)
