"""``vent-agent network solve | what-if | fit``: solve a ventilation network from a topology CSV (the
columns of the benchmark networks, tests/data/networks/README.md) and print the flows, as text or as JSON;
or fit its resistances to a survey (风阻反演). Without ``--topology`` the network is the embedded demo
mine's, the same network ``POST /api/network/solve`` solves when the body names none.

Usage::

    vent-agent network solve [--topology FILE.csv [--total-airflow Q]] [--json]
    vent-agent network what-if [--topology FILE.csv [--total-airflow Q]] --change '{"action": …}' … [--json]
    vent-agent network fit [--topology FILE.csv [--total-airflow Q]] --survey SURVEY.csv
        [--q-error 0.05] [--h-error 1.0] [--json]

The survey CSV has the columns of the benchmark's solutions, ``edge_id, q_m3_s, h_Pa`` (measured flow
m³/s, measured drop ``p(from) − p(to)`` Pa; either may be empty); the fit's JSON is that of
``POST /api/network/fit`` (``resistances``, ``determined``, ``undetermined``, ``residual``, …).

With ``--total-airflow`` (m³/s) the air enters at the nodes without inflow and leaves at the nodes without
outflow; without it the fans drive the network between atmosphere nodes. JSON out is
``{"converged", "iterations", "residual_q", "residual_h", "branches": [{"id", "q", "h"}], "nodes": [{"id",
"p"}], …}`` with ``h = p(from) − p(to)`` and ``p`` the pressure lost since the atmosphere (Pa). Exit status
0 on success; 2 for bad input (one Chinese line on stderr); 3 when the solve does not converge.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, NoReturn, TypeVar

import typer

from vent_agent.cli.usage import PROG, existing_file
from vent_agent.network.fan_stop import with_local_fans_cut
from vent_agent.network.naming import change_words
from vent_agent.network.requests import demo_mine_network
from vent_agent.network.service import MAX_FIT_BRANCHES, demo_device_names, fit_json
from ventnet import Network, NetworkError, NotConverged, Solution, require_driver, solve
from ventnet.changes import Change
from ventnet.csv_topology import load_survey, load_topology, pose
from ventnet.survey import fit_resistances
from ventnet.whatif import what_if

T = TypeVar("T")
EXIT_BAD_INPUT = 2
EXIT_NOT_CONVERGED = 3
METHOD_CN = {"newton": "牛顿节点风压法", "hardy_cross": "Hardy Cross 回路法"}

network_app = typer.Typer(add_completion=False, no_args_is_help=True, help="通风网络解算与“如果……会怎样”分析")

TopologyOption = Annotated[
    Path | None,
    typer.Option(
        "--topology",
        callback=existing_file,
        help="拓扑 CSV（edge_id, from, to, r_N_s2_m8 …）；省略时为内置示范矿井的通风网络（与 API 默认相同）",
    ),
]
AirflowOption = Annotated[
    float | None, typer.Option("--total-airflow", help="总风量 m³/s：从无流入节点进、无流出节点出")
]
JsonOption = Annotated[bool, typer.Option("--json", help="输出 JSON")]


@network_app.command("solve")
def solve_command(
    topology: TopologyOption = None, total_airflow: AirflowOption = None, as_json: JsonOption = False
) -> None:
    """解算通风网络：各分支风量、风压与节点压力。"""
    network = _network(topology, total_airflow)
    solution = _run(lambda: solve(network))
    _print(solution.to_json() if as_json else None, solution)


@network_app.command("what-if")
def what_if_command(
    change: Annotated[
        list[str],
        typer.Option(
            "--change", help='一项调整（JSON），如 {"action": "close_door", "branch": "12"}；可重复'
        ),
    ],
    topology: TopologyOption = None,
    total_airflow: AirflowOption = None,
    as_json: JsonOption = False,
) -> None:
    """调整网络（关风门、设调节风窗、停开风机、增删分支）后重新解算，给出各分支的变化；主要通风机全部停止时局部通风机随之断电。"""
    network = _network(topology, total_airflow)
    names = demo_device_names() if topology is None else {}  # the demo mine's fans, as the API names them
    changes, cut = _run(lambda: with_local_fans_cut(network, [_change(text) for text in change], names))
    result = _run(lambda: what_if(network, changes))
    payload = result.to_json()
    payload["changes"] = [change_words(network, c, names) for c in result.changes]
    payload["notes"] += cut
    if as_json:
        _print(payload, result.after)
        return
    for line in payload["changes"]:
        print(f"调整：{line}")
    for note in payload["notes"]:
        print(f"说明：{note}")
    _print(None, result.after, before=result.before.q)
    if result.flipped:
        print(
            f"风向反转的分支：{', '.join(result.flipped)}（其中角联分支：{', '.join(result.diagonal_flips) or '无'}）"
        )


@network_app.command("fit")
def fit_command(
    survey: Annotated[
        Path,
        typer.Option("--survey", callback=existing_file, help="测定 CSV（edge_id, q_m3_s, h_Pa）"),
    ],
    topology: TopologyOption = None,
    total_airflow: AirflowOption = None,
    q_error: Annotated[float, typer.Option("--q-error", help="风量测定标准误差 m³/s", min=1e-9)] = 0.05,
    h_error: Annotated[float, typer.Option("--h-error", help="压差测定标准误差 Pa", min=1e-9)] = 1.0,
    as_json: JsonOption = False,
) -> None:
    """风阻反演：由通风阻力测定的风量与压差估计各分支风阻，并指出数据不能确定的分支。"""
    network = _network(topology, total_airflow)
    if len(network.branches) > MAX_FIT_BRANCHES:
        _fail(
            f"风阻反演最多支持 {MAX_FIT_BRANCHES} 条分支，该网络有 {len(network.branches)} 条", EXIT_BAD_INPUT
        )
    try:
        measured_q, measured_h = load_survey(survey)
    except NetworkError as exc:
        _fail(str(exc), EXIT_BAD_INPUT)
    fit = _run(lambda: fit_resistances(network, measured_q, measured_h, q_error=q_error, h_error=h_error))
    payload = fit_json(network, fit, measured_h, h_error)
    if as_json:
        print(json.dumps(payload, ensure_ascii=False))
        return
    print(f"拟合残差（加权均方根，≈1 表示在测定误差以内）：{fit.residual:.3g}")
    print("分支\t原风阻 N·s²/m⁸\t反演风阻 N·s²/m⁸\t数据能否确定")
    for row in payload["resistances"]:
        print(
            f"{row['id']}\t{row['r_before']:.6g}\t{row['r']:.6g}\t{'是' if row['determined'] else '否（仅为先验）'}"
        )
    for warning in payload["warnings"]:
        print(f"注意：{warning}")


def _network(topology: Path | None, total_airflow: float | None) -> Network:
    """The topology's network as posed, or the demo mine's without one (as the API's default)."""
    try:
        if topology is None:
            if total_airflow is not None:
                raise NetworkError("示范矿井网络由主要通风机驱动，不接受 --total-airflow（它只用于拓扑 CSV）")
            return demo_mine_network()
        network = pose(load_topology(topology), total_airflow)
        require_driver(network)
        return network
    except NetworkError as exc:
        _fail(str(exc), EXIT_BAD_INPUT)


def _change(text: str) -> Change:
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        _fail(f"--change 不是 JSON：{text}", EXIT_BAD_INPUT)
    if not isinstance(data, dict):
        _fail(f"--change 须为 JSON 对象：{text}", EXIT_BAD_INPUT)
    try:
        return Change.from_json(data)
    except NetworkError as exc:
        _fail(str(exc), EXIT_BAD_INPUT)


def _run(work: Callable[[], T]) -> T:
    try:
        return work()
    except NotConverged as exc:
        _fail(str(exc), EXIT_NOT_CONVERGED)
    except NetworkError as exc:
        _fail(str(exc), EXIT_BAD_INPUT)


def _fail(message: str, code: int) -> NoReturn:
    print(f"{PROG} network 出错：{message}", file=sys.stderr)
    raise typer.Exit(code)


def _print(
    payload: dict[str, Any] | None, solution: Solution, before: dict[str, float] | None = None
) -> None:
    if payload is not None:
        print(json.dumps(payload, ensure_ascii=False))
        return
    print(
        f"已收敛：{solution.iterations} 次迭代（{METHOD_CN.get(solution.method, solution.method)}），"
        f"风量残差 {solution.residual_q:.2e} m³/s，风压残差 {solution.residual_h:.2e} Pa"
    )
    header = "分支\t风量 m³/s\t风压 Pa" + ("\t原风量 m³/s" if before is not None else "")
    print(header)
    for branch_id, q in solution.q.items():
        row = f"{branch_id}\t{q:.4f}\t{solution.h[branch_id]:.3f}"
        if before is not None:
            old = before.get(branch_id)
            row += "\t" + ("—" if old is None else f"{old:.4f}")
        print(row)
    if solution.reversed:
        print(f"逆向（与分支方向相反）的分支：{', '.join(solution.reversed)}")
    for fan in solution.fans:
        flags = [
            w
            for w, on in (
                ("风流反向通过风机", fan.reversed),
                ("超出特性曲线范围", fan.off_range),
                ("处于上升（不稳定）段", fan.rising),
            )
            if on
        ]
        print(f"风机 {fan.branch_id}：Q = {fan.q:.3f} m³/s，H = {fan.h_fan:.1f} Pa {'，'.join(flags)}")
