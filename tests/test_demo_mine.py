"""The embedded demo mine: ids, the tunnels and devices the spec names, a deterministic 30-day history
with its planted anomalies, and NotFoundError for unknown ids."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from statistics import mean
from zoneinfo import ZoneInfo

import pytest

from vent_agent.kb.thresholds import ThresholdTable
from vent_agent.upstream.base import VentilationSource
from vent_agent.upstream.demo_mine import DATA_DIR, DemoMine
from vent_agent.upstream.models import DEVICE_TYPE_LABELS, NotFoundError

TZ = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 8, 20, 10, 37, 12, tzinfo=TZ)
LATEST = datetime(2026, 8, 20, 10, 0, tzinfo=TZ)
REFERENCE = json.loads((DATA_DIR / "demo_mine.json").read_text(encoding="utf-8"))


@pytest.fixture
def mine() -> DemoMine:
    return DemoMine(now=lambda: NOW)


def values(readings, quantity):
    return [r.values[quantity] for r in readings]


def test_is_a_ventilation_source(mine: DemoMine) -> None:
    assert isinstance(mine, VentilationSource)


async def test_tunnel_15216(mine: DemoMine) -> None:
    data = await mine.query_tun_data_by_id("15216")
    t = data.tunnel
    assert (t.name, t.roadway_class, t.kind, t.area) == ("15216 辅运起坡段", "采区进风巷", "roadway", 12.4)
    assert t.diesel_kw == 140 and t.allocated_q == 600 and t.model_id == "VN-01"
    lower, upper = ThresholdTable.load().wind_speed_limits(t.roadway_class)
    assert lower is not None and upper is not None and (lower.limit, upper.limit) == (0.25, 6)
    assert {d.device_type for d in data.devices} == {"wind_sensor", "ch4_sensor", "co_sensor", "temp_sensor"}
    assert set(data.latest) == {d.device_id for d in data.devices}


async def test_main_fans(mine: DemoMine) -> None:
    fan = (await mine.query_device_data_by_id("FAN-001")).device
    assert (fan.name, fan.device_type, fan.state, fan.model) == ("1号主通风机", "fan", "运行", "FBCDZ-8-No26")
    assert fan.rated is not None and fan.rated.power == 710 and fan.alarm_limits
    standby = (await mine.query_device_data_by_id("FAN-002")).device
    assert standby.state == "备用"
    assert [d.device_id for d in await mine.get_device_list_by_kind("fan")] == ["FAN-001", "FAN-002"]
    assert [d.device_id for d in await mine.get_device_list_by_kind("主要通风机")] == ["FAN-001", "FAN-002"]


def test_every_location_has_a_tunnel(mine: DemoMine) -> None:
    locations = {p["name"] for p in REFERENCE["plan_inputs_2026_08"]}
    for month in REFERENCE["reference"].values():
        locations |= {p["location"] for p in month["mining_plan"]}
    assert locations <= {t.location for t in mine.tunnels.values()}


def test_network_is_consistent(mine: DemoMine) -> None:
    table = ThresholdTable.load()
    classes = set(table.roadway_classes())
    for t in mine.tunnels.values():
        assert t.roadway_class in classes, t.tun_id
    for d in mine.devices.values():
        assert d.tun_id in mine.tunnels, d.device_id
        assert d.device_type in DEVICE_TYPE_LABELS
        if d.location_class:  # a sensor's measuring point has limits for what it measures
            assert d.quantity is not None and table.lookup(d.quantity, d.location_class), d.device_id
    headings = [t for t in mine.tunnels.values() if t.kind == "heading"]
    assert len(headings) == 4
    for h in headings:
        aux = [d for d in mine.devices.values() if d.tun_id == h.tun_id and d.device_type == "aux_fan"]
        assert sorted(d.state or "" for d in aux) == ["备用", "运行"], h.tun_id


async def test_history_720_hourly_points_per_device(mine: DemoMine) -> None:
    for device_id in mine.devices:
        history = await mine.list_ventanaly_monitor_data_days(device_id, days=30)
        assert len(history) == 720
        assert history[-1].time == LATEST and history[0].time == LATEST - timedelta(hours=719)
        assert all(b.time - a.time == timedelta(hours=1) for a, b in zip(history, history[1:], strict=False))
        assert history[-1].time.utcoffset() == timedelta(hours=8)
    day = await mine.list_ventanaly_monitor_data_days("WS-15216")
    assert len(day) == 24 and day[-1].time == LATEST
    window = await mine.list_ventanaly_monitor_data_days("WS-15216", days=2, end=LATEST - timedelta(hours=5))
    assert len(window) == 48 and window[-1].time == LATEST - timedelta(hours=5)
    with pytest.raises(ValueError):
        await mine.list_ventanaly_monitor_data_days("WS-15216", days=31)


async def test_history_is_deterministic(mine: DemoMine) -> None:
    other = DemoMine(now=lambda: NOW)
    for device_id in ("WS-15216", "FAN-001", "CH4-15220-HF-T2"):
        a = await mine.list_ventanaly_monitor_data_days(device_id, days=30)
        b = await other.list_ventanaly_monitor_data_days(device_id, days=30)
        assert [(r.time, r.values) for r in a] == [(r.time, r.values) for r in b]


async def test_history_follows_the_clock() -> None:
    clock = [NOW]
    mine = DemoMine(now=lambda: clock[0])
    assert (await mine.list_ventanaly_monitor_data_days("WS-15216"))[-1].time == LATEST
    clock[0] = NOW + timedelta(hours=3)
    assert (await mine.list_ventanaly_monitor_data_days("WS-15216"))[-1].time == LATEST + timedelta(hours=3)
    naive = DemoMine(now=lambda: NOW.replace(tzinfo=None))  # a naive clock is mine time
    assert naive.latest_time() == LATEST


async def test_values_match_the_air_survey(mine: DemoMine) -> None:
    survey = REFERENCE["reference"]["2026-08"]["air_survey"]
    for t in mine.tunnels.values():
        if t.location not in survey:
            continue
        assert t.area == survey[t.location]["area"]
        ws = next(d for d in mine.devices.values() if d.tun_id == t.tun_id and d.device_type == "wind_sensor")
        speeds = values(await mine.list_ventanaly_monitor_data_days(ws.device_id, days=30), "wind_speed")
        assert mean(speeds) == pytest.approx(survey[t.location]["wind_speed"], rel=0.03), t.tun_id


async def test_snapshot_is_the_latest_hour_stamped_now(mine: DemoMine) -> None:
    snap = await mine.query_device_realtime_data("CH4-15220-HF-T2")
    last = (await mine.list_ventanaly_monitor_data_days("CH4-15220-HF-T2"))[-1]
    assert snap.time == NOW.replace(second=0) and snap.values == last.values and snap.units == {"ch4": "%"}


async def test_planted_anomalies(mine: DemoMine) -> None:
    ch4 = values(await mine.list_ventanaly_monitor_data_days("CH4-15220-HF-T2"), "ch4")
    assert all(v >= 1.0 for v in ch4[-3:]) and max(ch4[:14]) < 0.5  # rising in the last hours, now ≥ 1.0 %
    co = values(await mine.list_ventanaly_monitor_data_days("CO-15216"), "co")
    assert max(co) > 24 and co[-1] < 24
    bearing = values(await mine.list_ventanaly_monitor_data_days("FAN-001"), "bearing_temp")
    assert max(bearing) > 85 and bearing[-1] < 75
    wind_30d = values(await mine.list_ventanaly_monitor_data_days("WS-15218-GZM", days=30), "wind_speed")
    wind_1d = values(await mine.list_ventanaly_monitor_data_days("WS-15218-GZM"), "wind_speed")
    assert min(wind_30d) < 0.25 <= min(wind_1d)


async def test_alarm_records(mine: DemoMine) -> None:
    heading = await mine.query_tun_data_by_id("15220-HF")
    active = {(a.device_id, a.level) for a in heading.alarms if a.active}
    assert active == {("CH4-15220-HF-T2", "alarm"), ("CH4-15220-HF-T2", "power_cut")}
    fan = await mine.query_device_data_by_id("FAN-001")
    assert {(a.level, a.active) for a in fan.alarms} == {("warning", False), ("alarm", False)}
    assert (await mine.query_tun_data_by_id("15218-GZM")).alarms == []  # the wind drop is older than 24 h
    assert (await mine.query_device_data_by_id("FAN-002")).alarms == []  # a standby fan is not judged


async def test_searches_and_dictionaries(mine: DemoMine) -> None:
    by_name = await mine.query_devices_by_tunnel("15216辅运起坡段")
    assert by_name == await mine.query_devices_by_tunnel_id("15216")
    assert {t.tun_id for t in await mine.query_tunnel_list("15220")} == {"15220-YS", "15220-HF"}
    assert await mine.query_tunnel_list("没有这条巷道") == []
    assert len(await mine.query_tunnels_by_model()) == len(mine.tunnels)
    assert await mine.get_tun_list_by_modelid("VN-01") == await mine.query_tunnels_by_model("VN-01")
    kinds = await mine.get_device_kind_dict()
    assert {k.code for k in kinds} == set(DEVICE_TYPE_LABELS)
    assert sum(k.count for k in kinds) == len(mine.devices)


@pytest.mark.parametrize(
    ("call", "kind"),
    [
        (lambda m: m.query_tun_data_by_id("NOPE"), "tunnel"),
        (lambda m: m.query_device_data_by_id("NOPE"), "device"),
        (lambda m: m.query_devices_by_tunnel("不存在的巷道"), "tunnel"),
        (lambda m: m.query_devices_by_tunnel_id("NOPE"), "tunnel"),
        (lambda m: m.get_tun_list_by_modelid("VN-99"), "model"),
        (lambda m: m.get_device_list_by_kind("robot"), "device_kind"),
        (lambda m: m.query_device_realtime_data("NOPE"), "device"),
        (lambda m: m.list_ventanaly_monitor_data_days("NOPE"), "device"),
    ],
)
async def test_unknown_ids_raise_not_found(mine: DemoMine, call, kind: str) -> None:
    with pytest.raises(NotFoundError) as err:
        await call(mine)
    assert err.value.kind == kind and str(err.value).startswith("未找到")
