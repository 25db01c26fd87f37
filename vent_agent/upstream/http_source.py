"""The mine's ventilation system over HTTP: a :class:`~vent_agent.upstream.base.VentilationSource` that
asks a JeecgBoot-style backend (``settings.upstream_url``) for the data of the spec's data tools.

The upstream paths are not in the spec (docs/DESIGN.md §Integration notes), so they are data:
:class:`UpstreamPaths` holds one path per operation with defaults, and a deployment overrides any of
them by operation name (a JSON object, e.g. ``{"query_tun_data_by_id": "/vent/tun/{tun_id}"}``). A
``{name}`` placeholder in a path takes that argument from the query string into the path; query
parameter names can be renamed (``{"tun_id": "tunId"}``). Every operation is a GET.

Answers are JeecgBoot-style ``{"success": true, "code": 200, "message": "", "result": …}``, parsed in
one place (:meth:`HttpVentilationSource._call`); ``result`` must have the shape of
:mod:`vent_agent.upstream.models` (a list may come as a page ``{"records": [...]}``). See
``docs/UPSTREAM.md`` for the contract.

Errors: an unknown id (HTTP 404, ``code`` 404, or no ``result`` for a by-id query) raises
:class:`~vent_agent.upstream.models.NotFoundError`; everything else that goes wrong (time-out,
connection refused, HTTP 401/403/5xx, ``success: false``, non-JSON or wrongly shaped answers, oversized
answers) raises :class:`UpstreamError` with a Chinese message fit for a tool result.

Token: the caller's ``x-access-token`` is forwarded (header name configurable);
:meth:`HttpVentilationSource.with_token` gives a view bound to one caller's token that shares the
connection pool. Without a caller token the service token (if configured) is sent.
"""

from __future__ import annotations

import copy
import logging
import re
from datetime import datetime
from typing import Any, Literal, TypeVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from vent_agent.tls import tls_context
from vent_agent.upstream.base import VentilationSource
from vent_agent.upstream.models import (
    Device,
    DeviceData,
    DeviceKind,
    NotFoundError,
    Reading,
    Tunnel,
    TunnelData,
)

log = logging.getLogger(__name__)

T = TypeVar("T")

TOKEN_HEADER = "X-Access-Token"
MAX_ANSWER_BYTES = 20 * 1024 * 1024
HISTORY_MAX_DAYS = 30
_PLACEHOLDER = re.compile(r"\{(\w+)\}")
_OK_CODES = {"", "0", "200"}

UpstreamErrorKind = Literal["timeout", "unreachable", "unauthorized", "http", "rejected", "malformed"]


class UpstreamError(Exception):
    """The ventilation system could not answer a query. ``kind``: ``timeout`` (no answer in time),
    ``unreachable`` (connection failed), ``unauthorized`` (HTTP 401/403: token refused), ``http`` (any
    other HTTP error status), ``rejected`` (``success: false``), ``malformed`` (not JSON, or not the
    expected shape); ``status`` the HTTP status when there was one; ``operation`` the data operation.
    ``str()`` is a Chinese message for the model and the user."""

    def __init__(
        self, kind: UpstreamErrorKind, message: str, *, operation: str = "", status: int | None = None
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.operation = operation
        self.status = status


class UpstreamPaths(BaseModel):
    """The path of each data operation under the base URL (placeholders ``{tun_id}`` etc. allowed).
    Unknown names are rejected, so a typo in an override fails at start-up."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    query_tun_data_by_id: str = "/ventanaly/tunnel/queryTunDataById"
    query_device_data_by_id: str = "/ventanaly/device/queryDeviceDataById"
    query_devices_by_tunnel: str = "/ventanaly/device/queryDevicesByTunnel"
    query_devices_by_tunnel_id: str = "/ventanaly/device/queryDevicesByTunnelId"
    get_tun_list_by_modelid: str = "/ventanaly/tunnel/getTunListByModelid"
    query_tunnels_by_model: str = "/ventanaly/tunnel/queryTunnelsByModel"
    query_tunnel_list: str = "/ventanaly/tunnel/queryTunnelList"
    get_device_kind_dict: str = "/ventanaly/device/getDeviceKindDict"
    get_device_list_by_kind: str = "/ventanaly/device/getDeviceListByKind"
    query_device_realtime_data: str = "/ventanaly/device/queryDeviceRealtimeData"
    list_ventanaly_monitor_data_days: str = "/ventanaly/monitor/listVentanalyMonitorDataDays"


_TUNNEL_DATA = TypeAdapter(TunnelData)
_DEVICE_DATA = TypeAdapter(DeviceData)
_TUNNELS = TypeAdapter(list[Tunnel])
_DEVICES = TypeAdapter(list[Device])
_KINDS = TypeAdapter(list[DeviceKind])
_READING = TypeAdapter(Reading)
_READINGS = TypeAdapter(list[Reading])


class HttpVentilationSource(VentilationSource):
    """HTTP client of the mine's ventilation system (one ``httpx.AsyncClient``, closed by
    :meth:`aclose`).

    ``base_url``: the system's root (``settings.upstream_url``); ``timeout_s``: per request (connect,
    read…); ``paths``: :class:`UpstreamPaths` or a dict of overrides; ``param_names``: renames of query
    parameters (``tun_id``, ``device_id``, ``tun_name``, ``model_id``, ``keyword``, ``kind``, ``days``,
    ``end``); ``token_header``: where the caller's token goes; ``service_token``: sent when no caller
    token is bound; ``transport``: for tests.
    """

    def __init__(
        self,
        base_url: str,
        *,
        timeout_s: float = 10.0,
        paths: UpstreamPaths | dict[str, str] | None = None,
        param_names: dict[str, str] | None = None,
        token_header: str = TOKEN_HEADER,
        service_token: str | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.paths = paths if isinstance(paths, UpstreamPaths) else UpstreamPaths.model_validate(paths or {})
        self.param_names = dict(param_names or {})
        self.token_header = token_header
        self.token = service_token
        self._client = httpx.AsyncClient(
            base_url=self.base_url,
            timeout=timeout_s,
            transport=transport or httpx.AsyncHTTPTransport(retries=1, verify=tls_context()),
            headers={"Accept": "application/json"},
            verify=tls_context(),
        )

    def with_token(self, token: str | None) -> HttpVentilationSource:
        """A view of this source that sends ``token`` (the caller's ``x-access-token``); shares the
        client. ``None`` or blank: this source itself (service token, if any)."""
        if not token or not token.strip():
            return self
        view = copy.copy(self)
        view.token = token.strip()
        return view

    async def aclose(self) -> None:
        """Close the connection pool (the app's lifespan calls it once, on the source it created; a
        :meth:`with_token` view shares the pool and must not be closed)."""
        await self._client.aclose()

    # -- the one place that talks HTTP and reads JeecgBoot answers ------------------------------------

    def _request_target(self, operation: str, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """The path (placeholders filled, URL-quoted) and the remaining query parameters (renamed)."""
        path = getattr(self.paths, operation)
        rest = {k: v for k, v in args.items() if v is not None}
        for name in _PLACEHOLDER.findall(path):
            value = rest.pop(name, "")
            path = path.replace("{" + name + "}", quote(str(value), safe=""))
        params = {
            self.param_names.get(k, k): (v.isoformat() if isinstance(v, datetime) else v)
            for k, v in rest.items()
        }
        return path, params

    async def _call(
        self, operation: str, *, missing: tuple[str, str] | None = None, one: bool = False, **args: Any
    ) -> Any:
        """GET ``operation`` and return the ``result`` of its JeecgBoot answer.

        ``missing`` = (kind, key) of the thing asked for: HTTP 404 or ``code`` 404 then raise
        NotFoundError(kind, key), and so does an empty ``result`` when ``one`` (a single object was
        asked for). Raises UpstreamError for everything else that fails.
        """
        path, params = self._request_target(operation, args)
        headers = {self.token_header: self.token} if self.token else {}
        try:
            resp = await self._client.get(path, params=params, headers=headers)
        except httpx.TimeoutException as exc:
            raise UpstreamError("timeout", "通风系统响应超时", operation=operation) from exc
        except httpx.HTTPError as exc:
            log.warning("ventilation system unreachable (%s): %s", operation, exc)
            raise UpstreamError("unreachable", "无法连接通风系统", operation=operation) from exc
        status = resp.status_code
        if status == 404 and missing:
            raise NotFoundError(*missing)
        if status in (401, 403):
            raise UpstreamError(
                "unauthorized", "通风系统拒绝了访问令牌（未登录或无权限）", operation=operation, status=status
            )
        if status >= 400:
            log.warning("ventilation system answered HTTP %s to %s", status, operation)
            raise UpstreamError(
                "http", f"通风系统返回错误（HTTP {status}）", operation=operation, status=status
            )
        if len(resp.content) > MAX_ANSWER_BYTES:
            raise UpstreamError("malformed", "通风系统返回的数据过大", operation=operation, status=status)
        try:
            body = resp.json()
        except ValueError as exc:
            raise UpstreamError(
                "malformed", "通风系统返回了无法解析的内容（不是 JSON）", operation=operation, status=status
            ) from exc
        if not isinstance(body, dict) or ("result" not in body and "success" not in body):
            raise UpstreamError(
                "malformed", "通风系统返回的内容格式不正确", operation=operation, status=status
            )
        code = str(body.get("code", "")).strip()
        if missing and code == "404":
            raise NotFoundError(*missing)
        if body.get("success") is False or code not in _OK_CODES:
            if code in ("401", "403"):
                raise UpstreamError(
                    "unauthorized",
                    "通风系统拒绝了访问令牌（未登录或无权限）",
                    operation=operation,
                    status=status,
                )
            message = " ".join(str(body.get("message") or "").split())[:200]
            raise UpstreamError(
                "rejected",
                f"通风系统未能完成查询{'：' + message if message else ''}",
                operation=operation,
                status=status,
            )
        result = body.get("result")
        if missing and one and result in (None, {}, []):
            raise NotFoundError(*missing)
        return result

    @staticmethod
    def _parse(adapter: TypeAdapter[T], result: Any, operation: str, *, listing: bool = False) -> T:
        """Validate ``result`` into the model type; a page ``{"records": [...]}`` counts as its records."""
        if listing:
            if result is None:
                result = []
            elif isinstance(result, dict) and isinstance(result.get("records"), list):
                result = result["records"]
        try:
            return adapter.validate_python(result)
        except ValidationError as exc:
            errors = exc.errors()
            where = ".".join(str(p) for p in errors[0]["loc"]) if errors else ""
            what = errors[0]["msg"] if errors else "格式错误"
            log.warning("ventilation system answer of %s has the wrong shape: %s", operation, exc)
            raise UpstreamError(
                "malformed",
                f"通风系统返回的数据格式不符合约定（{where or '结果'}：{what}）",
                operation=operation,
            ) from exc

    # -- VentilationSource ----------------------------------------------------------------------------

    async def query_tun_data_by_id(self, tun_id: str) -> TunnelData:
        """The tunnel's monitoring data (tunnel, devices, latest readings, alarms)."""
        op = "query_tun_data_by_id"
        return self._parse(
            _TUNNEL_DATA, await self._call(op, missing=("tunnel", tun_id), one=True, tun_id=tun_id), op
        )

    async def query_device_data_by_id(self, device_id: str) -> DeviceData:
        """The device's data (device, tunnel, latest reading, alarms)."""
        op = "query_device_data_by_id"
        result = await self._call(op, missing=("device", device_id), one=True, device_id=device_id)
        return self._parse(_DEVICE_DATA, result, op)

    async def query_devices_by_tunnel(self, tun_name: str) -> list[Device]:
        """The devices of the tunnel named ``tun_name``."""
        op = "query_devices_by_tunnel"
        result = await self._call(op, missing=("tunnel", tun_name), tun_name=tun_name)
        return self._parse(_DEVICES, result, op, listing=True)

    async def query_devices_by_tunnel_id(self, tun_id: str) -> list[Device]:
        """The devices bound to tunnel ``tun_id`` (an empty list is a tunnel without devices)."""
        op = "query_devices_by_tunnel_id"
        result = await self._call(op, missing=("tunnel", tun_id), tun_id=tun_id)
        return self._parse(_DEVICES, result, op, listing=True)

    async def get_tun_list_by_modelid(self, model_id: str) -> list[Tunnel]:
        """The tunnels of model ``model_id``."""
        op = "get_tun_list_by_modelid"
        result = await self._call(op, missing=("model", model_id), model_id=model_id)
        return self._parse(_TUNNELS, result, op, listing=True)

    async def query_tunnels_by_model(self, model_id: str | None = None) -> list[Tunnel]:
        """The tunnels of ``model_id`` (none: the system's current model)."""
        op = "query_tunnels_by_model"
        result = await self._call(op, missing=("model", model_id) if model_id else None, model_id=model_id)
        return self._parse(_TUNNELS, result, op, listing=True)

    async def query_tunnel_list(self, keyword: str = "") -> list[Tunnel]:
        """Tunnels matching ``keyword`` (an empty list when none match)."""
        op = "query_tunnel_list"
        return self._parse(_TUNNELS, await self._call(op, keyword=keyword), op, listing=True)

    async def get_device_kind_dict(self) -> list[DeviceKind]:
        """The device-type dictionary."""
        op = "get_device_kind_dict"
        return self._parse(_KINDS, await self._call(op), op, listing=True)

    async def get_device_list_by_kind(self, kind: str) -> list[Device]:
        """The devices of type ``kind``."""
        op = "get_device_list_by_kind"
        result = await self._call(op, missing=("device_kind", kind), kind=kind)
        return self._parse(_DEVICES, result, op, listing=True)

    async def query_device_realtime_data(self, device_id: str) -> Reading:
        """The device's real-time snapshot."""
        op = "query_device_realtime_data"
        result = await self._call(op, missing=("device", device_id), one=True, device_id=device_id)
        return self._parse(_READING, result, op)

    async def list_ventanaly_monitor_data_days(
        self, device_id: str, days: int = 1, end: datetime | None = None
    ) -> list[Reading]:
        """The device's readings of ``days`` days (1–30) up to ``end``, oldest first; ValueError for
        ``days`` outside 1–30 (checked before any request)."""
        if not 1 <= days <= HISTORY_MAX_DAYS:
            raise ValueError(f"days must be 1–{HISTORY_MAX_DAYS}, got {days}")
        op = "list_ventanaly_monitor_data_days"
        result = await self._call(op, missing=("device", device_id), device_id=device_id, days=days, end=end)
        readings = self._parse(_READINGS, result, op, listing=True)
        return sorted(readings, key=lambda r: r.time)
