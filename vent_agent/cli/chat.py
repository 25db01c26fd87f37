"""``vent-agent chat``: stream an answer in the terminal through :class:`vent_agent.client.ChatClient`.
Text goes to stdout; progress (tools, todos, notices) to stderr with rich; exit 0 done, 1 error, 2 the
service refused the request or could not be reached."""

from __future__ import annotations

import sys
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
    except httpx.HTTPError as exc:
        err.print(f"[red]无法连接服务 {url}：{exc}[/red]")
        return 2
    sys.stdout.write("\n")
    if client.session_id:
        err.print(f"[dim]会话 {client.session_id}（继续对话：--session {client.session_id}）[/dim]")
    return 1 if failed else 0
