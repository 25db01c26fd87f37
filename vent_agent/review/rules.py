"""The catalogue of review rules: every rule a plan review applies, under a stable id (docs/DOMAIN.md §5).

Each :class:`Rule` has its id (``calc.max_not_taken``), a Chinese title, its category, its default
severity and the Chinese text of its severity rule, its tolerance, and its sources by location kind
(``faces and headings`` 第159条, ``charging`` 第186条, ``chamber_heat`` 第187条 …). Regulation articles are
kept in the numbering of edition 2025 and cited in the edition the review uses (the 2016 number through
:class:`vent_agent.kb.aliases.ArticleAliases`), always in one format: :func:`cite_article`.

``docs/REVIEW_RULES.md`` lists the catalogue; ``tests/test_review_rules_doc.py`` keeps the two equal.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from calc.tables import DEFAULT_TABLES
from vent_agent.kb.aliases import ArticleAliases
from vent_agent.kb.thresholds import article_label
from vent_agent.review.findings import Category, Severity

AQ1056 = "AQ 1056-2008《煤矿通风能力核定标准》"
PRACTICE = "工程实践"
PLAN_RULES = "月度配风计划编制要求"
DEFAULT_EDITION = "2025"


@dataclass(frozen=True)
class Clause:
    """A source of a rule: an article of 《煤矿安全规程》 (``article``, edition-2025 numbering) or a named
    document (``text``: a standard, the reference data, practice)."""

    article: int | None = None
    text: str = ""

    def cite(self, edition: str = DEFAULT_EDITION) -> str:
        """The citation in ``edition``: see :func:`cite_article`; a named document as written."""
        return cite_article(self.article, edition) if self.article is not None else self.text


def R(article: int) -> Clause:  # noqa: N802 - reads like the clause it names
    """Article ``article`` (edition 2025 numbering) of 《煤矿安全规程》."""
    return Clause(article=article)


def T(text: str) -> Clause:  # noqa: N802
    """A named document as a source."""
    return Clause(text=text)


def cite_article(article: int, edition: str = DEFAULT_EDITION, numbered_in: str = "2025") -> str:
    """The one citation format of the review: ``《煤矿安全规程》（2025版）第159条（2016版第138条）``.

    ``article`` is numbered as in ``numbered_in``; it is cited in ``edition`` first and the other
    edition's number given as the alias. An article without an alias is cited alone.
    """
    other = "2016" if edition == "2025" else "2025"
    number = article if edition == numbered_in else _map(article, numbered_in, edition) or article
    alias = _map(number, edition, other)
    label = article_label(edition, number)
    return f"{label}（{other}版第{alias}条）" if alias is not None else label


def _map(number: int, from_edition: str, to_edition: str) -> int | None:
    """An article's number in the other edition: the knowledge base's map, else the calculators' table
    of the articles they cite (第160、185–187条 are not in the thresholds' map)."""
    hit = ArticleAliases.load().map(number, from_edition, to_edition)
    if hit is not None:
        return hit
    for numbers in DEFAULT_TABLES.articles.values():
        if numbers.get(from_edition) == number:
            return numbers.get(to_edition)
    return None


@dataclass(frozen=True)
class Rule:
    """One review rule.

    ``sources`` maps a location kind (``coal_face``, ``heading``, ``charging`` …, ``*`` for the rest)
    to its clauses; ``severity`` is the default severity, ``severity_rule`` says in Chinese when a
    finding of the rule gets which severity, ``tolerance`` the tolerance applied (empty: exact);
    ``reviewer`` is the reviewer whose checks apply the rule (by the id's prefix, :data:`REVIEWER_OF`);
    ``worst`` the most severe a finding of the rule can be when that is above the default (None: the
    default is the most severe).
    """

    id: str
    title: str
    category: Category
    severity: Severity
    severity_rule: str
    sources: dict[str, tuple[Clause, ...]]
    reviewer: str
    tolerance: str = ""
    worst: Severity | None = None

    @property
    def can_be_serious(self) -> bool:
        """True when a finding of the rule can be major or critical: by default, or as its severity
        rule says (``worst``: ``改正后超过所取需风量的为重大问题``)."""
        return (self.worst or self.severity) in (Severity.CRITICAL, Severity.MAJOR)

    def clauses(self, kind: str | None = None) -> tuple[Clause, ...]:
        """The clauses for a location ``kind`` (the ``*`` entry when the kind has none)."""
        return self.sources.get(kind or "*") or self.sources.get("*", ())

    def source(self, kind: str | None = None, edition: str = DEFAULT_EDITION) -> str:
        """The sources for ``kind`` cited in ``edition``, joined by ``；``."""
        return "；".join(c.cite(edition) for c in self.clauses(kind))


REVIEWER_OF = {
    "form": "form-reviewer",
    "data": "data-checker",
    "limit": "data-checker",
    "calc": "calc-verifier",
}
"""The reviewer that applies a rule, by the prefix of its id (``calc.speed_bounds``, a regulation rule,
is the calc-verifier's)."""

_ALLOCATION = {
    "coal_face": (R(159), T(AQ1056)),
    "heading": (R(159), T(AQ1056)),
    "standby_face": (R(159), T(f"{PRACTICE}（备用工作面不小于工作面需风量的50%）")),
    "charging": (R(186), T(AQ1056)),
    "chamber_heat": (R(187), T(AQ1056)),
    "explosives_store": (R(185), T(AQ1056)),
    "*": (R(159), T(AQ1056)),
}
_METHOD = {"*": (T(AQ1056),), "charging": (R(186), T(AQ1056)), "explosives_store": (R(185), T(AQ1056))}
_SPEED = {"*": (R(157),)}
ROUNDING_TOLERANCE = 0.005
"""Stated and recomputed figures agree within rounding: ±0.5 % (docs/DOMAIN.md §5; the calc rules)."""
UNIT_TOLERANCE = 0.01
"""A figure right in another unit than its column's: ±1 % after conversion (``calc.unit_mismatch``)."""
GAS_TOLERANCE = 0.10
"""The plan's gas emission against the gas-grade report, relative (``data.gas_emission``)."""
BACKCALC_TOLERANCE = 0.15
"""The emission back-calculated from the air survey against the report, relative (``data.backcalc_emission``)."""
FIGURE_TOLERANCE = 0.005
"""A face parameter against the operating procedure, relative: rounding (``data.procedure_parameter``)."""
SURVEY_TOLERANCE = 0.05
"""The allocation table's measured speed and section against the air survey, relative (``data.survey_mismatch``)."""
SURVEY_CH4_POINTS = 0.05
"""The allocation table's CH₄ against the air survey, in percentage points (``data.survey_mismatch``)."""
INTAKE_TEMPERATURE_TOLERANCE = 1.0
"""The plan's intake temperature against the air survey, ℃ (``data.intake_temperature``)."""


def _pct(tolerance: float) -> str:
    """A relative tolerance as the catalogue writes it: 0.005 → ``±0.5%``."""
    return f"±{tolerance * 100:g}%"


_ROUNDING = f"{_pct(ROUNDING_TOLERANCE)}（计算取整）"


def _r(
    id_: str,
    title: str,
    category: Category,
    severity: Severity,
    severity_rule: str,
    sources: Mapping[str, tuple[Clause, ...]] | tuple[Clause, ...],
    tolerance: str = "",
    worst: Severity | None = None,
) -> Rule:
    by_kind = {"*": sources} if isinstance(sources, tuple) else dict(sources)
    reviewer = REVIEWER_OF[id_.partition(".")[0]]
    return Rule(id_, title, category, severity, severity_rule, by_kind, reviewer, tolerance, worst)


C, D, F, G, U = Category.CALCULATION, Category.DATA, Category.FORM, Category.REGULATION, Category.UNITS
CRIT, MAJ, MIN, INFO = Severity.CRITICAL, Severity.MAJOR, Severity.MINOR, Severity.INFO

RULES: dict[str, Rule] = {
    r.id: r
    for r in [
        # -- calculation (calc-verifier) --
        _r("calc.arithmetic", "代入计算正确", C, MIN, "改正后超过所取需风量的为重大问题，否则为一般问题", _METHOD, _ROUNDING, MAJ),
        _r("calc.method_coefficient", "计算方法按规定系数取值", C, MIN, "按规定系数核算的结果超过所取需风量的为重大问题，否则为一般问题", _METHOD, _ROUNDING, MAJ),
        _r("calc.coefficient_range", "系数在规定范围内", C, MAJ, "低于范围（降低需风量）的为重大问题，并按最接近的合规值重新核算；高于范围的为一般问题", _METHOD),
        _r("calc.reference_input", "需风量按参考数据核算（不沿用与参考数据不符的输入）", C, MAJ, "计划输入与参考数据不符并使需风量偏低的为重大问题，按参考数据重新核算，配风、备用工作面和矿井总风量按核算值判定", (T("瓦斯等级鉴定报告"), T("工作面作业规程"), T("测风报表"), T(AQ1056)), f"瓦斯涌出量 {_pct(GAS_TOLERANCE)}；作业规程参数 {_pct(FIGURE_TOLERANCE)}"),
        _r("calc.max_not_taken", "需风量取各计算方法的最大值", C, MAJ, "重大问题", {**_ALLOCATION, "*": (R(159), T(AQ1056))}, _ROUNDING),
        _r("calc.required_low", "需风量不低于核算最大值", C, MAJ, "重大问题", {**_ALLOCATION, "*": (R(159), T(AQ1056))}, _ROUNDING),
        _r("calc.required_missing", "给出取最大值后的需风量", F, MAJ, "重大问题（需风量无依据）", (T(AQ1056),)),
        _r("calc.allocation_short", "配风量不小于需风量", C, MAJ, "重大问题", _ALLOCATION, _ROUNDING),
        _r("calc.speed_bounds", "需风量对应风速在允许范围内", G, MAJ, "重大问题", _SPEED),
        _r("calc.allocated_speed", "配风后风速在允许范围内", G, MAJ, "重大问题", _SPEED),
        _r("calc.speed_check_stated", "风速验算上下限正确", C, MIN, "一般问题", _SPEED, _ROUNDING),
        _r("calc.unit_mismatch", "风量单位与表头一致（m³/min）", U, MIN, "一般问题", (T(AQ1056),), _pct(UNIT_TOLERANCE)),
        _r("calc.required_inconsistent", "同一地点需风量前后一致", C, MIN, "一般问题", (T(AQ1056),), _ROUNDING),
        _r("calc.sum_stated", "各地点需风量之和正确", C, MIN, "一般问题", (T(AQ1056),), _ROUNDING),
        _r("calc.total_arithmetic", "矿井总需风量算术正确", C, MIN, "一般问题", (T(AQ1056),), _ROUNDING),
        _r("calc.total_low", "矿井总需风量不低于核算值", C, MAJ, "重大问题；由某地点的问题引起时列为该问题的后果", (R(159), T(AQ1056)), _ROUNDING),
        _r("calc.capacity_exceeded", "矿井总需风量不超过通风能力", G, MAJ, "重大问题", (R(160),)),
        _r("calc.k_mine_range", "矿井需风系数在规定范围内", C, MAJ, "低于范围的为重大问题，高于范围的为一般问题", (T(AQ1056), T(PRACTICE))),
        _r("calc.unrecomputable", "逐地点核算需风量", C, INFO, "提示（未能核算，说明原因）", (T(AQ1056),)),
        _r("calc.incomplete", "各适用计算方法齐全", C, INFO, "提示（缺少输入的方法未核算，核算值仅为下限）", (R(159), T(AQ1056))),
        _r("calc.method_not_checked", "计划所用方法未核验", C, INFO, "提示（本审查未实现的方法，不作为错误）", (T(AQ1056),)),
        # -- data (data-checker) --
        _r("data.reference_unavailable", "参考数据可用", D, INFO, "提示", (T("配风计划审查要求：数据一致性"),)),
        _r("data.reference_gap", "参考数据齐全", D, INFO, "提示", (T("配风计划审查要求：数据一致性"),)),
        _r("data.location_missing", "采掘计划中的采掘工作面全部列入配风计划", D, MAJ, "重大问题", (T("月度采掘计划"),)),
        _r("data.location_stale", "配风计划中无已停止的采掘地点", D, MAJ, "重大问题", (T("月度采掘计划"),)),
        _r("data.location_unplanned", "配风地点与采掘计划一致", D, MIN, "一般问题", (T("月度采掘计划"),)),
        _r("data.gas_emission", "瓦斯涌出量与瓦斯等级鉴定报告一致", D, MAJ, "超出容差的为重大问题", (T("瓦斯等级鉴定报告"),), _pct(GAS_TOLERANCE)),
        _r("data.procedure_parameter", "工作面参数与作业规程一致", D, MAJ, "计划取值偏小（降低需风量）的为重大问题，否则为一般问题", (T("工作面作业规程"),), _pct(FIGURE_TOLERANCE)),
        _r("data.survey_mismatch", "分配表实测数据与测风报表一致", D, MIN, "一般问题", (T("测风报表"),), f"风速、断面 {_pct(SURVEY_TOLERANCE)}；CH₄ ±{SURVEY_CH4_POINTS:g}个百分点"),
        _r("data.intake_temperature", "进风温度与测风报表一致", D, MIN, "一般问题", (T("测风报表"),), f"±{INTAKE_TEMPERATURE_TOLERANCE:g} ℃"),
        _r("data.climate_speed", "气象条件风速与进风温度对应", D, MAJ, "重大问题", (T(AQ1056), T("测风报表"))),
        _r("data.backcalc_emission", "测风反算瓦斯涌出量与报告一致", D, MAJ, "反算值高于报告的为重大问题，低于的为一般问题", (T("测风报表"), T(PRACTICE)), _pct(BACKCALC_TOLERANCE)),
        # -- regulation limits of the plan's own figures (data-checker) --
        _r("limit.gas_concentration", "回风流及作业地点甲烷、二氧化碳浓度", G, CRIT, "达到限值的为严重问题",
           {"coal_face": (R(192),), "heading": (R(192),), "standby_face": (R(192),), "*": (R(193), R(194))}),  # fmt: skip
        _r("limit.wind_speed", "计划及实测风速在允许范围内", G, MAJ, "超出范围的为重大问题；综采工作面 4–5 m/s 为一般问题（核实降尘措施）", _SPEED),
        _r("limit.temperature", "工作面及机电硐室温度", G, MAJ, "超过缩短工时温度的为重大问题，超过停止作业温度的为严重问题", (T("《煤矿安全规程》（2016版）第655条"),), worst=CRIT),
        # -- form (form-reviewer) --
        _r("form.cover", "封面标题、月份、版本齐全", F, MIN, "一般问题", (T(PLAN_RULES),)),
        _r("form.approval_missing", "批准签字和日期齐全", F, MAJ, "缺少批准的为重大问题（计划未生效）", (T(PLAN_RULES),)),
        _r("form.signoff_missing", "编制、审核签字齐全", F, MIN, "一般问题", (T(PLAN_RULES),)),
        _r("form.approver_title", "由总工程师批准", F, MIN, "一般问题", (T(PLAN_RULES),)),
        _r("form.review_chain", "审核经通风副总工程师", F, MAJ, "审核栏各人职务均已写明而无通风副总工程师的为重大问题（技术负责人未审核）", (T(PLAN_RULES),)),
        _r("form.prepared_date", "注明编制日期", F, MIN, "未注明的为一般问题；以编制人签字日期为准的为提示", (T(PLAN_RULES),)),
        _r("form.date_order", "签字日期顺序（编制 ≤ 审核 ≤ 批准）", F, MIN, "一般问题", (T(PLAN_RULES),)),
        _r("form.month_window", "编制、批准日期在执行月份之前", F, MIN, "一般问题", (T(PLAN_RULES),)),
        _r("form.calculation_missing", "每个用风地点有计算过程", F, MAJ, "重大问题（需风量无依据）", (T(PLAN_RULES),)),
        _r("form.required_not_stated", "计算过程写明取最大值后的需风量", F, MIN, "一般问题", (T(PLAN_RULES),)),
        _r("form.speed_check_missing", "计算过程有风速验算", F, MIN, "一般问题", (R(157),)),
        _r("form.location_not_listed", "计算地点列入用风地点清单", F, MIN, "一般问题", (T(PLAN_RULES),)),
        _r("form.allocation_missing", "每个用风地点列入风量分配表", F, MAJ, "重大问题（没有配风量）", (T(PLAN_RULES),)),
        _r("form.allocation_not_listed", "分配表地点与清单一致", F, MIN, "一般问题", (T(PLAN_RULES),)),
        _r("form.basis", "编制依据齐全", F, MIN, "一般问题", (T(PLAN_RULES),)),
        _r("form.edition_mixed", "引用的规程版本一致", F, MIN, "一般问题", (T(PLAN_RULES),)),
        _r("form.edition_unstated", "引用规程注明版本", F, INFO, "提示", (T(PLAN_RULES),)),
        _r("form.repeated_content", "计划内容不重复", F, INFO, "提示（同一计划在文件中出现多次，按一份审查）", (T(PLAN_RULES),)),
        _r("form.conflicting_versions", "文件只含一个版本的计划", F, MAJ, "文件含内容不一致的多份计划为重大问题（生效版本不明，只审查其中一份）", (T(PLAN_RULES),)),
        _r("form.unreadable_figure", "数据可准确读取", F, INFO, "提示（未能可靠读取的数据不作为问题依据）", (T(PLAN_RULES),)),
        _r("form.unreadable_plan", "计划版式可读取", F, INFO, "提示（未能读取的部分不作审查）", (T(PLAN_RULES),)),
        _r("form.implausible_figure", "数据合理", F, INFO, "提示（单位或量级不合理的数据不作为重大问题依据）", (T(PLAN_RULES),)),
    ]
}  # fmt: skip


def rule(rule_id: str) -> Rule:
    """The rule of ``rule_id``; raises KeyError naming the id when it is not in the catalogue."""
    try:
        return RULES[rule_id]
    except KeyError:
        raise KeyError(f"unknown review rule id {rule_id!r}") from None
