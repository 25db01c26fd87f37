"""What ``vent-agent serve`` prepares before uvicorn starts, so that a refusal is one Chinese line and an
exit code (:class:`~vent_agent.cli.listen.ServeError`), never the app's start-up traceback: the data
directories are made, and the database is reached and migrated (the lifespan's own migration then finds
nothing to do).

Refusals: a data directory that cannot be made (exit 2); a database URL that is not one, or names a
database or driver the service does not run on (exit 2); a database that cannot be reached or refuses
the connection (exit 3); a database stamped by a newer release
(:class:`~vent_agent.store.db.SchemaTooNew`, exit 3); any other failure of the migration (exit 3, its
traceback logged at debug level): :func:`~vent_agent.store.refusal.migrate_or_refuse`, which the app's
lifespan uses too."""

from __future__ import annotations

import asyncio
import errno

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from vent_agent.cli.listen import ServeError
from vent_agent.settings import Settings
from vent_agent.store.db import Database, async_url
from vent_agent.store.refusal import StartupRefused, migrate_or_refuse

STARTUP_FAILED = 3
"""Exit code of a start-up refused by the database (bad settings and ports: 2)."""


OS_REASONS = {
    errno.ENOENT: "路径不存在",
    errno.EACCES: "没有权限",
    errno.EROFS: "文件系统只读",
    errno.ENOTDIR: "路径中有文件",
}
"""Chinese reasons of the usual errors making a directory."""
DIALECTS = ("sqlite", "postgresql")
"""The databases the service runs on."""
ASYNC_DRIVERS = ("aiosqlite", "asyncpg")
"""The async drivers it talks to them with (installed with the package)."""


def prepare(settings: Settings) -> None:
    """Make the data directories and migrate the database of ``settings``; raises :class:`ServeError`
    (with ``exit_code``) saying in Chinese why the service cannot start."""
    for directory in (settings.data_dir, settings.reports_dir, settings.uploads_dir, settings.cache_dir):
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            reason = OS_REASONS.get(exc.errno or 0, exc.strerror or str(exc))
            raise ServeError(f"无法创建数据目录 {directory}（{reason}）：请检查 VENT_DATA_DIR") from None
    asyncio.run(_migrate(settings))


def _database(url: str) -> Database:
    """The :class:`Database` of ``url``; raises :class:`ServeError` (exit 2) for a URL that is not a
    database's, or names a database or driver the service does not run on."""
    bad = "配置项 VENT_DATABASE_URL 无效："
    try:
        parsed = make_url(async_url(url))
    except ArgumentError:
        raise ServeError(f"{bad}无法解析为数据库地址（例如 postgresql://用户@主机:5432/库名）") from None
    if parsed.get_backend_name() not in DIALECTS:
        raise ServeError(f"{bad}不支持的数据库 {parsed.get_backend_name()}（支持 {'、'.join(DIALECTS)}）")
    if parsed.get_driver_name() not in ASYNC_DRIVERS:
        raise ServeError(f"{bad}不支持的驱动 {parsed.get_driver_name()}（不写驱动即可，如 postgresql://…）")
    try:
        return Database(url)
    except (ArgumentError, ImportError) as exc:
        raise ServeError(f"{bad}{type(exc).__name__}: {exc}") from None


async def _migrate(settings: Settings) -> None:
    db = _database(settings.resolved_database_url)
    try:
        await migrate_or_refuse(db)
    except StartupRefused as exc:
        raise ServeError(str(exc), exit_code=STARTUP_FAILED) from None
    finally:
        await db.close()
