"""Auth against a loopback fake of the mine's user service (JeecgBoot ``/sys/user/getUserInfo``) failing
in each way: 401 missing/invalid/expired token, 502 unreachable or garbage, 504 time-out, 500 not
configured; answers cached; the built-in demo service; admin routes and the setting that frees them."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from tests.helpers import free_port, live_server
from vent_agent.app import create_app
from vent_agent.settings import Settings

HITS: list[str] = []


async def user_info(request: Request) -> Response:
    token = request.headers.get("x-access-token", "")
    HITS.append(token)
    if token == "good":
        return JSONResponse(
            {
                "success": True,
                "code": 200,
                "message": "",
                "result": {"userInfo": {"id": "7", "username": "wangwu", "realname": "王五"}},
            }
        )
    if token == "expired":
        return JSONResponse({"success": False, "code": 401, "message": "Token失效，请重新登录"})
    if token == "status401":
        return JSONResponse({"message": "unauthorized"}, status_code=401)
    if token == "boom":
        return PlainTextResponse("internal error", status_code=500)
    if token == "garbage":
        return PlainTextResponse("<html>login</html>")
    if token == "nouser":
        return JSONResponse({"success": True, "code": 200, "result": {"userInfo": {}}})
    if token == "slow":
        await asyncio.sleep(3)
        return JSONResponse({"success": True, "result": {"userInfo": {"username": "late"}}})
    return JSONResponse({"success": False, "code": 500, "message": "未知令牌"})


@pytest.fixture(scope="module")
def user_service() -> Iterator[str]:
    app = Starlette(routes=[Route("/sys/user/getUserInfo", user_info)])
    with live_server(app) as url:
        yield url


async def _client(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(settings)
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://t") as c,
    ):
        yield c


@pytest.fixture
async def client(user_service: str, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    settings = Settings(_env_file=None, data_dir=tmp_path / "d", auth_url=user_service, auth_timeout_s=1.0)
    async for c in _client(settings):
        yield c


@pytest.mark.parametrize(
    ("token", "status", "words"),
    [
        (None, 401, "缺少令牌"),
        ("", 401, "缺少令牌"),
        ("expired", 401, "无效或已过期"),
        ("status401", 401, "无效或已过期"),
        ("unknown", 401, "无效或已过期"),
        ("boom", 502, "认证服务异常"),
        ("garbage", 502, "无法解析"),
        ("nouser", 502, "不完整"),
        ("slow", 504, "超时"),
        ("x" * 5000, 401, "无效或已过期"),
    ],
)
async def test_each_failure_of_the_user_service(client: httpx.AsyncClient, token, status, words) -> None:
    headers = {} if token is None else {"x-access-token": token}
    r = await client.get("/api/sessions", headers=headers)
    assert r.status_code == status, r.text
    assert words in r.json()["error"]


async def test_a_good_token_is_the_user_and_is_cached(client: httpx.AsyncClient) -> None:
    HITS.clear()
    for _ in range(3):
        r = await client.get("/api/sessions", headers={"x-access-token": "good"})
        assert r.status_code == 200
    assert HITS == ["good"]  # forwarded once, then cached


async def test_unreachable_user_service_is_502(tmp_path: Path) -> None:
    dead = f"http://127.0.0.1:{free_port()}"
    settings = Settings(_env_file=None, data_dir=tmp_path / "d", auth_url=dead)
    async for c in _client(settings):
        r = await c.get("/api/sessions", headers={"x-access-token": "good"})
        assert r.status_code == 502 and "连接失败" in r.json()["error"]


async def test_no_user_service_configured_is_500(tmp_path: Path) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path / "d", demo_tokens={})
    async for c in _client(settings):
        r = await c.get("/api/sessions", headers={"x-access-token": "demo-token"})
        assert r.status_code == 500 and "未配置" in r.json()["error"]


async def test_built_in_demo_service_is_announced(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path / "d")
    async for c in _client(settings):
        assert (await c.get("/api/sessions", headers={"x-access-token": "demo-token"})).status_code == 200
        assert (await c.get("/api/sessions", headers={"x-access-token": "nope"})).status_code == 401
    assert any("BUILT-IN user service" in r.message for r in caplog.records)


async def test_admin_routes_need_a_token_unless_freed(tmp_path: Path) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path / "d")
    async for c in _client(settings):
        assert (await c.post("/api/skills/vent-chat/toggle")).status_code == 401
        assert (await c.post("/api/model/thinking", json={"level": "high"})).status_code == 401
        assert (await c.get("/api/model")).status_code == 200
        assert (await c.get("/api/skills")).status_code == 200
    free = Settings(_env_file=None, data_dir=tmp_path / "e", admin_needs_token=False)
    async for c in _client(free):
        assert (await c.post("/api/skills/vent-chat/toggle")).status_code == 200
        bad = await c.post("/api/skills/vent-chat/toggle", headers={"x-access-token": "nope"})
        assert bad.status_code == 401  # a token that is sent is still checked
