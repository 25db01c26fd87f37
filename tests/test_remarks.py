"""The reviewers' model remarks (vent_agent.review.outputs.remarks) with scripted chat models: remarks added
beside the rule findings and never instead of them, the severity cap and the checks against the plan,
malformed answers, failing and slow models, the events, and the report written from them."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from docx import Document
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from reports.content import REMARKS_HEADER
from reports.docx_report import render_docx
from reports.markdown import render_markdown
from vent_agent.documents.plan.model import Plan
from vent_agent.events import EventModel
from vent_agent.review.checks.form_rules import review_form
from vent_agent.review.findings import Category, Finding, Severity
from vent_agent.review.outputs.remarks import (
    REMARKS_TOOL,
    RemarksFormatError,
    answer_text,
    build_messages,
    parse_answer,
    review_remarks,
)
from vent_agent.review.result import ReviewerOutcome, ReviewResult

FACE = "15216综采工作面"


def scripted(*answers: str | AIMessage) -> GenericFakeChatModel:
    """A chat model that answers each call with the next scripted answer."""
    return GenericFakeChatModel(messages=iter(answers))


class Recorder(BaseChatModel):
    """Records the messages of each call and answers with ``reply``."""

    reply: str = '{"remarks": []}'
    calls: list[list[BaseMessage]] = []

    @property
    def _llm_type(self) -> str:
        return "recorder"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any):
        self.calls.append(list(messages))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=self.reply))])


class Failing(BaseChatModel):
    """Raises on every call, like a provider answering 500."""

    @property
    def _llm_type(self) -> str:
        return "failing"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any):
        raise ConnectionError("provider answered 500")


class Slow(BaseChatModel):
    """Never answers within a test's time-out."""

    @property
    def _llm_type(self) -> str:
        return "slow"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any):
        raise AssertionError("the async path is used")

    async def _agenerate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ):
        await asyncio.sleep(3600)
        raise AssertionError("unreachable")


class Events:
    """Collects emitted events."""

    def __init__(self) -> None:
        self.items: list[tuple[str, dict[str, Any]]] = []

    async def __call__(self, event: EventModel) -> None:
        fields = event.wire()
        self.items.append((fields.pop("type"), fields))

    def types(self) -> list[str]:
        return [t for t, _ in self.items]


GOOD_ANSWER = {
    "remarks": [
        {
            "location": "15216 综采工作面",
            "category": "calculation",
            "severity": "major",
            "message": "需风量一栏只写“取最大值”，未写明取自哪一计算方法，建议注明。",
            "page": 2,
            "figures": {"计划取值": 630},
            "basis": "AQ 1056-2008",
        },
        {
            "location": None,
            "category": "form",
            "severity": "info",
            "message": "编制依据中测风报表的月份写法与正文不一致，建议统一。",
            "page": "第1页",
            "figures": {},
            "basis": None,
        },
    ]
}


@pytest.fixture
def rule_findings(plan_b: Plan) -> list[Finding]:
    """form-reviewer's rule findings on plan b."""
    findings = review_form(plan_b)
    assert findings
    return findings


async def test_good_remarks_are_added_and_rule_findings_untouched(
    plan_b: Plan, rule_findings: list[Finding]
) -> None:
    before = [f.model_dump() for f in rule_findings]
    events = Events()
    fenced = "好的，以下是审查意见：\n```json\n" + json.dumps(GOOD_ANSWER, ensure_ascii=False) + "\n```"
    result = await review_remarks(
        "form-reviewer", plan_b, rule_findings, model=scripted(fenced), emit=events, timeout_s=30
    )
    assert [f.model_dump() for f in rule_findings] == before
    assert result.note is None and result.model == "GenericFakeChatModel"
    first, second = result.remarks
    assert first.origin == "model" and first.reviewer == "form-reviewer"
    assert first.location == FACE and first.category == Category.CALCULATION and first.page == 2
    assert first.severity == Severity.MINOR and first.verified and "已降为一般" in first.note
    assert first.figures == {"计划取值": 630.0} and first.basis == "AQ 1056-2008"
    assert second.location is None and second.severity == Severity.INFO and second.page == 1
    assert not any(isinstance(f, type(first)) for f in rule_findings)
    assert events.types() == ["agent_thinking", "agent_thinking", "agent_thinking", "agent_tool_result"]
    assert all(f["agent"] == "form-reviewer" for _, f in events.items)
    assert events.items[1][1]["remark"]["location"] == FACE
    done = events.items[-1][1]
    assert done["tool"] == REMARKS_TOOL and "2 条" in done["message"]


async def test_unverifiable_remarks_are_kept_as_info(plan_b: Plan, rule_findings: list[Finding]) -> None:
    answer = {
        "remarks": [
            {"location": "不存在的巷道", "severity": "minor", "message": "地点写法有误。"},
            {"severity": "minor", "message": "合计写作 987.6，前后不一致。", "figures": {"合计": 987.6}},
            {"severity": "minor", "message": "第 99 页表述不清。", "page": 99},
            {
                "severity": "minor",
                "message": "核算得 1132.2，计划取值说明不清。",
                "figures": {"核算值": "1132.2 m³/min"},
            },
        ]
    }
    result = await review_remarks(
        "calc-verifier", plan_b, rule_findings, model=scripted(json.dumps(answer, ensure_ascii=False))
    )
    wrong_place, wrong_figure, wrong_page, confirmed = result.remarks
    assert wrong_place.location is None and not wrong_place.verified and "不存在的巷道" in wrong_place.note
    assert not wrong_figure.verified and "987.6" in wrong_figure.note
    assert wrong_page.page is None and not wrong_page.verified
    assert {r.severity for r in (wrong_place, wrong_figure, wrong_page)} == {Severity.INFO}
    assert confirmed.verified and confirmed.severity == Severity.MINOR
    assert confirmed.category == Category.CALCULATION  # the reviewer's default when none is given


async def test_repeats_of_rule_findings_and_extra_remarks_are_dropped(
    plan_b: Plan, rule_findings: list[Finding]
) -> None:
    items = [{"message": rule_findings[0].message + "。"}] + [{"message": f"意见{i}"} for i in range(5)]
    result = await review_remarks(
        "form-reviewer",
        plan_b,
        rule_findings,
        model=scripted(json.dumps({"remarks": items}, ensure_ascii=False)),
        max_remarks=3,
    )
    assert [r.message for r in result.remarks] == ["意见0", "意见1", "意见2"]
    assert result.note is not None and "重复" in result.note and "2 条意见已略去" in result.note


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("这份计划整体不错，没有问题。", "没有 JSON"),
        ('{"remarks": [{"message": "未闭合"', "无法解析"),
        ('{"comments": ["x"]}', "缺少 remarks"),
        ("", "为空"),
    ],
)
async def test_malformed_answer_gives_no_remarks_and_a_reason(
    plan_b: Plan, rule_findings: list[Finding], answer: str, reason: str
) -> None:
    before = [f.model_dump() for f in rule_findings]
    events = Events()
    result = await review_remarks("data-checker", plan_b, rule_findings, model=scripted(answer), emit=events)
    assert result.remarks == [] and result.note is not None and reason in result.note
    assert [f.model_dump() for f in rule_findings] == before
    assert events.types() == ["agent_thinking", "agent_tool_result"]
    assert reason in events.items[-1][1]["message"]


async def test_malformed_items_are_dropped_one_by_one(plan_b: Plan) -> None:
    answer = {"remarks": [{"message": "好的意见"}, {"severity": "minor"}, "不是对象"]}
    result = await review_remarks(
        "form-reviewer", plan_b, [], model=scripted(json.dumps(answer, ensure_ascii=False))
    )
    assert [r.message for r in result.remarks] == ["好的意见"]
    assert result.note is not None and "2 条格式不符" in result.note


async def test_a_model_that_raises_gives_no_remarks(plan_b: Plan, rule_findings: list[Finding]) -> None:
    events = Events()
    result = await review_remarks("calc-verifier", plan_b, rule_findings, model=Failing(), emit=events)
    assert result.remarks == [] and result.model == "Failing"
    assert (
        result.note is not None
        and "ConnectionError" in result.note
        and "provider answered 500" in result.note
    )
    assert events.types()[-1] == "agent_tool_result"


async def test_a_slow_model_times_out(plan_b: Plan) -> None:
    result = await review_remarks("form-reviewer", plan_b, [], model=Slow(), timeout_s=0.05)
    assert result.remarks == [] and result.note is not None and "超时" in result.note


async def test_cancelling_the_run_cancels_the_call(plan_b: Plan) -> None:
    task = asyncio.create_task(review_remarks("form-reviewer", plan_b, [], model=Slow(), timeout_s=3600))
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_no_model_no_call_no_event(plan_b: Plan, rule_findings: list[Finding]) -> None:
    events = Events()
    result = await review_remarks("form-reviewer", plan_b, rule_findings, model=None, emit=events)
    assert result.remarks == [] and result.model is None and result.note is None
    assert events.items == []


async def test_the_prompt_carries_the_reviewer_the_plan_and_its_rule_findings(
    plan_b: Plan, rule_findings: list[Finding]
) -> None:
    model = Recorder(calls=[])
    result = await review_remarks("data-checker", plan_b, rule_findings, model=model)
    assert result.remarks == [] and result.note is None
    (messages,) = model.calls
    system, user = (m.content for m in messages)
    assert "「数据一致性审查」" in system and "数据一致性审查）重点" in system
    assert "计算核验审查）重点" not in system and "{focus}" not in system
    assert '"remarks"' in system and "minor" in system
    assert FACE in user and "风量分配表" in user and "（第4页）" in user
    assert all(f.message in user for f in rule_findings)


def test_build_messages_for_each_reviewer(plan_b: Plan) -> None:
    systems = {a: build_messages(a, plan_b, [])[0].content for a in ("form-reviewer", "calc-verifier")}
    assert "签字" in systems["form-reviewer"] and "m³/s" in systems["calc-verifier"]
    assert systems["form-reviewer"] != systems["calc-verifier"]


def test_parse_answer_forms() -> None:
    items, bad = parse_answer('[{"message": "a"}]')
    assert [i.message for i in items] == ["a"] and bad == 0
    items, _ = parse_answer('说明如下 {"remarks": [{"message": "b"}]} 以上。')
    assert [i.message for i in items] == ["b"]
    assert answer_text("<think>先想想</think>\n{}") == "{}"
    assert answer_text([{"type": "text", "text": '{"remarks": []}'}]) == '{"remarks": []}'
    with pytest.raises(RemarksFormatError):
        parse_answer('{"remarks": "none"}')


# --- the report written from the remarks ----------------------------------------------------------


async def test_report_from_rule_findings_remarks_and_a_failed_reviewer(
    plan_b: Plan, rule_findings: list[Finding], tmp_path: Path
) -> None:
    """form-reviewer with remarks, data-checker failed (no remarks asked), calc-verifier's model failing:
    the report keeps every rule finding, lists the remarks apart and says who failed and why."""
    form_remarks = await review_remarks(
        "form-reviewer",
        plan_b,
        rule_findings,
        model=scripted(json.dumps(GOOD_ANSWER, ensure_ascii=False)),
    )
    calc_remarks = await review_remarks("calc-verifier", plan_b, [], model=Failing())
    outcomes = [
        ReviewerOutcome(
            agent="form-reviewer",
            findings=rule_findings,
            remarks=form_remarks.remarks,
            remarks_model=form_remarks.model,
            remarks_note=form_remarks.note,
        ),
        ReviewerOutcome(agent="data-checker", error="TimeoutError: MCP query_ventilation_report"),
        ReviewerOutcome(
            agent="calc-verifier",
            remarks=calc_remarks.remarks,
            remarks_model=calc_remarks.model,
            remarks_note=calc_remarks.note,
        ),
    ]
    result = ReviewResult(
        file_name="plan-2026-08-b.pdf",
        sha256="ab" * 32,
        created_at="2026-08-03T09:30:00+08:00",
        reviewers=outcomes,
    )
    assert len(result.findings) == len(rule_findings) and len(result.remarks) == 2
    md = render_markdown(result)
    assert "数据一致性审查：失败（TimeoutError: MCP query_ventilation_report）" in md
    assert "计算核验审查：模型调用失败（ConnectionError" in md
    assert md.count("需风量一栏只写“取最大值”") == 1
    doc = Document(str(render_docx(result, tmp_path / "r.docx")))
    remarks = next(t for t in doc.tables if tuple(c.text for c in t.rows[0].cells) == REMARKS_HEADER)
    assert [r.cells[5].text.split("\n")[0] for r in remarks.rows[1:]] == [r.message for r in result.remarks]


async def test_a_remark_on_a_problem_the_rules_judged_is_kept_as_info(plan_b: Plan) -> None:
    rule = Finding(
        location=FACE,
        category=Category.CALCULATION,
        severity=Severity.MAJOR,
        message="需风量未取各方法最大值",
        figures={"stated": 630.0, "recomputed": 1132.2},
        rule="需风量取各计算方法的最大值",
        source="AQ 1056-2008",
        page=2,
    )
    answer = {
        "remarks": [
            {
                "location": FACE,
                "severity": "minor",
                "message": "计算表写取最大值 630，而气象条件法为 1132.2，表述前后矛盾。",
                "figures": {"计划取值": 630, "气象条件法": 1132.2},
            }
        ]
    }
    result = await review_remarks(
        "calc-verifier", plan_b, [rule], model=scripted(json.dumps(answer, ensure_ascii=False))
    )
    (remark,) = result.remarks
    assert remark.verified and remark.severity == Severity.INFO
    assert "已由规则判定（需风量未取各方法最大值）" in remark.note
    assert rule.severity == Severity.MAJOR and rule.figures == {"stated": 630.0, "recomputed": 1132.2}
