"""The spec's data tools (工具清单 · 数据查询工具), one per :class:`~vent_agent.upstream.base.VentilationSource`
operation, over the run's source (the demo mine or the mine's system, with the caller's token).

Each tool returns a JSON-able dict (see :mod:`vent_agent.tools.data_format`); an unknown id, a bad
argument, a time-out or a failing ventilation system gives a tool error (:mod:`vent_agent.tools.common`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any
from zoneinfo import ZoneInfo

from langchain_core.tools import BaseTool
from pydantic import BeforeValidator, Field, StringConstraints

from vent_agent.tools.common import ToolArgs, context_tool
from vent_agent.tools.context import AgentContext
from vent_agent.tools.data_format import (
    capped,
    device_brief,
    device_data_dict,
    history_dict,
    reading_dict,
    tunnel_data_dict,
    tunnel_dict,
)

HISTORY_MAX_DAYS = 30


def _text(value: Any) -> Any:
    """Ids sent as numbers (``15216``) are read as text; text is trimmed."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return value.strip() if isinstance(value, str) else value


def _blank_none(value: Any) -> Any:
    """An empty optional id (``""``) means none."""
    return None if isinstance(value, str) and not value.strip() else value


Ident = Annotated[str, BeforeValidator(_text), StringConstraints(min_length=1, max_length=128)]
Keyword = Annotated[str, BeforeValidator(_text), StringConstraints(max_length=128)]


class TunIdArgs(ToolArgs):
    """A tunnel id."""

    tun_id: Ident = Field(description="巷道 ID，例如 15216")


class DeviceIdArgs(ToolArgs):
    """A device id."""

    device_id: Ident = Field(description="设备 ID，例如 FAN-001、CH4-15216")


class TunNameArgs(ToolArgs):
    """A tunnel name."""

    tun_name: Ident = Field(description="巷道名称（忽略空格），例如 “15216 辅运起坡段”")


class ModelIdArgs(ToolArgs):
    """A network-model id."""

    model_id: Ident = Field(description="通风网络模型 ID")


class OptionalModelIdArgs(ToolArgs):
    """A network-model id or none (the current model)."""

    model_id: Annotated[Ident | None, BeforeValidator(_blank_none)] = Field(
        default=None, description="通风网络模型 ID；不传或为空则为当前模型"
    )


class KeywordArgs(ToolArgs):
    """A search keyword."""

    keyword: Keyword = Field(
        default="", description="巷道名称或 ID 中包含的关键词（忽略空格）；空字符串列出全部"
    )


class NoArgs(ToolArgs):
    """No arguments."""


class KindArgs(ToolArgs):
    """A device type (code or Chinese name)."""

    kind: Ident = Field(description="设备类型编码（如 fan、aux_fan、ch4_sensor）或中文名称（如 甲烷传感器）")


class HistoryArgs(ToolArgs):
    """A device, a window of days (1–30) up to ``end_time``, the quantities and bucket size (h)."""

    device_id: Ident = Field(description="设备 ID")
    days: int = Field(default=1, ge=1, le=HISTORY_MAX_DAYS, description="查询最近多少天的数据，1–30 天")
    end_time: datetime | None = Field(
        default=None,
        description="截止时间，ISO 8601（如 2026-08-20T10:00:00+08:00；不带时区按矿井当地时间）；不传为最新数据",
    )
    quantities: list[str] | None = Field(
        default=None,
        max_length=20,
        description="只返回这些监测量（如 wind_speed、ch4、co、temperature、negative_pressure）；不传返回全部",
    )
    interval_hours: int | None = Field(
        default=None,
        ge=1,
        le=24,
        description="序列的聚合间隔（小时，1–24，取 1、2、3、4、6、8、12、24 中不小于该值者）；不传则自动选择，使每个量不超过 72 个点",
    )


def _tz(ctx: AgentContext) -> ZoneInfo:
    return ZoneInfo(ctx.settings.timezone)


async def _tun_data(ctx: AgentContext, tun_id: str) -> dict[str, Any]:
    return tunnel_data_dict(await ctx.data_source().query_tun_data_by_id(tun_id), _tz(ctx))


async def _device_data(ctx: AgentContext, device_id: str) -> dict[str, Any]:
    return device_data_dict(await ctx.data_source().query_device_data_by_id(device_id), _tz(ctx))


async def _devices_by_tunnel(ctx: AgentContext, tun_name: str) -> dict[str, Any]:
    devices = await ctx.data_source().query_devices_by_tunnel(tun_name)
    return {"tun_name": tun_name, **capped([device_brief(d) for d in devices], "devices", "请按设备类型筛选")}


async def _devices_by_tunnel_id(ctx: AgentContext, tun_id: str) -> dict[str, Any]:
    devices = await ctx.data_source().query_devices_by_tunnel_id(tun_id)
    return {"tun_id": tun_id, **capped([device_brief(d) for d in devices], "devices", "请按设备类型筛选")}


async def _tunnels_of_model(ctx: AgentContext, model_id: str) -> dict[str, Any]:
    tunnels = await ctx.data_source().get_tun_list_by_modelid(model_id)
    return {"model_id": model_id, **capped([tunnel_dict(t) for t in tunnels], "tunnels", _NARROW)}


async def _tunnels_by_model(ctx: AgentContext, model_id: str | None = None) -> dict[str, Any]:
    tunnels = await ctx.data_source().query_tunnels_by_model(model_id)
    found = model_id or (tunnels[0].model_id if tunnels else None)
    return {"model_id": found, **capped([tunnel_dict(t) for t in tunnels], "tunnels", _NARROW)}


async def _tunnel_list(ctx: AgentContext, keyword: str = "") -> dict[str, Any]:
    tunnels = await ctx.data_source().query_tunnel_list(keyword)
    out = {"keyword": keyword, **capped([tunnel_dict(t) for t in tunnels], "tunnels", _NARROW)}
    if not tunnels:
        out["note"] = "没有名称或 ID 包含该关键词的巷道，可换用更短的关键词"
    return out


async def _kind_dict(ctx: AgentContext) -> dict[str, Any]:
    kinds = await ctx.data_source().get_device_kind_dict()
    return {"count": len(kinds), "kinds": [k.model_dump(mode="json") for k in kinds]}


async def _devices_by_kind(ctx: AgentContext, kind: str) -> dict[str, Any]:
    devices = await ctx.data_source().get_device_list_by_kind(kind)
    return {"kind": kind, **capped([device_brief(d) for d in devices], "devices", "请按巷道查询设备")}


async def _realtime(ctx: AgentContext, device_id: str) -> dict[str, Any]:
    reading = await ctx.data_source().query_device_realtime_data(device_id)
    return {"device_id": device_id, **reading_dict(reading, _tz(ctx))}


async def _history(
    ctx: AgentContext,
    device_id: str,
    days: int = 1,
    end_time: datetime | None = None,
    quantities: list[str] | None = None,
    interval_hours: int | None = None,
) -> dict[str, Any]:
    tz = _tz(ctx)
    if end_time is not None and end_time.tzinfo is None:
        end_time = end_time.replace(tzinfo=tz)
    readings = await ctx.data_source().list_ventanaly_monitor_data_days(device_id, days, end_time)
    return history_dict(
        device_id, readings, days=days, tz=tz, quantities=quantities, interval_hours=interval_hours
    )


_NARROW = "请用 query_tunnel_list 加关键词缩小范围"
_UNITS = "单位：风速 m/s，风量 m³/min，断面 m²，长度 m，甲烷/二氧化碳/氧气 %，一氧化碳 ppm，温度 °C，负压 Pa"

DATA_TOOLS: tuple[tuple[str, str, type[ToolArgs], Any], ...] = (
    (
        "query_tun_data_by_id",
        "根据巷道 ID 查询巷道监测数据：巷道信息（巷道类别、断面、长度、配风量等）、巷道内设备及各自最新读数"
        f"（风速、风量、瓦斯、一氧化碳、温度等）和近 24 小时的报警记录。{_UNITS}。",
        TunIdArgs,
        _tun_data,
    ),
    (
        "query_device_data_by_id",
        "根据设备 ID 查询设备实时数据和报警信息：设备信息（类型、安装位置、风机额定工况、报警阈值）、"
        f"所在巷道、最新读数和近 24 小时的报警记录。{_UNITS}。",
        DeviceIdArgs,
        _device_data,
    ),
    (
        "query_devices_by_tunnel",
        "根据巷道名称查询关联设备列表（设备 ID、名称、类型、监测量、安装位置）。名称须与巷道名称一致（忽略空格），"
        "不确定名称时先用 query_tunnel_list 搜索。",
        TunNameArgs,
        _devices_by_tunnel,
    ),
    (
        "query_devices_by_tunnel_id",
        "根据巷道 ID 查询已绑定的设备列表（设备 ID、名称、类型、监测量、安装位置）。",
        TunIdArgs,
        _devices_by_tunnel_id,
    ),
    (
        "get_tun_list_by_modelid",
        "根据通风网络模型 ID 获取巷道列表（巷道 ID、名称、类别、断面 m²、长度 m、配风量 m³/min）。",
        ModelIdArgs,
        _tunnels_of_model,
    ),
    (
        "query_tunnels_by_model",
        "查询通风网络模型的巷道列表；不传 model_id 时为当前模型。",
        OptionalModelIdArgs,
        _tunnels_by_model,
    ),
    (
        "query_tunnel_list",
        "按名称搜索巷道：返回名称、用风地点或 ID 包含关键词的巷道（巷道 ID、名称、类别等）。",
        KeywordArgs,
        _tunnel_list,
    ),
    (
        "get_device_kind_dict",
        "查询设备类型字典：各设备类型的编码、中文名称和设备数量。",
        NoArgs,
        _kind_dict,
    ),
    (
        "get_device_list_by_kind",
        "按设备类型查询设备列表；类型可用编码（fan、aux_fan、ch4_sensor、co_sensor、wind_sensor、temp_sensor 等）"
        "或中文名称，可先用 get_device_kind_dict 查看。",
        KindArgs,
        _devices_by_kind,
    ),
    (
        "query_device_realtime_data",
        f"查询设备实时快照数据：采集时间和各监测量的当前值及单位。{_UNITS}。",
        DeviceIdArgs,
        _realtime,
    ),
    (
        "list_ventanaly_monitor_data_days",
        "查询设备监测历史时序数据（最近 1–30 天，逐小时）：返回每个监测量的最小值/最大值及出现时间、平均值、"
        "最新值（stats，按原始读数统计），以及按 interval_hours 聚合的平均值序列（times + series）。"
        f"分析短时峰值请缩短天数。{_UNITS}。",
        HistoryArgs,
        _history,
    ),
)
"""(name, Chinese description, args schema, body) of each data tool, in the spec's order."""


def data_tools() -> list[BaseTool]:
    """The spec's data tools, in its order; each reads the source and token from the AgentContext."""
    return [context_tool(name, desc, schema, body) for name, desc, schema, body in DATA_TOOLS]
