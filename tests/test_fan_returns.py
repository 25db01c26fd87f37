"""A return airway's measured air volume against the running main fans' (the fans exhaust all the return
air): within the measurement margin it is consistent, above it a data-consistency note — in the return
airway's interpretation, in the fan's (against its largest return) and in the overview's notes, never
among its alarms. For any mine whose returns are classed by 表6; the demo mine's readings are agreed with
(returns within 10 % of the fan), and a mine whose main fan reads low is flagged."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from vent_agent.interpret.device_network import gather_clicked_device_facts
from vent_agent.interpret.facts import gather_tunnel_facts
from vent_agent.interpret.render import render_interpretation
from vent_agent.interpret.returns import (
    CHECK_QUANTITY,
    RETURN_MARGIN,
    FanAir,
    is_return_airway,
    main_fan_air,
    return_consistency,
)
from vent_agent.monitor.overview import mine_overview
from vent_agent.settings import Settings
from vent_agent.upstream.demo_mine import DemoMine
from vent_agent.upstream.models import Reading, Tunnel

NOW = datetime(2026, 8, 20, 10, 37, tzinfo=ZoneInfo("Asia/Shanghai"))


def settings(tmp_path: Path) -> Settings:
    return Settings(_env_file=None, data_dir=tmp_path)


class FanReadsLow(DemoMine):
    """The demo mine whose main fans' air-volume readings are ``factor`` of the demo's (a fan flow
    reading gone wrong): every return airway then carries more than the fans measure."""

    def __init__(self, factor: float) -> None:
        super().__init__(now=lambda: NOW)
        self.factor = factor

    def _snapshot(self, device_id: str) -> Reading:
        reading = super()._snapshot(device_id)
        if self.devices[device_id].device_type != "fan" or "air_volume" not in reading.values:
            return reading
        values = {**reading.values, "air_volume": round(reading.values["air_volume"] * self.factor, 1)}
        return reading.model_copy(update={"values": values})


def _tunnel(roadway_class: str) -> Tunnel:
    return Tunnel(
        tun_id="T", name="T", roadway_class=roadway_class, kind="roadway", area=10, length=1, model_id="M"
    )


def test_return_airways_by_their_class() -> None:
    returns = ["总回风巷", "采区回风巷", "装有带式输送机兼作回风的井筒", "无提升设备的风井", "风硐"]
    others = ["总进风巷", "采区进风巷", "采煤工作面", "升降人员和物料的井筒", "掘进中的煤巷"]
    assert all(is_return_airway(_tunnel(c)) for c in returns)
    assert not any(is_return_airway(_tunnel(c)) for c in others)


def test_a_return_above_the_fans_by_more_than_the_margin_is_a_note_to_check() -> None:
    fans = FanAir(6000.0, "1号 实测 6000 m³/min")
    within = return_consistency(6000.0 * (1 + RETURN_MARGIN), "回风立井", fans)
    above = return_consistency(6000.0 * (1 + RETURN_MARGIN) + 1, "回风立井", fans)
    assert within.status == "ok" and not within.action
    assert above.status == "warning" and above.severity is None and above.source == "数据核查"
    assert "非安全判定" in above.action and "回风立井" in above.action
    # several main fans: the check is against their sum; a running fan without a figure: no check
    two = [
        {"name": "1号", "running": True, "air_volume": 3000.0},
        {"name": "2号", "running": True, "air_volume": 2500.0},
        {"name": "3号", "running": False, "air_volume": None},
    ]
    assert main_fan_air(two) == FanAir(5500.0, "1号 实测 3000 m³/min、2号 实测 2500 m³/min")
    assert main_fan_air([*two, {"name": "4号", "running": True, "air_volume": None}]) is None


async def test_the_demo_mines_returns_agree_with_its_fan(tmp_path: Path) -> None:
    mine = DemoMine(now=lambda: NOW)
    returns = [t for t in mine.tunnels.values() if is_return_airway(t)]
    checked = 0
    for t in returns:
        facts = await gather_tunnel_facts(mine, t.tun_id, settings(tmp_path), NOW)
        check = next((a for a in facts.assessments if a.quantity == CHECK_QUANTITY), None)
        if check is not None:
            checked += 1
            assert check.status == "ok", check
    assert checked >= 3  # the returns with a wind sensor
    fan = next(d for d in mine.devices.values() if d.device_type == "fan" and d.state != "备用")
    facts = await gather_clicked_device_facts(mine, fan.device_id, "fan", settings(tmp_path), now=NOW)
    check = next(a for a in facts.assessments if a.quantity == CHECK_QUANTITY)
    assert check.status == "ok" and "回风立井" in check.value_text  # the largest return, named


async def test_returns_above_a_fan_that_reads_low_are_flagged_as_data_not_alarms(tmp_path: Path) -> None:
    mine = FanReadsLow(0.8)
    hflj = await gather_tunnel_facts(mine, "HFLJ", settings(tmp_path), NOW)
    check = next(a for a in hflj.assessments if a.quantity == CHECK_QUANTITY)
    assert check.status == "warning" and "数据不一致（非安全判定）" in render_interpretation(hflj)
    fan = next(d for d in mine.devices.values() if d.device_type == "fan" and d.state != "备用")
    facts = await gather_clicked_device_facts(mine, fan.device_id, "fan", settings(tmp_path), now=NOW)
    fan_check = next(a for a in facts.assessments if a.quantity == CHECK_QUANTITY)
    assert fan_check.status == "warning" and fan.name in fan_check.basis
    view = await mine_overview(mine, settings(tmp_path), now=NOW)
    fan_q = sum(f["air_volume"] for f in view["fans"] if f["running"])
    above = {
        r["tun_id"]
        for r in view["tunnels"]
        if is_return_airway(mine.tunnels[r["tun_id"]]) and r["q"] and r["q"] > fan_q * (1 + RETURN_MARGIN)
    }
    noted = {n["tun_id"] for n in view["notes"] if n["label"] == check.label}
    assert "HFLJ" in above and noted == above
    assert not any(a["label"] == check.label for a in view["alarms"])
    assert all(next(r for r in view["tunnels"] if r["tun_id"] == t)["status"] == "正常" for t in noted)


async def test_the_demo_overview_lists_no_return_note(tmp_path: Path) -> None:
    view = await mine_overview(DemoMine(now=lambda: NOW), settings(tmp_path), now=NOW)
    assert view["notes"] and not [n for n in view["notes"] if "主要通风机" in n["label"]]
