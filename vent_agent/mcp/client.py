"""The review's MCP client: fetch one (mine, month) of reference data over the MCP protocol, through
langchain-mcp-adapters, and hand it to the rules as :class:`~vent_agent.review.reference.ReferenceData`.

Where the tools come from (:func:`load_reference`):

- ``settings.mcp_url`` set: the mine platform's MCP server, over streamable HTTP;
- unset: the project's own server (:mod:`vent_agent.mcp.server`) over the files of
  ``settings.reference_dir``, else the demo mine; spoken to in-process over in-memory streams
  (``transport="memory"``, the default) or as a child process over stdio (``transport="stdio"``).

Either way the client opens an MCP session, lists the tools, converts them with
``langchain_mcp_adapters.tools.load_mcp_tools`` and calls each of the four as a LangChain tool, so the
answers travel as JSON-RPC messages exactly as they would from a remote server. Each call is recorded
(:class:`ToolCallRecord`: tool, arguments, structured answer or error, duration) for provenance.

Failures never raise: an unreachable server, a time-out, a protocol error or broken reference files
give a :class:`ReferenceOutcome` with status ``unavailable`` and a reason; the review then writes one
info finding and goes on.
"""

from __future__ import annotations

import asyncio
import logging
import re
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from enum import StrEnum
from typing import Any, Literal

import anyio
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool
from langchain_mcp_adapters.sessions import StdioConnection, StreamableHttpConnection, create_session
from langchain_mcp_adapters.tools import load_mcp_tools
from mcp import ClientSession
from mcp.shared.memory import create_connected_server_and_client_session
from pydantic import ValidationError

from vent_agent.mcp.schemas import ANSWER_TYPES, TOOL_NAMES, ToolAnswer, monthly_from_answers
from vent_agent.observability import metrics
from vent_agent.review.reference import (
    MONTH_PATTERN,
    MonthlyReference,
    ReferenceData,
    ReferenceFileError,
    StaticReferenceData,
    UnavailableReference,
)
from vent_agent.settings import Settings

log = logging.getLogger(__name__)

EmbeddedTransport = Literal["memory", "stdio"]


class ReferenceStatus(StrEnum):
    """``ok``: the month's data (some parts may be missing, see ``MonthlyReference.gaps``);
    ``not_found``: the source answered and has nothing for this mine and month; ``unavailable``: no
    answer could be had (unreachable, time-out, error, broken files)."""

    OK = "ok"
    NOT_FOUND = "not_found"
    UNAVAILABLE = "unavailable"


@dataclass
class ToolCallRecord:
    """One MCP tool call: ``tool``, the ``arguments`` sent, the structured ``output`` answered (None on
    error), ``error`` text, wall ``duration_ms``, and the ``server`` it went to."""

    tool: str
    arguments: dict[str, Any]
    server: str
    output: dict[str, Any] | None = None
    error: str | None = None
    duration_ms: int = 0

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (for provenance in the review result)."""
        return {
            "tool": self.tool,
            "arguments": self.arguments,
            "server": self.server,
            "output": self.output,
            "error": self.error,
            "duration_ms": self.duration_ms,
        }


@dataclass
class ReferenceOutcome:
    """What :func:`load_reference` got for (mine, month): ``status``, the ``monthly`` data when ok,
    ``reason`` (Chinese) when not, the ``source`` asked (``MCP streamable HTTP http://…`` / ``内置 MCP
    服务（示范煤矿）`` / ``内置 MCP 服务（参考数据文件 …）``) and every tool ``calls`` made."""

    status: ReferenceStatus
    mine: str | None
    month: str | None
    source: str
    monthly: MonthlyReference | None = None
    reason: str | None = None
    calls: list[ToolCallRecord] = field(default_factory=list)

    @property
    def reference(self) -> ReferenceData:
        """The outcome as the rules take it (``review_data(plan, outcome.reference)``): the month
        (ok), nothing (not found: "no data for this mine and month"), or an
        :class:`~vent_agent.review.reference.UnavailableReference` carrying ``reason``."""
        if self.status is ReferenceStatus.OK and self.monthly is not None:
            return StaticReferenceData([self.monthly])
        if self.status is ReferenceStatus.UNAVAILABLE:
            return UnavailableReference(self.reason or "参考数据服务不可用")
        return StaticReferenceData([])


ToolCallback = Callable[[ToolCallRecord], Coroutine[Any, Any, None]]


def _leaf(exc: BaseException) -> BaseException:
    """The first non-group exception inside (anyio task groups wrap errors in ExceptionGroups)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _describe(exc: BaseException) -> str:
    leaf = _leaf(exc)
    text = str(leaf) or type(leaf).__name__
    return f"{type(leaf).__name__}: {text}" if text != type(leaf).__name__ else text


def embedded_backend(settings: Settings) -> tuple[ReferenceData, str]:
    """The embedded server's backend and its label: the files of ``settings.reference_dir``, else the
    demo mine. Raises :class:`~vent_agent.review.reference.ReferenceFileError` for broken files."""
    from vent_agent.mcp.server import backend_from

    if settings.reference_dir is not None:
        return backend_from(settings.reference_dir), f"内置 MCP 服务（参考数据文件 {settings.reference_dir}）"
    return backend_from(None), "内置 MCP 服务（示范煤矿）"


@asynccontextmanager
async def open_reference_session(
    settings: Settings,
    *,
    transport: EmbeddedTransport = "memory",
    timeout_s: float | None = None,
    reference: ReferenceData | None = None,
) -> AsyncIterator[tuple[ClientSession, str]]:
    """An initialised MCP client session to the reference tools, and a label of the server.

    ``settings.mcp_url`` set: streamable HTTP to it (``timeout_s`` per HTTP request). Else the embedded
    server over ``reference`` (default :func:`embedded_backend`), in-memory or over stdio (a child
    ``python -m vent_agent.mcp.server --transport stdio``, given ``--reference-dir`` when set). Raises
    whatever connecting raises (httpx/OS/MCP errors, ``ReferenceFileError``); use :func:`load_reference`
    for the failure-free path. ``load_mcp_tools(session)`` gives the tools for an agent.
    """
    read_timeout = timedelta(seconds=timeout_s) if timeout_s else None
    if settings.mcp_url:
        connection: StreamableHttpConnection = {"transport": "streamable_http", "url": settings.mcp_url}
        if timeout_s:
            connection["timeout"] = connection["sse_read_timeout"] = timeout_s
        connection["session_kwargs"] = {"read_timeout_seconds": read_timeout}
        async with create_session(connection) as session:
            await session.initialize()
            yield session, f"MCP streamable HTTP {settings.mcp_url}"
        return
    if transport == "stdio":
        args = ["-m", "vent_agent.mcp.server", "--transport", "stdio"]
        if settings.reference_dir is not None:
            args += ["--reference-dir", str(settings.reference_dir)]
        label = "内置 MCP 服务（stdio 子进程" + (
            f"，参考数据文件 {settings.reference_dir}）" if settings.reference_dir else "，示范煤矿）"
        )
        stdio: StdioConnection = {
            "transport": "stdio",
            "command": sys.executable,
            "args": args,
            "session_kwargs": {"read_timeout_seconds": read_timeout},
        }
        async with create_session(stdio) as session:
            await session.initialize()
            yield session, label
        return
    from vent_agent.mcp.server import create_server

    if reference is None:
        reference, label = embedded_backend(settings)
    else:
        label = "内置 MCP 服务（指定数据源）"
    server = create_server(reference)
    async with create_connected_server_and_client_session(
        server, read_timeout_seconds=read_timeout
    ) as session:
        yield session, label


async def load_reference(
    settings: Settings,
    mine: str | None,
    month: str | None,
    *,
    transport: EmbeddedTransport = "memory",
    timeout_s: float | None = None,
    on_call: ToolCallback | None = None,
    reference: ReferenceData | None = None,
    off_loop: bool = True,
) -> ReferenceOutcome:
    """Fetch (mine, month) through the four MCP review tools; never raises (except cancellation).

    ``mine`` as the plan writes it, ``month`` ``YYYY-MM``; ``timeout_s`` bounds the whole fetch
    (default ``settings.tool_timeout_s``); ``on_call`` is awaited (on the caller's loop) after each
    tool call with its :class:`ToolCallRecord` (for ``agent_tool_result`` events); ``reference``
    replaces the embedded server's backend (tests). Status: ``ok`` when at least one tool had data
    (tools without become ``MonthlyReference.gaps``), ``not_found`` when none had, ``unavailable`` when
    the server could not be reached, timed out, failed every call, or its files are broken.

    ``off_loop`` (default): the MCP exchange runs on its own event loop in a worker thread. The SDK
    validates every answer against its JSON schema on both ends, tens of ms of CPU per call, which
    must not stall the service's other streams. A cancelled caller stops waiting at once; the worker
    ends by itself within ``timeout_s``.
    """
    if not off_loop:
        return await _load(settings, mine, month, transport, timeout_s, on_call, reference)
    loop = asyncio.get_running_loop()
    abandoned = threading.Event()
    relay: ToolCallback | None = None
    if on_call is not None:
        callback = on_call

        async def relay(record: ToolCallRecord) -> None:
            if abandoned.is_set():  # the caller is gone: no more events for it
                return
            fut = asyncio.run_coroutine_threadsafe(callback(record), loop)
            await asyncio.wrap_future(fut)

    work = _load(settings, mine, month, transport, timeout_s, relay, reference)
    try:
        return await asyncio.to_thread(asyncio.run, work)
    except asyncio.CancelledError:
        abandoned.set()
        raise


async def _load(
    settings: Settings,
    mine: str | None,
    month: str | None,
    transport: EmbeddedTransport,
    timeout_s: float | None,
    on_call: ToolCallback | None,
    reference: ReferenceData | None,
) -> ReferenceOutcome:
    """:func:`load_reference` on the current loop."""
    budget = timeout_s if timeout_s is not None else settings.tool_timeout_s
    source = f"MCP streamable HTTP {settings.mcp_url}" if settings.mcp_url else "内置 MCP 服务"
    if not mine or not month:
        return ReferenceOutcome(
            ReferenceStatus.NOT_FOUND, mine, month, source, reason="计划未写明矿井名称或月份"
        )
    if not re.match(MONTH_PATTERN, month):
        return ReferenceOutcome(
            ReferenceStatus.NOT_FOUND, mine, month, source, reason=f"月份“{month}”不是 YYYY-MM"
        )
    calls: list[ToolCallRecord] = []
    answers: dict[str, ToolAnswer] = {}
    try:
        with anyio.fail_after(budget):
            async with open_reference_session(
                settings, transport=transport, timeout_s=budget, reference=reference
            ) as (session, source):
                tools = {t.name: t for t in await load_mcp_tools(session)}
                lacking = [name for name in TOOL_NAMES if name not in tools]
                for name in TOOL_NAMES:
                    record = ToolCallRecord(name, {"mine": mine, "month": month}, source)
                    if name in lacking:
                        record.error = f"MCP 服务未提供工具 {name}"
                    else:
                        answer = await _call(tools[name], record)
                        if answer is not None:
                            answers[name] = answer
                    calls.append(record)
                    if on_call is not None:
                        await on_call(record)
    except ReferenceFileError as exc:
        log.warning("reference files unusable: %s", exc)
        return ReferenceOutcome(
            ReferenceStatus.UNAVAILABLE, mine, month, source, reason=str(exc), calls=calls
        )
    except TimeoutError:
        reason = f"参考数据服务（{source}）在 {budget:g} s 内无响应"
        return ReferenceOutcome(ReferenceStatus.UNAVAILABLE, mine, month, source, reason=reason, calls=calls)
    except Exception as exc:  # unreachable server, protocol error: the review goes on without the data
        log.warning("MCP reference server %s unavailable: %s", source, _describe(exc))
        reason = f"无法连接参考数据服务（{source}）：{_describe(exc)}"
        return ReferenceOutcome(ReferenceStatus.UNAVAILABLE, mine, month, source, reason=reason, calls=calls)
    return _outcome(mine, month, source, answers, calls)


async def _call(tool: BaseTool, record: ToolCallRecord) -> ToolAnswer | None:
    """Call one tool as a LangChain tool call; fill ``record``; the validated answer or None. Counted
    in ``/metrics`` (tool latency, outcome error when no valid answer came)."""
    started = time.perf_counter()
    answer = await _call_once(tool, record)
    metrics.observe_tool_call(tool.name, time.perf_counter() - started, answer is not None)
    return answer


async def _call_once(tool: BaseTool, record: ToolCallRecord) -> ToolAnswer | None:
    started = time.perf_counter()
    try:
        msg = await tool.ainvoke(
            {"name": tool.name, "args": record.arguments, "id": f"ref-{tool.name}", "type": "tool_call"}
        )
    except Exception as exc:  # a JSON-RPC error for this call; the session may still serve the others
        record.error = _describe(exc)
        return None
    finally:
        record.duration_ms = int((time.perf_counter() - started) * 1000)
    if not isinstance(msg, ToolMessage):
        record.error = f"unexpected tool result {type(msg).__name__}"
        return None
    artifact = msg.artifact if isinstance(msg.artifact, dict) else {}
    structured = artifact.get("structured_content")
    if msg.status == "error" or not isinstance(structured, dict):
        text = (
            msg.content
            if isinstance(msg.content, str)
            else " ".join(str(b.get("text", b)) if isinstance(b, dict) else str(b) for b in msg.content)
        )
        record.error = text or "工具未返回结构化结果"
        return None
    record.output = structured
    try:
        return ANSWER_TYPES[tool.name].model_validate(structured)
    except ValidationError as exc:
        record.error = f"答复格式不符：{exc.errors()[0]['loc']}: {exc.errors()[0]['msg']}"
        return None


def _outcome(
    mine: str, month: str, source: str, answers: dict[str, ToolAnswer], calls: list[ToolCallRecord]
) -> ReferenceOutcome:
    failed = [c for c in calls if not c.ok]
    if len(failed) == len(calls):
        reason = f"参考数据服务（{source}）调用失败：{failed[0].error}"
        return ReferenceOutcome(ReferenceStatus.UNAVAILABLE, mine, month, source, reason=reason, calls=calls)
    have = {name: a for name, a in answers.items() if a.available}
    if not have:
        reason = next((a.reason for a in answers.values() if a.reason), None) or f"没有{mine} {month} 的数据"
        return ReferenceOutcome(ReferenceStatus.NOT_FOUND, mine, month, source, reason=reason, calls=calls)
    gaps = {c.tool: f"调用出错：{c.error}" for c in failed}
    gaps.update({n: a.reason or "无数据" for n, a in answers.items() if not a.available})
    owner = next(iter(have.values())).mine
    monthly = monthly_from_answers(owner, month, answers, gaps)
    return ReferenceOutcome(ReferenceStatus.OK, mine, month, source, monthly=monthly, calls=calls)
