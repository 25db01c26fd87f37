"""docs/REVIEW_RULES.md keeps up with the rules catalogue, and every finding carries a catalogued id."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from vent_agent.review.findings import Severity
from vent_agent.review.rule_common import Where, finding
from vent_agent.review.rules import RULES, cite_article, rule

DOC = Path(__file__).resolve().parents[1] / "docs" / "REVIEW_RULES.md"


def _rows() -> dict[str, list[str]]:
    rows = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^\| `([a-z_]+\.[a-z_]+)` \|(.*)\|$", line)
        if m:
            rows[m.group(1)] = [c.strip() for c in m.group(2).split("|")]
    return rows


def test_every_catalogued_rule_is_documented_and_nothing_else() -> None:
    rows = _rows()
    assert set(rows) == set(RULES), set(rows) ^ set(RULES)


@pytest.mark.parametrize("rule_id", sorted(RULES))
def test_documented_title_tolerance_and_sources_match(rule_id: str) -> None:
    r, row = RULES[rule_id], _rows()[rule_id]
    assert row[0] == r.title
    assert row[3] == (r.tolerance or "—")
    for clauses in r.sources.values():
        for c in clauses:
            assert c.cite() in row[4], (rule_id, c.cite())


def test_sources_follow_the_location_kind() -> None:
    short = rule("calc.allocation_short")
    assert short.source("coal_face").startswith("《煤矿安全规程》（2025版）第159条（2016版第138条）")
    assert short.source("charging").startswith("《煤矿安全规程》（2025版）第186条")
    assert short.source("chamber_heat").startswith("《煤矿安全规程》（2025版）第187条")
    assert short.source("explosives_store").startswith("《煤矿安全规程》（2025版）第185条")
    assert short.source("charging", "2016").startswith("《煤矿安全规程》（2016版）第167条（2025版第186条）")


def test_one_citation_format_in_the_calculators_and_the_review() -> None:
    from calc.tables import DEFAULT_TABLES

    assert cite_article(157).startswith(DEFAULT_TABLES.article("wind_speed"))


def test_the_builder_takes_everything_from_the_catalogue() -> None:
    f = finding("form.unreadable_figure", "15216综采工作面", "采高无法可靠读取，未作核算", page=4)
    assert f.rule_id == "form.unreadable_figure" and f.severity == Severity.INFO
    assert f.rule == "数据可准确读取" and f.reviewer == "form-reviewer" and f.source and f.page == 4
    with pytest.raises(KeyError, match="no.such"):
        finding("no.such", None, "x")


def test_a_location_given_as_where_picks_the_clauses_and_edition() -> None:
    at = Where("中央变电所", "chamber_heat", "2016")
    f = finding("calc.allocation_short", at, "配风不足", unit="m³/min")
    assert f.location == "中央变电所" and f.source == rule("calc.allocation_short").source(
        "chamber_heat", "2016"
    )
    assert f.source.startswith("《煤矿安全规程》（2016版）") and f.reviewer == "calc-verifier"


CHECKS = Path(__file__).resolve().parents[1] / "vent_agent" / "review" / "checks"
RULE_PREFIXES = {
    "form_rules.py": ("form",),
    "repeat_rules.py": ("form",),
    "data_rules.py": ("data",),
    "limit_rules.py": ("limit",),
    "calc_rules.py": ("calc",),
    "total_rules.py": ("calc",),
}
"""The rule ids each check module may build findings of: those of its own reviewer."""


@pytest.mark.parametrize("module", sorted(RULE_PREFIXES))
def test_each_check_module_builds_findings_of_its_reviewers_rules_only(module: str) -> None:
    """A finding's reviewer comes from its rule (nothing overwrites it at run time), so each check
    module builds findings only of the rules its reviewer applies."""
    ids = set(re.findall(r'"([a-z]+\.[a-z_]+)"', (CHECKS / module).read_text(encoding="utf-8"))) & set(RULES)
    assert ids, f"{module} names no catalogued rule: the layout changed"
    assert {i.partition(".")[0] for i in ids} <= set(RULE_PREFIXES[module])
    assert len({RULES[i].reviewer for i in ids}) == 1


def test_a_rules_reviewer_is_the_one_that_applies_it() -> None:
    assert (
        rule("calc.speed_bounds").reviewer == "calc-verifier"
    )  # a regulation rule the calc-verifier applies
    assert rule("calc.required_missing").reviewer == "calc-verifier"  # a form rule the calc-verifier applies
    assert rule("limit.wind_speed").reviewer == "data-checker"
    assert rule("form.unreadable_plan").reviewer == "form-reviewer"
