"""A plan PDF attached to a chat message: the review agent opens and closes (``agent_done`` once, with its
time), a PDF that cannot be read ends the review with an error, a review that raises closes its agent as
failed, and a question about the attached plan (not a review) reaches the dialogue model with the plan's
content."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from tests.chat_helpers import TOKEN, chat_with_file, use_model
from tests.helpers import hang_reviews, parse_spec_stream, parse_standard_stream
from tests.scripted_model import ScriptedChatModel, says


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


async def test_review_in_chat_closes_its_agent(app, client: httpx.AsyncClient, plan_a_pdf) -> None:
    use_model(app, None)
    r = await chat_with_file(client, plan_a_pdf, "审查", name="a.pdf")
    events = parse_spec_stream(r.text)
    done = [e for e in events if e["type"] == "agent_done" and e.get("agent") == "配风计划审查"]
    assert len(done) == 1 and done[0]["duration_ms"] >= 0


async def test_a_failed_review_in_chat_says_so(app, client: httpx.AsyncClient) -> None:
    use_model(app, None)
    r = await chat_with_file(client, b"%PDF-1.4\n1 0 obj\n<<", "帮我审查", name="t.pdf")
    events = parse_spec_stream(r.text)
    done = next(e for e in events if e["type"] == "agent_done" and e.get("agent") == "配风计划审查")
    assert "失败" in done["message"] and events[-1]["message"] == "审查失败"
    assert "error" in types(events)


async def test_a_review_that_raises_closes_its_agent_as_failed(
    app, client: httpx.AsyncClient, plan_a_pdf, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The report cannot be written (the disk is full): the review's agent ends with 失败, and no
    provenance record claims anything."""
    from vent_agent.review.service import run

    async def full_disk(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(run, "publish_docx", full_disk)
    use_model(app, None)
    r = await chat_with_file(client, plan_a_pdf, "审查", name="a.pdf")
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
    r = await chat_with_file(client, plan_b_pdf, "这份计划里15216的需风量是多少？", name="b.pdf")
    assert types(parse_spec_stream(r.text))[-1] == "done"
    human = model.seen[0][-1]
    assert "b.pdf" in str(human.content) and "15216综采工作面" in str(human.content)


async def test_a_review_cut_by_the_run_time_out_closes_its_agent_as_interrupted(
    tmp_path, plan_a_pdf, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run's time-out falls while the review is still working: 「配风计划审查」 ends with 中断 before
    the time-out notice and the run's ``done``, and nothing follows ``done``."""
    from vent_agent.app import create_app
    from vent_agent.settings import Settings

    hang_reviews(monkeypatch)
    app = create_app(Settings(_env_file=None, data_dir=tmp_path / "d", run_timeout_s=1.0))
    async with app.router.lifespan_context(app):
        use_model(app, None)
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c:
            r = await chat_with_file(c, plan_a_pdf, "审查", name="a.pdf")
            events = parse_spec_stream(r.text)
            run_id = events[0]["run_id"]
            replayed = parse_standard_stream((await c.get(f"/api/runs/{run_id}/events", headers=TOKEN)).text)
    spans = [e for e in events if e.get("agent") == "配风计划审查"]
    assert [e["type"] for e in spans] == ["agent_start", "agent_done"]
    assert "中断" in spans[1]["message"]
    notice = next(i for i, e in enumerate(events) if e.get("notice") == "run_timeout")
    assert events.index(spans[1]) < notice and events[-1]["type"] == "done"
    assert [e for _, e in replayed] == events  # nothing logged after done


async def test_a_review_cancelled_with_its_run_closes_its_agent_as_interrupted(
    app, client: httpx.AsyncClient, plan_a_pdf, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run is cancelled (``POST /api/runs/{id}/cancel``) while the review works: 「配风计划审查」 ends
    with 中断, the run ends ``cancelled``, and the log holds what the client was sent, no more."""
    from vent_agent.review.service import run

    entered: asyncio.Queue[str] = asyncio.Queue()

    async def hangs(emitter, *args: object, **kwargs: object) -> None:
        await entered.put(emitter.run_id)
        await asyncio.sleep(30)

    monkeypatch.setattr(run, "_review_and_publish", hangs)
    use_model(app, None)

    async def chat() -> httpx.Response:
        return await chat_with_file(client, plan_a_pdf, "审查", name="a.pdf")

    turn = asyncio.create_task(chat())
    run_id = await asyncio.wait_for(entered.get(), 10)
    cancel = await client.post(f"/api/runs/{run_id}/cancel", headers=TOKEN)
    assert cancel.status_code == 200 and cancel.json()["status"] == "cancelled"
    events = parse_spec_stream((await asyncio.wait_for(turn, 10)).text)
    spans = [e for e in events if e.get("agent") == "配风计划审查"]
    assert [e["type"] for e in spans] == ["agent_start", "agent_done"] and "中断" in spans[1]["message"]
    assert events[-1]["type"] == "done"
    assert (await app.state.vent.runs.get(run_id)).status == "cancelled"
    replayed = parse_standard_stream((await client.get(f"/api/runs/{run_id}/events", headers=TOKEN)).text)
    assert [e for _, e in replayed] == events
