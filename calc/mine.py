"""Mine total required air volume (矿井总需风量), DOMAIN §2.5. Units: m³/min."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from calc import formatting as fmt
from calc.builder import bound_check, choice_coefficient, make_result, max_result
from calc.result import CalcResult, MaxResult
from calc.tables import DEFAULT_TABLES, PRACTICE, CoefficientTables
from calc.validate import count, named_numbers, positive, text


def calc_total_air_volume(
    *,
    location_qs: Mapping[str, float] | Sequence[float],
    k_mine: float | None = None,
    fan_mode: str | None = None,
    max_people_underground: int | None = None,
    capacity: float | None = None,
    tables: CoefficientTables = DEFAULT_TABLES,
) -> MaxResult:
    """Mine total: ``Q_mine = max(ΣQ·k_mine, 4·N·k_mine)``, N the most people underground (m³/min;
    docs/DOMAIN.md §2.5: AQ 1056 writes both methods with the factor k_mine).

    ``location_qs``: every location's required Q (m³/min), by name or as a list. ``k_mine``: given, or
    the midpoint for ``fan_mode`` (``exhausting``/抽出式 1.15–1.20, ``forcing``/压入式 1.25–1.30); a given
    k_mine is checked against the fan mode's range. ``max_people_underground`` N adds the per-person
    method; ``capacity`` (m³/min, the mine's ventilation capacity) adds a check ``Q_mine ≤ capacity``
    beside the maximum. Raises CalcInputError for an empty or negative list, k_mine ≤ 0, an unknown fan
    mode, neither k_mine nor fan mode, a negative N, a non-positive capacity.
    Source: 《煤矿安全规程》第159条; k_mine ranges: practice.
    """
    qs = named_numbers("location_qs", location_qs)
    mode = None if fan_mode is None else text("fan_mode", fan_mode)
    k = choice_coefficient("k_mine", k_mine, "k_mine", tables.k_mine, "fan_mode", mode)
    total = sum(qs.values())
    article = tables.article("air_per_person")
    by_locations: CalcResult = make_result(
        raw=total * k.value,
        method="calc_total_air_volume.by_locations",
        method_cn="按各用风地点需风量之和计算",
        formula="Q_mine = ΣQ·k_mine",
        preamble=[f"ΣQ = {' + '.join(fmt.q(v) for v in qs.values())} = {fmt.q(total)} m³/min"],
        lhs="Q_mine",
        expression=f"{fmt.q(total)} × {fmt.coef(k.value)}",
        inputs={f"Q[{name}]": v for name, v in qs.items()} | {"fan_mode": mode},
        coefficients=[k],
        source=f"{article}；矿井需风系数：{PRACTICE}",
    )
    results = [by_locations]
    if max_people_underground is not None:
        n = count("max_people_underground", max_people_underground)
        per = tables.constants.air_per_person
        results.append(
            make_result(
                raw=per * n * k.value,
                method="calc_total_air_volume.by_people",
                method_cn="按井下同时工作最多人数计算",
                formula=f"Q_mine = {fmt.num(per)}·N·k_mine",
                lhs="Q_mine",
                expression=f"{fmt.num(per)} × {n} × {fmt.coef(k.value)}",
                inputs={"max_people_underground": n},
                coefficients=[k],
                source=f"{article}；AQ 1056-2008",
            )
        )
    value = max(r.value for r in results)
    checks = []
    if capacity is not None:
        cap = positive("capacity", capacity)
        checks.append(
            bound_check(
                "capacity",
                value,
                None,
                cap,
                formula="Q_mine ≤ 矿井通风能力",
                source=f"{tables.article('capacity')} 严禁超通风能力生产",
                near=tables.constants.near_bound,
                label="Q_mine",
            )
        )
    return max_result(
        method="calc_total_air_volume",
        method_cn="矿井总需风量",
        results=results,
        inputs={
            "location_count": len(qs),
            "sum_q": fmt.round_half_up(total),
            "k_mine": k_mine,
            "fan_mode": mode,
            "max_people_underground": max_people_underground,
            "capacity": capacity,
        },
        source=f"{article}；矿井需风系数：{PRACTICE}",
        checks=checks,
    )
