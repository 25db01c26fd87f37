"""Helpers of the skills tests (no tests here): a small app with the skills router, zip builders, a
snapshot of a directory tree."""

from __future__ import annotations

import hashlib
import io
import os
import stat
import struct
import zipfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
from fastapi import FastAPI

from vent_agent.api import skills as skills_api
from vent_agent.api.errors import install_error_handlers
from vent_agent.auth import make_user_service
from vent_agent.settings import Settings
from vent_agent.skills import open_skill_registry
from vent_agent.store.db import Database

TOKEN = {"x-access-token": "demo-token"}

GOOD_SKILL_MD = """---
name: 测试技能
description: 用于测试的技能，说明何时使用。
agents:
  - 通风对话助手
allowed-tools: query_tun_data_by_id, query_knowledge_base
---

# 测试技能

先查数据，再比对限值。
"""


def skill_md(
    name: str = "测试技能", description: str = "用于测试的技能", agents: str = "通风对话助手"
) -> str:
    """A valid SKILL.md text."""
    return f"---\nname: {name}\ndescription: {description}\nagents: [{agents}]\n---\n\n# {name}\n\n正文。\n"


def make_zip(
    members: list[tuple[str | zipfile.ZipInfo, bytes | str]], compression: int = zipfile.ZIP_DEFLATED
) -> bytes:
    """A zip holding ``members`` (name or prepared ZipInfo, content)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression) as zf:
        for name, data in members:
            zf.writestr(name, data)
    return buf.getvalue()


def special_member(name: str, mode: int) -> zipfile.ZipInfo:
    """A ZipInfo whose Unix mode (``external_attr``) is ``mode`` (e.g. a symlink or a device)."""
    info = zipfile.ZipInfo(name)
    info.create_system = 3
    info.external_attr = mode << 16
    return info


def symlink_member(name: str) -> zipfile.ZipInfo:
    return special_member(name, stat.S_IFLNK | 0o777)


def lying_bomb(
    name: str,
    real_size: int,
    declared_size: int,
    others: tuple[tuple[str | zipfile.ZipInfo, bytes | str], ...] = (),
) -> bytes:
    """A zip with ``others`` and one deflated member ``name`` of ``real_size`` zero bytes whose headers
    declare ``declared_size``: the uncompressed size fields of its local header and of its central
    directory entry are patched, so only the bytes really inflated (or the CRC) give it away."""
    data = bytearray(make_zip([*others, (name, b"\0" * real_size)]))
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as zf:
        local = zf.getinfo(name).header_offset
    central = data.index(b"PK\x01\x02")
    while (
        bytes(data[central + 46 : central + 46 + struct.unpack_from("<H", data, central + 28)[0]])
        != name.encode()
    ):
        central = data.index(b"PK\x01\x02", central + 4)
    struct.pack_into("<I", data, local + 22, declared_size)
    struct.pack_into("<I", data, central + 24, declared_size)
    return bytes(data)


def snapshot(root: Path) -> dict[str, str]:
    """Every path under ``root`` (hidden ones and symlinks included) → sha256 of a file's content, or
    ``dir`` / ``link``."""
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for d in dirnames:
            p = Path(dirpath, d)
            out[str(p.relative_to(root))] = "link" if p.is_symlink() else "dir"
        for f in filenames:
            p = Path(dirpath, f)
            rel = str(p.relative_to(root))
            out[rel] = "link" if p.is_symlink() else hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def skills_settings(tmp_path: Path, **overrides: Any) -> Settings:
    return Settings(_env_file=None, data_dir=tmp_path / "data", **overrides)


@asynccontextmanager
async def skills_app(settings: Settings) -> AsyncIterator[FastAPI]:
    """An app with only the skills routers and the error handlers, over a real store and registry (as
    the service's lifespan makes them); leaving it is a restart."""
    app = FastAPI()
    install_error_handlers(app)
    app.include_router(skills_api.router)
    app.include_router(skills_api.json_router)
    db = Database(settings.resolved_database_url)
    await db.create_all()
    registry = await open_skill_registry(settings, db)
    users = make_user_service(settings)
    app.state.vent = SimpleNamespace(settings=settings, db=db, skills=registry, users=users)
    try:
        yield app
    finally:
        await users.aclose()
        await db.close()


class AppClient(httpx.AsyncClient):
    """An ASGI client on ``app`` that keeps it, so a test can reach the app's state."""

    def __init__(self, app: FastAPI) -> None:
        super().__init__(transport=httpx.ASGITransport(app=app), base_url="http://testserver")
        self.app = app


@asynccontextmanager
async def skills_client(settings: Settings) -> AsyncIterator[AppClient]:
    async with skills_app(settings) as app, AppClient(app) as client:
        yield client


async def upload(
    client: httpx.AsyncClient, data: bytes, filename: str = "skill.zip", headers: dict[str, Any] | None = None
):
    return await client.post(
        "/api/skills/upload",
        files={"file": (filename, data, "application/zip")},
        headers=TOKEN if headers is None else headers,
    )
