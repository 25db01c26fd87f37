"""``vent-agent chat``: stream an answer in the terminal through :class:`vent_agent.client.ChatClient`.
Text goes to stdout; progress (tools, todos, notices) to stderr with rich; exit 0 done, 1 error, 2 the
service refused the request or could not be reached."""

from __future__ import annotations

import errno
import socket
import ssl
import sys
from collections.abc import Iterator
from typing import Any

import httpx
from rich.console import Console

from vent_agent.client import ChatClient, ChatError
from vent_agent.events import (
    AgentDone,
    AgentStart,
    Error,
    EventModel,
    Executing,
    Interrupt,
    Progress,
    Suggestions,
    Token,
    UpdatedTodoList,
)


def _show(ev: EventModel, out: Any, err: Console) -> None:
    if isinstance(ev, Token):
        out.write(ev.content)
        out.flush()
    elif isinstance(ev, Executing | Progress | AgentStart | AgentDone) and ev.message:
        err.print(f"[dim]· {ev.message}[/dim]")
    elif isinstance(ev, UpdatedTodoList):
        for t in ev.todos:
            err.print(f"[dim]  [{t.status}] {t.content}[/dim]")
    elif isinstance(ev, Suggestions):
        err.print("[cyan]您可能还想问：[/cyan] " + " / ".join(ev.suggestions))
    elif isinstance(ev, Error):
        err.print(f"[red]错误：{ev.message}[/red]")
    elif isinstance(ev, Interrupt):
        err.print(f"[yellow]{ev.message}[/yellow]\n{ev.plan or ''}")


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and the exceptions it was raised from (httpx wraps the socket's error twice)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def connection_problem(exc: Exception) -> str:
    """Why the service could not be reached, in Chinese (httpx's own text is English:
    ``All connection attempts failed``): refused, name not resolved, time-out, TLS, a bad URL…"""
    if isinstance(exc, httpx.UnsupportedProtocol):
        return "URL 应以 http:// 或 https:// 开头"
    if isinstance(exc, httpx.InvalidURL):
        return "URL 格式不正确"
    if isinstance(exc, httpx.ConnectTimeout):
        return "连接超时（服务无响应，或网络不通）"
    if isinstance(exc, httpx.TimeoutException):
        return "等待服务响应超时"
    if isinstance(exc, httpx.ProxyError):
        return "代理服务器出错"
    for cause in _causes(exc):
        if isinstance(cause, socket.gaierror):
            return "主机名无法解析（请检查 URL 中的主机名）"
        if isinstance(cause, ConnectionRefusedError):
            return "连接被拒绝（服务未启动，或地址、端口不对）"
        if isinstance(cause, ssl.SSLError):
            return "TLS 握手失败（证书或协议不匹配）"
        if isinstance(cause, ConnectionResetError):
            return "连接被服务端重置"
        if isinstance(cause, TimeoutError):
            return "连接超时（服务无响应，或网络不通）"
        if isinstance(cause, OSError) and cause.errno in (errno.ENETUNREACH, errno.EHOSTUNREACH):
            return "网络不可达"
    if isinstance(exc, httpx.ConnectError):
        return "无法建立连接"
    if isinstance(exc, httpx.RemoteProtocolError):
        return "服务意外断开了连接"
    if isinstance(exc, httpx.ReadError | httpx.WriteError):
        return "连接中断"
    if isinstance(exc, httpx.TooManyRedirects):
        return "重定向次数过多"
    if isinstance(exc, httpx.HTTPStatusError):
        return f"服务返回 HTTP {exc.response.status_code}"
    if isinstance(exc, httpx.DecodingError):
        return "服务的响应无法解码"
    return f"网络错误（{type(exc).__name__}）"


async def run_chat(
    message: str,
    *,
    url: str,
    token: str,
    session: str | None,
    mode: str | None,
    approve: bool,
    transport: httpx.AsyncBaseTransport | None = None,
) -> int:
    """Send one message (and, in plan mode, the approval); return the exit code."""
    err = Console(stderr=True)
    client = ChatClient(url, token, session_id=session, transport=transport)
    failed = False
    try:
        stream = client.chat(message, mode=mode)
        while True:
            interrupted = False
            async for ev in stream:
                _show(ev, sys.stdout, err)
                failed = failed or isinstance(ev, Error)
                interrupted = interrupted or isinstance(ev, Interrupt)
            if not interrupted:
                break
            ok = approve or (
                sys.stdin.isatty() and err.input("批准该计划？[y/N] ").strip().lower() in ("y", "yes")
            )
            stream = client.resume("approve" if ok else "reject")
    except ChatError as exc:
        err.print(f"[red]{exc.message}（HTTP {exc.status}）[/red]")
        return 2
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        connecting = isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout | httpx.UnsupportedProtocol)
        what = "无法连接服务" if connecting or isinstance(exc, httpx.InvalidURL) else "与服务通信失败"
        err.print(
            f"{what} {url}：{connection_problem(exc)}",
            style="red",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
        return 2
    sys.stdout.write("\n")
    if client.session_id:
        err.print(f"[dim]会话 {client.session_id}（继续对话：--session {client.session_id}）[/dim]")
    return 1 if failed else 0
