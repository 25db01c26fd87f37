"""The user-preference tools of the spec (用户偏好记忆工具): ``save_user_preference``,
``list_user_preferences``, ``delete_user_preference``, over the caller's own preferences (the
AgentContext's ``user_name``; another user's preferences are never reachable)."""

from __future__ import annotations

from typing import Any

from langchain_core.tools import BaseTool
from pydantic import Field

from vent_agent.store.db import Database
from vent_agent.tools.common import ToolArgs, ToolFailure, context_tool
from vent_agent.tools.context import AgentContext
from vent_agent.tools.preference_store import (
    MAX_KEY_LEN,
    MAX_PREFERENCES,
    MAX_VALUE_LEN,
    PreferenceError,
    delete_preference,
    list_preferences,
    save_preference,
)


class SaveArgs(ToolArgs):
    """A preference to save."""

    key: str = Field(
        min_length=1,
        max_length=MAX_KEY_LEN,
        description=f"偏好名称（简短，≤{MAX_KEY_LEN} 字），例如 “风量单位”“回答详略”“常看地点”；同名偏好会被覆盖",
    )
    value: str = Field(
        min_length=1,
        max_length=MAX_VALUE_LEN,
        description=f"偏好内容（≤{MAX_VALUE_LEN} 字），例如 “风量用 m³/min，保留一位小数”",
    )


class ListArgs(ToolArgs):
    """No arguments."""


class DeleteArgs(ToolArgs):
    """The preference to delete."""

    key: str = Field(min_length=1, max_length=MAX_KEY_LEN, description="要删除的偏好名称（与保存时一致）")


def _user(ctx: AgentContext) -> tuple[Database, str]:
    """The store and the caller; ToolFailure ``unavailable`` without either."""
    if not ctx.user_name:
        raise ToolFailure("unavailable", "当前没有登录用户，无法读写用户偏好")
    if ctx.db is None:
        raise ToolFailure("unavailable", "偏好存储不可用")
    return ctx.db, ctx.user_name


async def _save(ctx: AgentContext, key: str, value: str) -> dict[str, Any]:
    db, user = _user(ctx)
    try:
        pref, replaced = await save_preference(db, user, key, value)
    except PreferenceError as exc:
        raise ToolFailure("bad_request", str(exc)) from exc
    return {
        "saved": True,
        "replaced": replaced,
        "key": pref.key,
        "value": pref.value,
        "message": f"已{'更新' if replaced else '保存'}偏好「{pref.key}」，之后的对话会参考它",
    }


async def _list(ctx: AgentContext) -> dict[str, Any]:
    db, user = _user(ctx)
    prefs = await list_preferences(db, user)
    return {
        "count": len(prefs),
        "max": MAX_PREFERENCES,
        "preferences": [{"key": p.key, "value": p.value} for p in prefs],
    }


async def _delete(ctx: AgentContext, key: str) -> dict[str, Any]:
    db, user = _user(ctx)
    try:
        deleted = await delete_preference(db, user, key)
    except PreferenceError as exc:
        raise ToolFailure("bad_request", str(exc)) from exc
    if not deleted:
        raise ToolFailure(
            "not_found",
            f"没有名为「{key.strip()}」的偏好",
            "可先用 list_user_preferences 查看已保存的偏好名称",
        )
    return {"deleted": True, "key": key.strip(), "message": f"已删除偏好「{key.strip()}」"}


def preference_tools() -> list[BaseTool]:
    """save_user_preference, list_user_preferences, delete_user_preference (the caller's own)."""
    return [
        context_tool(
            "save_user_preference",
            "保存当前用户的偏好或习惯（如单位、回答详略、常关注的巷道），之后的对话会据此个性化回复。"
            f"仅在用户明确表达希望记住时调用；同名偏好会被覆盖；每位用户最多 {MAX_PREFERENCES} 条。",
            SaveArgs,
            _save,
        ),
        context_tool(
            "list_user_preferences", "查看当前用户已保存的所有偏好（名称和内容）。", ListArgs, _list
        ),
        context_tool("delete_user_preference", "删除当前用户指定名称的偏好。", DeleteArgs, _delete),
    ]
