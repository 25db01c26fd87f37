"""A clicked fan, local fan, door or regulator: its interpretation says what stopping, opening or closing
it would do to the air, from the demo mine's network solve (issue 25), without a model; a sensor gets no
such section, a device the network does not hold gets the reason instead, and a door only the network
holds (the demo mine monitors no door) is interpreted from the network alone."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from tests.helpers import parse_spec_stream, present
from tests.scripted_model import ScriptedChatModel, says, tool_call
from vent_agent.interpret.device_network import gather_clicked_device_facts
from vent_agent.interpret.device_notes import device_notes
from vent_agent.kb.thresholds import ThresholdTable
from vent_agent.network.device_effect import device_branch, effect_lines, network_effects
from vent_agent.network.fan_stop import mine_what_if
from vent_agent.network.local_fans import intake_airway
from vent_agent.network.requests import demo_mine_network
from vent_agent.settings import Settings
from vent_agent.upstream.demo_mine import DemoMine
from ventnet import solve
from ventnet.changes import Change
from ventnet.whatif import what_if

SECTION = "### 调整影响（通风网络模拟）"
TABLE = ThresholdTable.load("2025")


async def click(
    client: httpx.AsyncClient, device_id: str, device_type: str, mode: str = "fast"
) -> list[dict[str, Any]]:
    resp = await client.post(
        "/api/interpret/click/device",
        json={"device_id": device_id, "device_name": "点选的设备", "device_type": device_type, "mode": mode},
    )
    assert resp.status_code == 200, resp.text
    return parse_spec_stream(resp.text)


def text_of(events: list[dict[str, Any]]) -> str:
    return "".join(e["content"] for e in events if e["type"] == "token")


def section(text: str) -> str:
    start = text.index(SECTION)
    return text[start : text.index("### 结论", start)]


def change_line(text: str, branch: str) -> tuple[float, float]:
    """The ``before → after`` m³/min of ``branch``'s line in the section."""
    m = re.search(rf"（{re.escape(branch)}）：(-?[\d.]+) → (-?[\d.]+) m³/min", text)
    assert m, f"no line for {branch} in:\n{text}"
    return float(m.group(1)), float(m.group(2))


def solver_after(change: Change, branch: str) -> tuple[float, float]:
    network = demo_mine_network()
    result = what_if(network, [change], solve(network))
    return result.before.q[branch] * 60, result.after.q[branch] * 60


async def test_stopping_the_main_fan_is_stated_with_the_solvers_figures(client: httpx.AsyncClient) -> None:
    events = await click(client, "FAN-001", "fan")
    assert [e for e in events if e["type"] == "error"] == []
    text = section(text_of(events))
    assert "分支 FD-01" in text and "**若停止" in text
    before, after = change_line(text, "ZHFX")
    network = demo_mine_network()
    result = mine_what_if(network, [Change("stop_fan", "FD-01")], solve(network), TABLE)[0]
    assert before == pytest.approx(result.before.q["ZHFX"] * 60, abs=0.5) and after == 0.0
    # the local fans lose their power with the main fan: none keeps "delivering" its fixed quantity
    assert "15220 运输顺槽掘进工作面（15220-YS）风量 0 m³/min" in text and "局部通风机随之断电" in text
    assert "第180条" in text and "撤至" in text and "审批" in text
    assert "2号主通风机（FAN-002）须在 10 min 内开动" in text and "第177条" in text
    # the findings not listed point to the map's what-if, in the operator's words, never an HTTP path
    assert "见通风网络图中该设备的“模拟”功能" in text and "/api/" not in text


async def test_the_standby_fan_changes_nothing_and_says_so(client: httpx.AsyncClient) -> None:
    text = section(text_of(await click(client, "FAN-002", "fan")))
    assert "备用风机" in text and "**若" not in text


async def test_stopping_a_local_fan_leaves_its_heading_short(client: httpx.AsyncClient) -> None:
    text = section(text_of(await click(client, "JF-15220-YS-1", "aux_fan")))
    assert change_line(text, "15220-YS")[1] == 0.0
    assert "15220 运输顺槽掘进工作面（15220-YS）风量 0 m³/min 低于计划风量" in text and "第159条" in text


async def test_a_door_only_the_network_holds_is_interpreted_from_it(client: httpx.AsyncClient) -> None:
    events = await click(client, "FM-01", "door")
    assert [e for e in events if e["type"] == "error"] == [] and events[-1]["type"] == "done"
    full = text_of(events)
    assert "- 类型：风门" in full and "没有测点" in full and "无可用监测数据" in full
    # no sensors: no data to be stale, no alarm records to lack
    assert (
        "数据已过时" not in full
        and "近24小时无超限或预警记录" not in full
        and "没有监测数据（无测点）" in full
    )
    text = section(full)
    assert "风门当前关闭" in text and "**若打开" in text
    before, after = change_line(text, "15216-GZM")
    want_before, want_after = solver_after(Change("open_door", "FM-01"), "15216-GZM")
    assert before == pytest.approx(want_before, abs=0.5) and after == pytest.approx(want_after, abs=0.5)
    assert "低于计划风量" in text and "第157条" in text  # the face is short of air and too slow


async def test_a_regulator_opened_fully(client: httpx.AsyncClient) -> None:
    text = section(text_of(await click(client, "15218-HF", "regulator")))
    assert "调节风窗全部打开" in text
    before, after = change_line(text, "15218-GZM")
    assert after > before  # the face behind the regulator gets more air, others less
    assert "15216 综采工作面（15216-GZM）风量" in text and "低于计划风量" in text


async def test_a_door_clicked_as_a_fan_is_interpreted_as_a_door(client: httpx.AsyncClient) -> None:
    text = text_of(await click(client, "FM-01", "fan"))
    assert "设备类型与实际不符" in text and "「主要通风机」（fan）" in text and "「风门」（door）" in text


async def test_a_sensor_gets_no_network_section(client: httpx.AsyncClient) -> None:
    assert SECTION not in text_of(await click(client, "CH4-15216", "ch4_sensor"))


async def test_an_unknown_door_is_an_error_as_before(client: httpx.AsyncClient) -> None:
    events = await click(client, "FM-99", "door")
    assert [e["type"] for e in events][-2:] == ["error", "done"]


async def test_a_mine_whose_network_is_not_loaded_says_so(tmp_path) -> None:
    settings = Settings(data_dir=tmp_path, upstream_url="http://127.0.0.1:9/", ocr_warmup=False)
    facts = await gather_clicked_device_facts(DemoMine(), "FAN-001", "fan", settings)
    assert facts.network is not None and not facts.network.on_network
    assert "未接入该矿井的通风网络模型" in facts.network.note and facts.network.effects == []


def test_a_device_the_network_does_not_hold_gets_the_reason() -> None:
    network = demo_mine_network()
    assert device_branch(network, "fan", "FAN-X", "15216") is None  # 15216 is no fan branch
    effects = network_effects(
        network,
        solve(network),
        ThresholdTable.load("2025"),
        device_type="door",
        device_id="15216",
        tun_id=None,
    )
    assert not effects.on_network and "不在矿井通风网络模型中" in effects.note and effects.effects == []


async def test_plan_mode_agent_is_given_the_effect_to_relay(app, client: httpx.AsyncClient) -> None:
    model = ScriptedChatModel(
        script=[
            says("", tool_call("load_skill", {"name": "click-interpret-device"})),
            says("", tool_call("query_device_data_by_id", {"device_id": "FAN-001"})),
            says("## 解读\n主要通风机运行正常。"),
        ]
    )
    app.state.vent.interpret_model = model
    events = await click(client, "FAN-001", "fan", mode="plan")
    assert events[-1]["type"] == "done"
    request = str(model.seen[0][-1].content)
    assert "通风网络模拟" in request and "**若停止" in request and "ZHFX" in request


def test_each_devices_effect_writes_air_in_whole_m3_per_min_its_change_their_difference() -> None:
    """Every change line of every clicked device's 调整影响: ``before → after m³/min（change）`` in whole
    m³/min (as the console writes air volumes), the change the difference of the two figures written."""
    network, table = demo_mine_network(), ThresholdTable.load("2025")
    baseline = solve(network)
    clickable: list[tuple[str, str, str | None]] = [
        ("door", b.id, None) for b in network.branches if b.kind == "door"
    ]
    clickable += [("regulator", b.id, None) for b in network.branches if b.kind == "regulator"]
    clickable += [(d.device_type, d.device_id, d.tun_id) for d in DemoMine().devices.values()]
    lines = [
        line
        for kind, device, tunnel in clickable
        for line in effect_lines(
            network_effects(network, baseline, table, device_type=kind, device_id=device, tun_id=tunnel)
        )
    ]
    found = [re.search(r"：(\S+) → (\S+) m³/min（(\S+)）$", line) for line in lines if line.startswith("- ")]
    changes = [m for m in found if m is not None]
    assert len(changes) > 40
    for m in changes:
        assert all(re.fullmatch(r"[-+]?\d+", x) for x in m.groups()), m[0]
        assert int(m[3]) == int(m[2]) - int(m[1]), m[0]
    now = [line for line in lines if "当前风量" in line]
    assert now and all(re.search(r"通风网络解算（模拟）\d+ m³/min", line) for line in now), now


async def test_the_fans_air_now_is_its_measured_figure_beside_the_solves(client: httpx.AsyncClient) -> None:
    """The section gives the fan's air now as the measured figure the overview's strip shows, called 实测,
    with the network solve's beside it called 模拟; a standby fan has no measured figure of its own."""
    overview = (await client.get("/api/mine/overview")).json()
    running = next(f for f in overview["fans"] if f["running"])
    text = section(text_of(await click(client, running["device_id"], "fan")))
    assert f"当前风量：实测 {running['air_volume']:.0f} m³/min" in text
    assert re.search(r"；通风网络解算（模拟）\d+ m³/min。", text)
    standby = next(f for f in overview["fans"] if not f["running"])
    text = section(text_of(await click(client, standby["device_id"], "fan")))
    assert "实测" not in text and "当前风量：通风网络解算（模拟）" in text


async def test_each_change_names_the_device_not_the_branch_modelling_it(client: httpx.AsyncClient) -> None:
    """Stopping a main fan names the fan (its branch is its drift, 风硐), stopping a local fan names the
    fan (its branch is the fan with its duct), opening a door names the door without its state before."""
    mine = DemoMine()
    running = [d for d in mine.devices.values() if d.device_type in ("fan", "aux_fan") and d.state != "备用"]
    assert {d.device_type for d in running} == {"fan", "aux_fan"}
    for d in running:
        text = section(text_of(await click(client, d.device_id, d.device_type)))
        kind = "主要通风机" if d.device_type == "fan" else "局部通风机"
        named = d.name if kind in d.name else f"{kind} {d.name}"
        assert f"**若停止{named}（{d.device_id}）**" in text, text
        assert (
            "若停止主要通风机风硐" not in text
            and f"（{d.device_id}）停止运转" in text
            or d.device_type == "aux_fan"
        )
    door = section(text_of(await click(client, "FM-01", "door")))
    assert re.search(r"\*\*若打开[^（*]+风门（FM-01）\*\*", door), door


async def test_a_local_fan_is_placed_in_its_intake_not_in_its_heading(client: httpx.AsyncClient) -> None:
    """A local fan's tunnel in the data is the heading it ventilates; its panel names the intake airway it
    stands in (第183条: in the intake, ≥ 10 m outside the heading's return mouth), as the map draws it,
    and says it ventilates the heading through its duct — never the heading as its 安装巷道."""
    mine = DemoMine()
    fans = [d for d in mine.devices.values() if d.device_type == "aux_fan"]
    assert fans
    network = demo_mine_network()
    for fan in fans:
        heading = mine.tunnels[present(fan.tun_id)]
        text = text_of(await click(client, fan.device_id, "aux_fan"))
        intake = intake_airway(network, heading.tun_id)
        assert intake is not None and intake.id != heading.tun_id
        assert f"安装巷道：{intake.name}（进风巷道" in text
        assert f"安装巷道：{heading.name}" not in text
        assert f"经风筒向{heading.name}（{heading.roadway_class}）压入式供风" in text and "第183条" in text


def test_without_a_network_a_local_fan_is_placed_by_its_data() -> None:
    """A mine whose network is not loaded: the local fan's place is its data's position, and its heading
    the place it ventilates, not its airway; a sensor of the heading stands in the heading."""
    mine = DemoMine()
    fan = next(d for d in mine.devices.values() if d.device_type == "aux_fan")
    sensor = next(
        d for d in mine.devices.values() if d.tun_id == fan.tun_id and d.device_type == "wind_sensor"
    )
    heading = mine.tunnels[present(fan.tun_id)]
    notes = device_notes(fan, heading, TABLE)
    assert f"安装地点：{fan.position}" in notes
    assert not any(n.startswith("安装巷道") for n in notes)
    assert notes[-1].startswith(f"供风地点：经风筒向{heading.name}")
    assert f"安装巷道：{heading.name}（{heading.roadway_class}）" in device_notes(sensor, heading, TABLE)


def test_what_the_plans_air_means_is_said_once_per_clicked_device() -> None:
    """Each device whose change leaves branches short of their planned air says once what 计划风量 is,
    below its findings, rather than in each finding; a device whose change leaves none short does not."""
    network, table = demo_mine_network(), ThresholdTable.load("2025")
    baseline = solve(network)
    said = {}
    for device in [b.id for b in network.branches if b.kind in ("door", "regulator")]:
        kind = network.branch(device).kind
        effects = network_effects(network, baseline, table, device_type=kind, device_id=device, tun_id=None)
        lines = effect_lines(effects)
        short = any(f["kind"] == "short_air" for e in effects.effects for f in e.findings)
        said[device] = (short, sum("未给出时为配风量" in line for line in lines))
    assert any(short for short, _ in said.values()) and not all(short for short, _ in said.values())
    assert all(count == (1 if short else 0) for short, count in said.values()), said
