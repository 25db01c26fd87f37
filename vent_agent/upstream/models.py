"""Data shapes of the mine's ventilation system, as every :class:`~vent_agent.upstream.base.VentilationSource`
returns them (the embedded demo mine and the HTTP client alike).

Units: wind speed m/s, air volume m³/min, area m², length m, CH₄/CO₂/O₂ % (by volume), CO ppm, temperature
°C, negative pressure Pa, motor current A, power kW, vibration mm/s. Times are timezone-aware datetimes.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from vent_agent.kb.thresholds import BreachOp, fmt_number, op_holds

TunnelKind = Literal["coal_face", "heading", "chamber", "roadway", "shaft"]
DeviceType = Literal["fan", "aux_fan", "ch4_sensor", "co_sensor", "wind_sensor", "temp_sensor"]
AlarmLevel = Literal["warning", "alarm", "power_cut"]

QUANTITY_UNITS: dict[str, str] = {
    "wind_speed": "m/s",
    "measured_q": "m³/min",
    "air_volume": "m³/min",
    "ch4": "%",
    "co2": "%",
    "o2": "%",
    "co": "ppm",
    "temperature": "°C",
    "negative_pressure": "Pa",
    "motor_current": "A",
    "power": "kW",
    "bearing_temp": "°C",
    "vibration": "mm/s",
    "running": "",
}
"""The unit of each measured quantity (glossary names)."""

QUANTITY_DIGITS: dict[str, int] = {
    "wind_speed": 2,
    "measured_q": 0,
    "air_volume": 0,
    "ch4": 2,
    "co2": 2,
    "o2": 1,
    "co": 0,
    "temperature": 1,
    "negative_pressure": 0,
    "motor_current": 1,
    "power": 0,
    "bearing_temp": 1,
    "vibration": 2,
    "running": 0,
}
"""The decimals a reading of each quantity is shown with, as a ventilation engineer reads it (wind speed
0.24 m/s, air volume 646 m³/min, CH₄ 1.12 %, CO 7 ppm): the service's texts and the console alike
(``GET /api/console/config``)."""


def reading_text(value: float, quantity: str, unit: str | None = None) -> str:
    """A reading with its unit at :data:`QUANTITY_DIGITS` decimals (``0.236`` m/s → ``0.24 m/s``);
    a quantity not listed as the regulation writes figures (:func:`~vent_agent.kb.thresholds.fmt_number`).
    ``unit`` defaults to the quantity's (:data:`QUANTITY_UNITS`)."""
    unit = QUANTITY_UNITS.get(quantity, "") if unit is None else unit
    digits = QUANTITY_DIGITS.get(quantity)
    figure = fmt_number(value, unit) if digits is None else f"{value:.{digits}f}"
    return f"{figure} {unit}".strip()


QUANTITY_LABELS: dict[str, str] = {
    "wind_speed": "风速",
    "measured_q": "风量",
    "air_volume": "风量",
    "ch4": "甲烷浓度",
    "co2": "二氧化碳浓度",
    "o2": "氧气浓度",
    "co": "一氧化碳浓度",
    "temperature": "温度",
    "negative_pressure": "负压",
    "motor_current": "电机电流",
    "power": "电机功率",
    "bearing_temp": "轴承温度",
    "vibration": "振动速度",
    "running": "运行状态",
}
"""Chinese label of each measured quantity."""


DEVICE_TYPE_LABELS: dict[str, str] = {
    "fan": "主要通风机",
    "aux_fan": "局部通风机",
    "ch4_sensor": "甲烷传感器",
    "co_sensor": "一氧化碳传感器",
    "wind_sensor": "风速传感器",
    "temp_sensor": "温度传感器",
}
"""The device-type dictionary (code → Chinese name)."""

TUNNEL_KIND_LABELS: dict[str, str] = {
    "coal_face": "采煤工作面",
    "heading": "掘进工作面",
    "chamber": "硐室",
    "roadway": "巷道",
    "shaft": "井筒",
}
"""Chinese name of each tunnel kind."""


class NotFoundError(LookupError):
    """An id or name the ventilation system does not know. ``kind`` is ``tunnel``, ``device``,
    ``model`` or ``device_kind``; ``key`` the id or name asked for. ``str()`` is a Chinese message fit
    for an ``error`` event."""

    _KIND_CN = {"tunnel": "巷道", "device": "设备", "model": "通风网络模型", "device_kind": "设备类型"}

    def __init__(self, kind: str, key: str):
        self.kind = kind
        self.key = key
        super().__init__(f"未找到{self._KIND_CN.get(kind, kind)}：{key}")


class Tunnel(BaseModel):
    """A roadway (巷道) of the ventilation network.

    ``roadway_class`` is a class of the wind-speed table (表6, e.g. ``采区进风巷``) and selects the
    allowed wind speeds; ``kind`` the glossary kind; ``area`` the effective cross-section (m²);
    ``location`` the 用风地点 name in the mine's reference data (monthly plan, air survey) when the
    tunnel is one; ``diesel_kw`` the total power of the most diesel vehicles running at once (kW) on a
    vehicle roadway; ``max_workers`` the most people working there at once; ``allocated_q`` the planned
    air volume (配风量, m³/min) of the current plan and ``required_q`` its required air volume (需风量,
    m³/min) when the plan states one. For a heading (docs/DOMAIN.md §2.2): ``gas_emission`` its absolute CH₄
    emission (m³/min) with ``k_gas`` the plan's unevenness coefficient, ``explosive_kg`` the largest
    single-blast charge (kg; 0: no blasting). Each is None when the data does not carry it.
    """

    model_config = ConfigDict(frozen=True)

    tun_id: str
    name: str
    roadway_class: str
    kind: TunnelKind
    area: float = Field(gt=0, description="effective cross-section, m²")
    length: float = Field(gt=0, description="m")
    location: str | None = None
    model_id: str
    state: str | None = None
    rock: Literal["coal", "half_coal", "rock"] | None = None
    diesel_kw: float | None = None
    max_workers: int | None = None
    allocated_q: float | None = None
    required_q: float | None = None
    gas_emission: float | None = None
    k_gas: float | None = None
    explosive_kg: float | None = None
    description: str = ""


class FanRating(BaseModel):
    """A fan's rated operating point: air volume (m³/min), negative pressure (Pa), motor current (A, per
    motor), power (kW, all motors); where the data give them, the number of motors (``motors``, e.g. the
    two of a contra-rotating main fan) and their voltage (``voltage_kv``, kV), so the rating reads as
    the data mean it (each motor P/n at U, drawing the rated current)."""

    model_config = ConfigDict(frozen=True)

    air_volume: float
    negative_pressure: float | None = None
    motor_current: float
    power: float
    motors: int | None = Field(default=None, ge=1)
    voltage_kv: float | None = Field(default=None, gt=0)

    def motor_words(self) -> str:
        """The drive in Chinese: ``电机 2 台 × 355 kW（10 kV），每台额定电流 25.5 A，合计功率 710 kW``; without
        the motors' number or voltage, ``电流 25.5 A、功率 710 kW`` as given."""
        if not self.motors or not self.voltage_kv:
            return f"电流 {self.motor_current:g} A、功率 {self.power:g} kW"
        return (
            f"电机 {self.motors} 台 × {self.power / self.motors:g} kW（{self.voltage_kv:g} kV），"
            f"每台额定电流 {self.motor_current:g} A，合计功率 {self.power:g} kW"
        )


class AlarmLimit(BaseModel):
    """An alarm limit set on a device (device data, not regulation): the device alarms at ``level``
    when ``value breach_op limit`` for ``quantity``."""

    model_config = ConfigDict(frozen=True)

    quantity: str
    breach_op: BreachOp
    limit: float
    unit: str = ""
    level: AlarmLevel = "alarm"

    def breached(self, value: float) -> bool:
        """True when ``value`` crosses this limit."""
        return op_holds(value, self.breach_op, self.limit)


class Device(BaseModel):
    """A monitored device: a main fan, an auxiliary fan or a sensor.

    ``tun_id`` is the tunnel it is installed in; ``quantity`` the quantity a sensor measures;
    ``location_class`` the regulation class of a sensor's measuring point (``采掘工作面回风巷`` …: the
    key of the gas and temperature thresholds); ``position`` where exactly it hangs (Chinese);
    ``state`` ``运行``/``备用`` for fans; ``rated`` the fan's rated point; ``alarm_limits`` the limits
    configured on the device.
    """

    model_config = ConfigDict(frozen=True)

    device_id: str
    name: str
    device_type: DeviceType
    tun_id: str | None
    model: str | None = None
    quantity: str | None = None
    location_class: str | None = None
    position: str = ""
    state: str | None = None
    rated: FanRating | None = None
    alarm_limits: tuple[AlarmLimit, ...] = ()

    @property
    def is_fan(self) -> bool:
        """True for main and auxiliary fans."""
        return self.device_type in ("fan", "aux_fan")

    def judged(self, quantity: str, values: dict[str, float]) -> bool:
        """Whether a limit on ``quantity`` applies to a reading with ``values``: a stopped fan's values
        (air volume, pressure, current, bearings…) are not judged, only its running state is."""
        return not self.is_fan or quantity == "running" or values.get("running", 1.0) >= 1.0


class DeviceKind(BaseModel):
    """One entry of the device-type dictionary: code, Chinese name, and how many devices have it."""

    model_config = ConfigDict(frozen=True)

    code: str
    name: str
    count: int = 0


class Reading(BaseModel):
    """One sample of a device: ``values`` by quantity (glossary names) with ``units`` by quantity."""

    model_config = ConfigDict(frozen=True)

    device_id: str
    time: datetime
    values: dict[str, float]
    units: dict[str, str] = Field(default_factory=dict)

    def value(self, quantity: str) -> float | None:
        """The value of ``quantity``, or None when the reading lacks it."""
        return self.values.get(quantity)


class AlarmRecord(BaseModel):
    """An alarm episode of a device: ``start``..``end`` (the last sample in alarm; ``active`` when the
    latest sample still is), its ``peak`` value and when it occurred, against ``limit``."""

    model_config = ConfigDict(frozen=True)

    alarm_id: str
    device_id: str
    tun_id: str | None
    quantity: str
    level: AlarmLevel
    limit: float
    breach_op: BreachOp
    unit: str
    peak: float
    peak_time: datetime
    start: datetime
    end: datetime
    active: bool
    message: str


class TunnelData(BaseModel):
    """Answer of ``query_tun_data_by_id``: the tunnel, its devices, each device's latest reading (by
    device id) and the alarms of its devices in the last 24 h."""

    tunnel: Tunnel
    devices: list[Device]
    latest: dict[str, Reading]
    alarms: list[AlarmRecord] = Field(default_factory=list)


class DeviceData(BaseModel):
    """Answer of ``query_device_data_by_id``: the device, its tunnel (when bound), its latest reading
    and its alarms in the last 24 h."""

    device: Device
    tunnel: Tunnel | None
    latest: Reading | None
    alarms: list[AlarmRecord] = Field(default_factory=list)
