"""The measured air volume of a tunnel that is not a heading (a coal face, a chamber, an airway) against
what it must carry: 4 m³/min per person and per kW of diesel power (煤矿安全规程 第159条), and the plan's
required air volume (需风量) when the data carries one; the plan's allocation (配风量) is stated beside it
with the measured share, never judged (an allocation is a distribution, not a requirement). A heading's
air is judged in :mod:`vent_agent.interpret.heading` (its fans' delivery, the fan site's requirement).
"""

from __future__ import annotations

from vent_agent.interpret.assess import Assessment, Rule, assess, threshold_rules
from vent_agent.kb.thresholds import ThresholdTable
from vent_agent.review.findings import Severity
from vent_agent.upstream.models import Tunnel

MEASURE_MARGIN = 0.10
"""How far below the required air volume a measured one (60·v·S from one wind-speed point and a nominal
section) may be before it is called short rather than to be re-measured *(practice, as the heading's
fan-delivery check)*."""
REMEASURE = "风量略低于需风量（在测量误差范围内）：按测风规定复测该地点风量，确认后调节"
REQUIRED_ACTION = (
    "风量低于需风量：调节通风设施（调节风窗、风门）增加该地点风量，查明原因前必要时停止作业并撤出人员"
)


def air_volume_assessment(tunnel: Tunnel, wind_speed: float, table: ThresholdTable) -> Assessment:
    """Q = 60·v·S (m³/min) of ``tunnel`` from its measured ``wind_speed`` (m/s) and section (m²), against
    4 m³/min per person (``max_workers``) and per kW of diesel power (``diesel_kw``) (第159条) and the
    plan's ``required_q`` (m³/min; a ``breach`` of severity major below it); the plan's ``allocated_q``
    is given in the basis with the measured share."""
    q = 60.0 * wind_speed * tunnel.area
    basis = [f"Q = 60 × v × S = 60 × {wind_speed:g} × {tunnel.area:g} = {q:.1f} m³/min"]
    rules: list[Rule] = []
    for key, n, what in (
        ("air_per_person", tunnel.max_workers, "人"),
        ("air_per_kw", tunnel.diesel_kw, "kW"),
    ):
        if n:
            t = table.get(key)
            rules += threshold_rules(t, factor=n, unit="m³/min")
            basis.append(f"按 {n:g} {what} × {t.limit:g} {t.unit} 需 ≥ {t.limit * n:g} m³/min")
    if tunnel.required_q:
        # below the requirement by more than a point reading's uncertainty: a breach; within it: re-measure
        short = round(tunnel.required_q * (1 - MEASURE_MARGIN), 1)
        rules += [
            Rule(
                None,
                short,
                "<",
                "m³/min",
                "breach",
                Severity.MAJOR,
                REQUIRED_ACTION,
                None,
                "需风量（配风计划）",
            ),
            Rule(
                None,
                tunnel.required_q,
                "<",
                "m³/min",
                "warning",
                Severity.MINOR,
                REMEASURE,
                None,
                "需风量（配风计划）",
            ),
        ]
        basis.append(
            f"配风计划需风量 {tunnel.required_q:g} m³/min（低于其 {MEASURE_MARGIN:.0%} 以内为预警：单点风速折算的风量有此误差，"
            f"应复测；低于 {short:g} m³/min 为超限）"
        )
    else:
        basis.append("数据未提供配风计划需风量，仅按人数与柴油设备功率核验（下限）")
    if tunnel.allocated_q:
        share = q / tunnel.allocated_q
        basis.append(f"配风计划配风量 {tunnel.allocated_q:g} m³/min，实测为其 {share:.0%}")
    return assess("measured_q", "风量", round(q, 1), "m³/min", rules, basis="；".join(basis))
