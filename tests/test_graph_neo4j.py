"""The Neo4j store behind the same interface: with a fake driver recording the queries, it answers as
the embedded store does; every query is a fixed text with parameters (data never spliced in), reads
routed to readers; Neo4j unreachable → the embedded store carries on (writes, queries) and the ``graph``
readiness check fails, the service ``degraded``. A live test runs when ``NEO4J_URI`` is set."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from neo4j import RoutingControl

from tests.fake_neo4j import FakeDriver
from tests.graph_samples import REPORT, chat_graph, review_graph
from vent_agent.graph import neo4j_store as q
from vent_agent.graph.embedded import EmbeddedGraphStore
from vent_agent.graph.mirrored import MirroredGraphStore
from vent_agent.graph.model import EDGE_KINDS
from vent_agent.graph.neo4j_store import Neo4jGraphStore
from vent_agent.graph.store import GraphStore
from vent_agent.settings import Settings
from vent_agent.store.db import Database


@pytest.fixture
async def embedded(tmp_path: Path) -> AsyncIterator[EmbeddedGraphStore]:
    db = Database(f"sqlite+aiosqlite:///{tmp_path / 'graph.db'}")
    await db.migrate()
    yield EmbeddedGraphStore(db)
    await db.close()


async def _fill(store: GraphStore) -> None:
    await store.prepare()
    for graph in (review_graph("run-r1"), chat_graph("run-c1", "zhangsan"), chat_graph("run-c2", "lisi")):
        await store.write_run(graph)


async def _answers(store: GraphStore) -> dict[str, object]:
    cited = await store.claims_using(["第192条"], "zhangsan")
    gas = await store.claims_using(["瓦斯等级鉴定报告", "2026-08"], None)
    return {
        "support": (await store.support(f"claim:{REPORT}:1")).wire(),
        "chat": (await store.support("claim:run-c1:1")).wire(),
        "cited": sorted((c.claim.id, tuple(c.sources)) for c in cited.claims),
        "cited_runs": [r.run_id for r in cited.runs],
        "gas": [c.claim.id for c in gas.claims],
        "chain": (await store.run_chain("run-c1")).wire(),
        "owner": (await store.owner("run-c2")),
        "claims": [n.id for n in await store.claims_of_run("run-r1")],
    }


async def test_the_neo4j_store_answers_as_the_embedded_one(embedded: EmbeddedGraphStore) -> None:
    driver = FakeDriver()
    neo4j = Neo4jGraphStore(driver, database="prov")
    await _fill(neo4j)
    await _fill(embedded)
    assert await _answers(neo4j) == await _answers(embedded)
    await neo4j.write_run(review_graph("run-r1"))  # written again: the same graph
    assert (await neo4j.support(f"claim:{REPORT}:1")).wire() == (
        await embedded.support(f"claim:{REPORT}:1")
    ).wire()


async def test_queries_are_fixed_texts_with_parameters_routed_by_kind() -> None:
    driver = FakeDriver()
    store = Neo4jGraphStore(driver, database="prov")
    graph = review_graph("run-r1")
    graph.nodes[0].label = "x'}) DETACH DELETE n //"  # data that would break a spliced query
    await _fill(store)
    await store.write_run(graph)
    await _answers(store)
    edge_queries = {q.write_edges(kind) for kind in EDGE_KINDS}
    fixed = {*q.SCHEMA, q.DELETE_RUN, q.WRITE_NODES, q.WRITE_RUN, *edge_queries}
    reads = {q.NODES, q.RUN_CLAIMS, q.RUNS, q.MATCH_SOURCES, q.UP_LEVEL, q.DOWN_LEVEL, q.CHAIN_LEVEL}
    for query, _params, routing, database in driver.calls:
        assert query in fixed | reads, query
        assert routing == (RoutingControl.READ if query in reads else RoutingControl.WRITE)
        assert database == "prov"
        assert "DETACH DELETE n //" not in query
    assert any(
        n["label"] == "x'}) DETACH DELETE n //" for _q, p, _r, _d in driver.calls for n in p.get("nodes", [])
    )


async def test_neo4j_down_the_embedded_store_carries_on(embedded: EmbeddedGraphStore) -> None:
    driver = FakeDriver(down=True)
    store = MirroredGraphStore(Neo4jGraphStore(driver), embedded)
    await _fill(store)  # nothing raised
    assert not store.in_sync and "ServiceUnavailable" in str(store.last_error)
    assert await _answers(store) == await _answers(embedded)
    with pytest.raises(Exception, match="Couldn't connect|缺少"):
        await store.ping()
    driver.down = False  # back: reads stay embedded until a rebuild has cleared and rewritten both
    assert not store.in_sync
    await store.clear()
    await _fill(store)
    assert store.in_sync and await _answers(store.primary) == await _answers(embedded)
    await store.close()
    assert driver.closed


async def test_an_unreachable_neo4j_leaves_the_service_up_and_degraded(tmp_path: Path) -> None:
    from vent_agent.app import create_app

    settings = Settings(
        _env_file=None,
        data_dir=tmp_path / "data",
        graph_backend="neo4j",
        neo4j_uri="bolt://127.0.0.1:9",  # the discard port: nothing listens
        warm_up=False,
        ocr_engine="none",
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t", timeout=60) as client:
            resp = await client.post(
                "/api/interpret/click/tun",
                json={"tun_id": "15216", "tun_name": "15216 辅运起坡段", "mode": "fast"},
            )
            assert resp.status_code == 200 and '"type":"done"' in resp.text
            run_id = resp.headers["x-run-id"]
            await app.state.vent.graph.recorder.idle()
            chain = await client.get(f"/api/graph/runs/{run_id}")
            assert chain.status_code == 200 and chain.json()["nodes"]
            ready = await client.get("/readyz")
            body = ready.json()
            assert ready.status_code == 200 and body["status"] == "degraded", body
            assert body["checks"]["graph"]["ok"] is False


@pytest.mark.skipif(
    not os.environ.get("NEO4J_URI"), reason="NEO4J_URI is not set: no Neo4j server to test against"
)
async def test_live_neo4j_answers_as_the_embedded_store(embedded: EmbeddedGraphStore) -> None:
    """Against a real server (``NEO4J_URI``, ``NEO4J_USER``, ``NEO4J_PASSWORD``); clears its
    provenance nodes."""
    store = Neo4jGraphStore.connect(
        os.environ["NEO4J_URI"], os.environ.get("NEO4J_USER", "neo4j"), os.environ.get("NEO4J_PASSWORD"), None
    )
    try:
        await store.prepare()
        await store.clear()
        await _fill(store)
        await _fill(embedded)
        assert await _answers(store) == await _answers(embedded)
    finally:
        await store.close()
