"""The embedded provenance graph for real, on SQLite and on PostgreSQL: a run's graph written and
written again, a finding's support chain (PDF cell → plan, reference record → the month's gas-grade
report, clause record → 第192条), the claims resting on a source with the runs that used it (as the
viewer may see them), a run's task chain, and the recursive queries' bounds."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.graph_samples import REPORT, chat_graph, review_graph
from tests.pg import pg_database
from vent_agent.graph.embedded import EmbeddedGraphStore, like_pattern
from vent_agent.graph.model import Edge, Node, RunGraph
from vent_agent.store.db import Database


@pytest.fixture(params=["sqlite", "postgres"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[EmbeddedGraphStore]:
    """An embedded store on a migrated database of each dialect."""
    if request.param == "sqlite":
        db = Database(f"sqlite+aiosqlite:///{tmp_path / 'graph.db'}")
        await db.migrate()
        yield EmbeddedGraphStore(db)
        await db.close()
        return
    with pg_database() as url:
        db = Database(url)
        yield EmbeddedGraphStore(db)
        await db.close()


def kinds(graph) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for node in graph.nodes:
        out.setdefault(node.kind, set()).add(node.label)
    return out


async def test_a_findings_support_chain_reaches_cell_record_and_clause(store: EmbeddedGraphStore) -> None:
    await store.write_run(review_graph("run-r1"))
    chain = await store.support(f"claim:{REPORT}:1")
    found = kinds(chain)
    assert "配风计划《计划.pdf》" in found["Artifact"] and "审查报告《计划.pdf》" in found["Artifact"]
    assert "《煤矿安全规程》（2025版）第192条" in found["Source"]
    assert "瓦斯等级鉴定报告（示范煤矿 2026-08）" in found["Source"]
    evidence = {n.props["evidence"] for n in chain.nodes if n.kind == "Evidence"}
    assert evidence == {"pdf", "reference", "clause"}
    assert "数据一致性审查" in found["Task"] and found["ToolCall"] == {"查询瓦斯等级鉴定报告"}
    edges = {(e.kind, e.dst.split(":")[0]) for e in chain.edges}
    assert {
        ("supports", "claim"),
        ("extracts", "art"),
        ("extracts", "src"),
        ("cites", "src"),
        ("stated_in", "art"),
    } <= edges


async def test_writing_a_run_again_replaces_its_part_and_keeps_shared_sources(
    store: EmbeddedGraphStore,
) -> None:
    await store.write_run(review_graph("run-r1"))
    await store.write_run(chat_graph("run-c1"))
    before = await store.support(f"claim:{REPORT}:1")
    await store.write_run(review_graph("run-r1"))
    after = await store.support(f"claim:{REPORT}:1")
    assert before.wire() == after.wire()
    assert (await store.support("claim:run-c1:1")).nodes  # the chat's chain still reaches the shared article
    emptied = RunGraph(owner=review_graph("run-r1").owner)
    await store.write_run(emptied)
    assert await store.node(f"claim:{REPORT}:1") is None
    assert await store.node("src:rule:2025:192") is not None


async def test_claims_citing_an_article_and_runs_using_a_report_as_each_viewer_sees_them(
    store: EmbeddedGraphStore,
) -> None:
    await store.write_run(review_graph("run-r1"))  # outside sessions: everyone's
    await store.write_run(chat_graph("run-c1", "zhangsan"))
    await store.write_run(chat_graph("run-c2", "lisi"))
    mine = await store.claims_using(["第192条"], "zhangsan")
    assert {c.claim.id for c in mine.claims} == {f"claim:{REPORT}:1", "claim:run-c1:1"}
    assert all("《煤矿安全规程》（2025版）第192条" in c.sources for c in mine.claims)
    assert {r.run_id for r in mine.runs} == {"run-r1", "run-c1"}
    anonymous = await store.claims_using(["第192条"], None)
    assert {c.claim.id for c in anonymous.claims} == {f"claim:{REPORT}:1"}
    gas = await store.claims_using(["瓦斯等级鉴定报告", "2026-08"], "zhangsan")
    assert [c.claim.id for c in gas.claims] == [f"claim:{REPORT}:1"] and [r.run_id for r in gas.runs] == [
        "run-r1"
    ]
    assert (await store.claims_using(["瓦斯等级鉴定报告", "2026-07"], "zhangsan")).claims == []
    assert (await store.claims_using(["100%_"], "zhangsan")).claims == []  # LIKE wildcards are text


async def test_a_runs_task_chain_in_order(store: EmbeddedGraphStore) -> None:
    await store.write_run(chat_graph("run-c1"))
    chain = await store.run_chain("run-c1")
    nxt = {e.src: e.dst for e in chain.edges if e.kind == "next"}
    step, order = "req:run-c1", []
    while step in nxt:
        step = nxt[step]
        order.append(step)
    labels = {n.id: n.label for n in chain.nodes}
    assert [labels[s] for s in order] == ["通风对话助手", "检索《煤矿安全规程》"]
    assert labels["req:run-c1"] == "甲烷超限怎么办？"
    produced = {labels[e.dst] for e in chain.edges if e.kind == "produces"}
    assert "回答" in produced
    assert await store.run_chain("no-such-run") == type(chain)()


async def test_cycles_and_long_chains_end_at_the_bound(store: EmbeddedGraphStore) -> None:
    nodes = [Node(id=f"n{i}", kind="Evidence", label=f"e{i}") for i in range(20)]
    nodes.append(Node(id="claim:x:1", kind="Claim", label="c"))
    edges = [Edge(src=f"n{i + 1}", dst=f"n{i}", kind="supports") for i in range(19)]
    edges += [
        Edge(src="n0", dst="claim:x:1", kind="supports"),
        Edge(src="claim:x:1", dst="n19", kind="supports"),
    ]
    await store.write_run(
        RunGraph(owner=review_graph("x").owner.model_copy(update={"run_id": "x"}), nodes=nodes, edges=edges)
    )
    chain = await store.support("claim:x:1")
    assert 1 < len(chain.nodes) < 21


def test_like_patterns_escape_wildcards() -> None:
    assert like_pattern("5%_a\\") == "%5\\%\\_a\\\\%"
