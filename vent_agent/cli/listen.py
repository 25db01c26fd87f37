"""What ``vent-agent serve`` checks before it starts anything: the settings it was given, and the listening
socket, bound here and handed to uvicorn, so that a port already in use or a bad address is one Chinese
line before the service starts (migrations, worker registration, OCR warm-up), not uvicorn's English log
line after it.
"""

from __future__ import annotations

import errno
import socket
from typing import Any

from pydantic import ValidationError

from vent_agent.settings import Settings
from vent_agent.validation_reasons import located_reasons

PORT_RANGE = (1, 65535)
"""The TCP ports a service can listen on."""


class ServeError(Exception):
    """The service cannot start; ``args[0]`` says why, in Chinese, for the command line; ``exit_code``:
    the command's exit code (2: bad settings or port; 3: the database refused, see ``cli/preflight.py``)."""

    def __init__(self, message: str, exit_code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def load_settings(**overrides: Any) -> Settings:
    """:class:`Settings` from the environment (``VENT_*``, ``.env``); a bad value raises :class:`ServeError`
    naming its variable (``配置项 VENT_PORT 无效：应为整数``) instead of pydantic's English report."""
    try:
        return Settings(**overrides)
    except ValidationError as err:
        raise ServeError(located_reasons(err, _variable)) from None


def _variable(loc: tuple[int | str, ...]) -> str:
    """A setting's location as its environment variable, for a message (``配置项 VENT_PORT 无效``)."""
    return "配置项 VENT_" + "_".join(str(p) for p in loc).upper() + " 无效"


def bind_listener(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` (IPv6 when ``host`` has a ``:``), as uvicorn binds its own
    (``SO_REUSEADDR``), not yet listening. Raises :class:`ServeError` for a port outside 1–65535, a port
    in use, a port that needs privileges, or an address this machine does not have."""
    low, high = PORT_RANGE
    if not low <= port <= high:
        raise ServeError(f"端口 {port} 无效：应在 {low}–{high} 之间")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family=family)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:  # socket.gaierror included: a host name that does not resolve
        sock.close()
        raise ServeError(_bind_problem(host, port, exc)) from None
    except UnicodeError:
        sock.close()
        raise ServeError(f"监听地址 {host} 无效") from None
    sock.set_inheritable(True)
    return sock


def _bind_problem(host: str, port: int, exc: OSError) -> str:
    where = f"{host}:{port}" if ":" not in host else f"[{host}]:{port}"
    hint = "请用 --port 或 VENT_PORT 换一个端口"
    if exc.errno == errno.EADDRINUSE:
        return f"端口 {port} 已被占用（{where}）：{hint}，或先停止占用它的程序"
    if exc.errno == errno.EACCES:
        return f"没有权限监听端口 {port}（{where}）：{hint}（1024 以下的端口需要管理员权限）"
    if exc.errno == errno.EADDRNOTAVAIL or isinstance(exc, socket.gaierror):
        return f"本机没有地址 {host}：请用 --host 或 VENT_HOST 改为本机的地址（如 127.0.0.1 或 0.0.0.0）"
    return f"无法监听 {where}（{exc.strerror or exc}）"
