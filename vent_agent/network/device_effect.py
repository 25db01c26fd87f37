"""What changing a clicked device would do to the air (issue 25, 点选设备解读): a door opened or closed,
a main or local fan stopped, a regulator opened fully, each tried on the mine's network by a what-if
(:func:`ventnet.whatif.what_if`) and judged like any what-if (:mod:`.judge`). Deterministic: no model.

Which branch a device is: a main fan is the fan branch of its tunnel (``tun_id``); a local fan the
fixed-quantity branch feeding its heading (the branch ending where the heading starts); a door or a
regulator the branch of its id, posed as one (``kind``). A device the network does not hold gets no
effect and the reason (``on_network`` false); a standby fan gets none either (stopping it changes
nothing). Flows are shown in m³/min, as the plans write them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from vent_agent.kb.thresholds import ThresholdTable
from vent_agent.network.fan_stop import mine_what_if
from vent_agent.network.figures import air, air_change
from vent_agent.network.judge import PLAN_AIR, NetworkFinding, judge_solution
from vent_agent.network.naming import change_words
from ventnet import Branch, Network, NetworkError, NotConverged, Solution
from ventnet.changes import CLOSED_DOOR_RESISTANCE, Change
from ventnet.solution import REVERSE_TOLERANCE

STANDBY = "备用"
SHOWN_CHANGES = 8
"""At most this many branches listed by their change of air, largest first."""
SHOWN_FINDINGS = 12
"""At most this many new findings listed (their count by kind is always given)."""
MIN_CHANGE = 1.0
"""A branch whose air changes by less than this (m³/min, as shown) is not listed as changed."""
FINDING_ORDER = (
    "main_fan_stopped",
    "main_fan_standby",
    "short_air",
    "wind_low",
    "aux_fan_intake",
    "fan_reversed",
    "fan_rising",
    "fan_off_range",
    "wind_high",
    "diagonal_flip",
    "reversed",
)
KIND_WORDS = {
    "main_fan_stopped": "主要通风机停止运转",
    "main_fan_standby": "须开动备用主要通风机",
    "short_air": "低于计划风量",
    "wind_low": "风速低于下限",
    "wind_high": "风速超过上限",
    "aux_fan_intake": "局部通风机吸风量不小于供风量",
    "reversed": "风流反向",
    "diagonal_flip": "角联分支风向反转",
    "fan_reversed": "风机风流反向",
    "fan_rising": "风机处于不稳定段",
    "fan_off_range": "风机超出特性曲线范围",
}
ADVICE = "以上为通风网络模拟结果，仅供参考：对矿井的任何调整须经通风负责人审批后实施，本系统不操作任何设施。"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


class BranchChange(_Frozen):
    """A branch whose air a change moves: ``q_before`` and ``q`` (m³/min, signed along the branch's
    written direction) and ``dq`` = ``q − q_before``."""

    id: str
    name: str
    q_before: float
    q: float
    dq: float


class DeviceEffect(_Frozen):
    """One change tried on the device's branch: ``action`` and ``change`` (its Chinese name), the
    solve's ``iterations``, the branches it moves most (:class:`BranchChange`), and the ``findings``
    the change brings that the network did not have before (each with its clause)."""

    branch: str
    action: str
    change: str
    iterations: int
    changes: list[BranchChange] = Field(default_factory=list)
    findings: list[dict[str, object]] = Field(default_factory=list)
    finding_counts: dict[str, int] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)
    """How the change was posed beyond itself (the local fans cut with the main fans, :mod:`.fan_stop`)."""
    error: str | None = None
    """Why the change could not be solved (a solve that does not converge), instead of a result."""


class NetworkEffects(_Frozen):
    """What changing the clicked device would do: ``on_network`` (the network holds it), its
    ``branch`` and the air it carries now (``q_now``, m³/min), a Chinese ``note`` (why there is no
    effect, or the device's state), and the ``effects`` of each change tried."""

    on_network: bool
    branch: str | None = None
    branch_name: str = ""
    q_now: float | None = None
    q_measured: float | None = None
    """The device's own measured air volume (m³/min, a running fan's reading) when the data give one: the
    figure the overview and the interpretation's table show, named 实测 beside the solve's 模拟 ``q_now``."""
    note: str = ""
    effects: list[DeviceEffect] = Field(default_factory=list)


def device_branch(network: Network, device_type: str, device_id: str, tun_id: str | None) -> Branch | None:
    """The branch of ``network`` that is the device (see the module docstring), or None."""
    by_id = {b.id: b for b in network.branches}
    if device_type == "fan":
        tunnel = by_id.get(tun_id or "")
        return tunnel if tunnel is not None and tunnel.fan is not None else None
    if device_type == "aux_fan":
        heading = by_id.get(tun_id or "")
        if heading is None:
            return None
        return next(
            (b for b in network.branches if b.fixed_q is not None and b.to_node == heading.from_node),
            None,
        )
    if device_type in ("door", "regulator"):
        branch = by_id.get(device_id)
        return branch if branch is not None and branch.kind == device_type else None
    return None


def changes_for(branch: Branch) -> list[Change]:
    """The changes a click on ``branch`` asks about: open a closed door or close an open one, stop a
    fan, open a regulator fully."""
    if branch.kind == "door":
        closed = branch.added_resistance > 0
        return [Change("open_door" if closed else "close_door", branch.id)]
    if branch.kind == "regulator":
        return [Change("set_regulator", branch.id, added_resistance=0.0)]
    return [Change("stop_fan", branch.id)]


def network_effects(
    network: Network,
    baseline: Solution,
    table: ThresholdTable,
    *,
    device_type: str,
    device_id: str,
    tun_id: str | None,
    state: str | None = None,
    standby: Sequence[str] = (),
    names: Mapping[str, str] | None = None,
) -> NetworkEffects:
    """What changing the device would do on ``network`` (solved as ``baseline``), judged by ``table``;
    ``standby`` names the mine's standby main fans (:func:`.fan_stop.fan_stop_findings`), ``names`` the
    devices its branches model (:mod:`.naming`: a change names the fan, not its drift)."""
    names = names or {}
    branch = device_branch(network, device_type, device_id, tun_id)
    if branch is None:
        return NetworkEffects(
            on_network=False,
            note="该设备不在矿井通风网络模型中（没有与之对应的分支），无法模拟调整它对风流的影响。",
        )
    found = NetworkEffects(
        on_network=True, branch=branch.id, branch_name=branch.name, q_now=baseline.q[branch.id] * 60
    )
    if device_type in ("fan", "aux_fan") and state == STANDBY:
        note = "该风机为备用风机，当前未运行：停止它不改变风流；主用风机停止时的影响见主用风机的解读。"
        return found.model_copy(update={"note": note})
    note = ""
    if branch.kind == "door":
        note = _door_state(branch)
    elif branch.kind == "regulator":
        note = f"调节风窗当前附加风阻 {branch.added_resistance:.4g} N·s²/m⁸"
    before = {(f.kind, f.branch) for f in judge_solution(network, baseline, table)}
    effects = [
        _effect(network, baseline, table, change, before, standby, names) for change in changes_for(branch)
    ]
    return found.model_copy(update={"note": note, "effects": effects})


def _door_state(branch: Branch) -> str:
    if branch.added_resistance <= 0:
        return "风门当前打开（网络模型中无附加风阻）"
    leak = "，关闭风门的常用取值" if branch.added_resistance == CLOSED_DOOR_RESISTANCE else ""
    return f"风门当前关闭（漏风风阻 {branch.added_resistance:.4g} N·s²/m⁸{leak}）"


def _effect(
    network: Network,
    baseline: Solution,
    table: ThresholdTable,
    change: Change,
    before: set[tuple[str, str]],
    standby: Sequence[str],
    names: Mapping[str, str],
) -> DeviceEffect:
    head = DeviceEffect(
        branch=change.branch, action=change.action, change=change_words(network, change, names), iterations=0
    )
    try:
        result, findings, notes = mine_what_if(network, [change], baseline, table, standby, names)
    except (NetworkError, NotConverged) as exc:
        return head.model_copy(update={"error": str(exc)})
    names = {b.id: b.name for b in result.network.branches}
    moved = sorted(
        (
            BranchChange(
                id=k,
                name=names.get(k, k),
                q_before=baseline.q[k] * 60,
                q=q * 60,
                dq=(q - baseline.q[k]) * 60,
            )
            for k, q in result.after.q.items()
            if k in baseline.q
        ),
        key=lambda c: -abs(c.dq),
    )
    new = _ordered(f for f in findings if (f.kind, f.branch) not in before)
    counts: dict[str, int] = {}
    for f in new:
        counts[f.kind] = counts.get(f.kind, 0) + 1
    return head.model_copy(
        update={
            "iterations": result.after.iterations,
            "changes": [c for c in moved if abs(c.dq) >= MIN_CHANGE][:SHOWN_CHANGES],
            "findings": [f.to_json() for f in new[:SHOWN_FINDINGS]],
            "finding_counts": counts,
            "notes": notes,
        }
    )


def _ordered(findings: Iterable[NetworkFinding]) -> list[NetworkFinding]:
    rank = {kind: i for i, kind in enumerate(FINDING_ORDER)}
    return sorted(findings, key=lambda f: rank.get(f.kind, len(rank)))


def _air_now(effects: NetworkEffects) -> str:
    """The device's air now: its measured figure (实测) when the data give one, then the solve's (模拟)."""
    branch = f"{effects.branch}（{effects.branch_name}）" if effects.branch_name else str(effects.branch)
    solved = f"通风网络解算（模拟）{'—' if effects.q_now is None else air(effects.q_now)} m³/min"
    if effects.q_measured is None:
        return f"该设备在通风网络模型中为分支 {branch}，当前风量：{solved}。"
    return (
        f"该设备在通风网络模型中为分支 {branch}，当前风量：实测 {air(effects.q_measured)} m³/min（监测数据）；"
        f"{solved}。"
    )


def effect_lines(effects: NetworkEffects) -> list[str]:
    """The effects as Chinese Markdown lines (the interpretation's 调整影响 section, without its title)."""
    if not effects.on_network:
        return [effects.note]
    lines = [_air_now(effects)]
    if effects.note:
        lines.append(effects.note + ("" if effects.note.endswith("。") else "。"))
    for effect in effects.effects:
        lines += ["", f"**若{effect.change}**："]
        if effect.error:
            lines.append(f"- 无法给出结果：{effect.error}")
            continue
        lines += [f"- 说明：{note}" for note in effect.notes]
        lines += [_change_line(c) for c in effect.changes]
        if not effect.changes:
            lines.append("- 各分支风量变化均小于 1 m³/min")
        if effect.finding_counts:
            summary = "、".join(f"{KIND_WORDS.get(k, k)} {n} 处" for k, n in effect.finding_counts.items())
            lines.append(f"- 新出现的问题：{summary}")
            lines += [f"  - {f['message']}（{f['clause']}）" for f in effect.findings]
            shown, total = len(effect.findings), sum(effect.finding_counts.values())
            if total > shown:
                lines.append(f"  - 另有 {total - shown} 项，见通风网络图中该设备的“模拟”功能")
        else:
            lines.append("- 不新增低于计划风量、风速超限或风流反向的分支")
    if any(f["kind"] == "short_air" for effect in effects.effects for f in effect.findings):
        lines += ["", PLAN_AIR + "。"]
    if effects.effects:
        lines += ["", ADVICE]
    return lines


def _change_line(change: BranchChange) -> str:
    """A branch's change of air as a Markdown item, in whole m³/min (a flow that turns round keeps the sign
    that says so: ``-0.3``), the change the difference of the figures written."""
    turned = REVERSE_TOLERANCE * 60  # m³/min: a flow this small has no direction (ventnet.solution)
    reversed_ = change.q_before * change.q < 0 and min(abs(change.q_before), abs(change.q)) > turned
    before = air(change.q_before, 0.0 if reversed_ else None)
    after = air(change.q, 0.0 if reversed_ else None)
    return f"- {change.name or change.id}（{change.id}）：{before} → {after} m³/min（{air_change(before, after)}）"
