"""A what-if that stops the main fans, posed and judged as the regulations require (《煤矿安全规程》
（2025版）第177条、第180条; docs/DOMAIN.md §3).

When the main fans stop, the mine's power underground is cut (第180条: 井下必须立即停止工作、切断电源), so
the local fans stop with them: a what-if that leaves no main fan running stops every local fan posed as a
fixed quantity too, and says so (a local fan kept at its fixed quantity would "deliver" air it can no
longer draw, and push it out through the stopped main fan). The judgement adds what must be done: stop
work, cut the power, withdraw the people (第180条), and start the standby main fan within 10 min (第177条),
naming it where the mine's data give one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache

from vent_agent.kb.thresholds import ThresholdTable, article_label
from vent_agent.network.judge import NetworkFinding, judge_what_if
from vent_agent.network.naming import device_label
from vent_agent.upstream.demo_mine import DemoMine
from ventnet import Network, Solution
from ventnet.changes import Change, apply_changes
from ventnet.whatif import WhatIf, what_if

STOP_ARTICLE = ("2025", 180)
"""《煤矿安全规程》（2025版）第180条: when the main fans stop, work stops, the power is cut and the people
withdraw; the corpus's own edition, which the threshold table's article map does not pair."""


def main_fans_stopped(network: Network, changes: Sequence[Change]) -> bool:
    """Whether ``changes`` stop a main fan (a branch with a fan curve) and leave none running in
    ``network`` (the network after them)."""
    stops = any(
        c.action == "stop_fan" and any(b.id == c.branch and b.fan is not None for b in network.branches)
        for c in changes
    )
    return stops and not any(b.running_fan is not None for b in network.branches)


def with_local_fans_cut(
    network: Network, changes: Sequence[Change], names: Mapping[str, str] | None = None
) -> tuple[list[Change], list[str]]:
    """``changes``, followed, when they leave no main fan running, by stopping every running local fan
    (fixed-quantity branch), with a Chinese note saying why, the fans named by ``names``
    (:func:`~vent_agent.network.naming.device_label`); else ``changes`` as given and no note.
    Raises :class:`~ventnet.NetworkError` as :func:`~ventnet.changes.apply_changes` does."""
    after = apply_changes(network, changes)
    if not main_fans_stopped(after, changes):
        return list(changes), []
    cut = [b for b in after.branches if b.fixed_q is not None and b.carried_q]
    local = [b.id for b in cut]
    if not local:
        return list(changes), []
    note = (
        f"主要通风机全部停止运转时，井下必须立即停止工作、切断电源（{article_label(*STOP_ARTICLE)}），"
        f"局部通风机随之断电：模拟中按停止计（{'、'.join(device_label(b, names or {}) for b in cut)}），不再按定风量供风"
        + ("" if after.elevations else "；网络未给出节点标高（自然风压），停风后各巷道按无风计")
    )
    return [*changes, *(Change("stop_fan", k) for k in local)], [note]


def fan_stop_findings(
    result: WhatIf, table: ThresholdTable, standby: Sequence[str], names: Mapping[str, str] | None = None
) -> list[NetworkFinding]:
    """What the regulations require when ``result``'s changes leave no main fan running: withdraw
    (第180条) and start the standby main fan within 10 min (第177条; ``standby`` names the mine's standby
    fans, "名称（编号）"); none otherwise. The stopped fans are named by ``names`` (branch id → the fan's
    "名称（编号）", :func:`~vent_agent.network.naming.device_label`), not by their drifts."""
    if not main_fans_stopped(result.network, result.changes):
        return []
    stopped = [c.branch for c in result.changes if c.action == "stop_fan"]
    fans = "、".join(
        device_label(b, names or {}) for b in result.network.branches if b.id in stopped and b.fan
    )
    running = table.get("main_fan_running")
    named = f"备用主要通风机 {'、'.join(standby)}" if standby else "备用主要通风机（数据中未给出备用风机）"
    return [
        NetworkFinding(
            "main_fan_stopped",
            stopped[0],
            f"{fans}停止运转，矿井无主要通风机运转：井下必须立即停止工作、切断电源，人员全部撤至应急救援预案规定的安全地带；"
            "停风期间打开井口防爆门和有关风门，利用自然风压通风",
            article_label(*STOP_ARTICLE),
        ),
        NetworkFinding(
            "main_fan_standby",
            stopped[0],
            f"必须保证主要通风机连续运转：{named}须在 10 min 内开动，并查明停机原因",
            running.article_label(),
            limit=10.0,
        ),
    ]


def mine_what_if(
    network: Network,
    changes: Sequence[Change],
    baseline: Solution,
    table: ThresholdTable,
    standby: Sequence[str] = (),
    names: Mapping[str, str] | None = None,
) -> tuple[WhatIf, list[NetworkFinding], list[str]]:
    """The what-if of ``changes`` on ``network`` (solved as ``baseline``) with the local fans cut when
    no main fan is left running (:func:`with_local_fans_cut`), its findings (:func:`judge_what_if` and
    :func:`fan_stop_findings`, the fans named by ``names``) and the notes that cut adds. Raises as
    :func:`ventnet.whatif.what_if`."""
    posed, notes = with_local_fans_cut(network, changes, names)
    result = what_if(network, posed, baseline)
    return result, fan_stop_findings(result, table, standby, names) + judge_what_if(result, table), notes


@lru_cache(maxsize=1)
def demo_standby_fans() -> tuple[str, ...]:
    """The demo mine's standby main fans as "名称（编号）" (its mine profile's fans in state 备用)."""
    return tuple(
        f"{d.name}（{d.device_id}）"
        for d in DemoMine().devices.values()
        if d.device_type == "fan" and d.state == "备用"
    )
