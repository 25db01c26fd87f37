"""docs/API_DOCUMENTATION.md keeps up with the app's routes.

Every route the app serves (the path of each ``APIRoute``, ``{param}`` placeholders as written in the
route) must be mentioned in the documentation, and no route the app serves may still be listed in its
"尚未实现 / not yet implemented" section.
"""

from __future__ import annotations

import re
from pathlib import Path

from fastapi import FastAPI
from fastapi.routing import APIRoute
from starlette.routing import BaseRoute

from vent_agent.app import create_app
from vent_agent.settings import Settings

DOC = Path(__file__).resolve().parents[1] / "docs" / "API_DOCUMENTATION.md"
FASTAPI_OWN = {"/docs", "/redoc", "/openapi.json", "/docs/oauth2-redirect"}
NOT_YET_HEADING = re.compile(r"^#+\s*尚未实现", re.MULTILINE)
NOT_YET_ROW = re.compile(r"^\|\s*([A-Z]+)\s*\|\s*`([^`]+)`", re.MULTILINE)


def app_routes(app: FastAPI) -> set[tuple[str, str]]:
    """``(method, path)`` of every APIRoute of ``app``, without FastAPI's own documentation routes."""
    return {
        (method, path)
        for route, path in _flat_routes(app)
        if isinstance(route, APIRoute) and path is not None and path not in FASTAPI_OWN
        for method in route.methods or ()
    }


def _flat_routes(app: FastAPI) -> list[tuple[BaseRoute, str | None]]:
    """Every route of ``app`` with its full path, included routers flattened."""
    try:  # FastAPI >= 0.137 keeps included routers as a tree in app.routes; this flattens it
        from fastapi.routing import iter_route_contexts
    except ImportError:  # older FastAPI copies every included route into app.routes
        return [(r, getattr(r, "path", None)) for r in app.routes]
    return [(rc.original_route, rc.path) for rc in iter_route_contexts(app.routes)]


def mentions(doc: str, path: str) -> bool:
    """True when ``path`` appears as a whole path (not as a piece of a longer one)."""
    return re.search(rf"(?<![\w/{{}}-]){re.escape(path)}(?![\w/{{}}-])", doc) is not None


def not_yet_section(doc: str) -> str:
    """The text of the "尚未实现" section, up to the next heading of the same or a higher level."""
    match = NOT_YET_HEADING.search(doc)
    assert match, "docs/API_DOCUMENTATION.md has no 尚未实现 / not yet implemented section"
    level = len(match.group(0)) - len(match.group(0).lstrip("#"))
    rest = doc[match.end() :]
    end = re.search(rf"^#{{1,{level}}}\s", rest, re.MULTILINE)
    return rest[: end.start()] if end else rest


def test_every_route_is_documented(tmp_path: Path) -> None:
    routes = app_routes(create_app(Settings(_env_file=None, data_dir=tmp_path)))
    paths = {path for _, path in routes}
    assert "/healthz" in paths, f"route discovery found too little: {sorted(paths)}"
    doc = DOC.read_text(encoding="utf-8")
    missing = sorted(p for p in paths if not mentions(doc, p))
    assert not missing, f"routes not mentioned in docs/API_DOCUMENTATION.md: {missing}"


def test_no_served_route_is_listed_as_not_implemented(tmp_path: Path) -> None:
    routes = app_routes(create_app(Settings(_env_file=None, data_dir=tmp_path)))
    listed = set(NOT_YET_ROW.findall(not_yet_section(DOC.read_text(encoding="utf-8"))))
    assert listed, "the 尚未实现 section lists no routes"
    stale = sorted(listed & routes)
    assert not stale, f"implemented routes still listed as not implemented: {stale}"
