"""Every major or critical finding says what it leads to: the catalogue's rules that can be major or
critical each have an effect (vent_agent.review.judgement.consequences.EFFECTS), a serious finding that
nothing else follows from lists it as its consequence, and the builder refuses a serious finding of a rule
the catalogue says never is."""

from __future__ import annotations

import pytest

from vent_agent.review.findings import Consequence, Severity
from vent_agent.review.judgement.consequences import EFFECTS, with_effects
from vent_agent.review.rule_common import finding
from vent_agent.review.rules import RULES


def test_every_rule_that_can_be_major_or_critical_has_an_effect_and_no_other_rule_has_one() -> None:
    serious = {r.id for r in RULES.values() if r.can_be_serious}
    assert {"data.gas_emission", "limit.gas_concentration", "calc.arithmetic"} <= serious
    assert not serious - EFFECTS.keys(), f"rules without an effect: {sorted(serious - EFFECTS.keys())}"
    assert not EFFECTS.keys() - serious, f"effects of rules never serious: {sorted(EFFECTS.keys() - serious)}"
    assert all(text and not text.endswith("。") for text in EFFECTS.values())


def test_a_serious_finding_nothing_follows_from_lists_its_rules_effect() -> None:
    gas = finding("data.gas_emission", "15220回风顺槽掘进工作面", "瓦斯涌出量低于鉴定报告", page=2)
    (effect,) = with_effects([gas])[0].consequences
    assert effect == Consequence(
        rule_id="data.gas_emission",
        location="15220回风顺槽掘进工作面",
        severity=Severity.MAJOR,
        message=EFFECTS["data.gas_emission"],
    )


def test_a_finding_with_consequences_or_below_major_is_left_as_it_is() -> None:
    follows = Consequence(
        rule_id="calc.allocation_short", severity=Severity.MAJOR, message="配风量小于需风量"
    )
    root = finding("calc.max_not_taken", "15216综采工作面", "需风量未取各方法最大值", consequences=[follows])
    slip = finding("calc.arithmetic", "15216综采工作面", "算术错误（非控制值）")
    assert slip.severity == Severity.MINOR
    assert with_effects([root, slip]) == [root, slip]


def test_the_builder_refuses_a_serious_finding_of_a_rule_never_serious() -> None:
    assert finding("calc.arithmetic", "15216综采工作面", "改正后超过所取需风量", severity=Severity.MAJOR)
    with pytest.raises(ValueError, match="form.cover"):
        finding("form.cover", None, "封面缺少月份", severity=Severity.MAJOR)
