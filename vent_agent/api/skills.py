"""Skill management (spec §技能管理接口): ``GET /api/skills``, ``GET /api/skills/{name}``,
``POST /api/skills/{name}/toggle``, ``POST /api/skills/upload``.

Toggle and upload change the service for everyone and need a token unless ``admin_needs_token`` is off
(a deviation from the spec, see docs/API_DOCUMENTATION.md). Errors: 400 invalid name or pack, 401 no
token, 404 unknown skill, 409 name taken, 413 zip over ``max_upload_mb``.
"""

from __future__ import annotations

import os
from typing import Annotated, Any

from fastapi import APIRouter, Depends, File, UploadFile
from pydantic import BaseModel, ConfigDict, Field

from vent_agent.api.deps import AdminUser, StateDep
from vent_agent.api.errors import ApiError
from vent_agent.api.json_body import ApiRoute
from vent_agent.api.uploads import UnreadableNameFile, UploadRoute
from vent_agent.skills.errors import SkillError
from vent_agent.skills.registry import SkillRegistry

router = APIRouter(prefix="/api/skills", tags=["skills"], route_class=UploadRoute)
json_router = APIRouter(prefix="/api/skills", tags=["skills"], route_class=ApiRoute)
"""``POST /api/skills/{name}/toggle``: a JSON body, under the JSON body limit (the upload route takes
zips)."""

UNREADABLE_NAME = "技能包的文件名无效：不是 UTF-8（或 GB18030）编码的文本，请给 zip 文件改名后重新上传"
"""A skill zip whose file name does not decode (``filename*=UTF-8''%ED%A0%80.zip``): a pack with its files
at the root is named after its zip, and the name sent is not text."""


async def get_skills(state: StateDep) -> SkillRegistry:
    """The app's :class:`SkillRegistry` (``AppState.skills``); a coroutine, as :func:`get_state`."""
    return state.skills


SkillsDep = Annotated[SkillRegistry, Depends(get_skills)]


class ToggleBody(BaseModel):
    """Optional body of the toggle route: ``enabled`` sets the state instead of flipping it (additive)."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool | None = Field(default=None, description="true/false sets the state; absent flips it")


def _api_error(exc: SkillError) -> ApiError:
    return ApiError(exc.status, exc.message)


@router.get("")
async def list_skills(skills: SkillsDep) -> dict[str, Any]:
    """Every installed skill with its enabled state and agents (spec fields, plus ``allowed_tools`` and
    ``error`` for a pack whose SKILL.md is missing or invalid)."""
    return {"skills": [s.to_api() for s in await skills.list_skills()]}


@router.post("/upload")
async def upload_skill(
    skills: SkillsDep, state: StateDep, user: AdminUser, file: Annotated[UploadFile, File()]
) -> dict[str, str]:
    """Install a ``.zip`` skill pack (SKILL.md at its root, or in its one top-level folder)."""
    cap = state.settings.max_upload_mb * (1 << 20)
    size = file.size
    if size is None:
        size = file.file.seek(0, os.SEEK_END)
    if size > cap:
        raise ApiError(413, f"文件过大：上限 {state.settings.max_upload_mb} MB")
    if isinstance(file, UnreadableNameFile):
        raise ApiError(400, UNREADABLE_NAME)
    file.file.seek(0)
    try:
        skill = await skills.install(file.file, file.filename, updated_by=user.user_name if user else None)
    except SkillError as exc:
        raise _api_error(exc) from exc
    return {"name": skill.name, "message": f"技能「{skill.name}」上传成功"}


@router.get("/{name}")
async def skill_detail(name: str, skills: SkillsDep) -> dict[str, str]:
    """The full text of the skill's SKILL.md (frontmatter included)."""
    try:
        return {"name": name, "content": await skills.read_skill_md(name)}
    except SkillError as exc:
        raise _api_error(exc) from exc


@json_router.post("/{name}/toggle")
async def toggle_skill(
    name: str, skills: SkillsDep, user: AdminUser, body: ToggleBody | None = None
) -> dict[str, Any]:
    """Flip (or, with ``{"enabled": …}``, set) whether the agents may use the skill; persisted in the
    store, seen by every worker at the agents' next request."""
    try:
        enabled = await skills.set_enabled(
            name, body.enabled if body else None, updated_by=user.user_name if user else None
        )
    except SkillError as exc:
        raise _api_error(exc) from exc
    return {"name": name, "enabled": enabled, "message": f"技能「{name}」已{'启用' if enabled else '禁用'}"}
