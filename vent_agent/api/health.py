"""``GET /healthz``: the process is up and its database answers."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from vent_agent.api.deps import StateDep

router = APIRouter(tags=["health"])


@router.get("/healthz")
async def healthz(state: StateDep) -> JSONResponse:
    """``{"status": "ok", "database": "ok", "model_configured": bool}``; 503 when the database does not answer."""
    try:
        await state.db.ping()
    except Exception as exc:  # report, don't raise: a health probe must answer
        return JSONResponse({"status": "error", "database": str(exc)}, status_code=503)
    return JSONResponse(
        {"status": "ok", "database": "ok", "model_configured": state.interpret_model is not None}
    )
