"""A heading's measured air volume against its governing required air volume (every method its data
allows, docs/DOMAIN.md §2.2), and the flag for a flow its forcing auxiliary fans cannot deliver."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from calc.maxima import calc_tunnel_air_volume_max
from vent_agent.interpret.facts import gather_tunnel_facts
from vent_agent.interpret.heading import FLOW_MARGIN, heading_air_volume
from vent_agent.interpret.render import render_interpretation
from vent_agent.kb.thresholds import ThresholdTable
from vent_agent.settings import Settings
from vent_agent.upstream.demo_mine import DemoMine
from vent_agent.upstream.models import Device, FanRating, Reading, Tunnel

TZ = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 8, 20, 10, 37, tzinfo=TZ)
TABLE = ThresholdTable.load("2025")


def settings(**kw) -> Settings:
    return Settings(_env_file=None, **{"timezone": "Asia/Shanghai", "stale_data_minutes": 30, **kw})


def heading(**kw) -> Tunnel:
    fields = {
        "tun_id": "H-1",
        "name": "试验掘进工作面",
        "roadway_class": "掘进中的煤巷",
        "kind": "heading",
        "area": 10.0,
        "length": 300,
        "model_id": "M",
        "rock": "coal",
        "max_workers": 12,
        "gas_emission": 2.0,
        "k_gas": 1.5,
        "explosive_kg": 0,
        **kw,
    }
    return Tunnel(**fields)


def fan(device_id: str = "JF-1", state: str = "运行") -> Device:
    rated = FanRating(air_volume=330, motor_current=16.5, power=30)
    return Device(device_id=device_id, name=f"局部通风机{device_id}", device_type="aux_fan", tun_id="H-1",
                  state=state, rated=rated)  # fmt: skip


def reading(device_id: str, **values: float) -> Reading:
    return Reading(device_id=device_id, time=NOW, values=values)


def test_requirement_is_the_maximum_of_the_headings_own_methods_not_the_head_count() -> None:
    t = heading()
    a, consistency = heading_air_volume(
        t, 0.5, [fan()], {"JF-1": reading("JF-1", running=1, air_volume=300)}, TABLE
    )
    expected = calc_tunnel_air_volume_max(
        gas_emission=2.0, k_gas=1.5, area=10.0, heading_type="coal", workers=12
    )
    assert a.limit == expected.value == 300.0  # 100·2·1.5 = 300 > 4·12 = 48
    assert a.status == "ok" and "按瓦斯涌出量计算" in (a.source or "")
    assert "Q = 4 × 12 = 48.0" in a.basis and "Q = 100 × 2.00 × 1.5 = 300.0" in a.basis
    assert "数据未提供配风计划需风量" in a.basis
    # the fan site's full-pressure air (Q_f·I + 60·v·S = 450) is stated, never asked of the heading itself
    assert "安装处的全风压风量应不小于 450.0 m³/min" in a.basis and "未核验" in a.basis
    assert consistency.status == "ok"


def test_a_heading_that_gets_what_its_fans_deliver_is_not_short_of_the_fan_sites_requirement() -> None:
    """The failing input: a heading whose measured air equals its forcing fan's delivery (300 m³/min)
    was judged 超限 against Q_f·I + 60·v·S = 450, which only the intake at the fan's site can carry; and
    the plan's required air (computed for the heading as a place) is not compared with the heading's own
    flow either. Each running fan's delivery, several fans, with and without a plan figure."""
    for deliveries, required_q in (([300], None), ([300], 450), ([250, 250], 700), ([400], 520)):
        fans = [fan(f"JF-{i}") for i in range(len(deliveries))]
        latest = {f"JF-{i}": reading(f"JF-{i}", running=1, air_volume=d) for i, d in enumerate(deliveries)}
        v = sum(deliveries) / 600  # the heading's 10 m² carries exactly what the fans deliver
        a, c = heading_air_volume(heading(required_q=required_q, gas_emission=1.0), v, fans, latest, TABLE)
        assert a.status == "ok", (deliveries, required_q, a.limit, a.basis)
        assert c.status == "ok"
        if required_q:
            assert "不与工作面内由局部通风机供给的风量直接比较" in a.basis


def test_explosives_and_plan_requirement_govern_when_larger() -> None:
    latest = {"JF-1": reading("JF-1", running=1, air_volume=300)}
    a, _ = heading_air_volume(heading(explosive_kg=30), 1.0, [fan()], latest, TABLE)
    assert a.limit == 750.0 and a.status == "breach" and "按炸药量计算" in (a.source or "")
    # without a running fan the plan's required air volume is the heading's own
    b, *_ = heading_air_volume(heading(required_q=800), 1.0, [], {}, TABLE)
    assert b.limit == 800.0 and "配风计划需风量" in (b.source or "")


def test_methods_that_could_not_be_computed_are_named() -> None:
    a, *rest = heading_air_volume(heading(gas_emission=None), 0.8, [], {}, TABLE)
    assert "未能计算" in a.basis and "按瓦斯涌出量计算" in a.basis and "按局部通风机吸风量计算" in a.basis
    assert "下限" in a.basis and a.limit == 48.0 and rest == []  # no running fan: no consistency row


@pytest.mark.parametrize(("v", "status"), [(0.5, "ok"), (0.5 * (1 + FLOW_MARGIN), "ok"), (1.0, "warning")])
def test_flow_above_the_fans_delivery_is_a_data_inconsistency(v: float, status: str) -> None:
    latest = {"JF-1": reading("JF-1", running=1, air_volume=300), "JF-2": reading("JF-2", running=0)}
    _, c = heading_air_volume(heading(), v, [fan(), fan("JF-2", "备用")], latest, TABLE)
    assert c.status == status and c.severity is None and c.source == "数据核查"
    assert ("非安全判定" in c.action) == (status == "warning")
    # the table's cells hold figures (the side panel's six columns); the notes say what they mean
    assert (c.value_text, c.limit_text) == (f"{60 * v * 10:.0f} m³/min", "≤ 300 m³/min +10%")
    assert f"为其 {v * 10 * 60 / 300:.2f} 倍" in c.basis and "≤ 330 m³/min" in c.basis


def test_two_running_fans_deliver_together() -> None:
    latest = {"JF-1": reading("JF-1", running=1, air_volume=300), "JF-2": reading("JF-2", running=1)}
    a, c = heading_air_volume(heading(), 1.0, [fan(), fan("JF-2")], latest, TABLE)
    assert c.status == "ok" and "额定 330" in c.basis  # the second fan without a flow reading: its rating
    # the fan site's air: Q_f·I + 60·v_min·S with Q_f the mean delivery, I = 2
    assert "安装处的全风压风量应不小于 780.0 m³/min" in a.basis and a.limit == 300.0


async def test_every_demo_heading_is_judged_by_its_requirement() -> None:
    mine = DemoMine(now=lambda: NOW)
    headings = [t for t in mine.tunnels.values() if t.kind == "heading"]
    assert len(headings) >= 3
    judged = 0
    for t in headings:
        f = await gather_tunnel_facts(mine, t.tun_id, settings(), NOW)
        q = next((a for a in f.assessments if a.quantity == "measured_q"), None)
        if q is None:
            continue
        judged += 1
        assert t.max_workers is not None and q.limit is not None and q.limit > 4 * t.max_workers
        assert "需风量取最大值" in q.basis
        text = render_interpretation(f)
        assert q.value_text in text
        c = next(a for a in f.assessments if a.quantity == "flow_consistency")
        assert c.status != "breach" and c.severity is None  # data to check, never a safety verdict
        assert (c.status == "warning") == ("数据不一致（非安全判定）" in text)
    assert judged >= 3


async def test_demo_forcing_headings_with_twice_their_fans_flow_are_flagged() -> None:
    mine = DemoMine(now=lambda: NOW)
    flagged = []
    for t in (t for t in mine.tunnels.values() if t.kind == "heading"):
        f = await gather_tunnel_facts(mine, t.tun_id, settings(), NOW)
        c = next((a for a in f.assessments if a.quantity == "flow_consistency"), None)
        q = next((a for a in f.assessments if a.quantity == "measured_q"), None)
        if c is None or q is None:
            continue
        fan_q = sum(a.value or 0 for a in f.assessments if a.quantity == "air_volume")
        assert q.value is not None
        assert (c.status == "warning") == (q.value > fan_q * (1 + FLOW_MARGIN))
        if c.status == "warning":
            flagged.append(t.tun_id)
    assert len(flagged) >= 2
