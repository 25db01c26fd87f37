"""The HTTP client of the mine's ventilation system against a loopback fake JeecgBoot-style system that
serves the demo mine: every operation round-trips, the caller's token is forwarded, and upstream
failures (401, 500, time-out, garbage, ``success: false``, wrong shapes) become clear errors – in the
source as NotFoundError/UpstreamError, in the tools as tool errors."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from langchain.tools import ToolRuntime
from pydantic import TypeAdapter, ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from tests.chat_helpers import tool_runtime
from tests.helpers import live_server
from vent_agent.settings import Settings
from vent_agent.tools.context import AgentContext
from vent_agent.tools.data_tools import data_tools
from vent_agent.upstream import close_source, make_source
from vent_agent.upstream.demo_mine import DemoMine
from vent_agent.upstream.http_source import HttpVentilationSource, UpstreamError, UpstreamPaths
from vent_agent.upstream.models import NotFoundError

TZ = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 8, 20, 10, 37, 12, tzinfo=TZ)
MINE = DemoMine(now=lambda: NOW)
SLOW_S = 1.0


class FakeSystem:
    """The fake ventilation system's switches (``behaviour``) and what it saw (``seen``)."""

    def __init__(self) -> None:
        self.behaviour: dict[str, Any] = {}
        self.seen: list[dict[str, Any]] = []

    def reset(self) -> None:
        self.behaviour = {}
        self.seen = []


FAKE = FakeSystem()


def _dump(value: Any) -> Any:
    return TypeAdapter(type(value) if not isinstance(value, list) else list[Any]).dump_python(
        value, mode="json"
    )


async def _answer(operation: str, q: dict[str, str]) -> Any:
    """The demo mine's answer to one operation, by query parameters."""
    days = int(q.get("days", 1))
    end = datetime.fromisoformat(q["end"]) if q.get("end") else None
    calls = {
        "query_tun_data_by_id": lambda: MINE.query_tun_data_by_id(q["tun_id"]),
        "query_device_data_by_id": lambda: MINE.query_device_data_by_id(q["device_id"]),
        "query_devices_by_tunnel": lambda: MINE.query_devices_by_tunnel(q["tun_name"]),
        "query_devices_by_tunnel_id": lambda: MINE.query_devices_by_tunnel_id(q["tun_id"]),
        "get_tun_list_by_modelid": lambda: MINE.get_tun_list_by_modelid(q["model_id"]),
        "query_tunnels_by_model": lambda: MINE.query_tunnels_by_model(q.get("model_id")),
        "query_tunnel_list": lambda: MINE.query_tunnel_list(q.get("keyword", "")),
        "get_device_kind_dict": lambda: MINE.get_device_kind_dict(),
        "get_device_list_by_kind": lambda: MINE.get_device_list_by_kind(q["kind"]),
        "query_device_realtime_data": lambda: MINE.query_device_realtime_data(q["device_id"]),
        "list_ventanaly_monitor_data_days": lambda: MINE.list_ventanaly_monitor_data_days(
            q["device_id"], days, end
        ),
    }
    return _dump(await calls[operation]())


def _endpoint(operation: str):
    async def handle(request: Request) -> Response:
        q = {**dict(request.query_params), **request.path_params}
        if "deviceId" in q:
            q["device_id"] = q.pop("deviceId")
        FAKE.seen.append({"operation": operation, "query": q, "token": request.headers.get("x-access-token")})
        b = FAKE.behaviour
        if b.get("slow"):
            await asyncio.sleep(SLOW_S)
        if "status" in b:
            return JSONResponse(
                {"success": False, "code": b["status"], "message": "错误"}, status_code=b["status"]
            )
        if b.get("garbage"):
            return PlainTextResponse("<html>502 Bad Gateway</html>")
        if "body" in b:
            return JSONResponse(b["body"])
        try:
            result = await _answer(operation, q)
        except NotFoundError as exc:
            return JSONResponse({"success": False, "code": 404, "message": str(exc), "result": None})
        if b.get("page") and isinstance(result, list):
            result = {"records": result, "total": len(result), "size": 10, "current": 1}
        return JSONResponse({"success": True, "code": 200, "message": "", "result": result, "timestamp": 1})

    return handle


def _routes() -> list[Route]:
    paths = UpstreamPaths()
    routes = [Route(getattr(paths, op), _endpoint(op)) for op in UpstreamPaths.model_fields]
    routes.append(Route("/v2/tun/{tun_id}", _endpoint("query_tun_data_by_id")))
    routes.append(Route("/v2/realtime", _endpoint("query_device_realtime_data")))
    return routes


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with live_server(Starlette(routes=_routes())) as url:
        yield url


@pytest.fixture(autouse=True)
def _reset_fake() -> None:
    FAKE.reset()


# The source's time-out: ample for a loopback answer on a loaded machine (0.3 s was not: a round trip
# timed out under a load of 18 on 2 cores); a case whose fake answers slowly (SLOW_S) gets SHORT_TIMEOUT_S.
TIMEOUT_S = 10.0
SHORT_TIMEOUT_S = 0.3


@pytest.fixture
async def source(base_url: str, request: pytest.FixtureRequest):
    callspec = getattr(request.node, "callspec", None)
    slow = bool(callspec and callspec.params.get("behaviour", {}).get("slow"))
    timeout_s = SHORT_TIMEOUT_S if slow else TIMEOUT_S
    src = HttpVentilationSource(base_url, timeout_s=timeout_s, service_token="service-token")
    yield src
    await src.aclose()


async def test_every_operation_round_trips_the_demo_mine(source):
    assert (await source.query_tun_data_by_id("15216")) == await MINE.query_tun_data_by_id("15216")
    assert (await source.query_device_data_by_id("FAN-001")) == await MINE.query_device_data_by_id("FAN-001")
    assert (await source.query_devices_by_tunnel("15216 辅运起坡段")) == await MINE.query_devices_by_tunnel(
        "15216辅运起坡段"
    )
    assert (await source.query_devices_by_tunnel_id("15220-YS")) == await MINE.query_devices_by_tunnel_id(
        "15220-YS"
    )
    assert (await source.get_tun_list_by_modelid("VN-01")) == await MINE.get_tun_list_by_modelid("VN-01")
    assert (await source.query_tunnels_by_model()) == await MINE.query_tunnels_by_model()
    assert (await source.query_tunnel_list("15220")) == await MINE.query_tunnel_list("15220")
    assert (await source.get_device_kind_dict()) == await MINE.get_device_kind_dict()
    assert (await source.get_device_list_by_kind("aux_fan")) == await MINE.get_device_list_by_kind("aux_fan")
    assert (await source.query_device_realtime_data("CH4-15216")) == await MINE.query_device_realtime_data(
        "CH4-15216"
    )
    end = datetime(2026, 8, 19, 12, 0, tzinfo=TZ)
    history = await source.list_ventanaly_monitor_data_days("WS-15216", 2, end)
    assert history == await MINE.list_ventanaly_monitor_data_days("WS-15216", 2, end)
    assert FAKE.seen[-1]["query"] == {
        "device_id": "WS-15216",
        "days": "2",
        "end": "2026-08-19T12:00:00+08:00",
    }
    assert "model_id" not in FAKE.seen[5]["query"]


async def test_a_page_of_records_counts_as_its_records(source):
    FAKE.behaviour["page"] = True
    assert (await source.get_device_list_by_kind("fan")) == await MINE.get_device_list_by_kind("fan")


async def test_the_caller_token_is_forwarded_and_the_service_token_is_the_fallback(source):
    await source.with_token("user-token").get_device_kind_dict()
    await source.get_device_kind_dict()
    await source.with_token("  ").get_device_kind_dict()
    assert [s["token"] for s in FAKE.seen] == ["user-token", "service-token", "service-token"]


@pytest.mark.parametrize(
    ("call", "kind", "key"),
    [
        (lambda s: s.query_tun_data_by_id("NO-SUCH"), "tunnel", "NO-SUCH"),
        (lambda s: s.query_device_realtime_data("NO-SUCH"), "device", "NO-SUCH"),
        (lambda s: s.get_device_list_by_kind("雷达"), "device_kind", "雷达"),
        (lambda s: s.get_tun_list_by_modelid("VN-99"), "model", "VN-99"),
    ],
)
async def test_unknown_ids_are_not_found(source, call, kind, key):
    with pytest.raises(NotFoundError) as err:
        await call(source)
    assert (err.value.kind, err.value.key) == (kind, key)


async def test_http_404_and_an_empty_result_are_not_found(source):
    FAKE.behaviour["status"] = 404
    with pytest.raises(NotFoundError):
        await source.query_device_data_by_id("X")
    FAKE.behaviour = {"body": {"success": True, "code": 200, "result": None}}
    with pytest.raises(NotFoundError):
        await source.query_tun_data_by_id("X")
    assert await source.query_tunnel_list("X") == []


@pytest.mark.parametrize(
    ("behaviour", "kind", "words"),
    [
        ({"status": 401}, "unauthorized", "令牌"),
        ({"status": 403}, "unauthorized", "令牌"),
        ({"status": 500}, "http", "HTTP 500"),
        ({"status": 503}, "http", "HTTP 503"),
        ({"garbage": True}, "malformed", "无法解析"),
        ({"body": ["not", "an", "object"]}, "malformed", "格式不正确"),
        (
            {"body": {"success": False, "code": 500, "message": "数据库连接失败"}},
            "rejected",
            "数据库连接失败",
        ),
        ({"body": {"success": False, "code": 401, "message": "Token失效"}}, "unauthorized", "令牌"),
        ({"body": {"success": True, "code": 200, "result": {"tunnel": 1}}}, "malformed", "不符合约定"),
        ({"slow": True}, "timeout", "超时"),
    ],
)
async def test_upstream_failures_are_clear_errors(source, behaviour, kind, words):
    FAKE.behaviour = behaviour
    with pytest.raises(UpstreamError) as err:
        await source.query_tun_data_by_id("15216")
    assert err.value.kind == kind and words in str(err.value)
    assert err.value.operation == "query_tun_data_by_id"


async def test_unreachable_system():
    from tests.helpers import free_port

    src = HttpVentilationSource(f"http://127.0.0.1:{free_port()}", timeout_s=1)
    with pytest.raises(UpstreamError) as err:
        await src.get_device_kind_dict()
    await src.aclose()
    assert err.value.kind == "unreachable"


async def test_days_are_checked_before_asking(source):
    with pytest.raises(ValueError):
        await source.list_ventanaly_monitor_data_days("WS-15216", 31)
    assert FAKE.seen == []


async def test_paths_and_parameter_names_are_settings(base_url):
    src = HttpVentilationSource(
        base_url,
        paths={"query_tun_data_by_id": "/v2/tun/{tun_id}", "query_device_realtime_data": "/v2/realtime"},
        param_names={"device_id": "deviceId"},
    )
    try:
        assert (await src.query_tun_data_by_id("15216")).tunnel.tun_id == "15216"
        assert (await src.query_device_realtime_data("FAN-001")).device_id == "FAN-001"
    finally:
        await src.aclose()
    assert FAKE.seen[0]["query"] == {"tun_id": "15216"}
    with pytest.raises(ValidationError):
        UpstreamPaths.model_validate({"query_tun_data": "/typo"})


async def test_make_source_picks_by_upstream_url(base_url):
    assert isinstance(make_source(Settings(_env_file=None)), DemoMine)
    src = make_source(Settings(_env_file=None, upstream_url=base_url), service_token="svc")
    try:
        assert isinstance(src, HttpVentilationSource)
        assert (await src.get_device_kind_dict())[0].code == "fan"
        assert FAKE.seen[0]["token"] == "svc"
    finally:
        await close_source(src)
    with pytest.raises(ValidationError):
        make_source(Settings(_env_file=None, upstream_url=base_url), paths={"nope": "/x"})


def _ctx(
    source: HttpVentilationSource, token: str | None, **settings: Any
) -> ToolRuntime[AgentContext, dict[str, Any]]:
    ctx = AgentContext(
        source=source, settings=Settings(_env_file=None, **settings), user_name="zs", token=token
    )
    return tool_runtime(ctx)


async def test_tools_forward_the_users_token(source):
    tools = {t.name: t for t in data_tools()}
    out = await tools["query_tun_data_by_id"].ainvoke(
        {"tun_id": "15216", "runtime": _ctx(source, "user-token")}
    )
    assert out["tunnel"]["tun_id"] == "15216"
    assert FAKE.seen[0]["token"] == "user-token"


@pytest.mark.parametrize(
    ("behaviour", "kind"),
    [
        ({"status": 401}, "upstream"),
        ({"status": 500}, "upstream"),
        ({"slow": True}, "upstream"),
        ({}, "not_found"),
    ],
)
async def test_upstream_failures_become_tool_errors(source, behaviour, kind):
    FAKE.behaviour = behaviour
    tool = {t.name: t for t in data_tools()}["query_device_data_by_id"]
    out = await tool.ainvoke({"device_id": "NO-SUCH", "runtime": _ctx(source, "user-token")})
    body = json.loads(out)
    assert body["kind"] == kind and body["tool"] == "query_device_data_by_id"


async def test_tool_time_out_shorter_than_the_upstream_one(base_url):
    src = HttpVentilationSource(base_url, timeout_s=5)
    FAKE.behaviour["slow"] = True
    tool = {t.name: t for t in data_tools()}["get_device_kind_dict"]
    try:
        out = await tool.ainvoke({"runtime": _ctx(src, None, tool_timeout_s=0.1)})
    finally:
        await src.aclose()
    assert json.loads(out)["kind"] == "timeout"
