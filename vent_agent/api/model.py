"""Model management (spec §模型管理接口): ``GET /api/model``, ``POST /api/model/switch``,
``POST /api/model/thinking``.

The choice is stored (:class:`vent_agent.llm.registry.ModelRegistry`), so every worker agrees and it
survives a restart; it applies to the chat and review agents from the next request on, never to click
interpretation. Switch and thinking need a token unless ``admin_needs_token`` is off (a deviation from
the spec, which asks none: they change the service for everyone).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field

from vent_agent.api.deps import AdminUser, StateDep
from vent_agent.api.errors import ApiError
from vent_agent.api.json_body import ApiRoute
from vent_agent.llm.registry import UnknownModel
from vent_agent.llm.thinking import UnknownThinkingLevel

router = APIRouter(tags=["model"], route_class=ApiRoute)

MAX_NAME = 128
"""Longest model name or thinking level taken. The bound also makes pydantic refuse a lone surrogate
(``"\\ud800"``) as ``string_unicode`` (400 ``应为合法的 Unicode 文本``), as every other text field of the
API does: the text never reaches the registry, whose refusal echoes it."""


class SwitchRequest(BaseModel):
    """Body of ``POST /api/model/switch``."""

    model: str = Field(max_length=MAX_NAME, description="A name from GET /api/model's available")


class ThinkingRequest(BaseModel):
    """Body of ``POST /api/model/thinking``."""

    level: str = Field(max_length=MAX_NAME, description="off, high or highest")


@router.get("/api/model")
async def get_model(state: StateDep) -> dict[str, Any]:
    """The current model, the configured ones, the thinking level and the levels (no token needed)."""
    return await state.models.info()


@router.post("/api/model/switch")
async def switch_model(body: SwitchRequest, state: StateDep, user: AdminUser) -> dict[str, Any]:
    """Switch the agents' model; 400 with the available names for one not configured."""
    try:
        name = await state.models.switch(body.model.strip(), by=user.user_name if user else None)
    except UnknownModel as exc:
        raise ApiError(400, str(exc)) from exc
    return {"current": name, "message": f"已切换到 {name}，下次请求生效"}


@router.post("/api/model/thinking")
async def set_thinking(body: ThinkingRequest, state: StateDep, user: AdminUser) -> dict[str, Any]:
    """Set the thinking level; 400 for a level other than off, high, highest."""
    try:
        level = await state.models.set_thinking(body.level.strip(), by=user.user_name if user else None)
    except UnknownThinkingLevel as exc:
        raise ApiError(400, str(exc)) from exc
    return {"thinking_level": level, "message": f"思考级别已切换为「{level}」，下次请求生效"}
