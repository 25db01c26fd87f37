"""What-if changes to a network (docs/DOMAIN.md §7): close or open a door, set a regulator's added
resistance, put a new (closed) door in an airway, stop, start or change a fan, add or remove a branch
(a heading holed through), set a branch's resistance. Each is a pure function of the network: the mine
itself is never touched.

A change naming a facility names a branch that has it: a door change a door, a regulator change a
regulator. A branch has a door (regulator) when it is posed as one (``kind``), or when it is a plain
airway with an added resistance (the benchmark topology's ``adjust_r``, which gives no kinds: its doors
and regulators are the airways with an added resistance)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import networkx as nx

from ventnet.errors import NetworkError, quoted
from ventnet.network import Branch, FanCurve, Network

CLOSED_DOOR_RESISTANCE = 2000.0
"""The added resistance of a closed door (its leakage), N·s²/m⁸, where the survey gives none: an
assumption of practice (a good pair of doors leaks about 0.5 m³/s under 500 Pa, 500 / 0.5² = 2000);
give the surveyed figure with the change where it is known."""

ACTIONS = {
    "close_door": "关闭风门",
    "open_door": "打开风门",
    "set_regulator": "设置调节风窗",
    "add_door": "新设并关闭风门",
    "stop_fan": "停止风机",
    "start_fan": "开启风机",
    "change_fan": "更换风机（特性曲线）",
    "add_branch": "新增分支（贯通）",
    "remove_branch": "拆除分支",
    "set_resistance": "修改风阻",
}
"""Each change's action and its Chinese name."""


@dataclass(frozen=True)
class Change:
    """One change: ``action`` (a key of :data:`ACTIONS`) on branch ``branch``.

    ``resistance`` (N·s²/m⁸) is the new R of ``set_resistance``, the R of ``add_branch``, or a closed
    door's leakage R for ``close_door`` and ``add_door``; ``added_resistance`` the regulator's ΔR (N·s²/m⁸);
    ``fan`` the curve of ``change_fan`` (or ``start_fan`` with another curve); ``from_node``/``to_node``
    and ``area`` (m²) describe an added branch.
    """

    action: str
    branch: str
    resistance: float | None = None
    added_resistance: float | None = None
    fan: FanCurve | None = None
    from_node: str | None = None
    to_node: str | None = None
    area: float | None = None

    def describe(self) -> str:
        """The change in Chinese: ``关闭风门 D1``."""
        return f"{ACTIONS.get(self.action, self.action)} {self.branch}"

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Change:
        """A change from its JSON object (``{"action", "branch", …}``; a fan as ``{"a0", "a1", "a2",
        "q_min", "q_max"}``). Raises :class:`NetworkError` (Chinese) on an unknown action or a bad value."""
        action = str(data.get("action", ""))
        if action not in ACTIONS:
            raise NetworkError(f"未知的调整动作 {quoted(action)!r}，可用：{', '.join(ACTIONS)}")
        branch = data.get("branch")
        if not isinstance(branch, str | int) or isinstance(branch, bool) or str(branch) == "":
            raise NetworkError(f"调整 {quoted(action)} 缺少分支编号 branch")
        fan = data.get("fan")
        return Change(
            action=action,
            branch=str(branch),
            resistance=_optional_number(data, "resistance"),
            added_resistance=_optional_number(data, "added_resistance"),
            fan=_fan(fan) if fan is not None else None,
            from_node=_optional_text(data, "from"),
            to_node=_optional_text(data, "to"),
            area=_optional_number(data, "area"),
        )


DOOR_ACTIONS = frozenset({"close_door", "open_door", "add_door"})
FAN_ACTIONS = frozenset({"stop_fan", "start_fan", "change_fan"})
NOT_A_DOOR = {"fan": "主要通风机", "local_fan": "局部通风机", "regulator": "调节风窗"}
"""Branch kinds a door change does not apply to (an ordinary airway may hold a door: the benchmark
networks give no kinds), with their Chinese names."""


def apply_changes(network: Network, changes: Iterable[Change]) -> Network:
    """The network after ``changes`` in order. Raises :class:`NetworkError` (Chinese) for a change that
    names no branch of the network, a change that does not fit the branch (closing or opening a door in
    a fan, a local fan, a regulator or an airway without a door; a regulator in a branch without one; a
    new door where there is one already; a fan change on a branch without one), or a missing value."""
    return applied(network, changes)[0]


def applied(network: Network, changes: Iterable[Change]) -> tuple[Network, tuple[str, ...]]:
    """:func:`apply_changes`, with a Chinese note for each change that leaves its branch as it was
    (closing a closed door, opening an open one, stopping a stopped fan…): accepted, and said so."""
    notes: list[str] = []
    for change in changes:
        before = network
        network = _apply(network, change)
        if network is before:  # add/remove always change it
            notes.append(_unchanged_note(before.branch(change.branch), change))
    return network, tuple(notes)


def _apply(network: Network, change: Change) -> Network:
    if change.action == "add_branch":
        return _add(network, change)
    target = network.branch(change.branch)
    if change.action == "remove_branch":
        return _remove(network, change.branch)
    _check_fits(target, change)
    updated = _changed(target, change)
    if updated == target:
        return network
    return network.with_branches(updated if b.id == target.id else b for b in network.branches)


def _check_fits(target: Branch, change: Change) -> None:
    """Refuse a change that does not fit its branch's kind (a fan closed as a door…)."""
    action = change.action
    if action in DOOR_ACTIONS:
        kind = NOT_A_DOOR.get(target.kind)
        if kind is None and target.fan is not None:
            kind = "主要通风机"
        elif kind is None and target.fixed_q is not None:
            kind = "定风量分支（局部通风机）"
        if kind is not None:
            raise NetworkError(
                f"分支 {quoted(target.id)} 是{kind}，不是风门，无法{ACTIONS[action]}"
                + ("；停开风机请用 stop_fan / start_fan" if target.fan or target.fixed_q is not None else "")
            )
    if action == "set_regulator" and (target.fan is not None or target.fixed_q is not None):
        what = "主要通风机" if target.fan is not None else "定风量分支（局部通风机）"
        raise NetworkError(f"分支 {quoted(target.id)} 是{what}，不能设置调节风窗")
    label = f"分支 {quoted(target.id)}" + (f"（{quoted(target.name)}）" if target.name else "")
    if action in ("close_door", "open_door") and not has_facility(target, "door"):
        raise NetworkError(
            f"{label}没有风门，无法{ACTIONS[action]}；要模拟在该巷道新设一道风门并关闭，请用 add_door"
        )
    if action == "add_door" and has_facility(target, "door"):
        raise NetworkError(f"{label}已有风门，请用 close_door / open_door")
    if action == "set_regulator" and not has_facility(target, "regulator"):
        raise NetworkError(
            f"{label}没有调节风窗，无法设置调节风窗；要模拟改变该巷道的风阻，请用 set_resistance"
        )


def has_facility(branch: Branch, facility: str) -> bool:
    """Whether ``branch`` has a ``facility`` (``"door"`` or ``"regulator"``): it is posed as one, or it is
    a plain airway (``kind`` ``"roadway"``, the only kind a topology CSV gives) with an added resistance."""
    return branch.kind == facility or (branch.kind == "roadway" and branch.added_resistance > 0)


def _unchanged_note(target: Branch, change: Change) -> str:
    """What a change that altered nothing found its branch in."""
    state = {
        "close_door": "已处于关闭状态",
        "open_door": "已处于打开状态（无附加风阻）",
        "stop_fan": "已停止",
        "start_fan": "已在运行",
    }.get(change.action, "已是所给的值")
    return f"{change.describe()}：该分支{state}，此项调整不改变网络"


def _changed(target: Branch, change: Change) -> Branch:
    action = change.action
    if action == "add_door":
        return replace(target, added_resistance=change.resistance or CLOSED_DOOR_RESISTANCE)
    if action == "close_door":
        if change.resistance is None and target.added_resistance >= _closed_resistance(target):
            return target  # closed already, with its own (surveyed or default) leakage
        return replace(target, added_resistance=change.resistance or CLOSED_DOOR_RESISTANCE)
    if action == "open_door":
        return replace(target, added_resistance=0.0)
    if action == "set_regulator":
        if change.added_resistance is None or change.added_resistance < 0:
            raise NetworkError(
                f"设置调节风窗 {quoted(target.id)} 需给出非负的附加风阻 added_resistance（N·s²/m⁸）"
            )
        return replace(target, added_resistance=change.added_resistance)
    if action == "set_resistance":
        if change.resistance is None or change.resistance < 0:
            raise NetworkError(f"修改风阻 {quoted(target.id)} 需给出非负的风阻 resistance（N·s²/m⁸）")
        return replace(target, resistance=change.resistance)
    if action == "change_fan" and change.fan is None:
        raise NetworkError(f"更换风机 {quoted(target.id)} 需给出特性曲线 fan（a0、a1、a2）")
    if target.fan is None and target.fixed_q is not None and change.fan is None:
        # a local fan posed as the fixed quantity it delivers: stopped, it delivers none
        return replace(target, fan_on=action != "stop_fan")
    fan = change.fan or target.fan
    if fan is None:
        raise NetworkError(f"分支 {quoted(target.id)} 没有风机，无法{ACTIONS[action]}")
    return replace(target, fan=fan, fan_on=action != "stop_fan")


def _closed_resistance(target: Branch) -> float:
    """The added resistance from which a branch's door counts as closed: any for a branch posed as a
    door, else that of a closed door (:data:`CLOSED_DOOR_RESISTANCE`)."""
    return 1e-9 if target.kind == "door" else CLOSED_DOOR_RESISTANCE


def _remove(network: Network, branch_id: str) -> Network:
    """The network without ``branch_id``; reference nodes no branch reaches any more are dropped (an
    intake shaft removed while another remains). Raises :class:`NetworkError` (Chinese) when no branch
    is left, or when no way in from the surface (a reference node some branch leaves, or air injected)
    and way out to it (a reference node some branch enters, or air drawn out) are left joined by the
    remaining branches: then no air moves through the network, however it is posed."""
    branches = [b for b in network.branches if b.id != branch_id]
    if not branches:
        raise NetworkError(f"拆除分支 {quoted(branch_id)} 后网络中没有分支")
    nodes = {n for b in branches for n in (b.from_node, b.to_node)}
    if not set(network.injections) <= nodes:
        raise _cut_off(branch_id, "进风与回风")
    references = network.reference_nodes & nodes
    ways_in = (references & {b.from_node for b in branches}) | {
        n for n, q in network.injections.items() if q > 0
    }
    ways_out = (references & {b.to_node for b in branches}) | {
        n for n, q in network.injections.items() if q < 0
    }
    missing = [word for word, ways in (("进风", ways_in), ("回风", ways_out)) if not ways]
    if missing:
        raise _cut_off(branch_id, "与".join(missing))
    graph = nx.Graph()
    graph.add_edges_from(
        (network.joined.get(b.from_node, b.from_node), network.joined.get(b.to_node, b.to_node))
        for b in branches
    )
    part = {n: i for i, nodes_of in enumerate(nx.connected_components(graph)) for n in nodes_of}
    parts_in = {part[network.joined.get(n, n)] for n in ways_in}
    if not parts_in & {part[network.joined.get(n, n)] for n in ways_out}:
        raise _cut_off(branch_id, "相通的进风与回风")
    joined = {a: b for a, b in network.joined.items() if a in nodes and b in nodes}
    return replace(network, branches=tuple(branches), reference_nodes=frozenset(references), joined=joined)


def _cut_off(branch_id: str, lacking: str) -> NetworkError:
    return NetworkError(
        f"拆除分支 {quoted(branch_id)} 后，通风网络与地面不再连通：没有{lacking}井巷通到地面（大气），空气无从进出，无法解算"
    )


def _add(network: Network, change: Change) -> Network:
    if any(b.id == change.branch for b in network.branches):
        raise NetworkError(f"分支编号 {quoted(change.branch)} 已存在，无法新增")
    if change.from_node is None or change.to_node is None or change.resistance is None:
        raise NetworkError(f"新增分支 {quoted(change.branch)} 需给出 from、to 与风阻 resistance（N·s²/m⁸）")
    added = Branch(change.branch, change.from_node, change.to_node, change.resistance, area=change.area)
    return network.with_branches([*network.branches, added])


def _optional_number(data: Mapping[str, Any], key: str) -> float | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise NetworkError(f"{quoted(key)}={quoted(repr(value))} 不是有限数")
    return float(value)


def _optional_text(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    return None if value is None else str(value)


def _fan(data: Any) -> FanCurve:
    if not isinstance(data, Mapping) or "a0" not in data:
        raise NetworkError("风机特性曲线 fan 须为 {a0, a1, a2, q_min, q_max}")
    a0 = _optional_number(data, "a0")
    return FanCurve(
        a0=a0 or 0.0,
        a1=_optional_number(data, "a1") or 0.0,
        a2=_optional_number(data, "a2") or 0.0,
        q_min=_optional_number(data, "q_min"),
        q_max=_optional_number(data, "q_max"),
    )
