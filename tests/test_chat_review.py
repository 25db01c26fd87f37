"""A plan PDF attached to a chat message: the review agent opens and closes (``agent_done`` once, with its
time), a PDF that cannot be read ends the review with an error, a review that raises closes its agent as
failed, and a question about the attached plan (not a review) reaches the dialogue model with the plan's
content."""

from __future__ import annotations

import httpx
import pytest

from tests.chat_helpers import TOKEN, use_model
from tests.helpers import parse_spec_stream
from tests.scripted_model import ScriptedChatModel, says


def types(events: list[dict]) -> list[str]:
    return [e["type"] for e in events]


async def test_review_in_chat_closes_its_agent(app, client: httpx.AsyncClient, plan_a_pdf) -> None:
    use_model(app, None)
    with plan_a_pdf.open("rb") as fh:
        r = await client.post(
            "/api/chat",
            data={"message": "审查"},
            files={"file": ("a.pdf", fh, "application/pdf")},
            headers=TOKEN,
        )
    events = parse_spec_stream(r.text)
    done = [e for e in events if e["type"] == "agent_done" and e.get("agent") == "配风计划审查"]
    assert len(done) == 1 and done[0]["duration_ms"] >= 0


async def test_a_failed_review_in_chat_says_so(app, client: httpx.AsyncClient) -> None:
    use_model(app, None)
    r = await client.post(
        "/api/chat",
        data={"message": "帮我审查"},
        files={"file": ("t.pdf", b"%PDF-1.4\n1 0 obj\n<<", "application/pdf")},
        headers=TOKEN,
    )
    events = parse_spec_stream(r.text)
    done = next(e for e in events if e["type"] == "agent_done" and e.get("agent") == "配风计划审查")
    assert "失败" in done["message"] and events[-1]["message"] == "审查失败"
    assert "error" in types(events)


async def test_a_review_that_raises_closes_its_agent_as_failed(
    app, client: httpx.AsyncClient, plan_a_pdf, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The report cannot be written (the disk is full): the review's agent ends with 失败, and no
    provenance record claims anything."""
    from vent_agent.review import run

    async def full_disk(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(run, "publish_docx", full_disk)
    use_model(app, None)
    with plan_a_pdf.open("rb") as fh:
        r = await client.post(
            "/api/chat",
            data={"message": "审查"},
            files={"file": ("a.pdf", fh, "application/pdf")},
            headers=TOKEN,
        )
    events = parse_spec_stream(r.text)
    done = [e for e in events if e["type"] == "agent_done" and e.get("agent") == "配风计划审查"]
    assert len(done) == 1 and "失败" in done[0]["message"]
    assert events[-1]["type"] == "done" and "error" in types(events)
    (error,) = [e for e in events if e["type"] == "error"]  # the review failed, not a model call
    assert error["message"].startswith("配风计划审查失败：服务内部错误（OSError）")
    assert "模型" not in error["message"]
    assert not list(app.state.vent.settings.reports_dir.rglob("*.provenance.json"))


async def test_a_question_about_an_attached_plan_gets_its_content(
    app, client: httpx.AsyncClient, plan_b_pdf
) -> None:
    model = ScriptedChatModel(script=[says("计划中 15216 需风量为 630 m³/min。")], fallback=says(""))
    use_model(app, model)
    with plan_b_pdf.open("rb") as fh:
        r = await client.post(
            "/api/chat",
            data={"message": "这份计划里15216的需风量是多少？"},
            files={"file": ("b.pdf", fh, "application/pdf")},
            headers=TOKEN,
        )
    assert types(parse_spec_stream(r.text))[-1] == "done"
    human = model.seen[0][-1]
    assert "b.pdf" in str(human.content) and "15216综采工作面" in str(human.content)
