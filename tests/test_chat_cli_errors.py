"""``vent-agent chat`` names why the service could not be reached in Chinese (refused, name not resolved,
time-out, TLS, a bad URL), keeps the URL, exits 2, and never shows httpx's English text."""

from __future__ import annotations

import socket
import ssl
from collections.abc import Callable

import httpx
import pytest

from vent_agent.cli.chat import connection_problem, run_chat

URL = "http://vent.example:8070"


def failing(make: Callable[[httpx.Request], Exception]) -> httpx.MockTransport:
    """A transport whose every request raises ``make(request)``."""

    def handler(request: httpx.Request) -> httpx.Response:
        raise make(request)

    return httpx.MockTransport(handler)


def connect_error(cause: BaseException) -> Callable[[httpx.Request], Exception]:
    def make(request: httpx.Request) -> Exception:
        err = httpx.ConnectError("All connection attempts failed", request=request)
        err.__cause__ = cause
        return err

    return make


async def chat(url: str, transport: httpx.AsyncBaseTransport | None = None) -> int:
    return await run_chat(
        "风速？", url=url, token="demo-token", session=None, mode=None, approve=False, transport=transport
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_a_refused_connection_on_loopback(capsys: pytest.CaptureFixture[str]) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    assert await chat(url) == 2
    err = capsys.readouterr().err
    assert f"无法连接服务 {url}：连接被拒绝（服务未启动，或地址、端口不对）" in err
    assert "All connection attempts failed" not in err


async def test_a_url_without_a_scheme(capsys: pytest.CaptureFixture[str]) -> None:
    assert await chat("127.0.0.1:8070") == 2
    assert "无法连接服务 127.0.0.1:8070：URL 应以 http:// 或 https:// 开头" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("make", "line"),
    [
        (
            connect_error(socket.gaierror(-2, "Name or service not known")),
            f"无法连接服务 {URL}：主机名无法解析",
        ),
        (connect_error(ConnectionRefusedError(111, "Connection refused")), f"无法连接服务 {URL}：连接被拒绝"),
        (connect_error(ssl.SSLError(1, "certificate verify failed")), f"无法连接服务 {URL}：TLS 握手失败"),
        (connect_error(OSError(101, "Network is unreachable")), f"无法连接服务 {URL}：网络不可达"),
        (lambda r: httpx.ConnectTimeout("timed out", request=r), f"无法连接服务 {URL}：连接超时"),
        (lambda r: httpx.ReadTimeout("timed out", request=r), f"与服务通信失败 {URL}：等待服务响应超时"),
    ],
)
async def test_each_connection_error_reads_in_chinese(
    capsys: pytest.CaptureFixture[str], make: Callable[[httpx.Request], Exception], line: str
) -> None:
    assert await chat(URL, failing(make)) == 2
    err = capsys.readouterr().err
    assert line in err and "failed" not in err and "timed out" not in err


def test_unknown_errors_still_read_in_chinese() -> None:
    request = httpx.Request("GET", URL)
    assert connection_problem(httpx.ConnectError("boom", request=request)) == "无法建立连接"
    assert connection_problem(httpx.RemoteProtocolError("eof", request=request)) == "服务意外断开了连接"
    assert connection_problem(httpx.InvalidURL("bad")) == "URL 格式不正确"
