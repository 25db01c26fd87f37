"""``vent-agent network solve | what-if``: the benchmark networks through the command line, in the
published JSON shape and sign convention; bad input is one Chinese line and exit code 2."""

from __future__ import annotations

import json

import pytest

from tests.network_cases import NETWORKS, TOTAL_AIRFLOW, published
from vent_agent.cli import main
from vent_agent.network.requests import NetworkSpec
from vent_agent.network.service import solve_payload


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exited:
        main(["network", *args])
    out = capsys.readouterr()
    return int(exited.value.code or 0), out.out, out.err


@pytest.mark.parametrize("name", sorted(TOTAL_AIRFLOW))
def test_solve_json_matches_the_published_solutions(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    topology = str(NETWORKS / name / "topology.csv")
    code, out, _ = _run(
        capsys, "solve", "--topology", topology, "--total-airflow", str(TOTAL_AIRFLOW[name]), "--json"
    )
    assert code == 0
    result = json.loads(out)
    assert {"converged", "iterations", "residual_q", "residual_h", "branches", "nodes"} <= result.keys()
    assert result["converged"] is True and result["residual_q"] <= 1e-4 and result["residual_h"] <= 0.1
    assert set(result["branches"][0]) == {"id", "q", "h"} and set(result["nodes"][0]) == {"id", "p"}
    flows = {row["id"]: row["q"] for row in result["branches"]}
    for reference in published(name).values():
        assert max(abs(flows[k] - q) for k, (q, _) in reference.branches.items()) <= 1e-3


def test_what_if_json_gives_each_branch_its_change(capsys: pytest.CaptureFixture[str]) -> None:
    topology = str(NETWORKS / "A_hongshagang_1" / "topology.csv")
    change = json.dumps({"action": "set_regulator", "branch": "26", "added_resistance": 0.0})
    code, out, _ = _run(
        capsys, "what-if", "--topology", topology, "--total-airflow", "151.295", "--change", change, "--json"
    )
    assert code == 0
    result = json.loads(out)
    row = {r["id"]: r for r in result["branches"]}["26"]
    assert row["q"] > row["q_before"] > 0 and row["dq"] == pytest.approx(row["q"] - row["q_before"])
    assert result["changes"] == ["将阻力调节平巷（26）的调节风窗全部打开（附加风阻降为 0）"]


def test_text_output_is_chinese(capsys: pytest.CaptureFixture[str]) -> None:
    topology = str(NETWORKS / "A_hongshagang_1" / "topology.csv")
    code, out, _ = _run(capsys, "solve", "--topology", topology, "--total-airflow", "151.295")
    assert code == 0 and out.startswith("已收敛") and "牛顿节点风压法" in out


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["solve", "--topology", "/nowhere.csv"], "不存在"),
        (["solve", "--topology", "{A}", "--total-airflow", "-5"], "总风量"),
        (["solve", "--topology", "{A}"], "没有驱动力"),  # no fan, and the total airflow forgotten
        (["what-if", "--topology", "{A}", "--total-airflow", "151.295", "--change", "not json"], "不是 JSON"),
        (
            [
                "what-if",
                "--topology",
                "{A}",
                "--total-airflow",
                "151.295",
                "--change",
                '{"action": "close_door", "branch": "999"}',
            ],
            "没有分支 999",
        ),
    ],
)
def test_bad_input_is_one_chinese_line_and_exit_2(
    args: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    topology = str(NETWORKS / "A_hongshagang_1" / "topology.csv")
    code, _, err = _run(capsys, *[a.replace("{A}", topology) for a in args])
    assert code == 2 and words in err and "Traceback" not in err


def test_without_a_topology_the_cli_solves_the_demo_mine_as_the_api_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = _run(capsys, "solve", "--json")
    assert code == 0
    flows = {row["id"]: row["q"] for row in json.loads(out)["branches"]}
    api = {row["id"]: row["q"] for row in solve_payload(NetworkSpec())["branches"]}
    assert flows.keys() == api.keys() and max(abs(flows[k] - api[k]) for k in api) <= 1e-6
    change = json.dumps({"action": "open_door", "branch": "FM-01"})
    code, out, _ = _run(capsys, "what-if", "--change", change, "--json")
    assert code == 0 and json.loads(out)["changes"] == ["打开二采区进回风联络巷风门（FM-01）"]
    # as the API: the main fan stopped, the local fans lose their power and no air leaves through it
    code, out, _ = _run(capsys, "what-if", "--change", '{"action": "stop_fan", "branch": "FD-01"}', "--json")
    stopped = json.loads(out)
    assert (
        code == 0
        and "停止主要通风机 1号主通风机（FAN-001）" in stopped["changes"]
        and "切断电源" in stopped["notes"][0]
    )
    assert max(abs(row["q"]) for row in stopped["branches"]) <= 1e-3
    code, _, err = _run(capsys, "solve", "--total-airflow", "100")
    assert code == 2 and "示范矿井" in err
