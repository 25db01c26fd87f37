"""The graph's read-only queries as the routes and the ``query_graph`` tool ask them: a claim by report
and finding number or by run and claim, the owner of a run (None once the run is gone from the log,
e.g. with its deleted session: the graph answers only for runs the log still has), and the claims
resting on a source, limited to live runs the viewer may see."""

from __future__ import annotations

import re

from sqlmodel import col, select

from vent_agent.graph.model import Node, RunOwner
from vent_agent.graph.store import ClaimsAnswer, GraphStore
from vent_agent.store.db import Database
from vent_agent.store.models import RunRow

REPORT_ID = re.compile(r"^vent_review_[0-9a-f]{32}_\d{8}$")
RUN_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
MAX_SOURCE_CHARS = 200
"""Longest ``source`` text a claims query takes."""


async def live_runs(db: Database, run_ids: list[str]) -> set[str]:
    """The ids among ``run_ids`` that the run log still has."""
    if not run_ids:
        return set()
    async with db.session() as s:
        return set((await s.exec(select(RunRow.id).where(col(RunRow.id).in_(run_ids)))).all())


async def owner_of(store: GraphStore, db: Database, run_id: str) -> RunOwner | None:
    """The owner of a projected run still in the log; None otherwise."""
    if not RUN_ID.match(run_id):
        return None
    owner = await store.owner(run_id)
    if owner is None or not await live_runs(db, [run_id]):
        return None
    return owner


async def claim_by_finding(store: GraphStore, report_id: str, finding: int) -> Node | None:
    """Finding ``finding`` (1-based, report order) of report ``report_id`` as a Claim node."""
    if not REPORT_ID.match(report_id):
        return None
    node = await store.node(f"claim:{report_id}:{finding}")
    return node if node is not None and node.kind == "Claim" else None


async def claim_in_run(store: GraphStore, run_id: str, claim: str) -> Node | None:
    """A claim of run ``run_id``: its number in the run (``3``: the run's claims by report then index,
    as :meth:`GraphStore.claims_of_run` lists them) or its node id."""
    if not RUN_ID.match(run_id):
        return None
    if claim.strip().isdigit():
        claims = await store.claims_of_run(run_id)
        n = int(claim.strip())
        return claims[n - 1] if 1 <= n <= len(claims) else None
    node = await store.node(claim.strip())
    return node if node is not None and node.kind == "Claim" and node.run_id == run_id else None


def source_terms(source: str) -> list[str]:
    """The words of a source query (every one must be in the source's label)."""
    return source.split()


async def claims_for(store: GraphStore, db: Database, source: str, viewer: str | None) -> ClaimsAnswer:
    """The claims resting on sources whose label holds every word of ``source``, and the runs that
    used them: live runs ``viewer`` may see."""
    found = await store.claims_using(source_terms(source), viewer)
    live = await live_runs(db, [r.run_id for r in found.runs])
    return ClaimsAnswer(
        claims=[c for c in found.claims if c.run_id in live], runs=[r for r in found.runs if r.run_id in live]
    )
