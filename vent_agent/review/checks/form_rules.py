"""Form review (基本形式审查) of a parsed plan: cover fields, sign-offs and their dates, that every
location has its calculation process and its allocation, the basis, and one edition of the 规程.

``review_form(plan)`` returns findings of category ``form`` (reviewer ``form-reviewer``). Severities
(docs/DOMAIN.md §5): a missing 批准 signature or date is **major** (the plan is not in effect), as is a
listed location with no calculation process or no allocated air; other omissions and inconsistencies
are **minor**; remarks are **info**.
"""

from __future__ import annotations

import datetime as dt
import re

from vent_agent.documents.plan.model import LocationPlan, Plan, SignOff
from vent_agent.documents.plan.text_primitives import match_name
from vent_agent.review.checks.repeat_rules import repeated_content_findings
from vent_agent.review.findings import Finding, Severity
from vent_agent.review.rule_common import cited_families, finding, plan_names

REVIEWER = "form-reviewer"
ROLE_RANK = {"编制": 0, "审核": 1, "批准": 2}
_FAMILY_LABEL = {"2016": "2016版（含2022年修订）", "2025": "2025版"}
_SPEED_CHECKED = {"coal_face", "heading"}
_BASIS_ITEMS = [
    ("月度采掘计划", ("采掘",)),
    ("瓦斯等级鉴定报告", ("瓦斯等级", "瓦斯鉴定", "等级鉴定")),
    ("测风报表", ("测风",)),
    ("《煤矿安全规程》", ("煤矿安全规程", "规程")),
]


def review_form(plan: Plan) -> list[Finding]:
    """All form findings of ``plan`` (empty list for a complete, consistent plan)."""
    return [
        *_cover(plan),
        *_signoffs(plan),
        *_dates(plan),
        *_processes(plan),
        *_allocation_coverage(plan),
        *_basis(plan),
        *_editions(plan),
        *repeated_content_findings(plan),
    ]


def _cover(plan: Plan) -> list[Finding]:
    out = []
    cover_page = 1 if plan.page_count else None
    if not plan.title:
        out.append(finding("form.cover", None, "未识别到计划标题", page=cover_page))
    if not plan.month:
        out.append(finding("form.cover", None, "计划未写明执行月份（YYYY年M月）", page=cover_page))
    if not plan.version:
        out.append(finding("form.cover", None, "计划未注明版本号", page=cover_page))
    return out


def _signoffs(plan: Plan) -> list[Finding]:
    out = []
    page = plan.section_pages.get("signoff")
    approvals = [s for s in plan.signoffs if s.role == "批准"]
    if not approvals:
        out.append(
            finding(
                "form.approval_missing",
                None,
                "缺少批准（总工程师）签字栏：计划未经批准，不能生效",
                page=page,
                figures={"role": "批准", "name": None, "date": None},
            )
        )
    for role in ("编制", "审核"):
        if not any(s.role == role for s in plan.signoffs):
            out.append(
                finding("form.signoff_missing", None, f"缺少{role}签字栏", page=page, figures={"role": role})
            )
    out += _review_chain(plan.signoffs, page)
    for s in plan.signoffs:
        missing = [w for w, v in (("签字", s.name), ("日期", s.date)) if not v]
        if not missing:
            if s.role == "批准" and s.title and "总工" not in s.title:
                out.append(
                    finding(
                        "form.approver_title",
                        None,
                        f"批准人职务为“{s.title}”，配风计划应由总工程师批准",
                        ref=s.ref,
                        figures={"title": s.title, "name": s.name},
                    )
                )
            continue
        who = f"{s.role}（{s.title}）" if s.title else s.role
        if s.role == "批准":
            msg = f"{who}{'、'.join(missing)}缺失：计划未经批准，不能生效"
            sev = Severity.MAJOR
        else:
            msg = f"{who}{'、'.join(missing)}缺失"
            sev = Severity.MINOR
        out.append(
            finding(
                "form.approval_missing" if s.role == "批准" else "form.signoff_missing",
                None,
                msg,
                severity=sev,
                ref=s.ref,
                page=s.ref.page if s.ref else page,
                figures={"role": s.role, "title": s.title, "name": s.name, "date": s.date},
            )
        )
    return out


_DEPUTY_CHIEF = re.compile(r"副总|技术负责人|总工程师")


def _review_chain(signoffs: list[SignOff], page: int | None) -> list[Finding]:
    """审核 goes through the ventilation area chief and the deputy chief engineer for ventilation
    (DOMAIN §4): a major when every 审核 is written with its title and none is a 副总工程师. A 审核
    without a title says nothing either way (never a finding built on what was not written)."""
    reviews = [s for s in signoffs if s.role == "审核"]
    if not reviews or not all(s.title for s in reviews):
        return []
    if any(_DEPUTY_CHIEF.search(s.title or "") for s in reviews):
        return []
    titles = "、".join(f"{s.title}{s.name or ''}" for s in reviews)
    return [
        finding(
            "form.review_chain",
            None,
            f"审核只有{titles}，缺少通风副总工程师审核",
            ref=reviews[0].ref,
            page=reviews[0].ref.page if reviews[0].ref else page,
            figures={"reviewers": "、".join(s.title or "" for s in reviews)},
        )
    ]


def _date(s: str | None) -> dt.date | None:
    try:
        return dt.date.fromisoformat(s) if s else None
    except ValueError:
        return None


def _dates(plan: Plan) -> list[Finding]:
    out = []
    prepared = _date(plan.prepared_date)
    signed = [(s, d) for s in plan.signoffs if (d := _date(s.date)) is not None]
    if prepared is None:
        author = next((d for s, d in signed if s.role == "编制"), None)
        if author:
            out.append(
                finding(
                    "form.prepared_date",
                    None,
                    f"未单独注明编制日期，以编制人签字日期 {author} 为准",
                    severity=Severity.INFO,
                    page=1,
                    figures={"prepared_date": None, "signed": author.isoformat()},
                )
            )
        else:
            out.append(
                finding(
                    "form.prepared_date", None, "计划未注明编制日期", page=1, figures={"prepared_date": None}
                )
            )
    for s, d in signed:
        if prepared and d < prepared:
            out.append(
                finding(
                    "form.date_order",
                    None,
                    f"{s.role}日期 {d} 早于编制日期 {prepared}",
                    ref=s.ref,
                    figures={"role": s.role, "date": d.isoformat(), "prepared_date": prepared.isoformat()},
                )
            )
    before: dict[int, list[tuple[SignOff, dt.date]]] = {}
    for i, (a, da) in enumerate(signed):
        for b, db in signed[i + 1 :]:
            if ROLE_RANK.get(a.role, 0) < ROLE_RANK.get(b.role, 0) and db < da:
                before.setdefault(i + 1 + signed[i + 1 :].index((b, db)), []).append((a, da))
            elif ROLE_RANK.get(b.role, 0) < ROLE_RANK.get(a.role, 0) and da < db:
                before.setdefault(i, []).append((b, db))
    out += [_order(*signed[n], earlier) for n, earlier in before.items()]
    out += _month_window(plan, prepared, signed)
    return out


def _order(later: SignOff, d_later: dt.date, earlier: list[tuple[SignOff, dt.date]]) -> Finding:
    """One finding per sign-off dated before the roles that must precede it (one root fault: its
    date), naming each of them."""
    shown = "、".join(dict.fromkeys(f"{s.role}日期 {d}" for s, d in earlier))
    figures = {f"{s.role}_date": d.isoformat() for s, d in earlier}
    return finding(
        "form.date_order",
        None,
        f"{later.role}日期 {d_later} 早于{shown}，应为 编制 ≤ 审核 ≤ 批准",
        ref=later.ref,
        figures={f"{later.role}_date": d_later.isoformat(), **figures},
    )


def _month_window(
    plan: Plan, prepared: dt.date | None, signed: list[tuple[SignOff, dt.date]]
) -> list[Finding]:
    if not plan.month:
        return []
    year, month = map(int, plan.month.split("-"))
    start = dt.date(year, month, 1)
    end = dt.date(year + (month == 12), month % 12 + 1, 1)
    out = []
    if prepared and prepared >= end:
        out.append(
            finding(
                "form.month_window",
                None,
                f"编制日期 {prepared} 晚于计划月份 {plan.month}",
                page=1,
                figures={"prepared_date": prepared.isoformat(), "month": plan.month},
            )
        )
    for s, d in signed:
        if s.role == "批准" and d > start:
            out.append(
                finding(
                    "form.month_window",
                    None,
                    f"批准日期 {d} 晚于计划月份开始 {start}，此前计划尚未生效",
                    ref=s.ref,
                    figures={"approved": d.isoformat(), "month_start": start.isoformat()},
                )
            )
    return out


def _processes(plan: Plan) -> list[Finding]:
    out = []
    calc_page = plan.section_pages.get("calculation")
    block_names = [loc.name for loc in plan.locations]
    for name in plan_names(plan):
        hit = match_name(name, block_names)
        loc: LocationPlan | None = plan.location(hit) if hit else None
        if loc is None or not loc.methods:
            what = "没有需风量计算过程" if loc is None else "计算过程中没有计算方法"
            out.append(
                finding(
                    "form.calculation_missing",
                    name,
                    f"{name}{what}，需风量无依据",
                    page=loc.ref.page if loc and loc.ref else calc_page,
                    ref=loc.ref if loc else None,
                )
            )
            continue
        single = len([m for m in loc.methods if m.stated is not None]) == 1
        if loc.stated_required is None and not single:  # of one method, the result is the requirement
            out.append(
                finding("form.required_not_stated", name, f"{name}未写明取最大值后的需风量 Q需", ref=loc.ref)
            )
        if loc.kind in _SPEED_CHECKED and loc.speed_check is None:
            out.append(finding("form.speed_check_missing", name, f"{name}缺少风速验算", ref=loc.ref))
    if plan.listed_locations:
        for loc in plan.locations:
            if match_name(loc.name, plan.listed_locations) is None:
                out.append(
                    finding(
                        "form.location_not_listed",
                        loc.name,
                        f"{loc.name}有计算过程，但不在用风地点清单中",
                        ref=loc.ref,
                    )
                )
    return out


def _allocation_coverage(plan: Plan) -> list[Finding]:
    out = []
    page = plan.section_pages.get("allocation")
    rows = [r.location for r in plan.allocation]
    listed = plan.listed_locations or [loc.name for loc in plan.locations]
    for name in listed:
        if match_name(name, rows) is None:
            out.append(
                finding("form.allocation_missing", name, f"{name}未列入风量分配表，没有配风量", page=page)
            )
    for r in plan.allocation:
        if listed and match_name(r.location, listed) is None:
            out.append(
                finding(
                    "form.allocation_not_listed",
                    r.location,
                    f"风量分配表中的{r.location}不在用风地点清单中",
                    ref=r.ref,
                )
            )
    return out


def _basis(plan: Plan) -> list[Finding]:
    page = plan.section_pages.get("basis", 1)
    if not plan.basis:
        return [finding("form.basis", None, "计划未列出编制依据", page=page)]
    text = "".join(plan.basis)
    missing = [label for label, words in _BASIS_ITEMS if not any(w in text for w in words)]
    if not missing:
        return []
    return [
        finding(
            "form.basis",
            None,
            f"编制依据未列出：{'、'.join(missing)}",
            page=page,
            figures={"missing": "、".join(missing)},
        )
    ]


def _editions(plan: Plan) -> list[Finding]:
    fams = cited_families(plan.citations)
    if len(fams) > 1:
        shown = "；".join(
            f"{_FAMILY_LABEL[fam]}：{'、'.join(c.text for c in cs[:2])}（第{cs[0].page}页）"
            for fam, cs in fams.items()
        )
        first = next(iter(fams.values()))[0]
        return [
            finding(
                "form.edition_mixed",
                None,
                f"引用的《煤矿安全规程》版本不一致（{shown}），应统一为一个版本",
                page=first.page,
                figures={"editions": "、".join(sorted(fams))},
            )
        ]
    if not fams and any(c.document == "煤矿安全规程" for c in plan.citations):
        page = next(c.page for c in plan.citations if c.document == "煤矿安全规程")
        return [
            finding(
                "form.edition_unstated", None, "引用《煤矿安全规程》未注明版本，按2025版条号审查", page=page
            )
        ]
    return []
