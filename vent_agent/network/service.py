"""Solve and what-if as the API and the agent's tools answer them: the solver's JSON shape plus the
judgement (findings with clauses, in Chinese) and where the network came from. CPU work: callers run
these in a worker thread."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from vent_agent.kb.thresholds import ThresholdTable
from vent_agent.network.device_effect import STANDBY, NetworkEffects, device_branch, network_effects
from vent_agent.network.fan_stop import demo_standby_fans, mine_what_if
from vent_agent.network.judge import PLAN_AIR, judge_solution
from vent_agent.network.naming import change_words, device_label
from vent_agent.network.requests import FitSpec, NetworkSpec, WhatIfSpec, build_network, demo_mine_network
from vent_agent.upstream.demo_mine import DemoMine
from vent_agent.upstream.layout import load_layout
from ventnet import Network, NetworkError, Solution, require_driver, solve
from ventnet.diagonal import diagonal_branches
from ventnet.regulator import size_regulator
from ventnet.survey import SurveyFit, fit_resistances


def solve_payload(spec: NetworkSpec, edition: str | None = None) -> dict[str, Any]:
    """``{"converged", "iterations", "residual_q", "residual_h", "method", "branches": [{"id", "q",
    "h"}], "nodes": [{"id", "p"}], "reversed", "fans", "findings", "network"}``. Raises
    :class:`~ventnet.NetworkError` for a network that cannot be posed and
    :class:`~ventnet.NotConverged` when the solve does not converge."""
    network, origin = build_network(spec)
    solution = _baseline(network, origin)
    out = solution.to_json()
    out["findings"] = [f.to_json() for f in judge_solution(network, solution, ThresholdTable.load(edition))]
    out["network"] = origin
    _describe_branches(out, network, demo_device_names() if origin == "demo" else {})
    return out


def what_if_payload(spec: WhatIfSpec, edition: str | None = None) -> dict[str, Any]:
    """The solve's shape for the network after ``spec.changes`` (each branch with ``q_before`` and
    ``dq``), plus ``changes``, ``flipped``, ``diagonal_flips``, ``findings`` and ``advice`` (a reminder
    that nothing is actuated). A change that leaves no main fan running stops the local fans too and
    adds what the regulations then require (:mod:`.fan_stop`). Raises as :func:`solve_payload`, and :class:`~ventnet.NetworkError` for a
    change that does not apply."""
    network, origin = build_network(spec)
    standby = demo_standby_fans() if origin == "demo" else ()
    names = demo_device_names() if origin == "demo" else {}
    result, findings, notes = mine_what_if(
        network,
        spec.parsed_changes(),
        _baseline(network, origin),
        ThresholdTable.load(edition),
        standby,
        names,
    )
    out = result.to_json()
    out["changes"] = [change_words(network, c, names) for c in result.changes]
    out["notes"] += notes
    out["findings"] = [f.to_json() for f in findings]
    if any(f.kind == "short_air" for f in findings):
        out["notes"].append(PLAN_AIR)
    out["network"] = origin
    _describe_branches(out, result.network, names)
    out["advice"] = "以上为模拟结果，仅供参考：对矿井的任何调整须经通风负责人审批后实施，本系统不操作任何设施"
    return out


def regulator_payload(
    spec: NetworkSpec, branch: str, target_q: float, regulator_branch: str | None
) -> dict[str, Any]:
    """The regulator for ``branch`` to carry ``target_q`` (m³/s): ``added_resistance`` (N·s²/m⁸),
    ``pressure_drop`` (Pa), ``window_area`` (m²), and the flow of every branch before and after."""
    network, origin = build_network(spec)
    sizing = size_regulator(network, branch, target_q, regulator_branch, _baseline(network, origin))
    return {
        "branch": sizing.branch,
        "regulator_branch": sizing.regulator_branch,
        "target_q": sizing.target_q,
        "added_resistance": sizing.added_resistance,
        "pressure_drop": sizing.pressure_drop,
        "window_area": sizing.window_area,
        "window_area_formula": "S_w = Q·S/(0.65·Q + 0.84·S·√h_w)（S_w/S ≤ 0.5），否则 S_w = Q·S/(Q + 0.759·S·√h_w)（《通风安全学》）",
        "branches": [
            {"id": k, "q_before": sizing.before.q[k], "q": q, "dq": q - sizing.before.q[k]}
            for k, q in sizing.after.q.items()
        ],
        "network": origin,
        "advice": "调节风窗的设置须经通风负责人审批后实施，本系统不操作任何设施",
    }


MAX_FIT_BRANCHES = 600
"""Largest network a survey fit takes: it decides which resistances the data fix by a dense singular
value decomposition, cubic in the network's size (3–6 s for the 495-branch benchmark on one core)."""


def fit_payload(spec: FitSpec) -> dict[str, Any]:
    """Resistances fitted to a survey (风阻反演, ventnet.survey): ``{"resistances": [{"id", "r",
    "r_before", "determined"}], "determined", "undetermined", "residual", "branches": [{"id", "q",
    "h"}], "warnings", "network"}`` (R in N·s²/m⁸, q m³/s, h Pa). Raises :class:`~ventnet.NetworkError`
    for a network that cannot be posed, one too large, a measurement on an unknown branch or none at all,
    and :class:`~ventnet.NotConverged` when the present state does not solve."""
    network, origin = build_network(spec)
    if len(network.branches) > MAX_FIT_BRANCHES:
        raise NetworkError(f"风阻反演最多支持 {MAX_FIT_BRANCHES} 条分支，该网络有 {len(network.branches)} 条")
    if origin != "demo":
        require_driver(network)
    fit = fit_resistances(
        network,
        spec.measured_q,
        spec.measured_h,
        q_error=spec.q_error,
        h_error=spec.h_error,
        regularisation=spec.regularisation,
    )
    return fit_json(network, fit, spec.measured_h, spec.h_error) | {"network": origin}


def fit_json(
    network: Network, fit: SurveyFit, measured_h: dict[str, float], h_error: float
) -> dict[str, Any]:
    """The JSON of a survey fit (see :func:`fit_payload`, without ``network``), with a Chinese warning
    for each measured drop whose sign says the air runs the other way than the fit finds it (the drop is
    ``p(from) − p(to)``, negative along the flow: a drop written as a positive loss is the usual slip)."""
    determined = set(fit.determined)
    warnings = [
        f"分支 {k} 的实测压差 {h:g} Pa 与拟合风流方向不符（h = p(from) − p(to)，顺分支方向流动时为负），请核对符号"
        for k, h in measured_h.items()
        if abs(h) > h_error and h * fit.q[k] > 0
    ]
    return {
        "resistances": [
            {
                "id": b.id,
                "r": fit.resistance[b.id],
                "r_before": b.total_resistance,
                "determined": b.id in determined,
            }
            for b in network.branches
            if b.id in fit.resistance
        ],
        "determined": list(fit.determined),
        "undetermined": list(fit.undetermined),
        "residual": fit.residual,
        "branches": [{"id": k, "q": q, "h": fit.h[k]} for k, q in fit.q.items()],
        "warnings": warnings,
    }


def diagonal_payload(spec: NetworkSpec) -> dict[str, Any]:
    """The diagonal branches (角联) of the network in its solved directions, with their flows."""
    network, origin = build_network(spec)
    solution = _baseline(network, origin)
    ids = diagonal_branches(network, solution)
    return {"diagonal_branches": [{"id": k, "q": solution.q[k]} for k in ids], "network": origin}


NO_NETWORK = (
    "未接入该矿井的通风网络模型（通风网络解算目前只有内置示范矿井的网络），无法模拟调整该设备对风流的影响。"
)


def device_effects(
    device_type: str,
    device_id: str,
    tun_id: str | None,
    state: str | None,
    *,
    demo_mine: bool,
    edition: str | None = None,
) -> NetworkEffects:
    """What changing a clicked device would do to the mine's air (:mod:`.device_effect`). The mine's
    network is the demo mine's, so only when the data come from the demo mine (``demo_mine``);
    otherwise an effect-less answer that says there is no network. Cached: the demo network is fixed."""
    if not demo_mine:
        return NetworkEffects(on_network=False, note=NO_NETWORK)
    return _demo_device_effects(device_type, device_id, tun_id, state, edition)


@lru_cache(maxsize=256)
def _demo_device_effects(
    device_type: str, device_id: str, tun_id: str | None, state: str | None, edition: str | None
) -> NetworkEffects:
    return network_effects(
        demo_mine_network(),
        _demo_solution(),
        ThresholdTable.load(edition),
        device_type=device_type,
        device_id=device_id,
        tun_id=tun_id,
        state=state,
        standby=demo_standby_fans(),
        names=demo_device_names(),
    )


@lru_cache(maxsize=1)
def demo_device_names() -> Mapping[str, str]:
    """``branch id → "名称（编号）"`` of the device each fan branch of the demo mine's network models: a
    main fan's drift its running main fan, a local fan's branch its heading's running local fan (the
    mine's data name them; :mod:`.naming`)."""
    network = demo_mine_network()
    names: dict[str, str] = {}
    for d in DemoMine().devices.values():
        if d.device_type not in ("fan", "aux_fan") or d.state == STANDBY:
            continue
        branch = device_branch(network, d.device_type, d.device_id, d.tun_id)
        if branch is not None:
            names.setdefault(branch.id, f"{d.name}（{d.device_id}）")
    return MappingProxyType(names)


def _describe_branches(out: dict[str, Any], network: Network, names: Mapping[str, str]) -> None:
    """Give each branch row its ``name``, ``kind``, ``from`` and ``to``, ``added_resistance`` (N·s²/m⁸: a
    door's or regulator's, 0 for an open door), ``device`` (what a change of it names: the fan it models,
    :func:`~vent_agent.network.naming.device_label` over ``names``), and ``map_direction``: +1 when
    its air runs from the first to the second end the map draws (``GET /api/mine/network``), −1 when
    against, 0 without flow, None for a branch the map does not draw."""
    ends = load_layout().tunnels
    by_id = {b.id: b for b in network.branches}
    for row in out["branches"]:
        branch = by_id[row["id"]]
        row.update(name=branch.name, kind=branch.kind, added_resistance=branch.added_resistance)
        row["device"] = device_label(branch, names)
        row.update({"from": branch.from_node, "to": branch.to_node})
        drawn = ends.get(branch.id)
        sign = (row["q"] > 1e-6) - (row["q"] < -1e-6)
        if drawn is None or set(drawn) != {branch.from_node, branch.to_node}:
            row["map_direction"] = None
        else:
            row["map_direction"] = sign if tuple(drawn) == (branch.from_node, branch.to_node) else -sign


def _baseline(network: Network, origin: str) -> Solution:
    """The network as posed, solved (the demo mine's solution is cached); raises
    :class:`~ventnet.NetworkError` when nothing drives its air (:func:`ventnet.require_driver`)."""
    if origin == "demo":
        return _demo_solution()
    require_driver(network)
    return solve(network)


def demo_mine_solved() -> tuple[Network, Solution]:
    """The demo mine's network (:func:`~vent_agent.network.requests.demo_mine_network`) and its solve
    (cached after the first call; CPU work on that call)."""
    return demo_mine_network(), _demo_solution()


@lru_cache(maxsize=1)
def _demo_solution() -> Solution:
    return solve(demo_mine_network())
