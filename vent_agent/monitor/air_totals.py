"""The mine's total intake and return air (m³/min) for the status strip: the air through the shafts, not
through any one roadway.

With the mine's ventilation network (:class:`ventnet.Network`) and its solve: the intake is the sum over the
branches through which air enters from the atmosphere (the intake shafts), the return the sum over those
through which it leaves (the main fans' drifts). Each part is the monitoring's own figure where there is
one — a main fan branch: the air volume of its running main fans; a tunnel with a wind sensor:
Q = 60·v·S — else the network solve's flow, and says which (``basis``: 实测 or 解算).

Without a network (a mine whose network model the service does not hold) the totals fall back to the
roadways of 表6's classes 总进风巷 / 总回风巷 (measured), and say so.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ventnet import Network, Solution

MEASURED = "实测"
SOLVED = "解算"
FLOW_EPS = 1e-6  # m³/s: a branch with less carries no air


def shaft_totals(
    network: Network,
    solution: Solution,
    measured_q: Mapping[str, float],
    fan_q: Mapping[str, float],
) -> dict[str, dict[str, Any]]:
    """``{"intake": total, "return": total}``, each total ``{"q" (m³/min, one decimal), "label" (where
    from, in a word: 进风井 / 主通风机), "source" (the same in a line, each part with its figure and
    basis), "parts": [{"id", "name", "q", "basis"}]}``.

    ``measured_q``: tunnel id → measured air volume (m³/min) of the tunnels with one; ``fan_q``: branch
    id → the summed air volume (m³/min) of the running main fans on that branch. A branch counts as intake
    when its solved air leaves an atmosphere node, as return when it enters one (m³/s × 60)."""
    sides: dict[str, list[dict[str, Any]]] = {"intake": [], "return": []}
    atmosphere = network.reference_nodes
    for branch in network.branches:
        q = solution.q[branch.id]
        if abs(q) < FLOW_EPS:
            continue
        tail, head = (branch.from_node, branch.to_node) if q > 0 else (branch.to_node, branch.from_node)
        if tail in atmosphere and head not in atmosphere:
            side = "intake"
        elif head in atmosphere and tail not in atmosphere:
            side = "return"
        else:
            continue
        if branch.id in fan_q:
            value, basis = fan_q[branch.id], MEASURED
        elif branch.id in measured_q:
            value, basis = measured_q[branch.id], MEASURED
        else:
            value, basis = abs(q) * 60.0, SOLVED
        sides[side].append(
            {"id": branch.id, "name": branch.name or branch.id, "q": round(value, 1), "basis": basis}
        )
    return {side: _total(parts, side) for side, parts in sides.items()}


def _total(parts: list[dict[str, Any]], side: str) -> dict[str, Any]:
    what = "进风井合计" if side == "intake" else "主要通风机风硐合计"
    listed = " + ".join(f"{p['name']} {p['basis']} {p['q']:.0f}" for p in parts)
    return {
        "q": round(sum(p["q"] for p in parts), 1) if parts else None,
        "label": "进风井" if side == "intake" else "主通风机",
        "source": f"{what}：{listed}" if parts else f"{what}：无数据",
        "parts": parts,
    }


def roadway_totals(
    rows: list[dict[str, Any]], intake_class: str, return_class: str
) -> dict[str, dict[str, Any]]:
    """The fallback without a network: the measured air volume of the tunnel rows (``roadway_class``,
    ``q`` m³/min, ``tun_id``, ``name``) of each class, in the shape of :func:`shaft_totals`."""
    out = {}
    for side, cls in (("intake", intake_class), ("return", return_class)):
        parts = [
            {"id": r["tun_id"], "name": r["name"], "q": r["q"], "basis": MEASURED}
            for r in rows
            if r["roadway_class"] == cls and r["q"] is not None
        ]
        out[side] = {
            "q": round(sum(p["q"] for p in parts), 1) if parts else None,
            "label": cls,
            "source": f"{cls}实测（无通风网络模型，未按井筒合计）" if parts else f"{cls}：无数据",
            "parts": parts,
        }
    return out
