"""Resistances from a survey (风阻反演) through ``vent-agent network fit`` and ``POST /api/network/fit``:
a survey of the published solution gives the benchmark's resistances back; a partial survey names the
branches it cannot determine; bad input is one Chinese line and exit 2, or 400 in the spec's shape."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from tests.network_cases import NETWORKS, TOTAL_AIRFLOW, published
from vent_agent.cli import main
from vent_agent.network.requests import demo_mine_network
from ventnet import NetworkError, solve
from ventnet.csv_topology import read_survey

NAME = "A_hongshagang_1"
TOPOLOGY = str(NETWORKS / NAME / "topology.csv")


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exited:
        main(["network", *args])
    out = capsys.readouterr()
    return int(exited.value.code or 0), out.out, out.err


def _survey(path: Path, rows: dict[str, tuple[float | None, float | None]]) -> str:
    lines = ["edge_id,q_m3_s,h_Pa"]
    lines += [f"{k},{'' if q is None else q},{'' if h is None else h}" for k, (q, h) in rows.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def test_a_full_survey_gives_the_benchmark_resistances_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    solution = published(NAME)["loop"].branches
    survey = _survey(tmp_path / "survey.csv", {k: (q, h) for k, (q, h) in solution.items()})
    airflow = str(TOTAL_AIRFLOW[NAME])
    code, out, err = _run(
        capsys, "fit", "--topology", TOPOLOGY, "--total-airflow", airflow, "--survey", survey, "--json"
    )
    assert code == 0, err
    result = json.loads(out)
    rows = {r["id"]: r for r in result["resistances"]}
    assert set(rows) == set(solution) and all(r["determined"] for r in rows.values())
    worst = max(abs(r["r"] - r["r_before"]) / r["r_before"] for r in rows.values() if r["r_before"] > 0)
    assert worst < 1e-3 and result["undetermined"] == [] and result["warnings"] == []


def test_a_partial_survey_names_what_it_cannot_determine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    q, h = published(NAME)["loop"].branches["26"]
    survey = _survey(tmp_path / "one.csv", {"26": (q, h)})
    code, out, _ = _run(
        capsys, "fit", "--topology", TOPOLOGY, "--total-airflow", "151.295", "--survey", survey
    )
    assert code == 0
    assert "拟合残差" in out and "反演风阻" in out and "否（仅为先验）" in out
    line = next(x for x in out.splitlines() if x.startswith("26\t"))
    assert line.endswith("是")


def test_a_drop_written_as_a_positive_loss_is_warned_of(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    q, h = published(NAME)["loop"].branches["26"]
    survey = _survey(tmp_path / "sign.csv", {"26": (q, -h)})  # a loss written positive
    code, out, _ = _run(
        capsys, "fit", "--topology", TOPOLOGY, "--total-airflow", "151.295", "--survey", survey
    )
    assert code == 0 and "注意：分支 26 的实测压差" in out and "请核对符号" in out


def test_a_gbk_survey_from_chinese_excel_is_read_and_another_encoding_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    q, h = published(NAME)["loop"].branches["26"]
    gbk = tmp_path / "gbk.csv"
    gbk.write_bytes(f"edge_id,q_m3_s,h_Pa,备注\n26,{q},{h},阻力调节平巷\n".encode("gbk"))
    code, out, _ = _run(
        capsys, "fit", "--topology", TOPOLOGY, "--total-airflow", "151.295", "--survey", str(gbk)
    )
    assert code == 0 and "拟合残差" in out
    utf16 = tmp_path / "utf16.csv"  # Excel's "Unicode text": a 0xff 0xfe byte-order mark
    utf16.write_text(f"edge_id,q_m3_s,h_Pa\n26,{q},{h}\n", encoding="utf-16")
    for option in ("--survey", "--topology"):
        args = ["--topology", TOPOLOGY, "--survey", str(gbk)]
        args[args.index(option) + 1] = str(utf16)
        code, _, err = _run(capsys, "fit", *args, "--total-airflow", "151.295")
        assert code == 2 and "须为 UTF-8 或 GBK 编码" in err
        assert "codec" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("edge_id,name\n1,x\n", "须有列 edge_id"),
        ("edge_id,q_m3_s,h_Pa\n1,abc,\n", "第 2 行 q_m3_s='abc' 不是数"),
        ("edge_id,q_m3_s,h_Pa\n1,,\n", "既无风量"),
        ("edge_id,q_m3_s,h_Pa\n1,1,\n1,2,\n", "重复"),
        ("edge_id,q_m3_s,h_Pa\n999,1,\n", "不在网络中"),
        ("edge_id,q_m3_s\n", "没有测定数据"),
    ],
)
def test_a_bad_survey_is_one_chinese_line_and_exit_2(
    text: str, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    survey = tmp_path / "bad.csv"
    survey.write_text(text, encoding="utf-8")
    code, _, err = _run(
        capsys, "fit", "--topology", TOPOLOGY, "--total-airflow", "151.295", "--survey", str(survey)
    )
    assert code == 2 and words in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_the_survey_reader_keeps_each_measurement_apart() -> None:
    measured_q, measured_h = read_survey("\ufeffedge_id,q_m3_s,h_Pa,note\n1,2.5,\n2,,-30\n3,1,-2\n")
    assert measured_q == {"1": 2.5, "3": 1.0} and measured_h == {"2": -30.0, "3": -2.0}
    with pytest.raises(NetworkError, match="不是有限数"):
        read_survey("edge_id,q_m3_s\n1,inf\n")


async def test_the_api_fits_the_demo_mine_to_its_own_state(client: httpx.AsyncClient) -> None:
    solution = solve(demo_mine_network())
    surveyed = ["ZJFX", "15216", "15216-GZM", "15216-HF"]
    body = {
        "measured_q": {k: solution.q[k] for k in surveyed},
        "measured_h": {k: solution.h[k] for k in surveyed},
    }
    resp = await client.post("/api/network/fit", json=body)
    assert resp.status_code == 200, resp.text
    result = resp.json()
    assert result["network"] == "demo" and result["residual"] < 1e-2
    rows = {r["id"]: r for r in result["resistances"]}
    for k in surveyed:
        assert rows[k]["determined"] and rows[k]["r"] == pytest.approx(rows[k]["r_before"], rel=1e-3)
    assert "FD-01" not in rows  # a fan branch has no resistance to fit
    assert set(result["undetermined"]) & set(surveyed) == set() and "EC-HFX" in result["undetermined"]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({}, "没有测定数据"),
        ({"measured_q": {"nowhere": 1.0}}, "不在网络中"),
        ({"measured_q": {"ZJFX": "a lot"}}, "measured_q"),
        ({"measured_q": {"ZJFX": 1.0}, "q_error": 0}, "q_error"),
        ({"measured_q": {"ZJFX": 1.0}, "total_airflow": 10}, "total_airflow"),
        (
            {"measured_h": {"1": -1.0}, "branches": [{"id": "1", "from": "a", "to": "b", "r": 1}]},
            "没有驱动力",
        ),
    ],
)
async def test_bad_fit_input_is_400_in_the_spec_error_shape(
    body: dict[str, object], words: str, client: httpx.AsyncClient
) -> None:
    resp = await client.post("/api/network/fit", json=body)
    assert resp.status_code == 400
    assert set(resp.json()) == {"error"} and words in resp.json()["error"]


async def test_a_network_too_large_to_fit_is_400(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("vent_agent.network.service.MAX_FIT_BRANCHES", 10)
    resp = await client.post("/api/network/fit", json={"measured_q": {"ZJFX": 1.0}})
    assert resp.status_code == 400 and "最多支持 10 条分支" in resp.json()["error"]
