"""The interface to the mine's ventilation system: one async method per data tool of the spec (工具清单,
数据查询工具). Implemented by the embedded :class:`~vent_agent.upstream.demo_mine.DemoMine` and by the
HTTP client of a real mine's system.

Every method raises :class:`~vent_agent.upstream.models.NotFoundError` for an unknown id (tunnel,
device, model, device kind); searches (``query_tunnel_list``) return an empty list instead.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol, runtime_checkable

from vent_agent.upstream.models import (
    Device,
    DeviceData,
    DeviceKind,
    NotFoundError,
    Reading,
    Tunnel,
    TunnelData,
)

__all__ = ["VentilationSource", "NotFoundError"]


@runtime_checkable
class VentilationSource(Protocol):
    """The ventilation system's data, as the data tools see it (spec: 数据查询工具)."""

    async def query_tun_data_by_id(self, tun_id: str) -> TunnelData:
        """A tunnel's monitoring data: the tunnel, its devices, their latest readings, recent alarms."""
        ...

    async def query_device_data_by_id(self, device_id: str) -> DeviceData:
        """A device's data: the device, its tunnel, its latest reading and recent alarms."""
        ...

    async def query_devices_by_tunnel(self, tun_name: str) -> list[Device]:
        """The devices of the tunnel named ``tun_name`` (whitespace ignored); NotFoundError when no
        tunnel has that name."""
        ...

    async def query_devices_by_tunnel_id(self, tun_id: str) -> list[Device]:
        """The devices bound to tunnel ``tun_id``."""
        ...

    async def get_tun_list_by_modelid(self, model_id: str) -> list[Tunnel]:
        """The tunnels of ventilation-network model ``model_id``."""
        ...

    async def query_tunnels_by_model(self, model_id: str | None = None) -> list[Tunnel]:
        """The tunnels of a model (default: the mine's current model)."""
        ...

    async def query_tunnel_list(self, keyword: str = "") -> list[Tunnel]:
        """Tunnels whose name or id contains ``keyword`` (whitespace ignored; all when empty)."""
        ...

    async def get_device_kind_dict(self) -> list[DeviceKind]:
        """The device-type dictionary (code, Chinese name, device count)."""
        ...

    async def get_device_list_by_kind(self, kind: str) -> list[Device]:
        """The devices of one type code (``fan``, ``ch4_sensor`` …); NotFoundError for an unknown code."""
        ...

    async def query_device_realtime_data(self, device_id: str) -> Reading:
        """The device's real-time snapshot (its latest values)."""
        ...

    async def list_ventanaly_monitor_data_days(
        self, device_id: str, days: int = 1, end: datetime | None = None
    ) -> list[Reading]:
        """The device's monitoring history: hourly readings of the ``days`` days up to ``end`` (default:
        the latest reading), oldest first. ``days`` is 1–30; ValueError outside."""
        ...
