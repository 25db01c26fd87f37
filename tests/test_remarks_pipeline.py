"""The reviewers' model remarks inside the review pipeline: each reviewer asks the model after its rules,
the rule findings are the same as without a model, a failing model or reviewer never fails the review,
and the report is written from what there is."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from reports.markdown import render_markdown
from vent_agent.documents.upload import sha256_file
from vent_agent.events import EventModel
from vent_agent.review.outputs.remarks import REMARKS_TOOL
from vent_agent.review.reference import default_reference
from vent_agent.review.result import ReviewResult
from vent_agent.review.service.pipeline import ReviewRequest, review_plan
from vent_agent.settings import Settings

pytestmark = pytest.mark.skipif(
    "remarks_model" not in inspect.signature(review_plan).parameters,
    reason="review_plan does not take remarks_model yet (pipeline change pending)",
)

FORM_ANSWER = '{"remarks": [{"severity": "minor", "message": "编制依据中各文件的版本写法不统一，建议注明年份。", "page": 1}]}'


class PerReviewer(BaseChatModel):
    """Answers by the reviewer named in the system prompt: form-reviewer gets a remark, data-checker a
    malformed answer, calc-verifier an exception. Records which reviewers called."""

    callers: list[str] = []

    @property
    def _llm_type(self) -> str:
        return "per-reviewer"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any):
        system = str(messages[0].content)
        if "「基本形式审查」" in system:
            self.callers.append("form-reviewer")
            text = FORM_ANSWER
        elif "「数据一致性审查」" in system:
            self.callers.append("data-checker")
            text = "计划整体较好。"
        else:
            self.callers.append("calc-verifier")
            raise RuntimeError("model endpoint down")
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])


def _key(result: ReviewResult) -> list[tuple[str, str | None, str, str, str]]:
    return [(f.reviewer, f.location, f.category, f.severity, f.message) for f in result.findings]


async def _review(
    pdf: Path, tmp_path: Path, model: BaseChatModel | None
) -> tuple[ReviewResult, list[tuple[str, dict[str, Any]]]]:
    events: list[tuple[str, dict[str, Any]]] = []

    async def emit(event: EventModel) -> None:
        fields = event.wire()
        events.append((fields.pop("type"), fields))

    settings = Settings(_env_file=None, data_dir=tmp_path / "d")
    req = ReviewRequest(pdf, sha256_file(pdf), pdf.name)
    result = await review_plan(req, settings, emit, default_reference(), remarks_model=model)
    return result, events


async def test_remarks_are_added_beside_unchanged_rule_findings(plan_b_pdf: Path, tmp_path: Path) -> None:
    bare, bare_events = await _review(plan_b_pdf, tmp_path, None)
    assert not any(f.get("tool") == REMARKS_TOOL for _, f in bare_events)
    model = PerReviewer(callers=[])
    result, events = await _review(plan_b_pdf, tmp_path, model)
    assert _key(result) == _key(bare)
    assert sorted(model.callers) == ["calc-verifier", "data-checker", "form-reviewer"]
    by_agent = {o.agent: o for o in result.reviewers}
    assert all(o.error is None for o in by_agent.values())
    (remark,) = by_agent["form-reviewer"].remarks
    assert remark.origin == "model" and remark.page == 1
    assert by_agent["data-checker"].remarks == [] and "没有 JSON" in (
        by_agent["data-checker"].remarks_note or ""
    )
    assert "RuntimeError" in (by_agent["calc-verifier"].remarks_note or "")
    for agent in by_agent:
        types = [(t, f.get("tool")) for t, f in events if f.get("agent") == agent]
        assert types.index(("agent_tool_result", REMARKS_TOOL)) < types.index(("agent_done", None))
    md = render_markdown(result)
    assert "编制依据中各文件的版本写法不统一" in md and "模型调用失败（RuntimeError" in md
    assert (
        md.split("## 二、问题清单")[1].split("## 三")[0]
        == render_markdown(bare).split("## 二、问题清单")[1].split("## 三")[0]
    )


async def test_a_failing_reviewer_asks_no_model_and_the_report_is_written(
    plan_b_pdf: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any) -> None:
        raise TimeoutError("MCP query_ventilation_report")

    from vent_agent.mcp import data_checker

    monkeypatch.setattr(data_checker, "review_data", broken)
    model = PerReviewer(callers=[])
    result, events = await _review(plan_b_pdf, tmp_path, model)
    assert "data-checker" not in model.callers
    assert any(t == "agent_error" and f["agent"] == "data-checker" for t, f in events)
    data = next(o for o in result.reviewers if o.agent == "data-checker")
    assert data.error and data.remarks_model is None
    md = render_markdown(result)
    assert "数据一致性审查：失败（TimeoutError: MCP query_ventilation_report）" in md
    assert "编制依据中各文件的版本写法不统一" in md


async def test_review_route_with_a_configured_model(plan_b_pdf: Path, tmp_path: Path) -> None:
    """``POST /api/vent/review/pdf`` with a model configured (a loopback fake endpoint): every reviewer's
    remark events, the remarks chapter in the streamed report, the rule findings as without a model."""
    import httpx

    from tests.fake_openai import FakeOpenAI
    from tests.helpers import live_server, parse_spec_stream
    from vent_agent.app import create_app

    fake = FakeOpenAI(reply=FORM_ANSWER)
    with live_server(fake.app) as url:
        settings = Settings(
            _env_file=None, data_dir=tmp_path / "d", llm_base_url=f"{url}/v1", llm_model="fake-model"
        )
        app = create_app(settings)
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(
                transport=transport, base_url="http://testserver", timeout=60
            ) as client:
                files = {"file": (plan_b_pdf.name, plan_b_pdf.read_bytes(), "application/pdf")}
                resp = await client.post("/api/vent/review/pdf", files=files)
    events = parse_spec_stream(resp.text)
    remark_done = [e for e in events if e["type"] == "agent_tool_result" and e.get("tool") == REMARKS_TOOL]
    assert sorted(e["agent"] for e in remark_done) == ["calc-verifier", "data-checker", "form-reviewer"]
    assert len(fake.requests) == 3
    report = "".join(e["content"] for e in events if e["type"] == "token")
    assert "## 五、模型审查意见（语言与逻辑，仅供参考）" in report and "fake-model" in report
    # the same answer for each reviewer: one remark per reviewer, in their own chapter only
    assert report.count("编制依据中各文件的版本写法不统一") == 3
    assert "编制依据中各文件的版本写法不统一" not in report.split("## 二、问题清单")[1].split("## 五")[0]
