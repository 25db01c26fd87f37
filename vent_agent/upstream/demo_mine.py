"""The embedded demo mine (示范煤矿): a :class:`~vent_agent.upstream.base.VentilationSource` built from
``vent_agent/data/demo_mine.json`` (mine profile, main fans, monthly reference data, plan inputs) and
``vent_agent/data/demo_network.json`` (its tunnels, devices, series profiles and planted anomalies; see
``docs/DEMO_MINE.md``).

Tunnel sections, planned air volumes, headcounts and diesel power come from the reference data of the
mine's locations (air survey of ``reference_month``, plan inputs) unless the network file sets them; a
series profile may take its base value from the air survey (``"survey": "wind_speed"``) or the plan
(``"plan": "fan_intake_q"``; an air volume becomes a wind speed v = Q / (60·S) for a wind-speed series).

Time: the clock ``now`` (injectable; default the wall clock in the mine time zone) anchors the history:
720 hourly readings per device, the latest at ``now`` rounded down to the hour. The real-time snapshot
carries the latest hourly values, stamped ``now`` (to the minute). Series are generated on first use and
cached until the hour changes.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from vent_agent.kb.thresholds import breach_text, fmt_number, is_upper_limit
from vent_agent.upstream.base import VentilationSource
from vent_agent.upstream.demo_history import PlantedAnomaly, Profile, generate_series
from vent_agent.upstream.episodes import find_episodes
from vent_agent.upstream.models import (
    DEVICE_TYPE_LABELS,
    QUANTITY_LABELS,
    QUANTITY_UNITS,
    AlarmRecord,
    Device,
    DeviceData,
    DeviceKind,
    NotFoundError,
    Reading,
    Tunnel,
    TunnelData,
)

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
HISTORY_DAYS = 30
HISTORY_HOURS = HISTORY_DAYS * 24
ALARM_WINDOW = timedelta(hours=24)

_LEVEL_CN = {"warning": "预警", "alarm": "报警", "power_cut": "断电"}
_TYPE_BY_LABEL = {label: code for code, label in DEVICE_TYPE_LABELS.items()}


@dataclass(frozen=True)
class _Series:
    """One device's generated history: hourly times (oldest first) and the values by quantity."""

    device_id: str
    times: list[datetime]
    values: dict[str, list[float]]

    def readings(self, start: int = 0, stop: int | None = None) -> list[Reading]:
        """The readings of ``times[start:stop]``."""
        units = {q: QUANTITY_UNITS.get(q, "") for q in self.values}
        return [
            Reading(
                device_id=self.device_id,
                time=self.times[i],
                values={q: v[i] for q, v in self.values.items()},
                units=units,
            )
            for i in range(len(self.times))[start:stop]
        ]


def _compact(text: str) -> str:
    """A name without whitespace, for matching (``15216 辅运起坡段`` ≡ ``15216辅运起坡段``)."""
    return "".join(text.split())


class DemoMine(VentilationSource):
    """The built-in demo mine. ``now`` is the clock (aware datetimes; a naive one is taken as mine
    time); ``timezone`` the mine's time zone. All query methods are async and raise
    :class:`NotFoundError` for an unknown id."""

    def __init__(
        self,
        *,
        now: Callable[[], datetime] | None = None,
        timezone: str = "Asia/Shanghai",
        mine_path: Path | None = None,
        network_path: Path | None = None,
    ):
        self.tz = ZoneInfo(timezone)
        self._clock = now or (lambda: datetime.now(self.tz))
        mine = json.loads((mine_path or DATA_DIR / "demo_mine.json").read_text(encoding="utf-8"))
        net = json.loads((network_path or DATA_DIR / "demo_network.json").read_text(encoding="utf-8"))
        self.mine: dict[str, Any] = mine["mine"]
        self.model_id: str = net["model"]["model_id"]
        self.model_name: str = net["model"]["name"]
        self._seed = net["seed"]
        survey = mine["reference"][net["reference_month"]]["air_survey"]
        plan = {p["name"]: p for p in mine[net["plan_inputs"]]}
        self.tunnels: dict[str, Tunnel] = {
            t["tun_id"]: _build_tunnel(t, survey, plan, self.model_id) for t in net["tunnels"]
        }
        fans = {f["device_id"]: f for f in self.mine["main_fans"]}
        self.devices: dict[str, Device] = {}
        self._profiles: dict[str, dict[str, Profile]] = {}
        for rec in net["devices"]:
            tunnel = self.tunnels[rec["tun_id"]]
            self.devices[rec["device_id"]] = _build_device(rec, tunnel, fans, plan, net["alarm_presets"])
            self._profiles[rec["device_id"]] = {
                q: _build_profile(q, spec, tunnel, survey, plan) for q, spec in rec["series"].items()
            }
        self.planted: tuple[PlantedAnomaly, ...] = tuple(PlantedAnomaly(**a) for a in net["anomalies"])
        self._cache: dict[str, _Series] = {}
        self._alarm_cache: dict[tuple[str, datetime], list[AlarmRecord]] = {}
        self._cache_end: datetime | None = None
        self._times: list[datetime] = []

    # -- time -----------------------------------------------------------------------------------------

    def now(self) -> datetime:
        """The clock's time in the mine time zone."""
        t = self._clock()
        return t.replace(tzinfo=self.tz) if t.tzinfo is None else t.astimezone(self.tz)

    def latest_time(self) -> datetime:
        """Time of the latest hourly reading: ``now`` rounded down to the hour (mine time)."""
        return self.now().replace(minute=0, second=0, microsecond=0)

    # -- internal look-ups ----------------------------------------------------------------------------

    def _tunnel(self, tun_id: str) -> Tunnel:
        try:
            return self.tunnels[tun_id]
        except KeyError:
            raise NotFoundError("tunnel", tun_id) from None

    def _device(self, device_id: str) -> Device:
        try:
            return self.devices[device_id]
        except KeyError:
            raise NotFoundError("device", device_id) from None

    def _devices_of(self, tun_id: str) -> list[Device]:
        return [d for d in self.devices.values() if d.tun_id == tun_id]

    def _series(self, device_id: str) -> _Series:
        end = self.latest_time()
        if end != self._cache_end:
            end_utc = end.astimezone(UTC)
            self._times = [
                (end_utc - timedelta(hours=k)).astimezone(self.tz) for k in range(HISTORY_HOURS - 1, -1, -1)
            ]
            self._cache.clear()
            self._alarm_cache.clear()
            self._cache_end = end
        series = self._cache.get(device_id)
        if series is None:
            times = self._times
            planted = [a for a in self.planted if a.device_id == device_id]
            values = {
                q: generate_series(
                    f"{self._seed}:{device_id}:{q}", p, times, [a for a in planted if a.quantity == q]
                )
                for q, p in self._profiles[device_id].items()
            }
            series = self._cache[device_id] = _Series(device_id, times, values)
        return series

    def _snapshot(self, device_id: str) -> Reading:
        last = self._series(device_id).readings(-1)[0]
        return last.model_copy(update={"time": self.now().replace(second=0, microsecond=0)})

    def _alarms(self, device: Device, since: datetime) -> list[AlarmRecord]:
        """The device's alarm episodes (by its own alarm limits) that ended at or after ``since``; kept
        until the history moves on (the same hour's series gives the same episodes)."""
        s = self._series(device.device_id)
        key = (device.device_id, since)
        cached = self._alarm_cache.get(key)
        if cached is not None and s is self._cache.get(device.device_id):
            return list(cached)
        alarms = self._scan_alarms(device, since, s)
        self._alarm_cache[key] = alarms
        return list(alarms)

    def _scan_alarms(self, device: Device, since: datetime, s: _Series) -> list[AlarmRecord]:
        running = s.values.get("running")
        out: list[AlarmRecord] = []
        for lim in device.alarm_limits:
            values = [
                v if running is None or device.judged(lim.quantity, {"running": running[i]}) else None
                for i, v in enumerate(s.values[lim.quantity])
            ]
            sign = 1.0 if is_upper_limit(lim.breach_op) else -1.0

            def worse(v: float, k: float = sign) -> float:
                return k * v

            for ep in find_episodes(s.times, values, lim.breached, worse=worse):
                if ep.end < since:
                    continue
                label = QUANTITY_LABELS.get(lim.quantity, lim.quantity)
                out.append(
                    AlarmRecord(
                        alarm_id=f"{device.device_id}:{lim.quantity}:{lim.level}:{ep.start:%Y%m%d%H}",
                        device_id=device.device_id,
                        tun_id=device.tun_id,
                        quantity=lim.quantity,
                        level=lim.level,
                        limit=lim.limit,
                        breach_op=lim.breach_op,
                        unit=lim.unit,
                        peak=ep.peak,
                        peak_time=ep.peak_time,
                        start=ep.start,
                        end=ep.end,
                        active=ep.ongoing,
                        message=f"{device.name} {label} {breach_text(lim.breach_op, lim.limit, lim.unit)}"
                        f"（{_LEVEL_CN[lim.level]}），峰值 {fmt_number(ep.peak, lim.unit)} {lim.unit}",
                    )
                )
        return sorted(out, key=lambda a: a.start)

    # -- VentilationSource ----------------------------------------------------------------------------

    async def query_tun_data_by_id(self, tun_id: str) -> TunnelData:
        """The tunnel, its devices, their real-time snapshots and their alarms of the last 24 h. Computed
        in a worker thread (the alarm episodes scan each device's history: CPU work that would otherwise
        hold the event loop while hundreds of clicks wait for their first event)."""
        return await asyncio.to_thread(self._tun_data, tun_id)

    def _tun_data(self, tun_id: str) -> TunnelData:
        tunnel = self._tunnel(tun_id)
        devices = self._devices_of(tun_id)
        since = self.latest_time() - ALARM_WINDOW
        return TunnelData(
            tunnel=tunnel,
            devices=devices,
            latest={d.device_id: self._snapshot(d.device_id) for d in devices},
            alarms=[a for d in devices for a in self._alarms(d, since)],
        )

    async def query_device_data_by_id(self, device_id: str) -> DeviceData:
        """The device, its tunnel, its real-time snapshot and its alarms of the last 24 h (computed in a
        worker thread, as :meth:`query_tun_data_by_id`)."""
        return await asyncio.to_thread(self._device_data, device_id)

    def _device_data(self, device_id: str) -> DeviceData:
        device = self._device(device_id)
        since = self.latest_time() - ALARM_WINDOW
        return DeviceData(
            device=device,
            tunnel=self.tunnels.get(device.tun_id) if device.tun_id else None,
            latest=self._snapshot(device_id),
            alarms=self._alarms(device, since),
        )

    async def query_devices_by_tunnel(self, tun_name: str) -> list[Device]:
        """The devices of the tunnel named ``tun_name`` (whitespace ignored)."""
        wanted = _compact(tun_name)
        for t in self.tunnels.values():
            if _compact(t.name) == wanted or (t.location and _compact(t.location) == wanted):
                return self._devices_of(t.tun_id)
        raise NotFoundError("tunnel", tun_name)

    async def query_devices_by_tunnel_id(self, tun_id: str) -> list[Device]:
        """The devices bound to tunnel ``tun_id``."""
        self._tunnel(tun_id)
        return self._devices_of(tun_id)

    async def get_tun_list_by_modelid(self, model_id: str) -> list[Tunnel]:
        """The tunnels of model ``model_id`` (the demo mine has one model, ``VN-01``)."""
        if model_id != self.model_id:
            raise NotFoundError("model", model_id)
        return list(self.tunnels.values())

    async def query_tunnels_by_model(self, model_id: str | None = None) -> list[Tunnel]:
        """The tunnels of ``model_id`` (default: the current model)."""
        return await self.get_tun_list_by_modelid(model_id or self.model_id)

    async def query_tunnel_list(self, keyword: str = "") -> list[Tunnel]:
        """Tunnels whose name, location or id contains ``keyword`` (whitespace ignored)."""
        k = _compact(keyword)
        return [
            t
            for t in self.tunnels.values()
            if k in _compact(t.name) or k in t.tun_id or (t.location and k in _compact(t.location))
        ]

    async def get_device_kind_dict(self) -> list[DeviceKind]:
        """Every device type with its Chinese name and how many devices the mine has of it."""
        counts = {code: 0 for code in DEVICE_TYPE_LABELS}
        for d in self.devices.values():
            counts[d.device_type] += 1
        return [DeviceKind(code=c, name=n, count=counts[c]) for c, n in DEVICE_TYPE_LABELS.items()]

    async def get_device_list_by_kind(self, kind: str) -> list[Device]:
        """The devices of type ``kind`` (a code such as ``ch4_sensor`` or its Chinese name)."""
        code = kind if kind in DEVICE_TYPE_LABELS else _TYPE_BY_LABEL.get(kind)
        if code is None:
            raise NotFoundError("device_kind", kind)
        return [d for d in self.devices.values() if d.device_type == code]

    async def query_device_realtime_data(self, device_id: str) -> Reading:
        """The device's real-time snapshot."""
        self._device(device_id)
        return self._snapshot(device_id)

    async def list_ventanaly_monitor_data_days(
        self, device_id: str, days: int = 1, end: datetime | None = None
    ) -> list[Reading]:
        """Hourly readings of the ``days`` days (1–30) up to ``end`` (default: the latest), oldest first."""
        self._device(device_id)
        if not 1 <= days <= HISTORY_DAYS:
            raise ValueError(f"days must be 1–{HISTORY_DAYS}, got {days}")
        s = self._series(device_id)
        if end is None:
            return s.readings(-days * 24)
        start = end - timedelta(days=days)
        return [r for r in s.readings() if start < r.time <= end]


# -- building from the data files ---------------------------------------------------------------------


def _at(records: dict[str, Any], location: str | None) -> dict[str, Any]:
    """The reference record of ``location`` (empty for none, or a location without one)."""
    found: dict[str, Any] = records.get(location, {}) if location is not None else {}
    return found


def _build_tunnel(rec: dict[str, Any], survey: dict[str, Any], plan: dict[str, Any], model_id: str) -> Tunnel:
    """A tunnel from its network record, completed from the reference data of its location."""
    loc = rec.get("location")
    s, p = _at(survey, loc), _at(plan, loc)
    derived = {
        "area": s.get("area", p.get("area")),
        "allocated_q": p.get("allocated_q"),
        "required_q": p.get("required_q"),
        "gas_emission": p.get("gas_emission"),
        "k_gas": p.get("k_gas"),
        "explosive_kg": p.get("explosive_kg"),
        "max_workers": p.get("workers"),
        "rock": p.get("rock"),
        "diesel_kw": p["vehicles"] * p["vehicle_kw"] if "vehicles" in p else None,
    }
    return Tunnel(**{"model_id": model_id, **{k: v for k, v in derived.items() if v is not None}, **rec})


def _build_device(
    rec: dict[str, Any], tunnel: Tunnel, fans: dict[str, Any], plan: dict[str, Any], presets: dict[str, Any]
) -> Device:
    """A device from its network record; a main fan's name, model and state come from the mine profile,
    an auxiliary fan's model from the plan inputs of its heading."""
    fields = {k: v for k, v in rec.items() if k not in ("series", "alarms")}
    fields["alarm_limits"] = tuple(presets[rec["alarms"]]) if "alarms" in rec else ()
    quantities = list(rec["series"])
    if rec["device_type"] in ("fan", "aux_fan"):
        ref = fans.get(rec["device_id"], {})
        fields.setdefault(
            "name",
            ref.get("name")
            or f"{tunnel.name} 局部通风机（{'主机' if rec.get('state') == '运行' else '备机'}）",
        )
        fields.setdefault("model", ref.get("model") or _at(plan, tunnel.location).get("fan_model"))
        fields.setdefault("state", ref.get("state"))
    else:
        fields["quantity"] = quantities[0]
        tag = rec["device_id"].rsplit("-", 1)[-1]
        suffix = f" {tag}" if tag in ("T1", "T2") else ""
        fields.setdefault("name", f"{tunnel.name} {DEVICE_TYPE_LABELS[rec['device_type']]}{suffix}")
    return Device(**fields)


def _build_profile(
    quantity: str, spec: dict[str, Any], tunnel: Tunnel, survey: dict[str, Any], plan: dict[str, Any]
) -> Profile:
    """A series profile; its base is a number, an air-survey field or a plan-input field."""
    spec = dict(spec)
    location = spec.pop("location", tunnel.location)
    if "survey" in spec:
        base = survey[location][spec.pop("survey")]
    elif "plan" in spec:
        base = plan[location][spec.pop("plan")]
        if quantity == "wind_speed":
            base = base / (60.0 * tunnel.area)
    else:
        base = spec.pop("base")
    return Profile(base=float(base), **spec)
