"""A request that meets a database that is away gets ``503 {"error": "数据库暂时不可用…"}`` with
``Retry-After``, not a 500: the handlers below catch the drivers' errors that escape a route and
answer by :func:`vent_agent.store.availability.store_unavailable`; any other such error is still the
500 "服务器内部错误" (logged with its traceback)."""

from __future__ import annotations

import logging

import asyncpg
import psycopg
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DBAPIError

from vent_agent.api.errors import error_response
from vent_agent.store.availability import RETRY_AFTER_S, STORE_UNAVAILABLE, store_unavailable

log = logging.getLogger(__name__)

DRIVER_ERRORS: tuple[type[Exception], ...] = (
    DBAPIError,
    psycopg.Error,
    asyncpg.PostgresError,
    asyncpg.InterfaceError,
    OSError,
)
"""The error classes a database outage shows up as (SQLAlchemy-wrapped or raw driver errors, sockets)."""


def store_unavailable_response() -> JSONResponse:
    """The 503 of a request refused while the database is away (the spec's error shape)."""
    return error_response(STORE_UNAVAILABLE, 503, {"Retry-After": str(RETRY_AFTER_S)})


def install_store_error_handlers(app: FastAPI) -> None:
    """Answer :data:`DRIVER_ERRORS` escaping a route: 503 when the database is away, else 500."""

    async def _driver_error(_req: Request, exc: Exception) -> JSONResponse:
        if store_unavailable(exc):
            log.warning("database unavailable: %s: %s", type(exc).__name__, exc)
            return store_unavailable_response()
        log.exception("unhandled error", exc_info=exc)
        return error_response("服务器内部错误", 500)

    for error_class in DRIVER_ERRORS:
        app.add_exception_handler(error_class, _driver_error)
