"""The dialogue agent answers a what-if with the solver's figures (scripted model): it calls
``network_what_if`` on the mine's network, the tool's answer carries the solver's flows, findings and
the reminder that nothing is actuated; in plan mode the change is proposed for approval first."""

from __future__ import annotations

import json
from typing import Any

import httpx

from tests.chat_helpers import TOKEN, use_model
from tests.helpers import parse_spec_stream
from tests.scripted_model import ScriptedChatModel, says, tool_call
from vent_agent.network.requests import WhatIfSpec
from vent_agent.network.service import what_if_payload

OPEN_DOOR = {"action": "open_door", "branch": "FM-01"}


def _expected() -> tuple[float, float]:
    """The solver's own figures for opening FM-01: the door's new flow and 15216-GZM's (m³/min)."""
    result = what_if_payload(WhatIfSpec(changes=[OPEN_DOOR]))
    rows = {r["id"]: r for r in result["branches"]}
    return rows["FM-01"]["q"] * 60, rows["15216-GZM"]["q"] * 60


def _tool_content(model: ScriptedChatModel, name: str) -> dict[str, Any]:
    for messages in model.seen:
        for message in messages:
            if message.type == "tool" and message.name == name:
                content: dict[str, Any] = json.loads(str(message.content))
                return content
    raise AssertionError(f"{name} never answered")


async def test_the_agent_answers_a_what_if_with_the_solvers_figures(app, client: httpx.AsyncClient) -> None:
    door_q, face_q = _expected()
    answer = (
        f"打开 FM-01 风门后，约 {door_q:.0f} m³/min 风量经联络巷短路进入回风，"
        f"15216 综采工作面风量降至 {face_q:.0f} m³/min。此为模拟结果，调整须经审批。"
    )
    model = ScriptedChatModel(
        script=[says("", tool_call("network_what_if", {"changes": [OPEN_DOOR]})), says(answer), says("")]
    )
    use_model(app, model)
    resp = await client.post("/api/chat", data={"message": "如果打开 FM-01 风门会怎样？"}, headers=TOKEN)
    assert resp.status_code == 200
    events = parse_spec_stream(resp.text)
    assert [e["tool"] for e in events if e["type"] == "tool_call"] == ["network_what_if"]
    content = _tool_content(model, "network_what_if")
    rows = {r["id"]: r for r in content["branches"]}
    assert rows["FM-01"]["q_m3min"] == round(door_q, 1) and rows["15216-GZM"]["q_m3min"] == round(face_q, 1)
    assert content["changes"] == ["打开二采区进回风联络巷风门（FM-01）"] and "审批" in content["advice"]
    short = [f for f in content["findings"] if f["kind"] == "short_air"]
    assert short and all("第159条" in f["clause"] for f in short)
    text = "".join(e["content"] for e in events if e["type"] == "token")
    assert f"{face_q:.0f} m³/min" in text


async def test_in_plan_mode_the_what_if_waits_for_approval(app, client: httpx.AsyncClient) -> None:
    model = ScriptedChatModel(
        script=[
            says(
                "",
                tool_call("request_plan_approval", {"plan": "1. 调用 network_what_if 模拟打开 FM-01 风门"}),
            ),
            says("", tool_call("network_what_if", {"changes": [OPEN_DOOR]})),
            says("模拟完成：打开风门会使工作面风量不足，不建议实施。"),
            says(""),
        ]
    )
    use_model(app, model)
    resp = await client.post(
        "/api/chat", data={"message": "打开 FM-01 会怎样？", "mode": "plan"}, headers=TOKEN
    )
    events = parse_spec_stream(resp.text)
    assert events[-1]["type"] == "interrupt" and "network_what_if" in events[-1]["plan"]
    assert not any(e["type"] == "tool_call" and e["tool"] == "network_what_if" for e in events)
    sid = resp.headers["x-session-id"]
    resumed = await client.post(
        "/api/chat/resume", json={"session_id": sid, "action": "approve"}, headers=TOKEN
    )
    after = parse_spec_stream(resumed.text)
    assert [e["tool"] for e in after if e["type"] == "tool_call"] == ["network_what_if"]
    assert "审批" in _tool_content(model, "network_what_if")["advice"]


async def test_closing_the_closed_door_is_said_to_the_agent(app, client: httpx.AsyncClient) -> None:
    close = {"action": "close_door", "branch": "FM-01"}
    model = ScriptedChatModel(
        script=[
            says("", tool_call("network_what_if", {"changes": [close]})),
            says("FM-01 已关闭。"),
            says(""),
        ]
    )
    use_model(app, model)
    resp = await client.post("/api/chat", data={"message": "关上 FM-01 风门会怎样？"}, headers=TOKEN)
    assert resp.status_code == 200
    content = _tool_content(model, "network_what_if")
    assert len(content["notes"]) == 1 and "已处于关闭状态" in content["notes"][0]
    assert content["branches"] == []  # nothing moved by as much as 0.005 m³/s
