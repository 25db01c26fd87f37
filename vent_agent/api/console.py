"""The operator console: ``GET /`` (its page), ``/static/console/*`` (its ES modules and CSS, no build
step) and ``GET /api/console/config`` (what the page needs to know about this service).

The console streams through ``/static/vent-client.js``; see docs/ARCHITECTURE.md (运维控制台).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

from vent_agent.api.deps import StateDep
from vent_agent.api.json_body import ApiRoute
from vent_agent.upstream.models import QUANTITY_DIGITS, QUANTITY_UNITS

CONSOLE_DIR = Path(__file__).resolve().parent.parent / "static" / "console"
router = APIRouter(tags=["console"], route_class=ApiRoute)


@router.get("/", include_in_schema=False)
async def console_page() -> FileResponse:
    """The console's page (revalidated on each load)."""
    return FileResponse(
        CONSOLE_DIR / "index.html",
        media_type="text/html; charset=utf-8",
        headers={"Cache-Control": "no-cache"},
    )


@router.get("/api/console/config")
async def console_config(state: StateDep) -> dict[str, Any]:
    """``{"demo_tokens": [{"token", "user_name"}], "auth": "builtin" | "external", "figures"}``: the demo
    tokens only when the built-in demo user service is in use (no ``VENT_AUTH_URL``), so the console can
    offer them; with the mine's user service the list is empty. ``figures``: each quantity's unit and
    the decimals its readings are shown with (``{"wind_speed": {"unit": "m/s", "digits": 2}, …}``,
    :data:`~vent_agent.upstream.models.QUANTITY_DIGITS`), so the console writes a figure as the
    service's texts do."""
    builtin = not state.settings.auth_url
    tokens = state.settings.demo_tokens if builtin else {}
    return {
        "auth": "builtin" if builtin else "external",
        "demo_tokens": [{"token": t, "user_name": u} for t, u in tokens.items()],
        "figures": {q: {"unit": QUANTITY_UNITS.get(q, ""), "digits": d} for q, d in QUANTITY_DIGITS.items()},
    }


def mount_console(app: FastAPI) -> None:
    """Add the console's routes and its static files (``/static/console``) to ``app``."""
    app.include_router(router)
    app.mount("/static/console", StaticFiles(directory=CONSOLE_DIR), name="console")
