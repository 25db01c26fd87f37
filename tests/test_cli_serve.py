"""``vent-agent serve`` checks its settings and binds its port before the service starts: a bad
``VENT_*`` value, a port outside 1–65535, a port in use or an address the machine lacks is one Chinese
line on stderr and exit code 2, and the app is never built (no migrations, no worker registered)."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from vent_agent.cli import main
from vent_agent.cli.listen import ServeError, bind_listener, load_settings


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A loopback port another socket is listening on."""
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        yield other.getsockname()[1]


@pytest.fixture
def no_app(monkeypatch: pytest.MonkeyPatch) -> None:
    """Building the app fails the test: serve must refuse before it."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the app was built")

    monkeypatch.setattr("vent_agent.app.create_app", refuse)


def serve(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exit_:
        main(["serve", *argv])
    return int(exit_.value.code or 0), capsys.readouterr().err.strip()


def test_a_port_in_use_is_named_before_the_service_starts(
    taken_port: int, no_app: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = serve(["--port", str(taken_port)], capsys)
    assert code == 2
    assert err == (
        f"vent-agent serve 出错：端口 {taken_port} 已被占用（127.0.0.1:{taken_port}）："
        "请用 --port 或 VENT_PORT 换一个端口，或先停止占用它的程序"
    )


@pytest.mark.parametrize("port", ["99999", "65536", "0", "-1"])
def test_a_port_outside_the_tcp_range_is_refused(
    port: str, no_app: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = serve(["--port", port], capsys)
    assert code == 2 and f"端口 {port} 无效：应在 1–65535 之间" in err


@pytest.mark.parametrize(
    ("value", "reason"),
    [("abc", "应为整数"), ("99999", "应不大于 65535"), ("0", "应不小于 1"), ("80.5", "应为整数")],
)
def test_a_bad_vent_port_names_the_variable(
    value: str, reason: str, no_app: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("VENT_PORT", value)
    code, err = serve([], capsys)
    assert (code, err) == (2, f"vent-agent serve 出错：配置项 VENT_PORT 无效：{reason}")


@pytest.mark.parametrize("host", ["192.0.2.1", "no-such-host.invalid"])
def test_an_address_the_machine_lacks_is_named(host: str) -> None:
    with pytest.raises(ServeError, match=f"本机没有地址 {host}"):
        bind_listener(host, 18999)


def test_a_free_port_is_bound_and_handed_over() -> None:
    sock = bind_listener("127.0.0.1", _free_port())
    try:
        assert sock.getsockname()[0] == "127.0.0.1" and sock.get_inheritable()
    finally:
        sock.close()


def test_settings_load_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VENT_PORT", "18123")
    assert load_settings(_env_file=None).port == 18123


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
