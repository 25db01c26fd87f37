"""``vent-agent serve`` checks its settings and binds its port before the service starts: a bad
``VENT_*`` value, a port outside 1–65535, a port in use or an address the machine lacks is one Chinese
line on stderr and exit code 2, and the app is never built (no migrations, no worker registered). A
database the service cannot use (unreachable, stamped by a newer release) is one line too, exit code 3."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text
from starlette.types import Message, Receive, Scope, Send

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


def _stamped_newer(data_dir: Path) -> None:
    """A migrated SQLite store under ``data_dir`` stamped by a release newer than this one."""
    from tests.pg import run_sync
    from vent_agent.store.db import Database

    url = f"sqlite+aiosqlite:///{data_dir / 'vent_agent.db'}"

    async def stamp() -> None:
        db = Database(url)
        try:
            await db.migrate()
            async with db.engine.begin() as conn:
                await conn.execute(text("UPDATE alembic_version SET version_num = '9999_from_the_future'"))
        finally:
            await db.close()

    data_dir.mkdir(parents=True, exist_ok=True)
    run_sync(stamp())


NEWER = (
    "vent-agent serve 出错：数据库的结构版本 9999_from_the_future 比本程序的最新迁移 {head} 更新"
    "（由更新版本的 vent-agent 写入）：请升级 vent-agent 后再启动，或用 VENT_DATABASE_URL 换一个数据库"
)


def test_a_database_stamped_by_a_newer_release_is_one_line_and_exit_3(
    tmp_path: Path, no_app: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from vent_agent.store.db import migrations_head

    _stamped_newer(tmp_path / "data")
    monkeypatch.setenv("VENT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("VENT_PORT", str(_free_port()))
    code, err = serve([], capsys)
    assert (code, err) == (3, NEWER.format(head=migrations_head()))


def test_the_console_script_refuses_a_newer_database_without_a_traceback(tmp_path: Path) -> None:
    """The whole command as a user runs it: stderr is the one line, nothing else (it was a 154-line
    traceback), and the exit code 3."""
    from vent_agent.store.db import migrations_head

    _stamped_newer(tmp_path / "data")
    env = {k: v for k, v in os.environ.items() if not k.startswith("VENT_")}
    env.update(VENT_DATA_DIR=str(tmp_path / "data"), VENT_PORT=str(_free_port()))
    done = subprocess.run(
        [sys.executable, "-m", "vent_agent.cli", "serve"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 3 and done.stdout == ""
    assert done.stderr == NEWER.format(head=migrations_head()) + "\n"


def test_uvicorn_building_the_app_refuses_a_newer_database_in_one_line(tmp_path: Path) -> None:
    """``uvicorn --factory vent_agent.app:create_app`` (docs/OPERATIONS.md) builds the app itself, so the
    refusal comes from its lifespan: the server logs the one line (it was a 108-line traceback) between
    its own start and stop lines, and exits 3."""
    from vent_agent.store.db import migrations_head

    _stamped_newer(tmp_path / "data")
    env = {k: v for k, v in os.environ.items() if not k.startswith("VENT_")}
    env["VENT_DATA_DIR"] = str(tmp_path / "data")
    done = subprocess.run(
        [sys.executable, "-m", "uvicorn", "--factory", "vent_agent.app:create_app"]
        + ["--host", "127.0.0.1", "--port", str(_free_port())],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    line = NEWER.format(head=migrations_head()).removeprefix("vent-agent serve 出错：")
    assert done.returncode == 3 and "Traceback" not in done.stderr, done.stderr
    assert [ln for ln in done.stderr.splitlines() if ln.startswith("ERROR:")] == [
        f"ERROR:    {line}",
        "ERROR:    Application startup failed. Exiting.",
    ]


async def _lifespan_failure(error: BaseException) -> list[Message]:
    """What the server is sent when the app's lifespan start-up fails with ``error`` after Starlette
    reported it with its traceback."""
    from vent_agent.api.startup import StartupRefusalMessage

    sent: list[Message] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "lifespan.startup.failed", "message": "Traceback (most recent call last): …"})
        raise error

    async def receive() -> Message:
        raise AssertionError("the start-up failure is sent before anything is received")

    async def send(message: Message) -> None:
        sent.append(message)

    with pytest.raises(type(error)):
        await StartupRefusalMessage(app)({"type": "lifespan"}, receive, send)
    return sent


async def test_a_refusal_replaces_the_traceback_and_any_other_failure_keeps_it() -> None:
    from vent_agent.store.refusal import StartupRefused

    assert await _lifespan_failure(StartupRefused("数据库不可用")) == [
        {"type": "lifespan.startup.failed", "message": "数据库不可用"}
    ]
    assert await _lifespan_failure(RuntimeError("bug")) == [
        {"type": "lifespan.startup.failed", "message": "Traceback (most recent call last): …"}
    ]


@pytest.mark.parametrize(
    ("env", "code", "line"),
    [
        (
            {"VENT_DATABASE_URL": "mysql://u@h/db"},
            2,
            "配置项 VENT_DATABASE_URL 无效：不支持的数据库 mysql（支持 sqlite、postgresql）",
        ),
        (
            {"VENT_DATABASE_URL": "not a url"},
            2,
            "配置项 VENT_DATABASE_URL 无效：无法解析为数据库地址（例如 postgresql://用户@主机:5432/库名）",
        ),
        (
            {"VENT_DATABASE_URL": "postgresql+psycopg2://u@127.0.0.1:9/db"},
            2,
            "配置项 VENT_DATABASE_URL 无效：不支持的驱动 psycopg2（不写驱动即可，如 postgresql://…）",
        ),
        (
            {"VENT_DATABASE_URL": "postgresql://u@127.0.0.1:9/db"},
            3,
            "无法连接或迁移数据库 postgresql+asyncpg://u@127.0.0.1:9/db（ConnectionRefusedError: ",
        ),
    ],
)
def test_a_database_the_service_cannot_use_is_one_line(
    env: dict[str, str],
    code: int,
    line: str,
    tmp_path: Path,
    no_app: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("VENT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("VENT_PORT", str(_free_port()))
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    got_code, err = serve([], capsys)
    assert got_code == code and err.startswith(f"vent-agent serve 出错：{line}") and "\n" not in err, err


def test_a_data_dir_that_cannot_be_made_is_one_line(
    tmp_path: Path, no_app: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a-file").write_text("x")
    monkeypatch.setenv("VENT_DATA_DIR", str(tmp_path / "a-file" / "data"))
    monkeypatch.setenv("VENT_PORT", str(_free_port()))
    code, err = serve([], capsys)
    assert (code, err) == (
        2,
        f"vent-agent serve 出错：无法创建数据目录 {tmp_path / 'a-file' / 'data'}（路径中有文件）：请检查 VENT_DATA_DIR",
    )
