"""Comparing one value with its limits: rules from regulation thresholds and device alarm limits, the
status of a value (ok / warning / breach), and the :class:`Assessment` the interpretation shows.

A :class:`Rule` is one comparison with what it means: a regulation :class:`Threshold` gives a breach
rule (and a warning rule at its ``warn_at``), a device :class:`AlarmLimit` gives a warning rule
(level ``warning``) or a breach rule (``alarm``, ``power_cut``). A value's status is ``breach`` when a
breach rule holds, else ``warning`` when a warning rule holds, else ``ok``; the governing rule is the
worst that holds (highest severity, then the farthest limit), or, when none holds, the nearest limit.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Literal

from pydantic import BaseModel

from vent_agent.kb.thresholds import (
    BreachOp,
    Threshold,
    allowed_text,
    breach_text,
    fmt_number,
    is_upper_limit,
    op_holds,
)
from vent_agent.review.findings import SEVERITY_ORDER, Severity
from vent_agent.upstream.models import AlarmLimit, reading_text

Status = Literal["ok", "warning", "breach"]
Level = Literal["warning", "breach"]
STATUS_RANK: dict[str, int] = {"ok": 0, "warning": 1, "breach": 2}
STATUS_CN: dict[str, str] = {"ok": "正常", "warning": "预警", "breach": "超限"}
DEVICE_LIMIT_SOURCE = "设备报警限值"

_LEVEL_SEVERITY = {"warning": Severity.MINOR, "alarm": Severity.MAJOR, "power_cut": Severity.CRITICAL}
_DEVICE_ACTIONS: dict[str, str] = {
    "bearing_temp": "轴承温度异常：立即报告矿调度室，检查润滑与冷却，必要时倒换备用通风机",
    "vibration": "振动超限：立即报告矿调度室，检查叶轮、轴承与地脚螺栓，必要时倒换备用通风机",
    "air_volume": "风量低于设定值：检查叶片角度、风硐及井口漏风，核对矿井供风能力",
    "negative_pressure": "负压异常：检查风硐、井下通风系统（风门、冒顶堵塞或短路）",
    "motor_current": "电机电流超限：检查电机负载与供电，必要时倒换备用设备",
    "power": "电机功率超限：检查运行工况与供电",
    "ch4": "甲烷超过传感器报警/断电值：核查断电范围与甲烷电闭锁动作",
    "co": "一氧化碳达到报警值：查明来源，撤出受影响人员",
    "wind_speed": "风速低于报警值：检查风门、调节设施与局部通风",
}


@dataclass(frozen=True)
class Rule:
    """One comparison: in breach (``level`` breach) or early warning (``level`` warning) when
    ``value breach_op limit``. ``article`` is the cited label (None for device limits); ``source`` says
    where the limit comes from (the article label or ``设备报警限值``); ``threshold_key`` the regulation
    threshold it derives from (None for device limits)."""

    threshold_key: str | None
    limit: float
    breach_op: BreachOp
    unit: str
    level: Level
    severity: Severity
    action: str
    article: str | None
    source: str

    def holds(self, value: float) -> bool:
        """True when ``value`` crosses this rule's limit."""
        return op_holds(value, self.breach_op, self.limit)

    def excess(self, value: float) -> float:
        """How far ``value`` lies beyond the limit on the breach side, relative to the limit
        (negative when on the allowed side)."""
        scale = abs(self.limit) or 1.0
        return (
            (value - self.limit) / scale if is_upper_limit(self.breach_op) else (self.limit - value) / scale
        )


def threshold_rules(t: Threshold, *, factor: float = 1.0, unit: str | None = None) -> list[Rule]:
    """The breach rule of ``t`` (and its warning rule at ``warn_at``), the limit multiplied by
    ``factor`` (e.g. 4 m³/min per kW × 140 kW) and given in ``unit`` (default: the threshold's)."""
    label = t.article_label()
    u = t.unit if unit is None else unit
    rules = [Rule(t.key, t.limit * factor, t.breach_op, u, "breach", t.severity, t.action, label, label)]
    if t.warn_at is not None:
        action = f"接近规程限值（{breach_text(t.breach_op, t.limit * factor, u)}）：加强监测，查明原因，提前采取措施"
        rules.append(
            Rule(t.key, t.warn_at * factor, t.breach_op, u, "warning", t.severity, action, label, label)
        )
    return rules


def alarm_limit_rule(lim: AlarmLimit, quantity_label: str) -> Rule:
    """A device alarm limit as a rule: ``warning`` → warning; ``alarm``/``power_cut`` → breach."""
    level: Level = "warning" if lim.level == "warning" else "breach"
    action = _DEVICE_ACTIONS.get(
        lim.quantity, f"{quantity_label}超过设备报警限值：立即报告矿调度室，查明原因并处理"
    )
    return Rule(
        None,
        lim.limit,
        lim.breach_op,
        lim.unit,
        level,
        _LEVEL_SEVERITY[lim.level],
        action,
        None,
        DEVICE_LIMIT_SOURCE,
    )


def evaluate(value: float, rules: Sequence[Rule]) -> tuple[Status, Rule | None]:
    """The status of ``value`` under ``rules`` and the governing rule (None when there are no rules)."""
    worst_first: tuple[Level, ...] = ("breach", "warning")
    for status in worst_first:  # a rule's level is the status it gives
        held = [r for r in rules if r.level == status and r.holds(value)]
        if held:
            # worst: highest severity, then the limit farthest into the breach side (the smallest excess)
            return status, min(held, key=lambda r: (SEVERITY_ORDER[r.severity], r.excess(value)))
    breach_rules = [r for r in rules if r.level == "breach"]
    if not breach_rules:
        return "ok", None
    return "ok", max(breach_rules, key=lambda r: r.excess(value))


def reported_limit(rule: Rule, rules: Sequence[Rule]) -> Rule:
    """The breach rule to report for a governing ``rule``: itself for a breach rule; for a warning
    rule, the nearest breach rule on the same side (the limit the warning anticipates), or itself when
    there is none."""
    if rule.level == "breach":
        return rule
    side = is_upper_limit(rule.breach_op)
    same = [r for r in rules if r.level == "breach" and is_upper_limit(r.breach_op) == side]
    return min(same, key=lambda r: abs(r.limit - rule.limit), default=rule)


def allowed_bounds(rules: Iterable[Rule]) -> tuple[Rule | None, Rule | None]:
    """The breach rules bounding the allowed range: the highest lower limit and the lowest upper limit
    (None for a side without one), e.g. 表6's 0.25 and 4 m/s of a heading's wind speed."""
    breach = [r for r in rules if r.level == "breach"]
    uppers = [r for r in breach if is_upper_limit(r.breach_op)]
    lowers = [r for r in breach if not is_upper_limit(r.breach_op)]
    return max(lowers, key=lambda r: r.limit, default=None), min(uppers, key=lambda r: r.limit, default=None)


def limit_text(rules: Iterable[Rule], unit: str) -> str:
    """The allowed range of the breach rules (:func:`allowed_bounds`) as an engineer writes it:
    ``0.25–6 m/s``, ``< 1.0 %``, ``≥ 560 m³/min``; ``—`` when there is none."""
    lo, hi = allowed_bounds(rules)
    if hi and lo:
        return f"{fmt_number(lo.limit, unit)}–{fmt_number(hi.limit, unit)} {unit}".strip()
    one = hi or lo
    return allowed_text(one.breach_op, one.limit, unit) if one else "—"


class Assessment(BaseModel):
    """One measured (or derived) value against its limits.

    ``quantity`` (glossary name) with Chinese ``label``; ``device_id``/``point`` the measuring device
    and its position (None for a derived value such as Q = 60·v·S); ``value`` in ``unit`` and
    ``value_text`` as shown (:func:`~vent_agent.upstream.models.reading_text`); ``limit``/``breach_op`` the governing limit (the one crossed; when ok, the
    nearest; for a warning, the limit it anticipates, with ``warn_at`` the warning value crossed);
    ``limit_text`` the allowed range; ``status`` ok/warning/breach; ``severity``, ``article`` (label,
    None for a device limit), ``source`` and ``action`` of the governing rule (``action`` empty when
    ok), ``threshold_key`` its regulation threshold (None for a device limit); ``basis`` how the value or
    the limit was obtained.
    """

    quantity: str
    label: str
    device_id: str | None = None
    point: str | None = None
    value: float | None
    value_text: str
    unit: str
    limit: float | None = None
    breach_op: BreachOp | None = None
    warn_at: float | None = None
    limit_text: str = "—"
    status: Status
    severity: Severity | None = None
    article: str | None = None
    source: str | None = None
    action: str = ""
    threshold_key: str | None = None
    basis: str = ""


def assess(
    quantity: str,
    label: str,
    value: float | None,
    unit: str,
    rules: Sequence[Rule],
    *,
    device_id: str | None = None,
    point: str | None = None,
    basis: str = "",
    value_text: str | None = None,
) -> Assessment:
    """Assess ``value`` against ``rules`` (see :func:`evaluate`). A missing value is a warning
    (“无数据”: check the sensor and its transmission)."""
    assessment = partial(
        Assessment, quantity=quantity, label=label, unit=unit, device_id=device_id, point=point
    )
    if value is None:
        return assessment(
            value=None,
            value_text="无数据",
            limit_text=limit_text(rules, unit),
            status="warning",
            action="无监测数据：检查传感器及数据传输",
            basis=basis,
        )
    status, rule = evaluate(value, rules)
    shown = reported_limit(rule, rules) if rule else None
    return assessment(
        value=value,
        value_text=value_text or reading_text(value, quantity, unit),
        limit=shown.limit if shown else None,
        breach_op=shown.breach_op if shown else None,
        warn_at=rule.limit if rule and rule.level == "warning" else None,
        limit_text=limit_text(rules, unit),
        status=status,
        severity=rule.severity if rule and status != "ok" else None,
        article=rule.article if rule else None,
        source=rule.source if rule else None,
        action=rule.action if rule and status != "ok" else "",
        threshold_key=rule.threshold_key if rule else None,
        basis=basis,
    )
