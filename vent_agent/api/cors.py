"""Cross-origin requests (CORS) for a browser frontend on another origin, with refusals in the spec's
error shape.

Starlette's :class:`~starlette.middleware.cors.CORSMiddleware` does the work; a preflight it refuses
(an origin, method, request header or private-network access not allowed) it answers with a plain
English text ("Disallowed CORS origin"). :class:`SpecCorsMiddleware` answers those with
``400 {"error": "…"}`` in Chinese, keeping the middleware's headers, as every other error of the API.
"""

from __future__ import annotations

from collections.abc import Mapping

from starlette.datastructures import Headers
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import Response

from vent_agent.api.errors import error_response

REFUSED = {"origin": "来源", "method": "请求方法", "headers": "请求头", "private-network": "私有网络访问"}
"""What a refused preflight did not allow, by the name Starlette gives it."""
_PREFIX = "Disallowed CORS "


def refusal_message(failures: list[str], details: Mapping[str, str] | None = None) -> str:
    """The Chinese message for a preflight refused for ``failures`` (Starlette's names, see
    :data:`REFUSED`), each with what was asked and refused when ``details`` has it, e.g.
    ``跨域请求不被允许：来源 http://evil.example 不在允许的来源中（VENT_CORS_ORIGINS）``."""
    parts = []
    for name in failures:
        what, asked = REFUSED.get(name, name), (details or {}).get(name)
        if name == "origin" and asked:
            parts.append(f"{what} {asked} 不在允许的来源中（VENT_CORS_ORIGINS）")
        elif asked:
            parts.append(f"{what} {asked} 不被允许")
        else:
            parts.append(f"{what}不被允许")
    return "跨域请求不被允许：" + "；".join(parts)


class SpecCorsMiddleware(CORSMiddleware):
    """:class:`CORSMiddleware` whose refused preflights are ``400 {"error": "…"}`` in Chinese, naming
    the origin, method or request headers refused."""

    def preflight_response(self, request_headers: Headers) -> Response:
        response = super().preflight_response(request_headers)
        if response.status_code != 400:
            return response
        text = bytes(response.body).decode("utf-8", "replace")
        failures = text.removeprefix(_PREFIX).split(", ") if text.startswith(_PREFIX) else [text]
        headers = {
            key: value
            for key, value in response.headers.items()
            if key not in {"content-length", "content-type"}
        }
        return error_response(refusal_message(failures, self._asked(request_headers)), 400, headers)

    def _asked(self, request_headers: Headers) -> dict[str, str]:
        """What the preflight asked for, by Starlette's failure name: the origin, the method, the request
        headers not allowed."""
        asked_headers = request_headers.get("access-control-request-headers") or ""
        refused = [h.strip() for h in asked_headers.lower().split(",") if h.strip() not in self.allow_headers]
        return {
            "origin": request_headers.get("origin", "")[:200],
            "method": request_headers.get("access-control-request-method", "")[:40],
            "headers": "、".join(h for h in refused if h)[:200],
        }
