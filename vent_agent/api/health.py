"""Operations routes: ``GET /healthz`` (the process is up and its database answers), ``GET /readyz``
(ready to serve: store reachable, schema at the newest migration, and every required component's check;
an optional component that failed, the OCR engine, makes it ``degraded``, not unready), ``GET /metrics``
(Prometheus text format)."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse

from vent_agent.api.deps import StateDep
from vent_agent.api.json_body import ApiRoute
from vent_agent.observability.metrics import render_latest, set_upload_disk
from vent_agent.observability.readiness import STORE_UNREACHABLE, ReadinessCheck, readiness_registry
from vent_agent.state import AppState
from vent_agent.store.db import migrations_head

router = APIRouter(tags=["health"], route_class=ApiRoute)

STORE_TIMEOUT_S = 5.0

CHECK_LABELS = {
    "store": "数据库",
    "migrations": "数据库结构版本",
    "checkpointer": "对话检查点存储",
    "knowledge_base": "规程知识库",
    "ocr_engine": "OCR 引擎",
    "graph": "溯源图",
}
"""What each readiness check stands for, in the ``error`` of an unready answer."""
COMES_BACK = "数据库恢复后服务自动重连，无需重启"
"""Added to that ``error`` when a check failed because the database is away."""


def not_ready_text(failing: dict[str, str]) -> str:
    """The ``error`` of ``/readyz``'s 503 from the failing required checks (name → detail):
    ``未就绪：数据库（store）、…不可用``, and :data:`COMES_BACK` when the database is away.

    >>> not_ready_text({"store": "数据库不可达：ConnectionRefusedError: …"})
    '未就绪：数据库（store）不可用（数据库不可达；数据库恢复后服务自动重连，无需重启）'
    """
    names = "、".join(f"{CHECK_LABELS.get(n, n)}（{n}）" for n in sorted(failing))
    if any(d.startswith(STORE_UNREACHABLE) for d in failing.values()):
        return f"未就绪：{names}不可用（{STORE_UNREACHABLE}；{COMES_BACK}）"
    return f"未就绪：{names}不可用"


@router.get("/healthz")
async def healthz(state: StateDep) -> JSONResponse:
    """``{"status": "ok", "database": "ok", "model_configured": bool, "chat_model": {...}}``; 503 when the
    database does not answer. ``model_configured``: the click-interpretation model (``VENT_LLM_*``);
    ``chat_model``: the current chat model (``VENT_MODELS``): name, base URL and ``state`` (``ok`` /
    ``failing`` with the ``error`` of its last chat call on this worker, ``unknown`` before one, ``none``
    when none is configured)."""
    try:
        await state.db.ping()
    except Exception as exc:  # report, don't raise: a health probe must answer
        return JSONResponse(
            {"status": "error", "database": f"{STORE_UNREACHABLE}：{type(exc).__name__}: {exc}"},
            status_code=503,
        )
    current = (await state.models.info()).get("current")
    return JSONResponse(
        {
            "status": "ok",
            "database": "ok",
            "model_configured": state.interpret_model is not None,
            "chat_model": state.models.status(current),
        }
    )


def _store_checks(state: AppState) -> dict[str, tuple[ReadinessCheck, float]]:
    async def store() -> str:
        await state.db.ping()
        return state.db.dialect

    async def migrations() -> str | bool:
        current, head = await state.db.current_revision(), migrations_head()
        if current != head:
            raise RuntimeError(f"数据库结构版本为 {current}，本程序的最新迁移为 {head}")
        return str(current)

    return {"store": (store, STORE_TIMEOUT_S), "migrations": (migrations, STORE_TIMEOUT_S)}


@router.get("/readyz")
async def readyz(request: Request, state: StateDep) -> JSONResponse:
    """``{"status": "ready", "checks": {name: {"ok", "detail", "ms", "state", "required"}}, "degraded":
    [...], "loading": [...], "broker": {...}}``. Checks: the store, its migrations, and whatever the
    components registered (checkpointer, knowledge base: required; OCR engine: optional).

    - a required check fails: ``503``, ``status: "not_ready"`` and an ``error`` naming them in Chinese
      (:func:`not_ready_text`: what is down, and that the service reconnects by itself when it is the
      database);
    - else an optional check failed: ``200``, ``status: "degraded"``, the checks in ``degraded`` and a
      ``warning`` saying what does not work;
    - else ``200``, ``status: "ready"``; checks still loading in the background (the OCR engine after
      start-up) are listed in ``loading``.

    Answers at once: a slow check (the OCR engine's load) runs in the background and is answered from
    its state."""
    registry = readiness_registry(request.app)
    results = await registry.run(extra=_store_checks(state))
    broker = state.runs.broker
    failing = sorted(n for n, r in results.items() if r.required and not r.ok)
    degraded = sorted(n for n, r in results.items() if not r.required and r.state == "failed")
    body: dict[str, Any] = {
        "checks": {name: r.as_dict() for name, r in results.items()},
        "degraded": degraded,
        "loading": sorted(n for n, r in results.items() if r.state == "loading"),
        "broker": {"kind": broker.kind, "connected": broker.connected, "worker_id": state.runs.worker_id},
    }
    if degraded:
        lost = "；".join(f"{registry.degrades(n)}（{n}）" for n in degraded)
        body["warning"] = f"部分功能不可用：{lost}"
    if failing:
        return JSONResponse(
            {"status": "not_ready", "error": not_ready_text({n: results[n].detail for n in failing}), **body},
            status_code=503,
        )
    return JSONResponse({"status": "degraded" if degraded else "ready", **body})


@router.get("/metrics", response_class=Response)
async def metrics(state: StateDep) -> Response:
    """The service's metrics in Prometheus' text format (runs, events, tool/model latency, OCR pages,
    upload disk use, cap and retention)."""
    await asyncio.to_thread(set_upload_disk, state.settings)
    data, content_type = render_latest()
    return Response(content=data, media_type=content_type)
