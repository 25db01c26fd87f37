"""The recalculation chapter of the Markdown report: every method of a location with its inputs, formula
and substituted values, coefficients and sources, the governing maximum, and the appendix of every
location, including those that could not be recalculated."""

from __future__ import annotations

from reports.markdown import render_markdown
from tests.report_samples import make_result


def test_markdown_recalculation_section() -> None:
    md = render_markdown(make_result())
    assert "### 1. 15216综采工作面（采煤工作面，计划第 5 页）" in md
    assert "| 计算方法 | 输入参数 | 计算公式及代入数值 | 结果 | 系数及来源 | 依据 |" in md
    assert (
        "| 按瓦斯涌出量 | 瓦斯（CH₄）绝对涌出量 q = 4.2 m³/min<br>采煤方法 = 综采 | "
        "Q = 100·q·k<br>Q = 100 × 4.20 × 1.5 = 630.0 m³/min | 630.0 m³/min | k = 1.5（计划给定；范围 1.2–1.6） |"
        in md
    )
    assert "| 按气象条件（取值） | — | Q = 60·0.70·v·S·k_h·k_l<br>Q = 60 × 0.70 × 1.2 × 18.72" in md
    assert "Q = 4 × 30 = 120.0 m³/min" in md
    assert "- 需风量取各方法最大值：1132.2 m³/min（按气象条件）。" in md
    assert "允许 282.6–3014.4 m³/min，合格" in md
    assert "计划值偏差 -44.4%；配风余量 -432.2（配风量 < 核算需风量）" in md
    # the body details the locations with a finding; the appendix has every location in its overview and
    # details the others, naming the ones in the body once (no empty heading)
    assert "15216综采工作面的核算明细见正文第三部分，以下列出其余地点。" in md
    assert "### 1. 15216综采工作面\n" not in md.split("附录", 1)[1]
    assert "| 15216综采工作面 | 采煤工作面 | 630.0 | 1132.2 | 按气象条件 | 700.0 | 否 | 合格 |" in md
    assert "| 中央变电所 | 硐室 | — | — | 未核算 | — | — | — |" in md
    assert "### 1. 中央变电所（硐室）\n\n未能核算。缺少设备功率" in md
