"""Cross-origin requests (CORS) for a browser frontend on another origin, with refusals in the spec's
error shape.

Starlette's :class:`~starlette.middleware.cors.CORSMiddleware` does the work; a preflight it refuses
(an origin, method, request header or private-network access not allowed) it answers with a plain
English text ("Disallowed CORS origin"). :class:`SpecCorsMiddleware` answers those with
``400 {"error": "…"}`` in Chinese, keeping the middleware's headers, as every other error of the API.
"""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import Response

from vent_agent.api.errors import error_response

REFUSED = {"origin": "来源", "method": "请求方法", "headers": "请求头", "private-network": "私有网络访问"}
"""What a refused preflight did not allow, by the name Starlette gives it."""
_PREFIX = "Disallowed CORS "


def refusal_message(failures: list[str]) -> str:
    """The Chinese message for a preflight refused for ``failures`` (Starlette's names, see
    :data:`REFUSED`), e.g. ``跨域请求不被允许：来源、请求头``."""
    return "跨域请求不被允许：" + "、".join(REFUSED.get(name, name) for name in failures)


class SpecCorsMiddleware(CORSMiddleware):
    """:class:`CORSMiddleware` whose refused preflights are ``400 {"error": "…"}`` in Chinese."""

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
        return error_response(refusal_message(failures), 400, headers)
