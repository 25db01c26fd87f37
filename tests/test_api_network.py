"""POST /api/network/solve and /api/network/what-if: the benchmark networks through the API match their
published solutions; the demo mine's network when the body names none; closing a door names the
branches that fall short with their clauses; bad input is 400 in the spec's error shape."""

from __future__ import annotations

import re

import httpx
import pytest

from tests.network_cases import NETWORKS, TOTAL_AIRFLOW, published


@pytest.mark.parametrize("name", sorted(TOTAL_AIRFLOW))
async def test_solve_matches_the_published_solutions(name: str, client: httpx.AsyncClient) -> None:
    csv_text = (NETWORKS / name / "topology.csv").read_text(encoding="utf-8-sig")
    resp = await client.post(
        "/api/network/solve", json={"topology_csv": csv_text, "total_airflow": TOTAL_AIRFLOW[name]}
    )
    assert resp.status_code == 200
    body = resp.json()
    assert body["converged"] is True and body["network"] == "request"
    flows = {row["id"]: row["q"] for row in body["branches"]}
    assert {row["map_direction"] for row in body["branches"]} == {None}  # a network the map does not draw
    for reference in published(name).values():
        assert max(abs(flows[k] - q) for k, (q, _) in reference.branches.items()) <= 1e-3


async def test_the_demo_mine_is_solved_when_no_network_is_named(client: httpx.AsyncClient) -> None:
    resp = await client.post("/api/network/solve", json={})
    assert resp.status_code == 200
    body = resp.json()
    assert body["network"] == "demo" and body["converged"] is True
    flows = {row["id"]: row["q"] for row in body["branches"]}
    assert flows["ZHFX"] == pytest.approx(107.3, rel=0.05)
    assert [fan["id"] for fan in body["fans"]] == ["FD-01"]
    assert body["findings"] == []  # the undisturbed demo mine meets its plan and 表6
    # the map's drawing order: 总进风巷 is drawn from its far end to the shaft bottom (its air runs
    # against it), a heading face → mouth (its air returns along it); the lumped district from the shaft
    # bottom to the district's return, as its air runs
    rows = {row["id"]: row for row in body["branches"]}
    assert rows["ZJFX"]["map_direction"] == -1 and rows["15220-YS"]["map_direction"] == 1
    assert rows["YCQ"]["kind"] == "district" and rows["YCQ"]["map_direction"] == 1
    assert rows["FM-01"]["kind"] == "door" and rows["FM-01"]["map_direction"] == 1
    assert rows["FM-01"]["added_resistance"] > 0 and rows["ZJFX"]["added_resistance"] == 0  # a closed door


async def test_closing_a_door_names_the_branches_that_fall_short_with_their_clauses(
    client: httpx.AsyncClient,
) -> None:
    # a new door shut in the 15216 face's intake side (its haulage slope, an airway without a door)
    change = {"action": "add_door", "branch": "15216"}
    resp = await client.post("/api/network/what-if", json={"changes": [change]})
    assert resp.status_code == 200
    body = resp.json()
    rows = {row["id"]: row for row in body["branches"]}
    assert rows["15216"]["q"] < 0.5 < rows["15216"]["q_before"]
    assert rows["15216-YS"]["dq"] > 0  # the parallel intake takes part of its air
    short = {f["branch"]: f for f in body["findings"] if f["kind"] == "short_air"}
    assert (
        "15216" in short
        and "第159条" in short["15216"]["clause"]
        and "低于计划风量" in short["15216"]["message"]
    )
    low = {f["branch"] for f in body["findings"] if f["kind"] == "wind_low"}
    assert "15216" in low
    assert body["changes"] == ["新设并关闭风门 15216"] and "审批" in body["advice"]
    # what 计划风量 means is said once, in the notes, not in each of the shortfalls
    assert sum("未给出时为配风量" in n for n in body["notes"]) == 1
    assert not any("未给出时为配风量" in f["message"] for f in body["findings"])


async def test_a_fan_driven_backwards_is_a_finding(client: httpx.AsyncClient) -> None:
    branches = [
        {"id": "fan", "from": "f", "to": "out", "r": 0.1, "fan": {"a0": -100, "a2": -0.5}},
        {"id": "r", "from": "in", "to": "f", "r": 0.5},
    ]
    resp = await client.post("/api/network/solve", json={"branches": branches})
    assert resp.status_code == 200
    body = resp.json()
    assert body["fans"][0]["reversed"] is True
    assert [f["branch"] for f in body["findings"] if f["kind"] == "fan_reversed"] == ["fan"]


async def test_stopping_the_main_fan_stops_the_local_fans_and_names_the_standby_fan(
    client: httpx.AsyncClient,
) -> None:
    resp = await client.post(
        "/api/network/what-if", json={"changes": [{"action": "stop_fan", "branch": "FD-01"}]}
    )
    assert resp.status_code == 200
    body = resp.json()
    rows = {row["id"]: row for row in body["branches"]}
    assert (
        abs(rows["FD-01"]["q"]) < 1e-3 and abs(rows["JF-15220-YS"]["q"]) < 1e-3
    )  # no air out of a stopped fan
    # each change names the fan it stops, as the mine's data name it, not the branch (the drift) modelling it
    assert body["changes"][0] == "停止主要通风机 1号主通风机（FAN-001）"
    assert "停止15220 运输顺槽掘进工作面 局部通风机（主机）（JF-15220-YS-1）" in body["changes"]
    assert any("切断电源" in n and "（JF-15220-YS-1）" in n for n in body["notes"])
    assert rows["FD-01"]["device"] == "主要通风机 1号主通风机（FAN-001）"
    kinds = {f["kind"]: f for f in body["findings"]}
    assert "第180条" in kinds["main_fan_stopped"]["clause"]
    assert kinds["main_fan_stopped"]["message"].startswith("主要通风机 1号主通风机（FAN-001）停止运转")
    assert "2号主通风机（FAN-002）" in kinds["main_fan_standby"]["message"]


@pytest.mark.parametrize(
    ("path", "body", "words"),
    [
        ("/api/network/solve", {"topology_csv": "a,b\n1,2\n"}, "缺少列"),
        ("/api/network/solve", {"total_airflow": 10}, "total_airflow"),
        ("/api/network/solve", {"branches": [{"id": "1", "from": "a", "to": "a", "r": 1}]}, "进风节点"),
        ("/api/network/what-if", {"changes": [{"action": "explode", "branch": "1"}]}, "未知的调整动作"),
        ("/api/network/what-if", {"changes": [{"action": "close_door", "branch": "nowhere"}]}, "没有分支"),
        ("/api/network/what-if", {"changes": []}, ""),
        ("/api/network/what-if", {"changes": [{"action": "close_door", "branch": "FD-01"}]}, "不是风门"),
        ("/api/network/what-if", {"changes": [{"action": "stop_fan", "branch": "FM-01"}]}, "没有风机"),
        # an airway (二采区东翼进风巷) holds no door, and the door FM-01 no regulator
        ("/api/network/what-if", {"changes": [{"action": "close_door", "branch": "EC-DYJF"}]}, "没有风门"),
        ("/api/network/what-if", {"changes": [{"action": "open_door", "branch": "EC-DYJF"}]}, "没有风门"),
        (
            "/api/network/what-if",
            {"changes": [{"action": "set_regulator", "branch": "FM-01", "added_resistance": 5}]},
            "没有调节风窗",
        ),
        ("/api/network/what-if", {"changes": [{"action": "add_door", "branch": "FM-01"}]}, "已有风门"),
        (  # the intake shafts and the main intake removed: no way in from the surface
            "/api/network/what-if",
            {"changes": [{"action": "remove_branch", "branch": k} for k in ("ZJFX", "FLJ", "ZLJ")]},
            "与地面不再连通：没有进风",
        ),
        ("/api/network/solve", {"total_airflow": -1}, ""),
        (  # nothing drives the air: no fan, no fixed quantity, no total airflow
            "/api/network/solve",
            {
                "branches": [
                    {"id": "a", "from": "1", "to": "2", "r": 0.1},
                    {"id": "b", "from": "2", "to": "3", "r": 0.1},
                ]
            },
            "没有驱动力",
        ),
    ],
)
async def test_bad_input_is_400_in_the_spec_error_shape(
    path: str, body: dict[str, object], words: str, client: httpx.AsyncClient
) -> None:
    resp = await client.post(path, json=body)
    assert resp.status_code == 400
    assert set(resp.json()) == {"error"} and words in resp.json()["error"]


async def test_closing_the_closed_door_says_so_and_changes_nothing(client: httpx.AsyncClient) -> None:
    resp = await client.post(
        "/api/network/what-if", json={"changes": [{"action": "close_door", "branch": "FM-01"}]}
    )
    assert resp.status_code == 200
    body = resp.json()
    assert len(body["notes"]) == 1 and "已处于关闭状态" in body["notes"][0]
    assert max(abs(row["dq"]) for row in body["branches"]) < 1e-6


HEADER = "edge_id,name,from,to,r_N_s2_m8,adjust_r,is_fan,a0_Pa,a1_Pa_s_m3,a2_Pa_s2_m6"
LONG = "巷" * 200_000 + "X"  # a user's input far longer than any name: 600 kB of UTF-8


@pytest.mark.parametrize("field", ["巷" * 200_000, '"unclosed,quote\n' * 3, "a\0b"])
async def test_a_topology_that_is_not_csv_is_a_400_in_the_spec_shape(
    field: str, client: httpx.AsyncClient
) -> None:
    """A field over the csv module's limit (131,072 characters) was a 500; every text the csv module
    refuses is a 400 saying so in Chinese."""
    body = {"topology_csv": f"{HEADER}\nE1,n,a,b,{field},0,0,0,0,0\n", "total_airflow": 10}
    resp = await client.post("/api/network/solve", json=body)
    assert resp.status_code == 400, resp.text[:300]
    assert "error" in resp.json() and len(resp.text) < 1000


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/network/what-if", {"changes": [{"action": "open_door", "branch": LONG}]}),
        ("/api/network/what-if", {"changes": [{"action": LONG, "branch": "FM-01"}]}),
        (
            "/api/network/what-if",
            {"changes": [{"action": "set_regulator", "branch": "FM-01", "added_resistance": LONG}]},
        ),
        ("/api/network/what-if", {"changes": [{"action": "remove_branch", "branch": "FM-01"}], LONG: 1}),
        ("/api/network/what-if", {"changes": [], **{f"{i}{LONG[:100]}": 1 for i in range(200)}}),
        ("/api/network/what-if", {"changes": [{"action": "add_branch", "branch": LONG}]}),
        (
            "/api/network/solve",
            {"topology_csv": f"{HEADER}\nE1,n,a,b,{LONG[-100_000:]},0,0,0,0,0\n", "total_airflow": 10},
        ),
    ],
)
async def test_an_error_quotes_the_users_input_shortened(
    path: str, body: dict[str, object], client: httpx.AsyncClient
) -> None:
    """An error names what was wrong by the first 60 characters of the input and "…", never the whole of
    it (an 800 kB branch name was echoed back whole)."""
    resp = await client.post(path, json=body)
    assert resp.status_code == 400
    error = resp.json()["error"]
    assert re.search("巷{50,60}'?…", error) and "巷" * 61 not in error, error[:300]
    assert len(error) < 1000
