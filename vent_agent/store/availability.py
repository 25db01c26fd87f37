"""Whether an error means the database is away (stopped, restarting, unreachable, a connection killed),
as opposed to a fault of the request or of the code: such errors are answered with a Chinese 503
(:mod:`vent_agent.api.store_errors`) and retried by the run-log writer, never a 500.

The drivers say it in their own ways, and SQLAlchemy wraps some of them: the chain of an error
(``orig``, ``__cause__``, ``__context__``) is searched for

- asyncpg's connection errors and the server's shut-down / start-up refusals (SQLSTATE class 08,
  57P01–57P03), psycopg's ``OperationalError`` without a server answer or with those SQLSTATEs, and
  psycopg_pool's ``PoolTimeout`` (no checkpointer connection within its wait);
- a SQLAlchemy error whose connection was found invalid (``connection_invalidated``);
- a socket error (refused, reset, timed out, name not resolved) raised inside a database driver
  (``asyncpg``, ``psycopg``, ``sqlalchemy`` frames in its traceback; the same error from an HTTP client
  is not the database's).
"""

from __future__ import annotations

import socket
from types import TracebackType

import asyncpg
import psycopg
from sqlalchemy.exc import DBAPIError

STORE_UNAVAILABLE = "数据库暂时不可用（连接中断或正在重启），请稍后重试"
"""The message of a request refused while the database is away."""

RETRY_AFTER_S = 5
"""``Retry-After`` of that 503 (s)."""

_DRIVERS = ("asyncpg", "psycopg", "psycopg_pool", "sqlalchemy")
_SERVER_GONE = {"57P01", "57P02", "57P03"}  # admin_shutdown, crash_shutdown, cannot_connect_now
_ASYNCPG_GONE = (
    asyncpg.exceptions.PostgresConnectionError,
    asyncpg.exceptions.AdminShutdownError,
    asyncpg.exceptions.CrashShutdownError,
    asyncpg.exceptions.CannotConnectNowError,
    asyncpg.exceptions.ConnectionDoesNotExistError,
)
_SOCKET_GONE = (ConnectionError, TimeoutError, socket.gaierror)


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and the errors behind it (SQLAlchemy's ``orig``, causes, contexts), each once."""
    seen: list[BaseException] = []
    todo: list[BaseException | None] = [exc]
    while todo:
        current = todo.pop()
        if current is None or any(current is s for s in seen):
            continue
        seen.append(current)
        orig = getattr(current, "orig", None)
        todo.extend(
            [orig if isinstance(orig, BaseException) else None, current.__cause__, current.__context__]
        )
    return seen


def _from_driver(tb: TracebackType | None) -> bool:
    """Whether the traceback passes through a database driver's code."""
    while tb is not None:
        module = str(tb.tb_frame.f_globals.get("__name__", ""))
        if module.split(".", 1)[0] in _DRIVERS:
            return True
        tb = tb.tb_next
    return False


def _gone(exc: BaseException) -> bool:
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return True
    if isinstance(exc, _ASYNCPG_GONE):
        return True
    if isinstance(exc, psycopg.OperationalError):
        sqlstate = getattr(exc, "sqlstate", None)
        return sqlstate is None or sqlstate.startswith("08") or sqlstate in _SERVER_GONE
    return isinstance(exc, _SOCKET_GONE) and _from_driver(exc.__traceback__)


def store_unavailable(exc: BaseException) -> bool:
    """True when ``exc`` (or an error behind it) says the database cannot be reached or dropped the
    connection (see the module's doc); False for every other error (a constraint, a bad query…)."""
    return any(_gone(e) for e in _chain(exc))
