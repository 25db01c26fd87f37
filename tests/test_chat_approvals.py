"""Several approvals pending at once in plan mode (a model message with two ``request_plan_approval``
calls): one card for all with their ids, decided all at once or one at a time in any order; a pending
approval can always be approved, rejected or cancelled, also after a failed resume or without a model;
resume with nothing pending is 409 "该会话没有待审批的计划"."""

from __future__ import annotations

from typing import Any

import httpx

from tests.chat_helpers import TOKEN, use_model
from tests.helpers import parse_spec_stream
from tests.scripted_model import ScriptedChatModel, says, tool_call

PLANS = ["1. 按人数计算采煤工作面需风量", "2. 按瓦斯涌出量计算采煤工作面需风量"]


def _two_approvals(*after: Any, fail_at: set[int] | None = None) -> ScriptedChatModel:
    return ScriptedChatModel(
        script=[says("", *(tool_call("request_plan_approval", {"plan": p}) for p in PLANS)), *after],
        fallback=says("好的。"),
        fail_at=fail_at or set(),
    )


async def _plan_turn(client: httpx.AsyncClient) -> tuple[str, dict[str, Any]]:
    r = await client.post("/api/chat", data={"message": "算需风量", "mode": "plan"}, headers=TOKEN)
    events = parse_spec_stream(r.text)
    assert events[-1]["type"] == "interrupt" and "done" not in [e["type"] for e in events]
    return r.headers["x-session-id"], events[-1]


async def _resume(client: httpx.AsyncClient, sid: str, action: str, **extra: str) -> httpx.Response:
    body = {"session_id": sid, "action": action, **extra}
    return await client.post("/api/chat/resume", json=body, headers=TOKEN)


async def test_two_approvals_are_one_card_approved_together(app, client: httpx.AsyncClient) -> None:
    model = _two_approvals(
        says("", tool_call("calc_face_by_workers", {"workers": 40})), says("需风量 160 m³/min。")
    )
    use_model(app, model)
    sid, card = await _plan_turn(client)
    assert sorted(card["interrupts"]) == sorted(PLANS) and len(set(card["interrupt_ids"])) == 2
    assert "2 项" in card["message"]

    resp = await _resume(client, sid, "approve")
    events = parse_spec_stream(resp.text)
    assert resp.status_code == 200 and events[-1]["type"] == "done", events
    assert "error" not in [e["type"] for e in events]
    assert "160" in "".join(e["content"] for e in events if e["type"] == "token")
    approvals = [m for m in model.seen[1] if m.type == "tool" and m.name == "request_plan_approval"]
    assert len(approvals) == 2 and all("批准" in str(m.content) for m in approvals)
    again = await _resume(client, sid, "approve")
    assert again.status_code == 409 and again.json()["error"] == "该会话没有待审批的计划"


async def test_approvals_decided_one_at_a_time_in_any_order(app, client: httpx.AsyncClient) -> None:
    model = _two_approvals(says("只执行了第一项计划。"))
    use_model(app, model)
    sid, card = await _plan_turn(client)
    second_id = card["interrupt_ids"][1]
    first_id = card["interrupt_ids"][0]

    rejected = await _resume(client, sid, "reject", interrupt_id=second_id)  # the second first
    events = parse_spec_stream(rejected.text)
    assert [e["type"] for e in events] == ["interrupt"]  # the other one is still pending, on a new card
    assert events[0]["interrupt_ids"] == [first_id] and events[0]["interrupts"] == [card["interrupts"][0]]
    busy = await client.post("/api/chat", data={"message": "再问", "session_id": sid}, headers=TOKEN)
    assert busy.status_code == 409
    gone = await _resume(client, sid, "approve", interrupt_id=second_id)
    assert gone.status_code == 409 and "interrupt_id" in gone.json()["error"]

    approved = await _resume(client, sid, "approve", interrupt_id=first_id)
    events = parse_spec_stream(approved.text)
    assert events[-1]["type"] == "done" and "只执行了第一项计划" in "".join(
        e["content"] for e in events if e["type"] == "token"
    )
    answers = [str(m.content) for m in model.seen[1] if m.type == "tool"]
    assert any("拒绝" in a for a in answers) and any("批准" in a for a in answers)


async def test_a_failed_approval_can_be_decided_again(app, client: httpx.AsyncClient) -> None:
    """The resume's model call fails: the approvals stay pending and are not stuck as 已被处理."""
    use_model(app, _two_approvals(says("已完成。"), fail_at={1}))
    sid, _card = await _plan_turn(client)
    failed = parse_spec_stream((await _resume(client, sid, "approve")).text)
    assert failed[-1]["type"] == "done" and failed[-1]["message"] == "对话失败"
    retry = await _resume(client, sid, "cancel")
    events = parse_spec_stream(retry.text)
    assert retry.status_code == 200 and [e["type"] for e in events] == ["error", "done"]
    assert events[0]["message"] == "用户取消了执行计划" and events[1]["message"] == "已取消执行"
    free = await client.post("/api/chat", data={"message": "那算了", "session_id": sid}, headers=TOKEN)
    assert free.status_code == 200 and parse_spec_stream(free.text)[-1]["type"] == "done"


async def test_a_rejection_needs_no_model(app, client: httpx.AsyncClient) -> None:
    use_model(app, _two_approvals())
    sid, _card = await _plan_turn(client)
    use_model(app, None)  # the model went away while the card was open
    events = parse_spec_stream((await _resume(client, sid, "reject")).text)
    assert [e["type"] for e in events] == ["error", "done"] and events[1]["message"] == "已取消执行"
    assert (await _resume(client, sid, "reject")).status_code == 409


async def test_resume_with_nothing_pending_is_409(app, client: httpx.AsyncClient) -> None:
    use_model(app, ScriptedChatModel(script=[says("好的")], fallback=says("")))
    r = await client.post("/api/chat", data={"message": "你好"}, headers=TOKEN)
    nothing = await _resume(client, r.headers["x-session-id"], "approve")
    assert nothing.status_code == 409 and nothing.json() == {"error": "该会话没有待审批的计划"}
