"""One finding per root fault (docs/DOMAIN.md §5): a location's root fault and what follows from it.

A wrong input or method at a location (an input contradicted by reference data, a coefficient out of range, a method recomputed higher, an
arithmetic slip in the governing method, the maximum not taken) lowers the location's requirement; the
lower requirement leaves the allocation short, a standby face's requirement short (50 % of it) and the
mine total low. Those are consequences, listed under the root finding, which takes the severity of the
worst of them; they are not separate majors.

A major or critical finding that no other finding follows from still says what it leads to: its rule's
effect (:data:`EFFECTS`, one for every rule that can be major or critical), added by
:func:`with_effects`.
"""

from __future__ import annotations

from vent_agent.review.findings import SEVERITY_ORDER, Consequence, Finding, Severity

ROOT_ORDER = (
    "calc.reference_input",
    "calc.coefficient_range",
    "calc.method_coefficient",
    "calc.arithmetic",
    "calc.max_not_taken",
    "calc.required_low",
    "calc.allocation_short",
)
"""Rules that can be a location's root fault, the most basic first."""
FOLLOWS = frozenset(
    {"calc.max_not_taken", "calc.required_low", "calc.allocation_short", "calc.allocated_speed"}
)
"""Rules that follow from a root fault at the same location (a lower maximum, an allocation short)."""
_SERIOUS = (Severity.CRITICAL, Severity.MAJOR)


def as_consequence(f: Finding) -> Consequence:
    """A finding recast as a consequence of another."""
    return Consequence(
        rule_id=f.rule_id or "",
        location=f.location,
        severity=f.severity,
        message=f.message,
        figures=f.figures,
        page=f.page,
    )


def worst(*severities: Severity) -> Severity:
    """The most severe of ``severities``."""
    return min(severities, key=lambda s: SEVERITY_ORDER[s])


def with_consequences(root: Finding, consequences: list[Consequence]) -> Finding:
    """``root`` with ``consequences`` appended, at the severity of the worst."""
    if not consequences:
        return root
    sev = worst(root.severity, *(c.severity for c in consequences))
    return root.model_copy(update={"consequences": [*root.consequences, *consequences], "severity": sev})


def root_of(findings: list[Finding]) -> Finding | None:
    """The root fault among one location's findings: the most basic serious finding of
    :data:`ROOT_ORDER`, or None."""
    serious = [f for f in findings if f.rule_id in ROOT_ORDER and f.severity in _SERIOUS]
    return min(serious, key=lambda f: ROOT_ORDER.index(f.rule_id or ""), default=None)


def consolidate(findings: list[Finding]) -> list[Finding]:
    """One location's findings with the followers of its root fault folded into it (order kept, the
    root where it stood)."""
    root = root_of(findings)
    if root is None:
        return findings
    followers = [f for f in findings if f is not root and f.rule_id in FOLLOWS]
    folded = with_consequences(root, [as_consequence(f) for f in followers])
    return [folded if f is root else f for f in findings if not any(f is x for x in followers)]


def attach(findings: list[Finding], location: str, consequence: Consequence) -> bool:
    """Append ``consequence`` to the root finding of ``location`` in ``findings`` (in place); False when
    the location has no root finding."""
    here = [f for f in findings if f.location == location]
    root = root_of(here)
    if root is None:
        return False
    i = next(i for i, f in enumerate(findings) if f is root)
    findings[i] = with_consequences(root, [consequence])
    return True


MISMATCH_OF_TOOL = {
    "query_gas_identification_report": "data.gas_emission",
    "query_working_face_procedure": "data.procedure_parameter",
    "query_ventilation_report": "data.climate_speed",
}
"""Reference tool whose figure replaced a plan input → the data-checker's rule for that mismatch."""


def fold_reference_mismatches(reviewers_findings: list[list[Finding]]) -> list[list[Finding]]:
    """One finding per contradicted input across reviewers: where the calc-verifier recomputed a location
    with a reference figure (``calc.reference_input``, which states both figures), the data-checker's
    mismatch finding on that input at that location is listed under it as a consequence instead of
    standing as a second major. ``reviewers_findings``: each reviewer's findings; returns them folded
    (order kept)."""
    roots = [f for fs in reviewers_findings for f in fs if f.rule_id == "calc.reference_input"]
    if not roots:
        return reviewers_findings
    wanted: dict[tuple[str | None, str], int] = {}
    for i, root in enumerate(roots):
        for ev in root.evidence:
            rule_id = MISMATCH_OF_TOOL.get(str(ev.detail.get("tool"))) if ev.kind == "reference" else None
            if rule_id:
                wanted[root.location, rule_id] = i
    folded: dict[int, list[Consequence]] = {}
    out: list[list[Finding]] = []
    for fs in reviewers_findings:
        kept: list[Finding] = []
        for f in fs:
            root_no = wanted.get((f.location, f.rule_id or ""))
            if root_no is None:
                kept.append(f)
            else:
                folded.setdefault(root_no, []).append(as_consequence(f))
        out.append(kept)
    by_id = {id(root): with_consequences(root, folded.get(i, [])) for i, root in enumerate(roots)}
    return [[by_id.get(id(f), f) for f in fs] for fs in out]


_SHORT_OF_AIR = "按计划配风该地点可能风量不足"
_SPEED_OUT = "风速过低易积聚瓦斯、粉尘，过高则扬尘并影响人员作业"
_NO_BASIS = "该地点需风量无计算依据，配风量是否足够无法校核"
EFFECTS: dict[str, str] = {
    "calc.arithmetic": f"改正后的计算结果高于所取需风量：需风量取低，{_SHORT_OF_AIR}",
    "calc.method_coefficient": f"按规定系数核算的结果高于所取需风量：需风量取低，{_SHORT_OF_AIR}",
    "calc.coefficient_range": f"系数低于规定范围，需风量被低估，{_SHORT_OF_AIR}",
    "calc.reference_input": f"需风量按与参考数据不符的输入算出而偏低，{_SHORT_OF_AIR}",
    "calc.max_not_taken": f"所取需风量低于控制方法的结果，该方法所针对的瓦斯、温度、人数等条件得不到足够风量，{_SHORT_OF_AIR}",
    "calc.required_low": f"所取需风量低于核算最大值，{_SHORT_OF_AIR}",
    "calc.required_missing": _NO_BASIS,
    "calc.allocation_short": "配风量小于需风量，该地点风量不足，瓦斯、粉尘或温度可能超限",
    "calc.speed_bounds": f"按需风量通风时风速超出规程允许范围：{_SPEED_OUT}",
    "calc.allocated_speed": f"按配风量通风时风速超出规程允许范围：{_SPEED_OUT}",
    "calc.total_low": "矿井总需风量偏低，主要通风机供风和各地点的风量分配缺少余量，部分地点可能风量不足",
    "calc.capacity_exceeded": "矿井总需风量超过通风能力，现有通风系统供不上计划风量",
    "calc.k_mine_range": "矿井需风系数低于规定范围，漏风和风量调节的备用未足额计入，矿井总需风量偏低",
    "data.location_missing": "该采掘地点没有需风量计算和配风，作业时无计划风量可依，可能风量不足",
    "data.location_stale": "已停止的采掘地点仍占用配风，风量分配与现场不符，其他地点的风量可能被挤占",
    "data.gas_emission": "按瓦斯涌出量计算的需风量失去依据；涌出量取低时，风量可能不足以把瓦斯稀释到规定浓度以下",
    "data.procedure_parameter": f"据此计算的需风量失去依据；参数取小时需风量偏低，{_SHORT_OF_AIR}",
    "data.climate_speed": "按气象条件计算的需风量失去依据；风速取低时工作面降温所需风量不足",
    "data.backcalc_emission": "按报告值计算的需风量可能不足以稀释实际涌出的瓦斯，回风流瓦斯浓度有超限危险",
    "limit.gas_concentration": "甲烷或二氧化碳浓度已达规程限值，继续作业有瓦斯燃烧、爆炸或人员窒息的危险",
    "limit.wind_speed": f"风速超出规程允许范围：{_SPEED_OUT}",
    "limit.temperature": "温度超过规程规定，作业人员有中暑危险，须缩短工时、采取降温措施或停止作业",
    "form.approval_missing": "计划未经总工程师批准，不能作为本月配风的执行依据",
    "form.review_chain": "配风计算与分配未经技术负责人（通风副总工程师）把关",
    "form.calculation_missing": _NO_BASIS,
    "form.allocation_missing": "该地点没有配风量，执行中得不到计划风量，可能风量不足",
    "form.conflicting_versions": "生效版本不明，现场可能按未经审查的版本配风",
}  # fmt: skip
"""What a major or critical finding of each rule leads to in the mine (Chinese, one clause or two, no
figures: the finding's message has them), for a finding that no other finding follows from. Every rule
of the catalogue that can be major or critical has one (``Rule.can_be_serious``; a test keeps it so)."""


def with_effects(findings: list[Finding]) -> list[Finding]:
    """``findings`` with each major or critical one that lists no consequence given its rule's effect
    (:data:`EFFECTS`) as its consequence, at its own severity and location (order kept)."""
    out = []
    for f in findings:
        effect = EFFECTS.get(f.rule_id or "")
        if f.severity in _SERIOUS and not f.consequences and effect:
            c = Consequence(rule_id=f.rule_id or "", location=f.location, severity=f.severity, message=effect)
            f = f.model_copy(update={"consequences": [c]})
        out.append(f)
    return out
