"""``query_graph``: the provenance graph for the dialogue agent, through a small fixed query form (a
claim's support chain, the claims resting on a source, a run's task chain), never a query language
from the model. Read-only, with the ownership rules of runs: the caller's sessions' runs and the runs
outside sessions (:mod:`vent_agent.graph.queries`)."""

from __future__ import annotations

from typing import Any, Literal

from langchain_core.tools import BaseTool
from pydantic import Field

from vent_agent.graph.model import Node, Subgraph
from vent_agent.graph.queries import MAX_SOURCE_CHARS, claim_by_finding, claim_in_run, claims_for, owner_of
from vent_agent.graph.store import GraphStore, visible
from vent_agent.tools.common import ToolArgs, context_tool
from vent_agent.tools.context import AgentContext

MAX_NODES = 60
"""Nodes (and claims) a tool answer lists at most; ``truncated`` says when more were left out."""
NOT_FOUND = "溯源图中没有该结论（或无权查看）"


class GraphQuery(ToolArgs):
    """One query of the provenance graph."""

    query: Literal["support", "claims", "run"] = Field(
        description="support：某条结论的依据链；claims：引用某来源的全部结论；run：某次运行的任务链"
    )
    report_id: str | None = Field(
        default=None, max_length=96, description="support：审查报告 ID（与 finding 一起）"
    )
    finding: int | None = Field(
        default=None, ge=1, le=10_000, description="support：报告中的第几条发现（从 1 起）"
    )
    run_id: str | None = Field(
        default=None, max_length=64, description="support（与 claim 一起）或 run：运行 ID"
    )
    claim: str | None = Field(
        default=None, max_length=255, description="support：运行中的第几条结论，或结论节点 ID"
    )
    source: str | None = Field(
        default=None,
        max_length=MAX_SOURCE_CHARS,
        description="claims：来源名称中的词，空格分隔，例如「第192条」「瓦斯等级鉴定报告 2026-08」",
    )


def _brief(node: Node) -> dict[str, Any]:
    return {"id": node.id, "kind": node.kind, "label": node.label[:200]}


def _graph_answer(graph: Subgraph) -> dict[str, Any]:
    nodes = sorted(graph.nodes, key=lambda n: n.id)
    return {
        "nodes": [_brief(n) for n in nodes[:MAX_NODES]],
        "edges": [e.wire() for e in graph.edges[: MAX_NODES * 2]],
        "truncated": len(nodes) > MAX_NODES or len(graph.edges) > MAX_NODES * 2,
    }


async def _visible_run(ctx: AgentContext, store: GraphStore, run_id: str) -> None:
    if ctx.db is None:
        raise ValueError("溯源图不可用")
    owner = await owner_of(store, ctx.db, run_id)
    if owner is None or not visible(owner, ctx.user_name):
        raise ValueError(NOT_FOUND)


async def _query_graph(ctx: AgentContext, **args: Any) -> dict[str, Any]:
    q = GraphQuery.model_validate(args)
    store = ctx.graph
    if store is None or ctx.db is None:
        raise ValueError("溯源图不可用")
    if q.query == "claims":
        if not q.source or not q.source.split():
            raise ValueError("claims 查询需要 source")
        found = await claims_for(store, ctx.db, q.source, ctx.user_name)
        return {
            "claims": [
                {**_brief(c.claim), "run_id": c.run_id, "report_id": c.report_id, "sources": c.sources}
                for c in found.claims[:MAX_NODES]
            ],
            "runs": [{"run_id": r.run_id, "kind": r.kind} for r in found.runs[:MAX_NODES]],
            "truncated": len(found.claims) > MAX_NODES,
        }
    if q.query == "run":
        if not q.run_id:
            raise ValueError("run 查询需要 run_id")
        await _visible_run(ctx, store, q.run_id)
        return {"run_id": q.run_id, **_graph_answer(await store.run_chain(q.run_id))}
    if q.report_id and q.finding:
        node = await claim_by_finding(store, q.report_id, q.finding)
    elif q.run_id and q.claim:
        node = await claim_in_run(store, q.run_id, q.claim)
    else:
        raise ValueError("support 查询需要 report_id 与 finding，或 run_id 与 claim")
    if node is None or node.run_id is None:
        raise ValueError(NOT_FOUND)
    await _visible_run(ctx, store, node.run_id)
    return {"claim": _brief(node), **_graph_answer(await store.support(node.id))}


def graph_tools() -> list[BaseTool]:
    """query_graph: the provenance graph, read-only."""
    return [
        context_tool(
            "query_graph",
            "查询溯源图（只读）：support 给出某条审查发现或回答结论的依据链（PDF 单元格、参考数据记录、核算结果、"
            "规程条款）；claims 给出引用某一来源（如「第192条」「瓦斯等级鉴定报告 2026-08」）的全部结论及用到它的运行；"
            "run 给出某次运行一步步做了什么。只能查看本人会话和会话之外的运行。",
            GraphQuery,
            _query_graph,
        )
    ]
