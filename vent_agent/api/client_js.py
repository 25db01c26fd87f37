"""``GET /static/vent-client.js``: the browser client of the event streams, shipped by the service.

An ES module (``vent_agent/static/vent-client.js``): ``streamEvents(response)`` buffers partial frames
and decodes UTF-8 across reads, ``followRun`` reconnects through ``GET /api/runs/{id}/events`` with
``Last-Event-ID``, ``streamWithRecovery`` does both (docs/API_DOCUMENTATION.md, 前端接入示例).
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse

from vent_agent.api.json_body import ApiRoute

router = APIRouter(tags=["client"], route_class=ApiRoute)

CLIENT_JS = Path(__file__).resolve().parent.parent / "static" / "vent-client.js"


@router.get("/static/vent-client.js", include_in_schema=False)
async def vent_client_js() -> FileResponse:
    """The ES module, as JavaScript (revalidated on each load: ``Cache-Control: no-cache``)."""
    return FileResponse(
        CLIENT_JS, media_type="text/javascript; charset=utf-8", headers={"Cache-Control": "no-cache"}
    )
