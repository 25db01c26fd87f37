"""The oracles of the figures an answer states: ``calc/`` for calculations (the calculator named, on the
case's inputs), the mine's data for data questions (the same ventilation source the service answers
from; offline the demo mine at a fixed clock, so the recorded answers stay right) and the network solve
for network questions (the demo mine's network, solved as the service's network tools solve it)."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from calc.catalog import CATALOG
from vent_agent.evals.cases import CalcOracle, DataOracle, NetworkOracle
from vent_agent.network.requests import NetworkSpec, WhatIfSpec
from vent_agent.network.service import regulator_payload, solve_payload, what_if_payload
from vent_agent.upstream.base import VentilationSource
from vent_agent.upstream.demo_mine import DemoMine
from ventnet import NetworkError, NotConverged

EVAL_CLOCK = datetime(2026, 8, 15, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))
"""The demo mine's clock in offline runs (mine time): the latest hourly readings are those of this hour."""


class OracleError(ValueError):
    """A case names an oracle that does not exist (calculator, tunnel, device or field); Chinese message."""


def fixed_demo_mine() -> DemoMine:
    """The demo mine with its clock stopped at :data:`EVAL_CLOCK`."""
    return DemoMine(now=lambda: EVAL_CLOCK)


def calc_value(oracle: CalcOracle) -> float:
    """The result ``value`` of calculator ``oracle.calc`` on ``oracle.args`` (its unit: m³/min for air
    volumes). Raises :class:`OracleError` for an unknown calculator or inputs it refuses."""
    info = CATALOG.get(oracle.calc)
    if info is None:
        raise OracleError(f"未知计算器 {oracle.calc}")
    try:
        return float(info.func(**oracle.args).value)
    except (TypeError, ValueError) as exc:
        raise OracleError(f"计算器 {oracle.calc} 不接受用例参数：{exc}") from exc


async def data_value(source: VentilationSource, oracle: DataOracle) -> float:
    """The figure ``oracle`` names in ``source``: a tunnel's field, a device's latest reading of quantity
    ``field``, or a main fan's rated ``field``. Raises :class:`OracleError` when it is not there."""
    try:
        if oracle.kind == "tunnel":
            value = getattr((await source.query_tun_data_by_id(oracle.id)).tunnel, oracle.field, None)
        elif oracle.kind == "reading":
            value = (await source.query_device_realtime_data(oracle.id)).values.get(oracle.field)
        else:
            rated = (await source.query_device_data_by_id(oracle.id)).device.rated
            value = getattr(rated, oracle.field, None) if rated is not None else None
    except LookupError as exc:
        raise OracleError(f"数据中没有 {oracle.id}：{exc}") from exc
    if not isinstance(value, int | float):
        raise OracleError(f"{oracle.id} 没有数值字段 {oracle.field}")
    return float(value)


def network_value(oracle: NetworkOracle) -> float:
    """The figure ``oracle`` names in the demo mine's network solve (see :class:`NetworkOracle`): a flow
    in m³/min (unsigned) or a regulator's ΔR (N·s²/m⁸), drop (Pa) or window area (m²). Raises
    :class:`OracleError` for a branch the network does not have, a change or sizing the solver refuses."""
    try:
        if oracle.target_q is not None:
            sizing = regulator_payload(
                NetworkSpec(), oracle.branch, oracle.target_q / 60.0, oracle.regulator_branch
            )
            return float(sizing[oracle.field])
        if oracle.changes:
            rows = what_if_payload(WhatIfSpec(changes=oracle.changes))["branches"]
        else:
            rows = solve_payload(NetworkSpec())["branches"]
    except (NetworkError, NotConverged) as exc:
        raise OracleError(f"通风网络解算不接受用例：{exc}") from exc
    row = next((r for r in rows if r["id"] == oracle.branch), None)
    value = None if row is None else row.get(oracle.field)
    if value is None:
        raise OracleError(f"通风网络解算中没有分支 {oracle.branch} 的 {oracle.field}")
    return abs(float(value)) * 60.0
