"""Model remarks in the report: a section of their own, marked as the model's, never changing counts or
the verdict; when none were made, the report says why."""

from __future__ import annotations

import re

from reports.content import REMARKS_HEADER
from reports.markdown import render_markdown
from tests.report_samples import FACE, findings_rows, make_result, section
from vent_agent.review.result import ReviewerOutcome


def test_markdown_model_remarks_have_their_own_marked_section() -> None:
    md = render_markdown(make_result())
    text = section(md, "五、模型审查意见（语言与逻辑，仅供参考）")
    assert "由语言模型（fake-model）按各审查环节撰写" in text and "不改变审查结论" in text
    assert "| " + " | ".join(REMARKS_HEADER) + " |" in text
    rows = [line for line in text.splitlines() if re.match(r"\| \d+ \|", line)]
    assert len(rows) == 3
    assert rows[0].startswith("| 1 | 基本形式审查 | 计划整体 | 形式 | 提示 | 封面“编制日期”")
    assert rows[1].startswith(f"| 2 | 计算核验审查 | {FACE} | 计算 | 一般 | ")
    assert "<br>模型所述依据（未核实）：AQ 1056-2008<br>所引数值：计划取值 630.0 | 已核实 | 5 |" in rows[1]
    assert "| 未核实<br>所引数值 999 未在计划或规则核算结果中找到；未核实，仅作提示 | — |" in rows[2]
    assert "- 计算核验审查：1 条与规则结论重复或为空的意见已略去" in text


def test_model_remarks_do_not_change_counts_or_verdict() -> None:
    base = make_result()
    bare = base.model_copy(deep=True)
    for outcome in bare.reviewers:
        outcome.remarks, outcome.remarks_model, outcome.remarks_note = [], None, None
    assert base.counts() == bare.counts()
    rows = findings_rows(render_markdown(base))
    assert rows == findings_rows(render_markdown(bare))
    md = render_markdown(bare)
    assert "本次审查未使用语言模型，无模型意见" in section(md, "一、审查结论")


def test_a_review_with_no_model_has_no_model_chapter_and_no_gap_in_the_numbers() -> None:
    """No language model asked: the conclusion says so in one line; no chapter of model remarks, empty or
    not, the sign-off numbered next, and the closing note says nothing of a model."""
    result = make_result()
    for outcome in result.reviewers:
        outcome.remarks, outcome.remarks_model, outcome.remarks_note = [], None, None
    md = render_markdown(result)
    headings = [line[3:] for line in md.splitlines() if line.startswith("## ")]
    assert headings == [
        "一、审查结论",
        "二、问题清单",
        "三、有问题地点的需风量核算",
        "四、各审查环节情况",
        "五、审阅签字",
        "附录  各用风地点需风量核算明细",
    ]
    assert md.count("语言模型") == 1 and "模型" not in section(md, "五、审阅签字")
    assert "确定性规则判定" in section(md, "五、审阅签字")


def test_model_asked_but_no_remarks_says_why() -> None:
    reviewers = [
        ReviewerOutcome(
            agent=a, remarks_model="fake-model", remarks_note="模型调用超时（60 秒），本环节无模型意见"
        )
        for a in ("form-reviewer", "data-checker", "calc-verifier")
    ]
    text = section(
        render_markdown(make_result(reviewers=reviewers)), "五、模型审查意见（语言与逻辑，仅供参考）"
    )
    assert "模型未提出补充意见。" in text
    assert text.count("模型调用超时（60 秒）") == 3
