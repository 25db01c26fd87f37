"""The skill registry: the packs in the skills directory, their enabled flags, and what the agents see.

A skill is a folder ``<skills_dir>/<name>/`` holding a ``SKILL.md`` (frontmatter + Markdown body, see
:mod:`vent_agent.skills.frontmatter`). The folder name is the skill's ``name``. Enabled flags are kept in
the store, one service-state key per skill (:data:`STATE_PREFIX` + name → bool; a skill without one is
enabled), so every worker agrees and two changes to different skills never overwrite each other; the folders are read on each call, so a pack uploaded through one worker is seen by all that
share the directory.

For the agents: :meth:`SkillRegistry.prompt_index` gives the enabled skills of one agent (name and
description only, for its prompt; :func:`render_prompt_index` writes that block), and
:meth:`SkillRegistry.load_skill` gives a body when the agent asks for it (the ``load_skill`` tool of
:mod:`vent_agent.skills.tool`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from sqlmodel import col, select

from vent_agent.skills.agents import canonical_agent, serves
from vent_agent.skills.errors import SkillError
from vent_agent.skills.frontmatter import SkillMeta, parse_skill_md
from vent_agent.skills.zip_install import SKILL_MD, ZipLimits, check_name, install_zip
from vent_agent.store.db import Database
from vent_agent.store.models import ServiceStateRow
from vent_agent.store.service_state import set_state_value

log = logging.getLogger(__name__)

STATE_PREFIX = "skills.enabled."
"""Service-state keys of the enabled flags: ``skills.enabled.<name>`` → ``true``/``false``."""

API_DESCRIPTION_CHARS = 120
"""``GET /api/skills`` gives the first 120 characters of a description (spec)."""

MAX_TEXT_BYTES = 256 * 1024
"""A SKILL.md or another text file of a pack read for an agent: at most this many bytes."""

MAX_LISTED_FILES = 50


@dataclass(frozen=True)
class Skill:
    """One installed skill as the API and the agents see it.

    ``meta`` is None when the folder has no SKILL.md or its frontmatter is invalid (``error`` says
    why); such a skill is listed but never offered to an agent.
    """

    name: str
    directory: Path
    has_skill_md: bool
    enabled: bool
    meta: SkillMeta | None = None
    body: str = ""
    error: str | None = None
    files: tuple[str, ...] = field(default=())

    @property
    def display_name(self) -> str:
        """The frontmatter's ``name``, else the folder name."""
        return self.meta.name if self.meta else self.name

    @property
    def description(self) -> str:
        """The full description (empty without a valid frontmatter)."""
        return self.meta.description if self.meta else ""

    @property
    def agents(self) -> list[str]:
        """The agents it serves, by canonical display name (``"*"``: all)."""
        return [canonical_agent(a) for a in self.meta.agents] if self.meta else []

    def to_api(self) -> dict[str, Any]:
        """The spec's list entry (name, display_name, path, description ≤ 120 chars, enabled, agents,
        has_skill_md), plus ``allowed_tools`` and ``error`` (None when the pack is valid)."""
        return {
            "name": self.name,
            "display_name": self.display_name,
            "path": f"skills/{self.name}",
            "description": " ".join(self.description.split())[:API_DESCRIPTION_CHARS],
            "enabled": self.enabled,
            "agents": self.agents,
            "has_skill_md": self.has_skill_md,
            "allowed_tools": list(self.meta.allowed_tools) if self.meta else [],
            "error": self.error,
        }


@dataclass(frozen=True)
class SkillSummary:
    """What an agent's prompt carries of a skill: its name, display name and description."""

    name: str
    display_name: str
    description: str


def _read_text(path: Path) -> str:
    """A small UTF-8 text file; :class:`SkillError` 400 when too large or not UTF-8."""
    with path.open("rb") as f:
        data = f.read(MAX_TEXT_BYTES + 1)
    if len(data) > MAX_TEXT_BYTES:
        raise SkillError(400, f"文件 {path.name} 过大（上限 {MAX_TEXT_BYTES // 1024} KB）")
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise SkillError(400, f"文件 {path.name} 不是 UTF-8 文本") from exc


def _pack_files(directory: Path) -> tuple[str, ...]:
    out = []
    for path in sorted(directory.rglob("*")):
        rel = path.relative_to(directory)
        if rel.as_posix() == SKILL_MD or any(p.startswith(".") for p in rel.parts):
            continue
        if path.is_file() and not path.is_symlink():
            out.append(rel.as_posix())
            if len(out) >= MAX_LISTED_FILES:
                break
    return tuple(out)


def _load_skill(directory: Path, enabled: bool) -> Skill:
    md = directory / SKILL_MD
    if not md.is_file():
        return Skill(directory.name, directory, False, enabled, error="缺少 SKILL.md")
    try:
        meta, body = parse_skill_md(_read_text(md))
    except SkillError as exc:
        return Skill(directory.name, directory, True, enabled, error=exc.message)
    return Skill(directory.name, directory, True, enabled, meta, body, files=_pack_files(directory))


def render_prompt_index(skills: list[SkillSummary]) -> str:
    """The block of an agent's system prompt that lists its skills (empty string when none): one line
    per skill, ``- name（display name）：description``, and how to load one."""
    if not skills:
        return ""
    lines = [
        "## 可用技能",
        "需要按某项技能的流程工作时，先调用 load_skill(name) 读取该技能的完整说明，再按说明执行。",
    ]
    lines += [f"- {s.name}（{s.display_name}）：{' '.join(s.description.split())}" for s in skills]
    return "\n".join(lines)


class SkillRegistry:
    """The skills in ``skills_dir`` with their enabled flags in the store ``db``.

    Created by the app's lifespan (:func:`vent_agent.skills.open_skill_registry`); one per process.
    """

    def __init__(self, skills_dir: Path, db: Database, limits: ZipLimits | None = None) -> None:
        self.skills_dir = skills_dir
        self.db = db
        self.limits = limits or ZipLimits()
        self._lock = asyncio.Lock()

    # -- state --------------------------------------------------------------------------------------
    async def enabled_flags(self) -> dict[str, bool]:
        """The stored flags ``{name: enabled}`` (skills never switched have none; malformed values are
        ignored)."""
        query = select(ServiceStateRow).where(col(ServiceStateRow.key).startswith(STATE_PREFIX))
        async with self.db.session() as s:
            rows = (await s.exec(query)).all()
        flags: dict[str, bool] = {}
        for row in rows:
            try:
                value = json.loads(row.value)
            except ValueError:
                value = None
            if isinstance(value, bool):
                flags[row.key.removeprefix(STATE_PREFIX)] = value
            else:
                log.warning("ignoring malformed service state %s", row.key)
        return flags

    async def _store_flag(self, name: str, enabled: bool, updated_by: str | None) -> None:
        await set_state_value(self.db, STATE_PREFIX + name, enabled, updated_by=updated_by)

    # -- reading ------------------------------------------------------------------------------------
    def _scan(self, flags: dict[str, bool]) -> list[Skill]:
        if not self.skills_dir.is_dir():
            return []
        out = []
        for d in sorted(self.skills_dir.iterdir()):
            if d.name.startswith(".") or not d.is_dir():
                continue
            try:
                check_name(d.name)
            except SkillError:
                log.warning("skipping skill folder with an invalid name: %s", d)
                continue
            out.append(_load_skill(d, flags.get(d.name, True)))
        return out

    async def list_skills(self) -> list[Skill]:
        """Every skill folder of ``skills_dir`` (hidden and invalidly named folders skipped), by name."""
        flags = await self.enabled_flags()
        return await asyncio.to_thread(self._scan, flags)

    async def get(self, name: str) -> Skill:
        """The skill ``name``. Raises :class:`SkillError` 400 (invalid name), 404 (no such skill)."""
        check_name(name)
        directory = self.skills_dir / name
        if not directory.is_dir():
            raise SkillError(404, f"技能「{name}」不存在")
        flags = await self.enabled_flags()
        return await asyncio.to_thread(_load_skill, directory, flags.get(name, True))

    async def read_skill_md(self, name: str) -> str:
        """The full text of the skill's SKILL.md (frontmatter included). :class:`SkillError` 400, 404."""
        skill = await self.get(name)
        if not skill.has_skill_md:
            raise SkillError(404, f"技能「{name}」没有 SKILL.md")
        return await asyncio.to_thread(_read_text, skill.directory / SKILL_MD)

    # -- changing -----------------------------------------------------------------------------------
    async def set_enabled(
        self, name: str, enabled: bool | None = None, updated_by: str | None = None
    ) -> bool:
        """Enable or disable the skill ``name`` (``None``: flip it); returns the new state.

        Raises :class:`SkillError` 400/404 as :meth:`get`. Agents see the change at their next request.
        """
        async with self._lock:
            skill = await self.get(name)
            new = (not skill.enabled) if enabled is None else enabled
            await self._store_flag(name, new, updated_by)
        return new

    async def install(
        self, source: BinaryIO, upload_name: str | None, updated_by: str | None = None
    ) -> Skill:
        """Install a skill pack from a zip (see :func:`~vent_agent.skills.zip_install.install_zip`) and
        enable it. Raises :class:`SkillError` 400 (hostile or malformed), 409 (name taken)."""
        async with self._lock:
            pack = await asyncio.to_thread(install_zip, source, upload_name, self.skills_dir, self.limits)
            flags = await self.enabled_flags()
            if flags.get(pack.name, True) is not True:
                await self._store_flag(pack.name, True, updated_by)
        log.info("skill %s installed by %s", pack.name, updated_by or "anonymous")
        return await self.get(pack.name)

    # -- for the agents -----------------------------------------------------------------------------
    async def prompt_index(self, agent: str) -> list[SkillSummary]:
        """The enabled, valid skills that serve ``agent`` (display name or id, see
        :mod:`vent_agent.skills.agents`): names and descriptions for its prompt."""
        return [
            SkillSummary(s.name, s.display_name, s.description)
            for s in await self.list_skills()
            if s.enabled and s.meta is not None and serves(s.meta.agents, agent)
        ]

    async def load_skill(self, name: str, agent: str | None = None, file: str | None = None) -> str:
        """The body of the skill ``name`` for an agent (Markdown, frontmatter removed), headed by its
        display name and followed by its allowed tools and its other files; or, with ``file``, that text
        file of the pack.

        Raises :class:`SkillError`: 404 unknown skill or file; 403 disabled, or not serving ``agent``
        (when given); 400 invalid name, SKILL.md invalid, file not UTF-8 text.
        """
        name = name.strip()
        try:
            skill = await self.get(name)
        except SkillError as exc:
            index = await self.prompt_index(agent) if agent else None
            if index is not None:
                offered = [s.name for s in index]
            else:
                offered = [s.name for s in await self.list_skills() if s.enabled and s.meta is not None]
            known = "、".join(offered)
            hint = f"（可用技能：{known}）" if known else ""
            raise SkillError(exc.status, f"未找到技能「{name}」{hint}") from exc
        if not skill.enabled:
            raise SkillError(403, f"技能「{name}」已被禁用，不能使用")
        if skill.meta is None:
            raise SkillError(400, f"技能「{name}」不可用：{skill.error}")
        if agent and not serves(skill.meta.agents, agent):
            raise SkillError(403, f"技能「{name}」不适用于「{canonical_agent(agent)}」")
        if file:
            return await asyncio.to_thread(self._read_pack_file, skill, file)
        parts = [f"# 技能：{skill.display_name}（{skill.name}）", "", skill.body.strip()]
        if skill.meta.allowed_tools:
            parts += ["", "---", "本技能使用的工具：" + "、".join(skill.meta.allowed_tools)]
        if skill.files:
            parts += ["", "技能包中的其他文件（需要时用 load_skill 的 file 参数读取）："]
            parts += [f"- {f}" for f in skill.files]
        return "\n".join(parts)

    @staticmethod
    def _read_pack_file(skill: Skill, file: str) -> str:
        root = skill.directory.resolve()
        target = (skill.directory / file.replace("\\", "/")).resolve()
        if not target.is_relative_to(root) or target == root or not target.is_file():
            raise SkillError(404, f"技能「{skill.name}」中没有文件 {file[:120]}")
        return _read_text(target)
