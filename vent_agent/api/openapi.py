"""The OpenAPI document as the service answers: request validation errors are 400 ``{"error": "…"}``
(``api/errors.py``), not FastAPI's 422 with ``detail``; the ``x-access-token`` header is the security
scheme ``AccessToken`` (declared by :data:`~vent_agent.api.deps.ACCESS_TOKEN` on the routes that use
it). The review route also documents its optional token (needed only with ``session_id``)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

ERROR_SCHEMA = {
    "title": "Error",
    "type": "object",
    "required": ["error"],
    "properties": {"error": {"type": "string", "description": "中文错误信息"}},
}


def _error_response(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }


def build_openapi(app: FastAPI) -> dict[str, Any]:
    """The app's OpenAPI with 422 replaced by 400 (the spec's error shape), built once."""
    if app.openapi_schema:
        return app.openapi_schema
    schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
    components = schema.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    schemas["Error"] = ERROR_SCHEMA
    for name in ("HTTPValidationError", "ValidationError"):
        schemas.pop(name, None)
    for path_item in schema.get("paths", {}).values():
        for operation in path_item.values():
            responses = operation.get("responses")
            if not isinstance(responses, dict) or "422" not in responses:
                continue
            del responses["422"]
            responses.setdefault("400", _error_response("请求参数错误"))
    review = schema.get("paths", {}).get("/api/vent/review/pdf", {}).get("post")
    if review is not None and "AccessToken" in components.get("securitySchemes", {}):
        review["security"] = [{}, {"AccessToken": []}]  # optional: needed only with session_id
    app.openapi_schema = schema
    return schema


def install_openapi(app: FastAPI) -> None:
    """Serve :func:`build_openapi` at ``/openapi.json``."""
    app.openapi = lambda: build_openapi(app)  # type: ignore[method-assign]  # FastAPI's documented way to customise the schema
