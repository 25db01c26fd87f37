"""Click interpretation in plan mode with a model: the agent loads its skill, queries the data and
writes the report (scripted model); its failure falls back to the rules; fast mode is untouched."""

from __future__ import annotations

import httpx
from langchain_core.messages import AIMessage, ToolMessage

from tests.chat_helpers import TOKEN, use_model
from tests.helpers import parse_spec_stream
from tests.scripted_model import ScriptedChatModel, says, tool_call

REPORT = "## 15216 辅运起坡段解读\n| 项目 | 实测 | 限值 | 结论 |\n风速 1.2 m/s，在 0.25–6 m/s 内，符合规定。"


def click_script() -> list[AIMessage]:
    return [
        says("", tool_call("load_skill", {"name": "click-interpret-tun"})),
        says("", tool_call("query_tun_data_by_id", {"tun_id": "15216"})),
        says(REPORT),
    ]


async def test_plan_mode_runs_the_agent(app, client: httpx.AsyncClient) -> None:
    model = ScriptedChatModel(script=click_script())
    app.state.vent.interpret_model = model
    resp = await client.post(
        "/api/interpret/click/tun", json={"tun_id": "15216", "tun_name": "15216 辅运起坡段"}
    )
    events = parse_spec_stream(resp.text)
    t = [e["type"] for e in events]
    assert t[0] == "thinking" and events[0]["source"] == "main" and events[0]["node"] == "model"
    assert [e["tool"] for e in events if e["type"] == "tool_call"] == ["load_skill", "query_tun_data_by_id"]
    assert "".join(e["content"] for e in events if e["type"] == "token") == REPORT
    assert t[-1] == "done" and "error" not in t
    skill_answer = next(m for m in model.seen[1] if isinstance(m, ToolMessage))
    assert skill_answer.status != "error" and "巷道" in str(skill_answer.content)
    data_answer = [m for m in model.seen[2] if m.type == "tool"][-1]
    assert "15216" in str(data_answer.content)
    system = str(model.seen[0][0].content)
    assert "click-interpret-tun" in system and "load_skill" in system
    assert "vent-chat（" not in system  # the dialogue agent's own skill stays out of this prompt
    # no session or message rows (spec)
    assert (await client.get("/api/sessions", headers=TOKEN)).json()["total"] == 0


async def test_disabled_skill_is_skipped_and_refused(app, client: httpx.AsyncClient) -> None:
    r = await client.post("/api/skills/click-interpret-tun/toggle", headers=TOKEN)
    assert r.json()["enabled"] is False
    model = ScriptedChatModel(script=click_script())
    app.state.vent.interpret_model = model
    resp = await client.post("/api/interpret/click/tun", json={"tun_id": "15216", "tun_name": "15216"})
    events = parse_spec_stream(resp.text)
    assert events[-1]["type"] == "done"
    assert "click-interpret-tun（" not in str(model.seen[0][0].content)
    refused = next(m for m in model.seen[1] if isinstance(m, ToolMessage))
    assert refused.status == "error"


async def test_agent_failure_falls_back_to_rules(app, client: httpx.AsyncClient) -> None:
    app.state.vent.interpret_model = ScriptedChatModel(script=click_script(), fail_at={0})
    resp = await client.post("/api/interpret/click/tun", json={"tun_id": "15216", "tun_name": "15216"})
    events = parse_spec_stream(resp.text)
    notice = [e for e in events if e.get("notice")]
    assert notice and "改用规则解读" in notice[0]["message"]
    text = "".join(e["content"] for e in events if e["type"] == "token")
    assert "15216" in text and events[-1]["type"] == "done" and "error" not in [e["type"] for e in events]


async def test_fast_mode_skips_the_agent(app, client: httpx.AsyncClient) -> None:
    model = ScriptedChatModel(script=[says("快速解读：风速正常。")])
    app.state.vent.interpret_model = model
    resp = await client.post(
        "/api/interpret/click/tun", json={"tun_id": "15216", "tun_name": "15216", "mode": "fast"}
    )
    events = parse_spec_stream(resp.text)
    assert all(e.get("source") in (None, "fast") for e in events)
    assert "tool_call" not in [e["type"] for e in events]


async def test_chat_prompt_lists_skills_and_loads_one(app, client: httpx.AsyncClient) -> None:
    model = ScriptedChatModel(
        script=[says("", tool_call("load_skill", {"name": "air-volume-calc"})), says("按技能计算。")],
        fallback=says(""),
    )
    use_model(app, model)
    resp = await client.post("/api/chat", data={"message": "如何计算需风量？"}, headers=TOKEN)
    assert parse_spec_stream(resp.text)[-1]["type"] == "done"
    system = str(model.seen[0][0].content)
    assert "air-volume-calc" in system and "vent-chat" in system
    body = next(m for m in model.seen[1] if isinstance(m, ToolMessage))
    assert body.status != "error" and len(str(body.content)) > 200
