"""The provenance graph, read-only: ``GET /api/graph/support`` (a claim's support chain: a report's
finding, or a run's claim), ``GET /api/graph/claims?source=TEXT`` (the claims resting on a source and
the runs that used it) and ``GET /api/graph/runs/{run_id}`` (a run's task chain).

Ownership as for runs (``vent_agent.api.runs``): the graph of a run started in a session is its user's
(401 without ``x-access-token``, 404 for anyone else); runs outside sessions (click interpretations,
reviews without a session) are read by their id. ``/claims`` searches every run, so it needs a token and
answers the caller's sessions' runs and the runs outside sessions.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

from fastapi import APIRouter, Query

from vent_agent.api.deps import StateDep, TokenDep, require_user
from vent_agent.api.errors import ApiError
from vent_agent.api.json_body import ApiRoute
from vent_agent.graph.model import RunOwner
from vent_agent.graph.queries import MAX_SOURCE_CHARS, claim_by_finding, claim_in_run, claims_for, owner_of
from vent_agent.state import AppState
from vent_agent.times import local_time

router = APIRouter(prefix="/api/graph", tags=["graph"], route_class=ApiRoute)
log = logging.getLogger(__name__)


@asynccontextmanager
async def _answering() -> AsyncIterator[None]:
    """A store that fails (its tables lost, its database gone) answers 503, never a 500."""
    try:
        yield
    except ApiError:
        raise
    except Exception as exc:
        log.warning("graph query failed: %s: %s", type(exc).__name__, exc)
        raise ApiError(503, UNAVAILABLE) from exc


NO_CLAIM = "溯源图中没有该结论"
UNAVAILABLE = "溯源图暂不可用，请稍后重试或运行 vent-agent graph rebuild 重建"
NO_RUN = "运行不存在或尚未写入溯源图"


async def _visible(state: AppState, token: str | None, run_id: str, missing: str) -> RunOwner:
    """The owner of ``run_id`` when the caller may see its graph; 401 (a run of a session, no token) or
    404 ``missing`` otherwise."""
    owner = await owner_of(state.graph.store, state.db, run_id)
    if owner is None:
        raise ApiError(404, missing)
    if owner.private:
        user = await require_user(state, token)
        if user.user_name != owner.user_name:
            raise ApiError(404, missing)
    return owner


def _run_wire(owner: RunOwner, timezone: str) -> dict[str, Any]:
    return {
        "run_id": owner.run_id,
        "kind": owner.kind,
        "session_id": owner.session_id,
        "created_at": local_time(owner.created_at, timezone) if owner.created_at else None,
    }


@router.get("/support")
async def claim_support(
    state: StateDep,
    token: TokenDep,
    report_id: Annotated[
        str | None, Query(max_length=96, description="审查报告 ID（与 finding 一起）")
    ] = None,
    finding: Annotated[
        int | None, Query(ge=1, le=10_000, description="第几条发现（报告顺序，从 1 起）")
    ] = None,
    run_id: Annotated[str | None, Query(max_length=64, description="运行 ID（与 claim 一起）")] = None,
    claim: Annotated[
        str | None, Query(max_length=255, description="运行中的第几条结论，或结论节点 ID")
    ] = None,
) -> dict[str, Any]:
    """What a claim rests on: ``{"claim", "run_id", "nodes": [{"id", "kind", "label", …}], "edges":
    [{"from", "to", "kind"}]}``: its evidence (PDF cells, reference records, calculator results,
    excerpts), the tool calls and tasks that produced them, the report or answer stating it and the
    sources it cites. 400 unless either ``report_id`` and ``finding`` or ``run_id`` and ``claim``."""
    by_report = report_id is not None and finding is not None and run_id is None and claim is None
    by_run = run_id is not None and claim is not None and report_id is None and finding is None
    if not (by_report or by_run):
        raise ApiError(400, "请给出 report_id 与 finding，或 run_id 与 claim（二选一）")
    async with _answering():
        if report_id is not None and finding is not None:
            node = await claim_by_finding(state.graph.store, report_id, finding)
        else:
            node = await claim_in_run(state.graph.store, str(run_id), str(claim))
        if node is None or node.run_id is None:
            raise ApiError(404, NO_CLAIM)
        await _visible(state, token, node.run_id, NO_CLAIM)
        graph = await state.graph.store.support(node.id)
    return {"claim": node.id, "run_id": node.run_id, **graph.wire()}


@router.get("/claims")
async def claims_using_source(
    state: StateDep,
    token: TokenDep,
    source: Annotated[
        str,
        Query(
            min_length=1, max_length=MAX_SOURCE_CHARS, description="来源名称中的文字，空格分隔的词须全部出现"
        ),
    ],
) -> dict[str, Any]:
    """The claims resting on every source (an article, a standard, a reference document of a mine and
    month, a plan or report) whose name holds each word of ``source`` — ``第192条``, ``瓦斯等级鉴定报告
    2026-08`` — as ``{"claims": [{"id", "label", "run_id", "report_id", "sources", …}], "runs":
    [{"run_id", "kind", "session_id", "created_at"}]}`` (``runs``: every run whose work used such a source,
    claims or not). Needs a token: the caller's sessions' runs and the runs outside sessions."""
    user = await require_user(state, token)
    if not source.split():
        raise ApiError(400, "source 不能为空")
    async with _answering():
        found = await claims_for(state.graph.store, state.db, source, user.user_name)
    tz = state.settings.timezone
    return {"claims": [c.wire() for c in found.claims], "runs": [_run_wire(r, tz) for r in found.runs]}


@router.get("/runs/{run_id}")
async def run_task_chain(run_id: str, state: StateDep, token: TokenDep) -> dict[str, Any]:
    """A run's task chain: its request, each step (agents, model calls, tool calls) linked by ``next``,
    and what they ``produces`` (a report, an answer, the claims): ``{"run_id", "kind", "session_id",
    "created_at", "nodes", "edges"}``."""
    async with _answering():
        owner = await _visible(state, token, run_id, NO_RUN)
        graph = await state.graph.store.run_chain(run_id)
    return {**_run_wire(owner, state.settings.timezone), **graph.wire()}
