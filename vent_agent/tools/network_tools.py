"""The agent's network tools over the mine's ventilation network (the demo mine's, docs/DEMO_MINE.md):
``network_solve``, ``network_what_if``, ``regulator_size``, ``diagonal_branches``.

They compute and never actuate: a what-if or a regulator is a simulation, and every change to the mine
is advice a person must approve (in plan mode the agent proposes it in its plan first). Flows are
given in m³/s and m³/min; bad input and a solve that does not converge are tool errors in Chinese.
"""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.tools import BaseTool
from pydantic import BaseModel, ConfigDict, Field

from vent_agent.network.requests import NetworkSpec, WhatIfSpec
from vent_agent.network.service import diagonal_payload, regulator_payload, solve_payload, what_if_payload
from vent_agent.tools.common import ToolArgs, ToolFailure, context_tool
from vent_agent.tools.context import AgentContext
from ventnet import NetworkError, NotConverged
from ventnet.changes import ACTIONS

ADVICE = "模拟结果仅供参考；对矿井的调整须经通风负责人审批后实施，本系统不操作任何设施。"
SHOWN_BRANCHES = 40
"""At most this many branches in a what-if answer, largest changes first."""


class SolveArgs(ToolArgs):
    """Optionally the branches to list (all when empty)."""

    branches: list[str] = Field(default_factory=list, description="只列出这些分支（巷道 ID）；空则列出全部")


class ChangeArg(BaseModel):
    """One change to try."""

    model_config = ConfigDict(extra="forbid")

    action: str = Field(description="调整动作：" + "、".join(f"{k}（{v}）" for k, v in ACTIONS.items()))
    branch: str = Field(description="分支（巷道）ID，如 FM-01、15216、FD-01")
    added_resistance: float | None = Field(default=None, ge=0, description="set_regulator 的附加风阻 N·s²/m⁸")
    resistance: float | None = Field(
        default=None,
        ge=0,
        description="set_resistance / add_branch 的风阻，add_door 新设风门的漏风风阻 N·s²/m⁸",
    )
    from_node: str | None = Field(default=None, description="add_branch 的起点节点")
    to_node: str | None = Field(default=None, description="add_branch 的终点节点")


class WhatIfArgs(ToolArgs):
    """The changes, applied in order."""

    changes: list[ChangeArg] = Field(min_length=1, max_length=10)


class RegulatorArgs(ToolArgs):
    """The branch to regulate and its target air."""

    branch: str = Field(description="要调到目标风量的分支（巷道 ID）")
    target_q: float = Field(gt=0, description="目标风量 m³/min（须小于现有风量：调节风窗只能减风）")
    regulator_branch: str | None = Field(default=None, description="设调节风窗的分支，默认为该分支本身")


class NoArgs(ToolArgs):
    """No arguments."""


async def _solve(ctx: AgentContext, branches: list[str]) -> dict[str, Any]:
    out = await _run(solve_payload, NetworkSpec(), ctx.settings.regulation_edition)
    rows = out["branches"]
    if branches:
        rows = [r for r in rows if r["id"] in set(branches)]
    return {
        "converged": out["converged"],
        "iterations": out["iterations"],
        "residual_q_m3s": out["residual_q"],
        "residual_h_pa": out["residual_h"],
        "branches": [_row(r) for r in rows],
        "fans": out["fans"],
        "reversed": out["reversed"],
        "findings": out["findings"],
    }


async def _what_if(ctx: AgentContext, changes: list[ChangeArg]) -> dict[str, Any]:
    raw = [
        {
            k: v
            for k, v in {
                "action": c.action,
                "branch": c.branch,
                "added_resistance": c.added_resistance,
                "resistance": c.resistance,
                "from": c.from_node,
                "to": c.to_node,
            }.items()
            if v is not None
        }
        for c in changes
    ]
    out = await _run(what_if_payload, WhatIfSpec(changes=raw), ctx.settings.regulation_edition)
    changed = sorted(out["branches"], key=lambda r: -abs(r["dq"] or r["q"]))
    return {
        "changes": out["changes"],
        "converged": out["converged"],
        "iterations": out["iterations"],
        "branches": [_row(r) for r in changed[:SHOWN_BRANCHES] if r["dq"] is None or abs(r["dq"]) >= 0.005],
        "fans": out["fans"],
        "flipped": out["flipped"],
        "diagonal_flips": out["diagonal_flips"],
        "findings": out["findings"],
        "notes": out["notes"],
        "advice": ADVICE,
    }


async def _regulator(
    ctx: AgentContext, branch: str, target_q: float, regulator_branch: str | None
) -> dict[str, Any]:
    out = await _run(regulator_payload, NetworkSpec(), branch, target_q / 60.0, regulator_branch)
    changed = sorted(out["branches"], key=lambda r: -abs(r["dq"]))[:SHOWN_BRANCHES]
    return {
        **{
            k: out[k]
            for k in ("branch", "regulator_branch", "added_resistance", "pressure_drop", "window_area")
        },
        "target_q_m3min": target_q,
        "window_area_formula": out["window_area_formula"],
        "units": {"added_resistance": "N·s²/m⁸", "pressure_drop": "Pa", "window_area": "m²"},
        "branches": [_row(r) for r in changed if abs(r["dq"]) >= 0.005],
        "advice": ADVICE,
    }


async def _diagonal(ctx: AgentContext) -> dict[str, Any]:
    result: dict[str, Any] = await _run(diagonal_payload, NetworkSpec())
    return result


async def _run(func: Any, *args: Any) -> Any:
    try:
        return await asyncio.to_thread(func, *args)
    except (NetworkError, NotConverged) as exc:
        raise ToolFailure("bad_request", str(exc)) from exc


def _row(row: dict[str, Any]) -> dict[str, Any]:
    out = {"id": row["id"], "q_m3s": round(row["q"], 3), "q_m3min": round(row["q"] * 60, 1)}
    if "h" in row:
        out["h_pa"] = round(row["h"], 2)
    if row.get("q_before") is not None:
        out["q_before_m3min"] = round(row["q_before"] * 60, 1)
        out["dq_m3min"] = round(row["dq"] * 60, 1)
    return out


def network_tools() -> list[BaseTool]:
    """The four network tools (over the mine's network; none of them changes anything in the mine)."""
    return [
        context_tool(
            "network_solve",
            "通风网络解算（矿井通风网络）：各分支（巷道）风量 m³/s 与 m³/min、风压，主要通风机工况点，反向分支，"
            "以及按需风量、表6风速、局部通风机吸风量的判定（含条款）。回答风量分配、风流方向问题时调用。",
            SolveArgs,
            _solve,
        ),
        context_tool(
            "network_what_if",
            "模拟调整后的通风网络（关闭/打开风门、设置调节风窗、停止/开启/更换风机、新增/拆除分支）：各分支风量变化、"
            "风流反向与角联分支风向反转、风机新工况点、低于需风量或风速超限的分支及条款。仅为模拟，不操作任何设施；"
            "调整建议须经人员审批。回答“如果……会怎样”时调用，并用其数字作答。",
            WhatIfArgs,
            _what_if,
        ),
        context_tool(
            "regulator_size",
            "调节风窗计算：使某分支风量降到目标值（m³/min）所需的附加风阻 ΔR、风窗压降与风窗面积（《通风安全学》公式），"
            "以及对其他分支的影响。仅为计算，设置须经审批。",
            RegulatorArgs,
            _regulator,
        ),
        context_tool(
            "diagonal_branches",
            "列出矿井通风网络中的角联分支（风向取决于其他分支风阻、易反向的分支）及其当前风量。",
            NoArgs,
            _diagonal,
        ),
    ]
