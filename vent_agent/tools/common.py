"""Plumbing shared by the agents' tools: the injected runtime, the time-out, and error results.

A tool built by :func:`context_tool` never raises into the agent run. What goes wrong becomes a tool
error – a ``ToolMessage`` with ``status="error"`` when called with a tool call, the content string
otherwise – whose content is one JSON object the model can read::

    {"error": "未找到巷道：X", "kind": "not_found", "tool": "query_tun_data_by_id", "hint": "…"}

``kind``: ``invalid_args`` (the arguments fail the schema), ``not_found`` (unknown id or name),
``bad_request`` (a value out of range), ``timeout`` (no answer within ``settings.tool_timeout_s``),
``upstream`` (the ventilation system failed: unreachable, refused, garbage), ``unavailable`` (the run
lacks what the tool needs, e.g. no logged-in user), ``internal`` (a bug; logged with its traceback).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from langchain.tools import ToolRuntime
from langchain_core.tools import BaseTool, InjectedToolArg, StructuredTool, ToolException
from langgraph.errors import GraphBubbleUp
from pydantic import BaseModel, ConfigDict, ValidationError

from vent_agent.tools.context import AgentContext, ToolContextError, context_of
from vent_agent.upstream.http_source import UpstreamError
from vent_agent.upstream.models import NotFoundError
from vent_agent.validation_reasons import dotted, located_reasons

log = logging.getLogger(__name__)

ToolBody = Callable[..., Awaitable[Any]]
"""``async body(ctx: AgentContext, **args) -> JSON-able result``."""


class ToolArgs(BaseModel):
    """Base of every args schema: unknown arguments are an error, and the injected ``runtime`` (the
    LangGraph ToolRuntime) is accepted but hidden from the model's JSON schema."""

    model_config = ConfigDict(extra="forbid")

    runtime: Annotated[Any, InjectedToolArg] = None


class ToolFailure(Exception):
    """A failure a tool body reports on purpose: ``kind`` (see the module doc), a Chinese ``message``
    and an optional ``hint`` (what the model could do instead)."""

    def __init__(self, kind: str, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.hint = hint


NOT_FOUND_HINTS: dict[str, str] = {
    "tunnel": "可先用 query_tunnel_list 按名称关键词搜索巷道，确认巷道 ID 或名称",
    "device": "可先用 query_devices_by_tunnel_id 或 get_device_list_by_kind 查找设备 ID",
    "model": "可不传 model_id 调用 query_tunnels_by_model，查询当前通风网络模型的巷道",
    "device_kind": "可先用 get_device_kind_dict 查看可用的设备类型编码",
}


def error_content(tool: str, kind: str, message: str, hint: str | None = None) -> str:
    """The JSON text of a tool error (see the module doc)."""
    body: dict[str, Any] = {"error": message, "kind": kind, "tool": tool}
    if hint:
        body["hint"] = hint
    return json.dumps(body, ensure_ascii=False)


def _failure_of(tool: str, exc: Exception, timeout_s: float) -> tuple[str, str, str | None]:
    """(kind, message, hint) of an exception raised by a tool body."""
    if isinstance(exc, ToolFailure):
        return exc.kind, exc.message, exc.hint
    if isinstance(exc, NotFoundError):
        return "not_found", str(exc), NOT_FOUND_HINTS.get(exc.kind)
    if isinstance(exc, TimeoutError):
        return "timeout", f"工具执行超时（超过 {timeout_s:g} 秒未返回），请稍后重试或缩小查询范围", None
    if isinstance(exc, UpstreamError):
        hint = (
            "通风系统暂时无法提供数据，请告知用户稍后重试；不要编造数据" if exc.kind != "malformed" else None
        )
        return "upstream", str(exc), hint
    if isinstance(exc, ToolContextError):
        return "unavailable", str(exc), None
    if isinstance(exc, ValueError):
        return "bad_request", f"参数取值无效：{exc}", None
    log.exception("tool %s failed", tool)
    return "internal", f"工具内部错误（{type(exc).__name__}），请换一种方式或告知用户", None


def validation_error_content(tool: str, err: ValidationError) -> str:
    """The tool error of arguments that fail the schema, each problem's reason in Chinese
    (``参数无效：days：应不大于 30``); the injected runtime is never mentioned."""
    text = (
        located_reasons(err, lambda loc: dotted(loc) or "参数", skip=lambda loc: loc == ("runtime",))
        or "参数格式错误"
    )
    return error_content(tool, "invalid_args", f"参数无效：{text}", "请按工具的参数说明重新调用")


def context_tool(name: str, description: str, args_schema: type[ToolArgs], body: ToolBody) -> BaseTool:
    """A LangChain tool named ``name`` whose ``body(ctx, **args)`` gets the run's AgentContext.

    The body runs under ``ctx.settings.tool_timeout_s``; its result is returned as is (a JSON-able
    dict); any exception but LangGraph's control flow (interrupts) becomes a tool error.
    """

    async def run(runtime: ToolRuntime | None = None, **kwargs: Any) -> Any:
        timeout_s = 0.0
        try:
            ctx: AgentContext = context_of(runtime)
            timeout_s = ctx.tool_timeout_s
            async with asyncio.timeout(timeout_s):
                return await body(ctx, **kwargs)
        except GraphBubbleUp:
            raise
        except Exception as exc:
            kind, message, hint = _failure_of(name, exc, timeout_s)
            if kind not in ("not_found", "bad_request", "internal"):
                log.warning("tool %s: %s (%s)", name, message, kind)
            raise ToolException(error_content(name, kind, message, hint)) from exc

    return StructuredTool.from_function(
        coroutine=run,
        name=name,
        description=description,
        args_schema=args_schema,
        handle_tool_error=_tool_error_text,
        handle_validation_error=lambda err: validation_error_content(name, err),
    )


def _tool_error_text(exc: ToolException) -> str:
    return str(exc)
