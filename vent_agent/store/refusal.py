"""Start-up refused by the database, in one Chinese line: a database stamped by a newer release
(:class:`~vent_agent.store.db.SchemaTooNew`), or one that cannot be reached or migrated. Both start-up
paths say it the same way: ``vent-agent serve`` before uvicorn starts (``cli/preflight.py``, exit 3), and
the app's lifespan when an ASGI server builds the app itself (``uvicorn --factory
vent_agent.app:create_app``; :class:`~vent_agent.api.startup.StartupRefusalMessage` hands the server the
line instead of a traceback, and uvicorn exits 3)."""

from __future__ import annotations

import logging

from vent_agent.store.db import Database, SchemaTooNew

log = logging.getLogger(__name__)


class StartupRefused(RuntimeError):
    """The service cannot start on its database; ``str()`` is the one Chinese line saying why."""


def one_line(exc: BaseException) -> str:
    """The driver's own message of ``exc`` (SQLAlchemy's ``orig``, without its "Background on this
    error" link) on one line."""
    orig = getattr(exc, "orig", None)
    text = str(orig if orig is not None else exc) or type(exc).__name__
    return " ".join(text.split())


async def migrate_or_refuse(db: Database) -> None:
    """Migrate ``db`` to the package's head; raises :class:`StartupRefused` for a database stamped by a
    newer release or one that cannot be reached or migrated (its traceback logged at debug level)."""
    try:
        await db.migrate()
    except SchemaTooNew as exc:
        raise StartupRefused(str(exc)) from None
    except Exception as exc:
        log.debug("start-up migration failed", exc_info=exc)
        reason = f"{type(exc).__name__}: {one_line(exc)}"
        raise StartupRefused(
            f"无法连接或迁移数据库 {db.safe_url()}（{reason}）：请确认数据库已启动，"
            "VENT_DATABASE_URL 的地址、用户与库名正确"
        ) from None
