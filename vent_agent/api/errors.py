"""Errors outside streams in the spec's shape ``{"error": "…"}``; FastAPI's 422 becomes 400.

Every error body is built by :func:`error_response`, which writes a lone surrogate of the message (one
that echoes the user's input, as ``未知模型「\\ud800」``) as the escape ``\\ud800``: such a text cannot be
encoded as UTF-8, and the response would fail as a 500; control, bidi and zero-width characters of an
echoed input are escaped the same way (:mod:`vent_agent.visible`)."""

from __future__ import annotations

import email.message
import logging
from collections.abc import Mapping

from fastapi import FastAPI, Request, params
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.body_limit import MAX_BODY_SIZE_SCOPE_KEY
from starlette.types import Scope

from vent_agent.api.json_body import json_error_text
from vent_agent.validation_reasons import pydantic_reason
from vent_agent.visible import visible_text
from ventnet.errors import quoted

log = logging.getLogger(__name__)


def safe_text(text: str) -> str:
    """``text`` as an error body may hold it: each lone surrogate (``\\ud800``–``\\udfff``, which UTF-8
    cannot encode), control, bidi or zero-width character of an echoed input written as its escape
    (:func:`vent_agent.visible.visible_text`); other text unchanged.

    >>> safe_text("未知模型「a\\ud800」")
    '未知模型「a\\\\ud800」'
    """
    return visible_text(text)


def error_response(message: str, status_code: int, headers: Mapping[str, str] | None = None) -> JSONResponse:
    """The spec's error answer ``{"error": message}``, whatever ``message`` holds (see
    :func:`safe_text`): every error body of the service is built here."""
    return JSONResponse({"error": safe_text(message)}, status_code=status_code, headers=headers)


class ApiError(Exception):
    """An error answered as ``{"error": message}`` with ``status`` (4xx, or the spec's auth 5xx)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


FORM_TYPES = ("multipart/form-data", "application/x-www-form-urlencoded")
"""Content types a form route (``/api/chat``, ``/api/vent/review/pdf``, ``/api/skills/upload``) reads."""


def is_json_type(content_type: str | None) -> bool:
    """Whether FastAPI reads a body of ``content_type`` as JSON: ``application/json`` or
    ``application/<anything>+json``, parameters aside (a missing Content-Type is not JSON)."""
    if not content_type:
        return False
    message = email.message.Message()
    message["content-type"] = content_type
    subtype = message.get_content_subtype()
    return message.get_content_maintype() == "application" and (
        subtype == "json" or subtype.endswith("+json")
    )


def _media_type(content_type: str) -> str:
    """The media type of a Content-Type header, parameters dropped, cut to 60 characters for a message."""
    media = content_type.split(";", 1)[0].strip().lower()
    return media if len(media) <= 60 else media[:60] + "…"


def needs_file(request: Request) -> bool:
    """Whether the matched route requires an uploaded file (``/api/vent/review/pdf``,
    ``/api/skills/upload``): its form must be multipart, a urlencoded body (curl's ``--data-binary
    @plan.pdf``) cannot carry one. ``/api/chat``, whose file is optional, takes urlencoded text fields."""
    dependant = getattr(request.scope.get("route"), "dependant", None)
    return any(
        isinstance(field.field_info, params.File) and field.field_info.is_required()
        for field in getattr(dependant, "body_params", ())
    )


def content_type_problem(request: Request) -> str | None:
    """What is wrong with the Content-Type of a request whose body the route could not read, or
    ``None``. A JSON route given a body of another type (``text/plain``, a form, none declared) gets it
    as bytes, which fail as "not an object"; a form route given JSON reads an empty form, whose fields
    fail as "missing", and a route that needs a file (:func:`needs_file`) given a urlencoded body (a
    PDF sent with curl's default type) has no file in it: all name the Content-Type instead. A request that declares no body is left to
    the field errors (缺少请求体, 缺少必填字段 …)."""
    body_field = getattr(request.scope.get("route"), "body_field", None)
    headers = request.headers
    if body_field is None or not (
        headers.get("transfer-encoding") or headers.get("content-length", "0") != "0"
    ):
        return None
    content_type = headers.get("content-type", "")
    got = f"收到 {_media_type(content_type)}" if content_type.strip() else "请求未给出 Content-Type"
    if isinstance(body_field.field_info, params.Form):
        media = _media_type(content_type)
        if media == "multipart/form-data" or (media in FORM_TYPES and not needs_file(request)):
            return None
        return f"请求体格式错误：Content-Type 应为 multipart/form-data（{got}）"
    if is_json_type(content_type):
        return None
    return f"请求体格式错误：Content-Type 应为 application/json（{got}）"


MAX_PARTS = 10  # a body's validation errors named in its error; the rest counted


def _describe(exc: RequestValidationError, request: Request) -> str:
    errors = list(exc.errors())
    parts = []
    if any(err.get("loc", ())[:1] == ("body",) for err in errors) and (
        problem := content_type_problem(request)
    ):
        parts.append(problem)  # the body's own errors come from reading it as the wrong type
        errors = [err for err in errors if err.get("loc", ())[:1] != ("body",)]
    for err in errors:
        # a field's name is the user's input (an unknown key): quoted shortened, as every echoed input
        loc = quoted(
            ".".join(str(x) for x in err.get("loc", ()) if x not in ("body", "query", "path", "header"))
        )
        kind = err.get("type", "")
        if kind == "json_invalid":
            parts.append(json_error_text(str((err.get("ctx") or {}).get("error", ""))))
        elif not loc and kind == "missing":
            parts.append("缺少请求体")
        elif not loc or loc.isdigit():
            parts.append("请求体格式错误：应为 JSON 对象")
        elif kind == "missing":
            parts.append(f"缺少必填字段 {loc}")
        else:
            parts.append(f"字段 {loc} 无效：{pydantic_reason(kind, err)}")
    if len(parts) > MAX_PARTS:
        parts = [*parts[:MAX_PARTS], f"等 {len(parts)} 处"]
    return "请求参数错误：" + "；".join(parts) if parts else "请求参数错误"


_HTTP_MESSAGES = {
    400: "请求体解析失败",
    401: "未登录或令牌无效",
    403: "无权访问",
    404: "资源不存在",
    405: "不支持该请求方法",
    406: "不支持请求的响应格式",
    409: "请求与当前状态冲突",
    411: "缺少 Content-Length",
    413: "请求体过大",
    415: "不支持的请求体类型",
    429: "请求过于频繁，请稍后再试",
}


def size_text(size: int) -> str:
    """``size`` bytes as a limit is written in messages: whole MB when it is a whole number of MiB,
    else KB (rounded up), so ``VENT_MAX_JSON_BODY_KB=1536`` reads ``1536 KB``, never a rounded ``2 MB``."""
    if size >= 1 << 20 and size % (1 << 20) == 0:
        return f"{size >> 20} MB"
    return f"{-(-size >> 10)} KB"


def named_body_limit(scope: Scope) -> int | None:
    """The body limit a 413 names for the request of ``scope``: the matched route's limit (FastAPI's
    ``max_body_size``, in the scope while the route runs), less the multipart framing an upload route
    allows on top of its file cap (the route class's ``body_overhead``), so that an upload route names
    ``VENT_MAX_UPLOAD_MB`` whether the body came with a Content-Length or chunked. ``None``: no limit."""
    limit = scope.get(MAX_BODY_SIZE_SCOPE_KEY)
    if not isinstance(limit, int):
        return None
    return limit - int(getattr(scope.get("route"), "body_overhead", 0))


def http_message(status: int, body_limit: int | None = None) -> str:
    """The Chinese message for an HTTP error raised by Starlette or FastAPI with an English text
    (``body_limit``: the limit in bytes a 413 names, see :func:`named_body_limit`)."""
    if status == 413 and body_limit:
        return f"请求体过大：上限 {size_text(body_limit)}"
    return _HTTP_MESSAGES.get(status, "请求错误" if status < 500 else "服务器内部错误")


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers that give every error the spec's shape."""

    @app.exception_handler(ApiError)
    async def _api_error(_req: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.message, exc.status)

    @app.exception_handler(RequestValidationError)
    async def _validation(req: Request, exc: RequestValidationError) -> JSONResponse:
        return error_response(_describe(exc, req), 400)

    @app.exception_handler(StarletteHTTPException)
    async def _http(req: Request, exc: StarletteHTTPException) -> JSONResponse:
        message = exc.detail if isinstance(exc.detail, str) else ""
        if not message or message.isascii():  # Starlette's and FastAPI's own texts are English
            message = http_message(exc.status_code, named_body_limit(req.scope))
        return error_response(message, exc.status_code, exc.headers)

    @app.exception_handler(Exception)
    async def _unexpected(_req: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error", exc_info=exc)
        return error_response("服务器内部错误", 500)
