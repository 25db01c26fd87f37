"""Which errors mean the database is away (503, retried by the log writer) and which do not (500)."""

from __future__ import annotations

import asyncpg
import psycopg
import pytest
from sqlalchemy.exc import DBAPIError, IntegrityError

from vent_agent.runs.log_writer import transient
from vent_agent.store.availability import store_unavailable


def _raised(exc: BaseException) -> BaseException:
    try:
        raise exc
    except BaseException as caught:
        return caught


def _wrapped(orig: BaseException, *, invalidated: bool = False) -> DBAPIError:
    return DBAPIError("SELECT 1", None, orig, connection_invalidated=invalidated)


@pytest.mark.parametrize(
    "exc",
    [
        asyncpg.exceptions.ConnectionDoesNotExistError("connection was closed in the middle of operation"),
        asyncpg.exceptions.AdminShutdownError("terminating connection due to administrator command"),
        asyncpg.exceptions.CannotConnectNowError("the database system is starting up"),
        psycopg.OperationalError("connection failed: Connection refused"),
        psycopg.errors.AdminShutdown("terminating connection due to administrator command"),
        _wrapped(ValueError("broken pipe"), invalidated=True),
        _wrapped(asyncpg.exceptions.ConnectionDoesNotExistError("closed")),
    ],
)
def test_the_database_away(exc: BaseException) -> None:
    assert store_unavailable(exc) and transient(exc)


def test_a_refused_socket_not_raised_by_a_database_driver_is_not_the_database() -> None:
    """An HTTP client's refused connection is not the database's (a driver's is: the integration test
    of tests/test_store_recovery.py stops the server)."""
    assert not store_unavailable(_raised(ConnectionRefusedError(111, "Connect call failed")))
    assert not store_unavailable(_raised(_wrapped(_raised(ConnectionRefusedError(111, "refused")))))


@pytest.mark.parametrize(
    "exc",
    [
        IntegrityError("INSERT", None, ValueError("duplicate key")),
        asyncpg.exceptions.UniqueViolationError("duplicate key"),
        psycopg.errors.QueryCanceled("canceling statement due to statement timeout"),
        ValueError("bad input"),
    ],
)
def test_other_errors_are_not(exc: BaseException) -> None:
    assert not store_unavailable(exc)
