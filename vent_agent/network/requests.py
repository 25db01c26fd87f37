"""What ``POST /api/network/solve`` and ``/what-if`` and the agent's network tools accept, and how it
becomes a network: a topology CSV's text or a list of branches (posed as the benchmark networks are,
with or without a total airflow), or nothing: the demo mine's network, each tunnel with its 表6 class
and planned air from the mine data."""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, FiniteFloat

from vent_agent.network.demo import demo_network
from vent_agent.upstream.demo_mine import DemoMine
from ventnet import Branch, FanCurve, Network, NetworkError
from ventnet.changes import Change
from ventnet.csv_topology import pose, read_topology


class FanSpec(BaseModel):
    """A fan curve ``h = a0 + a1·Q + a2·Q²`` (Pa, Q m³/s) and its range (m³/s)."""

    model_config = ConfigDict(extra="forbid")
    a0: float
    a1: float = 0.0
    a2: float = 0.0
    q_min: float | None = None
    q_max: float | None = None


class BranchSpec(BaseModel):
    """One branch: ``id``, ``from``, ``to``, resistance ``r`` and added ``adjust_r`` (N·s²/m⁸), a fan,
    a fixed quantity (m³/s), the net area (m²), the 表6 class and the required air (m³/min)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    id: str = Field(min_length=1)
    from_node: str = Field(alias="from", min_length=1)
    to_node: str = Field(alias="to", min_length=1)
    r: float = Field(ge=0)
    adjust_r: float = Field(default=0.0, ge=0)
    fan: FanSpec | None = None
    fixed_q: float | None = None
    area: float | None = Field(default=None, gt=0)
    roadway_class: str | None = None
    required_q: float | None = Field(default=None, ge=0, description="m³/min")
    name: str = ""


class NetworkSpec(BaseModel):
    """The network of a request: ``topology_csv`` (the benchmark CSV's text) or ``branches``, or neither
    for the demo mine; ``total_airflow`` (m³/s) poses it with air entering at the nodes without inflow
    and leaving at those without outflow (else the fans drive it between atmosphere nodes)."""

    model_config = ConfigDict(extra="forbid")
    topology_csv: str | None = None
    branches: list[BranchSpec] | None = Field(default=None, min_length=1)
    total_airflow: float | None = Field(default=None, gt=0)


class WhatIfSpec(NetworkSpec):
    """A network and the changes to try on it, each ``{"action", "branch", …}`` (ventnet.changes)."""

    changes: list[dict[str, Any]] = Field(min_length=1, max_length=50)

    def parsed_changes(self) -> list[Change]:
        """The changes; :class:`NetworkError` (Chinese) for one that does not parse."""
        return [Change.from_json(change) for change in self.changes]


MAX_MEASUREMENTS = 5000
"""Most measured flows, or drops, a survey fit accepts."""


class FitSpec(NetworkSpec):
    """A network and a survey of it (通风阻力测定) to fit its resistances to: ``measured_q`` branch id →
    flow (m³/s), ``measured_h`` branch id → drop ``p(from) − p(to)`` (Pa, negative along the flow), their
    standard errors and the weak pull towards the present state (ventnet.survey)."""

    measured_q: dict[str, FiniteFloat] = Field(default_factory=dict, max_length=MAX_MEASUREMENTS)
    measured_h: dict[str, FiniteFloat] = Field(default_factory=dict, max_length=MAX_MEASUREMENTS)
    q_error: float = Field(default=0.05, gt=0, le=100, description="风量测定标准误差 m³/s")
    h_error: float = Field(default=1.0, gt=0, le=1000, description="压差测定标准误差 Pa")
    regularisation: float = Field(default=1e-3, gt=0, le=1, description="向现有状态的弱约束权重")


def build_network(spec: NetworkSpec) -> tuple[Network, str]:
    """The network a request names and where it came from (``"request"`` or ``"demo"``); raises
    :class:`NetworkError` (Chinese) when it cannot be posed."""
    if spec.topology_csv is not None and spec.branches is not None:
        raise NetworkError("topology_csv 与 branches 只能给出其一")
    if spec.topology_csv is not None:
        return pose(read_topology(spec.topology_csv), spec.total_airflow), "request"
    if spec.branches is not None:
        return pose([_branch(b) for b in spec.branches], spec.total_airflow), "request"
    if spec.total_airflow is not None:
        raise NetworkError("示范矿井网络由主要通风机驱动，不接受 total_airflow")
    return demo_mine_network(), "demo"


@lru_cache(maxsize=1)
def demo_mine_network() -> Network:
    """The demo mine's network, each tunnel with its 表6 class and its planned air (the plan's required
    air where it states one, else its allocation; m³/s) from the demo mine data."""
    tunnels = DemoMine().tunnels
    branches = []
    for b in demo_network().branches:
        tunnel = tunnels.get(b.id)
        if tunnel is not None:
            planned = tunnel.required_q or tunnel.allocated_q
            b = replace(b, roadway_class=tunnel.roadway_class, required_q=planned / 60.0 if planned else None)
        branches.append(b)
    return demo_network().with_branches(branches)


def _branch(spec: BranchSpec) -> Branch:
    fan = FanCurve(**spec.fan.model_dump()) if spec.fan else None
    return Branch(
        id=spec.id,
        from_node=spec.from_node,
        to_node=spec.to_node,
        resistance=spec.r,
        added_resistance=spec.adjust_r,
        fan=fan,
        fixed_q=spec.fixed_q,
        area=spec.area,
        kind="fan" if fan else "roadway",
        name=spec.name,
        roadway_class=spec.roadway_class,
        required_q=spec.required_q / 60.0 if spec.required_q is not None else None,
    )
