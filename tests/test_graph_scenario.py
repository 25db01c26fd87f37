"""The provenance graph's "done means" (issue 28): on a new data dir, plan b reviewed and two chat
questions asked (scripted model; the second through ``query_graph``) give, over the routes, finding 1's
chain to its PDF cell, record and clause, every claim citing 第192条, the runs that used the 2026-08
gas-grade report, a chat turn's task chain — and the same answers after the graph's tables are dropped
and rebuilt from the event log (``vent-agent graph rebuild``'s function). Ownership as for runs."""

from __future__ import annotations

from typing import Any

import httpx

from tests.chat_helpers import OTHER, TOKEN, use_model
from tests.conftest import DATA
from tests.helpers import parse_spec_stream
from tests.scripted_model import ScriptedChatModel, says, tool_call
from vent_agent.cli.graph import run_rebuild
from vent_agent.graph.embedded import EmbeddedGraphStore
from vent_agent.settings import Settings


async def _chat(
    app: Any, client: httpx.AsyncClient, model: ScriptedChatModel, message: str, sid: str | None
) -> list[dict[str, Any]]:
    use_model(app, model)
    data = {"message": message, **({"session_id": sid} if sid else {})}
    resp = await client.post("/api/chat", data=data, headers=TOKEN)
    assert resp.status_code == 200, resp.text
    await app.state.vent.graph.recorder.idle()
    return parse_spec_stream(resp.text)


async def _answers(client: httpx.AsyncClient, report_id: str, chat_run: str) -> dict[str, Any]:
    """The four questions of the issue, over the routes."""
    support = await client.get("/api/graph/support", params={"report_id": report_id, "finding": 1})
    cited = await client.get("/api/graph/claims", params={"source": "第192条"}, headers=TOKEN)
    gas = await client.get("/api/graph/claims", params={"source": "瓦斯等级鉴定报告 2026-08"}, headers=TOKEN)
    chain = await client.get(f"/api/graph/runs/{chat_run}", headers=TOKEN)
    chat_claim = await client.get(
        "/api/graph/support", params={"run_id": chat_run, "claim": "1"}, headers=TOKEN
    )
    for resp in (support, cited, gas, chain, chat_claim):
        assert resp.status_code == 200, resp.text
    return {
        "support": support.json(),
        "cited": cited.json(),
        "gas": gas.json(),
        "chain": chain.json(),
        "chat": chat_claim.json(),
    }


async def test_review_and_two_questions_then_the_same_after_a_rebuild(
    app: Any, client: httpx.AsyncClient, settings: Settings
) -> None:
    pdf = DATA / "plan-2026-08-b.pdf"
    resp = await client.post(
        "/api/vent/review/pdf", files={"file": (pdf.name, pdf.read_bytes(), "application/pdf")}
    )
    review = parse_spec_stream(resp.text)
    report_id = review[-1]["download_url"].rsplit("/", 1)[-1].removesuffix(".docx")
    review_run = review[-1]["run_id"]
    first = ScriptedChatModel(
        script=[
            says("", tool_call("query_knowledge_base", {"query": "第192条"})),
            says("回风流中甲烷浓度达到1.0%时必须停止工作[[R1]]。"),
        ],
        fallback=says(""),
    )
    ask1 = await _chat(app, client, first, "回风流甲烷超限怎么办？", None)
    sid, chat_run = ask1[-1]["session_id"], ask1[-1]["run_id"]
    second = ScriptedChatModel(
        script=[
            says("", tool_call("query_graph", {"query": "claims", "source": "第192条"})),
            says("本月审查中有 1 条发现依据第192条[[R1]]。"),
        ],
        fallback=says(""),
    )
    ask2 = await _chat(app, client, second, "哪些审查发现依据了第192条？", sid)
    graph_result = next(e for e in ask2 if e["type"] == "tool_result" and e["tool"] == "query_graph")
    assert graph_result["status"] == "success"
    await app.state.vent.graph.recorder.idle()

    before = await _answers(client, report_id, chat_run)
    # finding 1's chain: the PDF cell it was read from (as the provenance record says), its records, 第192条
    prov = (await client.get(f"/api/reports/{report_id}/provenance")).json()["findings"][0]
    nodes = before["support"]["nodes"]
    cell = next(e for e in prov["evidence"] if e["kind"] == "pdf")
    pdf_nodes = [n for n in nodes if n["kind"] == "Evidence" and n.get("evidence") == "pdf"]
    assert any(n["page"] == cell["page"] and n["text"] == cell["text"] for n in pdf_nodes)
    assert {n["kind"] for n in nodes} >= {"Claim", "Evidence", "Artifact", "Source", "Task"}
    assert len([n for n in nodes if n["kind"] == "Task"]) == 1  # its reviewer, not what made the report
    assert any(n["kind"] == "Evidence" and n.get("evidence") == "clause" for n in nodes)
    assert any(n["kind"] == "Source" and n["label"] == "《煤矿安全规程》（2025版）第192条" for n in nodes)
    plan = next(n["id"] for n in nodes if n["kind"] == "Artifact" and n.get("artifact") == "pdf")
    assert any(e["kind"] == "extracts" and e["to"] == plan for e in before["support"]["edges"])
    # every claim citing 第192条: the finding, and each chat answer's statement
    cited = before["cited"]["claims"]
    assert f"claim:{report_id}:1" in {c["id"] for c in cited}
    assert {c["run_id"] for c in cited} >= {review_run, chat_run, ask2[-1]["run_id"]}
    assert all(any("第192条" in s for s in c["sources"]) for c in cited)
    # the runs that used the 2026-08 gas-grade report: the review (its data-checker fetched it)
    assert [r["run_id"] for r in before["gas"]["runs"]] == [review_run]
    assert all(c["run_id"] == review_run for c in before["gas"]["claims"]) and before["gas"]["claims"]
    # the first question's task chain and its claim's support
    labels = [n["label"] for n in before["chain"]["nodes"]]
    assert "回风流甲烷超限怎么办？" in labels and "检索《煤矿安全规程》" in labels
    assert any(n["kind"] == "Source" and "第192条" in n["label"] for n in before["chat"]["nodes"])

    store = app.state.vent.graph.store
    assert isinstance(store, EmbeddedGraphStore)
    await store.drop_tables()
    assert await run_rebuild(settings) == 0
    assert await _answers(client, report_id, chat_run) == before


async def test_the_graph_of_a_sessions_run_is_its_users(app: Any, client: httpx.AsyncClient) -> None:
    model = ScriptedChatModel(
        script=[
            says("", tool_call("query_knowledge_base", {"query": "第157条"})),
            says("风速不超过 4 m/s[[R1]]。"),
        ],
        fallback=says(""),
    )
    events = await _chat(app, client, model, "风速上限？", None)
    run_id = events[-1]["run_id"]
    assert (await client.get(f"/api/graph/runs/{run_id}")).status_code == 401
    assert (await client.get(f"/api/graph/runs/{run_id}", headers=OTHER)).json() == {
        "error": "运行不存在或尚未写入溯源图"
    }
    assert (await client.get(f"/api/graph/runs/{run_id}", headers=TOKEN)).status_code == 200
    other = await client.get("/api/graph/support", params={"run_id": run_id, "claim": "1"}, headers=OTHER)
    assert other.status_code == 404
    assert (await client.get("/api/graph/claims", params={"source": "第157条"}, headers=OTHER)).json()[
        "claims"
    ] == []
    mine = (await client.get("/api/graph/claims", params={"source": "第157条"}, headers=TOKEN)).json()
    assert [c["run_id"] for c in mine["claims"]] == [run_id]


async def test_bad_graph_queries_are_clear_4xx(client: httpx.AsyncClient) -> None:
    both = await client.get(
        "/api/graph/support", params={"report_id": "x", "finding": 1, "run_id": "r", "claim": "1"}
    )
    assert both.status_code == 400 and "二选一" in both.json()["error"]
    assert (await client.get("/api/graph/support")).status_code == 400
    missing = await client.get(
        "/api/graph/support", params={"report_id": "vent_review_" + "0" * 32 + "_20260801", "finding": 1}
    )
    assert missing.json() == {"error": "溯源图中没有该结论"}
    assert (await client.get("/api/graph/claims", params={"source": "第192条"})).status_code == 401
    blank = await client.get("/api/graph/claims", params={"source": "  "}, headers=TOKEN)
    assert blank.status_code == 400
    assert (await client.get("/api/graph/runs/..%2F..", headers=TOKEN)).status_code == 404


async def test_lost_graph_tables_answer_503_and_degrade_until_rebuilt(
    app: Any, client: httpx.AsyncClient
) -> None:
    model = ScriptedChatModel(script=[says("主要通风机运行正常，风量 5000 m³/min。")], fallback=says(""))
    events = await _chat(app, client, model, "主通风机怎么样？", None)
    run_id = events[-1]["run_id"]
    assert (await client.get(f"/api/graph/runs/{run_id}", headers=TOKEN)).status_code == 200
    await app.state.vent.graph.store.drop_tables()
    lost = await client.get(f"/api/graph/runs/{run_id}", headers=TOKEN)
    assert lost.status_code == 503 and "graph rebuild" in lost.json()["error"]
    ready = (await client.get("/readyz")).json()
    assert ready["status"] == "degraded" and ready["checks"]["graph"]["ok"] is False
    assert await app.state.vent.graph.rebuild() >= 1
    assert (await client.get(f"/api/graph/runs/{run_id}", headers=TOKEN)).status_code == 200
    assert (await client.get("/readyz")).json()["checks"]["graph"]["ok"] is True


async def test_a_run_closed_as_lost_by_another_worker_is_written_too(app: Any) -> None:
    from vent_agent.store.models import EventRow, RunRow

    state = app.state.vent
    async with state.db.session() as s:
        s.add(RunRow(id="lost-run", kind="click_tun", status="running", last_seq=1))
        s.add(
            EventRow(
                run_id="lost-run",
                seq=1,
                type="thinking",
                payload='{"type":"thinking","source":"fast","node":"fetching_data","message":"正在查询数据...","seq":1,"run_id":"lost-run"}',
            )
        )
        await s.commit()
    assert await state.runs.fail_lost_run("lost-run")
    await state.graph.recorder.idle()
    chain = await state.graph.store.run_chain("lost-run")
    assert "正在查询数据..." in {n.label for n in chain.nodes}
