"""``query_graph``: the provenance graph for the dialogue agent through a fixed query form — a finding's
support, the claims resting on a source and the runs that used it, a run's steps — with the ownership
rules of runs (another user's session run is not found), runs gone from the log left out, and bad
queries answered with an error result, never an exception."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.tools import BaseTool

from tests.chat_helpers import tool_runtime
from tests.graph_samples import REPORT, chat_graph, review_graph
from vent_agent.graph.embedded import EmbeddedGraphStore
from vent_agent.settings import Settings
from vent_agent.store.db import Database
from vent_agent.store.models import RunRow
from vent_agent.tools.context import AgentContext
from vent_agent.tools.graph_tools import graph_tools
from vent_agent.upstream.demo_mine import DemoMine


@pytest.fixture
async def ctx_for(tmp_path: Path) -> AsyncIterator[Any]:
    """A function giving an AgentContext of a user over a store holding a review outside sessions and
    a chat turn of zhangsan's and of lisi's (run-c3's graph is written but its run is gone from the log)."""
    db = Database(f"sqlite+aiosqlite:///{tmp_path / 'g.db'}")
    await db.migrate()
    store = EmbeddedGraphStore(db)
    for graph in (
        review_graph("run-r1"),
        chat_graph("run-c1", "zhangsan"),
        chat_graph("run-c2", "lisi"),
        chat_graph("run-c3", "zhangsan"),
    ):
        await store.write_run(graph)
    async with db.session() as s:
        for run_id, kind in (("run-r1", "review"), ("run-c1", "chat"), ("run-c2", "chat")):
            s.add(RunRow(id=run_id, kind=kind, status="done"))
        await s.commit()

    def ctx_for(user: str | None) -> AgentContext:
        return AgentContext(
            source=DemoMine(), settings=Settings(_env_file=None), db=db, user_name=user, graph=store
        )

    yield ctx_for
    await db.close()


@pytest.fixture(scope="module")
def tool() -> BaseTool:
    return graph_tools()[0]


async def call(tool: BaseTool, ctx: AgentContext, **args: Any) -> Any:
    return await tool.ainvoke({**args, "runtime": tool_runtime(ctx)})


def error_of(out: Any) -> dict[str, Any]:
    assert isinstance(out, str), out
    error: dict[str, Any] = json.loads(out)
    return error


async def test_support_claims_and_run_queries(tool: BaseTool, ctx_for: Any) -> None:
    zs = ctx_for("zhangsan")
    support = await call(tool, zs, query="support", report_id=REPORT, finding=1)
    assert support["claim"]["id"] == f"claim:{REPORT}:1"
    assert "《煤矿安全规程》（2025版）第192条" in {n["label"] for n in support["nodes"]}
    claims = await call(tool, zs, query="claims", source="第192条")
    assert {c["run_id"] for c in claims["claims"]} == {"run-r1", "run-c1"}  # not lisi's, not run-c3 (gone)
    assert {r["run_id"] for r in claims["runs"]} == {"run-r1", "run-c1"}
    run = await call(tool, zs, query="run", run_id="run-c1")
    assert "检索《煤矿安全规程》" in {n["label"] for n in run["nodes"]} and not run["truncated"]
    by_number = await call(tool, zs, query="support", run_id="run-c1", claim="1")
    assert by_number["claim"]["id"] == "claim:run-c1:1"


async def test_other_users_runs_and_bad_queries_are_error_results(tool: BaseTool, ctx_for: Any) -> None:
    lisi = ctx_for("lisi")
    hidden = error_of(await call(tool, lisi, query="run", run_id="run-c1"))
    assert hidden["kind"] == "bad_request" and "溯源图中没有该结论" in hidden["error"]
    assert "error" in error_of(await call(tool, lisi, query="support", run_id="run-c1", claim="1"))
    assert "error" in error_of(await call(tool, lisi, query="claims"))
    assert "error" in error_of(await call(tool, lisi, query="support"))
    cypher = error_of(await call(tool, lisi, query="MATCH (n) DETACH DELETE n"))
    assert "error" in cypher
    anonymous = await call(tool, ctx_for(None), query="claims", source="第192条")
    assert {c["run_id"] for c in anonymous["claims"]} == {"run-r1"}
