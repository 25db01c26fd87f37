"""Judging a solved network the way the live data are judged (docs/DOMAIN.md §7): each branch's air against
its required air (the plan's 需风量 where known) and its wind speed Q/S against 表6 (《煤矿安全规程》
第157条), local fans against the full-pressure air reaching them (第183条), fans off their curve, and
after a change: reversed branches and diagonal branches whose direction flips. Findings are Chinese."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import asdict, dataclass
from typing import Any

from vent_agent.kb.thresholds import Threshold, ThresholdTable, fmt_number
from vent_agent.network.figures import air
from vent_agent.network.figures import speed as speed_text
from ventnet import Network, Solution
from ventnet.whatif import WhatIf

REQUIRED_AIR_ARTICLE = 159
"""《煤矿安全规程》（2025版）第159条: the air each place needs, computed by each requirement, the largest
taken (AQ 1056-2008 gives the methods); a branch below its plan's required air breaches it."""


@dataclass(frozen=True)
class NetworkFinding:
    """One judgement: ``kind`` (``short_air``, ``wind_low``, ``wind_high``, ``aux_fan_intake``,
    ``reversed``, ``diagonal_flip``, ``fan_reversed``, ``fan_rising``, ``fan_off_range``), the branch, the figure and
    the limit it is judged against (in the message's units: air volumes in m³/min, a fan's too, wind speeds
    in m/s), the Chinese ``message`` and its ``clause``. The message writes its figures as
    :mod:`.figures` does: whole m³/min, wind speeds to two decimals, more where the rounded figure would
    stand on the limit it is judged against."""

    kind: str
    branch: str
    message: str
    clause: str
    value: float | None = None
    limit: float | None = None

    def to_json(self) -> dict[str, Any]:
        """The finding as a JSON object."""
        return asdict(self)


PLAN_AIR = "计划风量为配风计划的需风量，未给出时为配风量"
"""What a ``short_air`` finding's 计划风量 is: said once beside the findings, not in each of them."""


def judge_solution(
    network: Network, solution: Solution, table: ThresholdTable, reversed_ids: Collection[str] = ()
) -> list[NetworkFinding]:
    """Every breach of required air, wind speed, local-fan intake and fan curve in ``solution``; a
    branch in ``reversed_ids`` (its air runs backwards) is judged as reversed by the caller, not as
    short of its planned air (the plan's air runs the other way)."""
    out: list[NetworkFinding] = []
    for branch in network.branches:
        q = abs(solution.q[branch.id])
        label = _label(branch.id, branch.name)
        # compared as shown, in whole m³/min (a solve 0.05 m³/min under a plan's figure is not short)
        if (
            branch.required_q is not None
            and branch.id not in reversed_ids
            and round(q * 60) < round(branch.required_q * 60)
        ):
            out.append(
                NetworkFinding(
                    "short_air",
                    branch.id,
                    f"{label}风量 {air(q * 60)} m³/min 低于计划风量 {air(branch.required_q * 60)} m³/min",
                    table.article_label(REQUIRED_AIR_ARTICLE),
                    q * 60,
                    branch.required_q * 60,
                )
            )
        if branch.area and branch.roadway_class and branch.fixed_q is None:
            out += _wind(branch.id, label, q / branch.area, branch.roadway_class, table)
    out += _local_fans(network, solution, table)
    for fan in solution.fans:
        label = _label(fan.branch_id, network.branch(fan.branch_id).name)
        if fan.reversed:
            curve = network.branch(fan.branch_id).fan
            weak = "（特性曲线 a0 < 0：零风量时风压为负，风机压不住系统）" if curve and curve.a0 < 0 else ""
            out.append(
                NetworkFinding(
                    "fan_reversed",
                    fan.branch_id,
                    f"{label}风流反向通过风机：Q = {air(fan.q * 60, 0.0)} m³/min{weak}，须核查风机特性曲线与运行方向",
                    "风机特性曲线（docs/DOMAIN.md §7）",
                    fan.q * 60,
                )
            )
        if fan.rising:
            out.append(
                NetworkFinding(
                    "fan_rising",
                    fan.branch_id,
                    f"{label}工况点 Q = {air(fan.q * 60)} m³/min 落在特性曲线的上升（不稳定）段",
                    "风机特性曲线（docs/DOMAIN.md §7）",
                    fan.q * 60,
                )
            )
        if fan.off_range:
            out.append(
                NetworkFinding(
                    "fan_off_range",
                    fan.branch_id,
                    f"{label}工况点 Q = {air(fan.q * 60)} m³/min 超出特性曲线的给定范围",
                    "风机特性曲线（docs/DOMAIN.md §7）",
                    fan.q * 60,
                )
            )
    return out


def judge_what_if(result: WhatIf, table: ThresholdTable) -> list[NetworkFinding]:
    """The judgement of the state after a change, plus each branch the change reverses (and whether it
    is diagonal, 角联): every change is advice for a person to approve."""
    out = judge_solution(result.network, result.after, table, set(result.flipped))
    for branch_id in result.flipped:
        diagonal = branch_id in result.diagonal_flips
        before, after = result.before.q[branch_id], result.after.q[branch_id]
        branch = result.network.branch(branch_id)
        planned = (
            f"，计划风量 {air(branch.required_q * 60)} m³/min 的风流已反向，不能按计划供风"
            if branch.required_q
            else ""
        )
        out.append(
            NetworkFinding(
                "diagonal_flip" if diagonal else "reversed",
                branch_id,
                f"{_label(branch_id, branch.name)}风流反向"
                f"（{air(before * 60, 0.0)} → {air(after * 60, 0.0)} m³/min）{planned}"
                + ("，该分支为角联分支，风向不稳定" if diagonal else ""),
                "通风网络角联分支（docs/DOMAIN.md §7）"
                if diagonal
                else "通风网络风流方向（docs/DOMAIN.md §7）",
                after * 60,
            )
        )
    return out


def _wind(
    branch_id: str, label: str, speed: float, roadway_class: str, table: ThresholdTable
) -> list[NetworkFinding]:
    try:
        low, high = table.wind_speed_limits(roadway_class)
    except KeyError:
        return []
    out = []
    for threshold, kind, word in ((low, "wind_low", "低于最低"), (high, "wind_high", "超过最高")):
        if threshold is not None and threshold.breached(speed):
            out.append(_wind_finding(branch_id, label, speed, roadway_class, threshold, kind, word))
    return out


def _wind_finding(
    branch_id: str, label: str, speed: float, roadway_class: str, threshold: Threshold, kind: str, word: str
) -> NetworkFinding:
    return NetworkFinding(
        kind,
        branch_id,
        f"{label}风速 {speed_text(speed, threshold.limit)} m/s {word}允许风速 {fmt_number(threshold.limit)} m/s（{roadway_class}）",
        f"{threshold.article_label()} 表6",
        speed,
        threshold.limit,
    )


def _local_fans(network: Network, solution: Solution, table: ThresholdTable) -> list[NetworkFinding]:
    """A local fan's intake against the full-pressure air reaching its node (第183条): in breach when the
    fans draw at least what arrives."""
    draws: dict[str, float] = {}
    for b in network.branches:
        if b.kind == "local_fan" and b.carried_q:  # a stopped local fan draws nothing
            draws[b.from_node] = draws.get(b.from_node, 0.0) + b.carried_q
    if not draws:
        return []
    threshold = table.get("aux_fan_distance")
    out = []
    for node, draw in draws.items():
        # the full-pressure supply: air arriving along the branches written towards the fans' node (a
        # branch running backwards into it brings air from downstream, the recirculation itself)
        supplied = sum(
            max(solution.q[b.id], 0.0) for b in network.branches if b.fixed_q is None and b.to_node == node
        )
        if supplied <= draw:
            out.append(
                NetworkFinding(
                    "aux_fan_intake",
                    node,
                    f"节点 {node} 的局部通风机吸风量 {air(draw * 60)} m³/min 不小于全风压供风量 {air(supplied * 60)} m³/min："
                    "局部通风机取不到足够的新鲜风，不能按其定风量供风，将产生循环风",
                    threshold.article_label(),
                    supplied * 60,
                    draw * 60,
                )
            )
    return out


def _label(branch_id: str, name: str) -> str:
    return f"{name}（{branch_id}）" if name and name != branch_id else f"分支 {branch_id} "
