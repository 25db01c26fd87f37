"""Citations in answers: the click interpretation of 15216 cites the right row of 表6; a chat answer
citing an article it never retrieved, or one that does not exist, loses that citation, with a warning,
and the history keeps the corrected text; an approved plan may cite what it retrieved before the
interrupt. A rule-based interpretation has no false figure warnings and is never cut by the check."""

from __future__ import annotations

from typing import Any

import httpx

from tests.chat_helpers import TOKEN, chat_with_file, use_model
from tests.helpers import parse_spec_stream
from tests.scripted_model import ScriptedChatModel, says, tool_call
from vent_agent.event_parts import merge_parts


def refs_of(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The references event, its parts joined."""
    return next(e for e in merge_parts(events) if e["type"] == "references")


async def test_click_15216_cites_the_district_roadway_row_of_table_6(app, client: httpx.AsyncClient) -> None:
    resp = await client.post(
        "/api/interpret/click/tun", json={"tun_id": "15216", "tun_name": "15216 辅运起坡段", "mode": "fast"}
    )
    events = parse_spec_stream(resp.text)
    types = [e["type"] for e in events]
    assert types.index("references") < types.index("done")
    refs = refs_of(events)
    speed = next(r for r in refs["references"] if r["article"] == 157)
    assert speed["edition"] == "2025"
    assert "采区进、回风巷" in speed["excerpt"] and "6" in speed["excerpt"]
    assert not [w for w in refs["warnings"] if w["removed"]]


async def test_fabricated_and_unretrieved_articles_are_removed(app, client: httpx.AsyncClient) -> None:
    answer = (
        "采煤工作面最高允许风速为 4 m/s [[R1]]。"
        "根据《煤矿安全规程》第999条，风门必须常闭。"
        "另见第193条的规定。"
    )
    model = ScriptedChatModel(
        script=[
            says("", tool_call("query_knowledge_base", {"query": "采煤工作面最高允许风速"})),
            says(answer),
        ],
        fallback=says(""),
    )
    use_model(app, model)
    resp = await client.post("/api/chat", data={"message": "采煤工作面最高风速？"}, headers=TOKEN)
    events = parse_spec_stream(resp.text)
    refs = refs_of(events)
    kinds = {w["kind"] for w in refs["warnings"] if w["removed"]}
    assert kinds == {"not_in_kb", "not_retrieved"}
    assert "第999条" not in refs["content"] and "第193条" not in refs["content"]
    assert "[[R1]]" in refs["content"]
    assert [r["article"] for r in refs["references"] if r.get("in_kb")] == [157]
    sid = resp.headers["x-session-id"]
    hist = (await client.get(f"/api/chat/history/{sid}", headers=TOKEN)).json()["messages"][-1]
    assert hist["content"] == refs["content"]
    assert hist["citation_warnings"]


async def test_approved_plan_may_cite_what_it_retrieved_before_the_interrupt(
    app, client: httpx.AsyncClient
) -> None:
    model = ScriptedChatModel(
        script=[
            says("", tool_call("query_knowledge_base", {"query": "第157条"})),
            says("", tool_call("request_plan_approval", {"plan": "按第157条核对风速"})),
            says("风速须在表6范围内 [[R1]]。"),
        ],
        fallback=says(""),
    )
    use_model(app, model)
    resp = await client.post("/api/chat", data={"message": "核对风速", "mode": "plan"}, headers=TOKEN)
    sid = resp.headers["x-session-id"]
    assert parse_spec_stream(resp.text)[-1]["type"] == "interrupt"
    resumed = await client.post(
        "/api/chat/resume", json={"session_id": sid, "action": "approve"}, headers=TOKEN
    )
    refs = refs_of(parse_spec_stream(resumed.text))
    assert not [w for w in refs["warnings"] if w["removed"]]
    assert refs["references"][0]["article"] == 157


async def test_rule_based_interpretation_has_no_false_figure_warnings(app, client: httpx.AsyncClient) -> None:
    r = await client.post(
        "/api/interpret/click/tun", json={"tun_id": "15216", "tun_name": "15216 辅运起坡段"}
    )
    refs = next(e for e in parse_spec_stream(r.text) if e["type"] == "references")
    assert refs["warnings"] == []


async def test_rule_based_text_is_never_cut_by_the_citation_check(app, client: httpx.AsyncClient) -> None:
    for tun_id in ("15216-GZM", "15216"):
        r = await client.post(
            "/api/interpret/click/tun", json={"tun_id": tun_id, "tun_name": "x", "mode": "fast"}
        )
        events = parse_spec_stream(r.text)
        refs = next(e for e in events if e["type"] == "references")
        assert "content" not in refs and refs["warnings"] == []


async def test_attached_files_named_in_an_answer_are_not_sources(
    app, client: httpx.AsyncClient, plan_b_pdf
) -> None:
    """A question about an attached plan whose answer names the file in 《》 (with its extension, without
    it, in another case), in this turn and in a later one without the file: none of them is a source in
    the references event or the history; a real document outside the knowledge base still is."""
    first = "根据《8月配风计划（B版）.pdf》与《8月配风计划（b版）》，15216需风量为630 m³/min；另见《煤矿防治水细则》。"
    later = "《8月配风计划（B版）》中15220的需风量另见《风量核定.XLSX》，并参照《煤矿防治水细则》。"
    model = ScriptedChatModel(script=[says(first), says(""), says(later)], fallback=says(""))
    use_model(app, model)
    resp = await chat_with_file(
        client, plan_b_pdf, "这份计划里15216的需风量是多少？", name="8月配风计划（B版）.pdf"
    )
    sid = resp.headers["x-session-id"]
    again = await client.post("/api/chat", data={"message": "15220呢？", "session_id": sid}, headers=TOKEN)
    expected = [{"label": "《煤矿防治水细则》", "in_kb": False}]
    for events in (parse_spec_stream(resp.text), parse_spec_stream(again.text)):
        assert events[-1]["type"] == "done"
        assert [{k: r[k] for k in ("label", "in_kb")} for r in refs_of(events)["references"]] == expected
    turns = [
        m
        for m in (await client.get(f"/api/chat/history/{sid}", headers=TOKEN)).json()["messages"]
        if m["role"] == "assistant"
    ]
    assert [[r["label"] for r in t["references"]] for t in turns] == [["《煤矿防治水细则》"]] * 2
