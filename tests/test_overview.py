"""The operator's overview (GET /api/mine/overview) and its alarms acknowledged per user and persisted
(GET /api/alarms, POST /api/alarms/{key}/ack), on the demo mine."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import httpx

from vent_agent.app import create_app
from vent_agent.interpret.assess import Assessment
from vent_agent.kb.thresholds import fmt_number
from vent_agent.monitor.air_totals import shaft_totals
from vent_agent.monitor.overview import mine_overview, status_word
from vent_agent.network.service import demo_mine_solved
from vent_agent.settings import Settings
from vent_agent.upstream.demo_mine import DemoMine

ZHANGSAN = {"x-access-token": "demo-token"}
LISI = {"x-access-token": "demo-token-2"}
NOW = datetime(2026, 8, 20, 10, 40, tzinfo=ZoneInfo("Asia/Shanghai"))


def _assessment(status: str, op: str | None, value: float | None = 1.0) -> Assessment:
    return Assessment.model_validate(
        {
            "quantity": "x",
            "label": "x",
            "value": value,
            "value_text": "1",
            "unit": "",
            "status": status,
            "breach_op": op,
        }
    )


def test_status_words() -> None:
    assert status_word(_assessment("ok", None)) == "正常"
    assert status_word(_assessment("warning", ">=")) == "预警"
    assert status_word(_assessment("breach", ">=")) == "超限"
    assert status_word(_assessment("breach", "<")) == "偏低"  # below a minimum, e.g. 表6 wind speed
    assert status_word(_assessment("ok", None, value=None)) == status_word(None) == "无数据"


async def test_overview_of_the_demo_mine(tmp_path: Path) -> None:
    view = await mine_overview(DemoMine(), Settings(_env_file=None, data_dir=tmp_path), now=NOW)
    fans = {f["name"]: f for f in view["fans"]}
    running = [f for f in fans.values() if f["running"]]
    assert len(running) == 1 and running[0]["air_volume"] > 1000 and running[0]["negative_pressure"] > 0
    assert any(not f["running"] and f["air_volume"] is None for f in fans.values())  # standby: no duty point
    assert view["intake_q"] > 0 and view["return_q"] > 0
    ch4 = view["worst"]["ch4"]
    assert ch4["unit"] == "%" and ch4["status"] in ("正常", "预警", "超限")
    # every alarm is a reading beyond a limit, worst first, with the clause that sets it
    order = ["超限", "偏低", "预警"]
    statuses = [a["status"] for a in view["alarms"]]
    assert statuses == sorted(statuses, key=order.index)
    for a in view["alarms"]:
        assert len(a["key"]) == 16 and a["value_text"] and a["limit_text"] != "—" and a["source"]
    for row in view["tunnels"]:
        assert row["status"] in ("正常", "偏低", "预警", "超限", "无数据")
        assert (row["status"] == "正常") <= bool(row["values"] or row["q"]), f"正常 with no value: {row}"
        for values in row["sparks"].values():
            assert 0 < len(values) <= 24
    # the fan drift has no wind sensor: its row carries the running main fan's measured air volume,
    # the strip's figure, and is judged by the fan's reading, not shown as 无数据
    drift = next(r for r in view["tunnels"] if r["tun_id"] == running[0]["tun_id"])
    assert "wind_speed" not in drift["values"]
    assert drift["q"] == running[0]["air_volume"] and running[0]["name"] in drift["q_source"]
    assert drift["status"] == "正常"
    assert any(len(r["sparks"].get("wind_speed", [])) == 24 for r in view["tunnels"])
    assert view["age_minutes"] is not None and view["stale_after_minutes"] == 30


async def test_total_intake_and_return_come_from_the_shafts(tmp_path: Path) -> None:
    """The strip's totals are the air through the shafts, not one roadway's: the intake of both intake
    shafts (the one with a wind sensor measured, the other from the solve) and the return of the running
    main fan, which agree within the mine's leakage; the 总进风巷 alone carries only part of it."""
    settings = Settings(_env_file=None, data_dir=tmp_path)
    view = await mine_overview(DemoMine(), settings, now=NOW, network=demo_mine_solved())
    intake, ret = view["air_totals"]["intake"], view["air_totals"]["return"]
    assert {p["id"]: p["basis"] for p in intake["parts"]} == {"FLJ": "实测", "ZLJ": "解算"}
    assert [p["id"] for p in ret["parts"]] == ["FD-01"] and ret["parts"][0]["basis"] == "实测"
    assert view["intake_q"] == intake["q"] == round(sum(p["q"] for p in intake["parts"]), 1)
    running = next(f for f in view["fans"] if f["running"])
    assert view["return_q"] == running["air_volume"]
    assert abs(view["intake_q"] - view["return_q"]) < 0.03 * view["return_q"]
    rows = {r["tun_id"]: r for r in view["tunnels"]}
    assert view["intake_q"] > 1.3 * rows["ZJFX"]["q"]  # the roadway the strip used to show
    assert intake["label"] == "进风井" and "副立井 实测" in intake["source"] and "解算" in intake["source"]
    # without the mine's network: the roadways of the 表6 classes, and the strip says so
    fallback = await mine_overview(DemoMine(), settings, now=NOW)
    assert fallback["intake_q"] == rows["ZJFX"]["q"]
    assert fallback["air_totals"]["intake"]["label"] == "总进风巷"
    assert "无通风网络模型" in fallback["air_totals"]["intake"]["source"]


def test_shaft_totals_count_a_branch_by_where_its_solved_air_runs() -> None:
    """A branch drawn from the mine towards the atmosphere whose air runs inwards is intake; a stopped
    fan's branch (no flow) counts nowhere."""
    network, solution = demo_mine_solved()
    flipped = type(solution)(**{**solution.__dict__, "q": {k: -v for k, v in solution.q.items()}})
    totals = shaft_totals(network, flipped, {}, {})
    assert {p["id"] for p in totals["intake"]["parts"]} == {"FD-01"}
    assert {p["id"] for p in totals["return"]["parts"]} == {"FLJ", "ZLJ"}
    still = type(solution)(**{**solution.__dict__, "q": dict.fromkeys(solution.q, 0.0)})
    assert shaft_totals(network, still, {}, {})["intake"] == {
        "q": None,
        "label": "进风井",
        "source": "进风井合计：无数据",
        "parts": [],
    }


async def test_the_overview_route_totals_the_demo_mines_shafts(tmp_path: Path) -> None:
    async for client in _client(tmp_path / "data"):
        view = (await client.get("/api/mine/overview")).json()
        assert view["air_totals"]["intake"]["label"] == "进风井"
        assert {p["id"] for p in view["air_totals"]["intake"]["parts"]} == {"FLJ", "ZLJ"}


async def _client(data_dir: Path) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(Settings(_env_file=None, data_dir=data_dir))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver", timeout=60) as c:
            yield c


async def test_alarms_are_acknowledged_per_user_and_persisted(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    async for client in _client(data_dir):
        overview = (await client.get("/api/mine/overview")).json()
        assert overview["alarms"], "the demo mine has a CH₄ alarm"
        assert (await client.get("/api/alarms")).status_code == 401
        alarms = (await client.get("/api/alarms", headers=ZHANGSAN)).json()["alarms"]
        assert [a["key"] for a in alarms] == [a["key"] for a in overview["alarms"]]
        assert all(a["acked_at"] is None for a in alarms)
        key = alarms[0]["key"]
        resp = await client.post(f"/api/alarms/{key}/ack", headers=ZHANGSAN)
        assert resp.status_code == 200 and resp.json()["user_name"] == "zhangsan"
        first = resp.json()["acked_at"]
        again = await client.post(f"/api/alarms/{key}/ack", headers=ZHANGSAN)
        assert again.json()["acked_at"] == first  # acknowledged once
        assert (await client.post("/api/alarms/0123456789abcdef/ack", headers=ZHANGSAN)).status_code == 404
        bad = await client.post("/api/alarms/not-a-key/ack", headers=ZHANGSAN)
        assert bad.status_code == 400 and "error" in bad.json()
        mine_view = (await client.get("/api/mine/overview", headers=ZHANGSAN)).json()["alarms"]
        assert [a["acked_at"] for a in mine_view if a["key"] == key] == [first], "the overview says mine"
        assert [a["acked_by"] for a in mine_view if a["key"] == key] == ["zhangsan"], "and whose"
        assert (await client.get("/api/mine/overview", headers=ZHANGSAN)).json()["user_name"] == "zhangsan"
        for headers in ({}, LISI, {"x-access-token": "no-such-token"}):  # no token, another user, a bad one
            resp = await client.get("/api/mine/overview", headers=headers)
            assert resp.status_code == 200 and all(a["acked_at"] is None for a in resp.json()["alarms"])
            assert all(a["acked_by"] is None for a in resp.json()["alarms"])
            assert resp.json()["user_name"] == ("lisi" if headers is LISI else None)
        other = (await client.get("/api/alarms", headers=LISI)).json()["alarms"]
        assert all(a["acked_at"] is None for a in other), "another user's acknowledgement is not mine"
    async for client in _client(data_dir):  # a restart: the acknowledgement is in the store
        mine = {a["key"]: a for a in (await client.get("/api/alarms", headers=ZHANGSAN)).json()["alarms"]}
        assert mine[key]["acked_at"] == first


async def test_a_sparkline_follows_the_reading_its_row_shows(tmp_path: Path) -> None:
    """A tunnel with two CH₄ sensors shows its worst reading, and the sparkline beside it is that
    sensor's (its last hour the reading shown), not the first sensor's."""
    view = await mine_overview(DemoMine(), Settings(_env_file=None, data_dir=tmp_path), now=NOW)
    pairs = [
        (r["tun_id"], q, r["values"][q]["value"], spark[-1])
        for r in view["tunnels"]
        for q, spark in r["sparks"].items()
        if q in r["values"]
    ]
    assert len(pairs) > 10
    assert [p for p in pairs if p[2] != p[3]] == []
    # every quantity of a row has its sparkline: wind speed, CH₄ and CO
    assert {q for _, q, _, _ in pairs} == {"wind_speed", "ch4", "co"}
    assert all(set(r["values"]) <= set(r["sparks"]) for r in view["tunnels"])


async def test_a_sparkline_carries_the_limits_of_its_row(tmp_path: Path) -> None:
    """The limits drawn in a sparkline are those its row's reading is judged by: its allowed range,
    e.g. 表6's two wind-speed bounds of a heading, with the clause that sets each."""
    view = await mine_overview(DemoMine(), Settings(_env_file=None, data_dir=tmp_path), now=NOW)
    checked = 0
    for row in view["tunnels"]:
        for q, limits in row["spark_limits"].items():
            value = row["values"].get(q)
            if value is None:
                continue
            assert bool(limits) == (value["limit_text"] != "—"), (row["tun_id"], q)
            for limit in limits:
                assert fmt_number(limit["value"], value["unit"]) in value["limit_text"], (row["tun_id"], q)
                assert limit["text"] and limit["source"] and limit["op"] in ("<", "<=", ">", ">=")
                checked += 1
    assert checked > 20
    both = [r for r in view["tunnels"] if len(r["spark_limits"].get("wind_speed", [])) == 2]
    assert both, "a tunnel whose wind speed has a minimum and a maximum"
