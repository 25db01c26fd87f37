"""Data review: the sample plans against the demo mine's reference data, missing or foreign reference
data, and the plan's own figures against the regulation's limits."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tests.helpers import present
from vent_agent.documents.plan.model import Figure, Plan, SourceRef
from vent_agent.review.checks.data_rules import review_data
from vent_agent.review.findings import Category, Finding, Severity
from vent_agent.review.reference import (
    AirSurveyRecord,
    JsonReferenceData,
    MonthlyReference,
    ReferenceData,
    StaticReferenceData,
    default_reference,
    is_finished,
    same_mine,
)

DATA = Path(__file__).parent / "data"
SERIOUS = {Severity.MAJOR, Severity.CRITICAL}


@pytest.fixture(scope="module")
def ref() -> JsonReferenceData:
    return default_reference()


def _august(ref: JsonReferenceData) -> MonthlyReference:
    got = ref.monthly("示范煤矿", "2026-08")
    assert got is not None
    return got


def _at(findings: list[Finding], location: str | None, category: Category) -> list[Finding]:
    return [f for f in findings if f.location == location and f.category == category]


def test_plan_a_is_consistent(plan_a: Plan, ref: JsonReferenceData) -> None:
    findings = review_data(plan_a, ref)
    assert findings == []


def test_plan_b_gas_emission_contradicts_report(plan_b: Plan, ref: JsonReferenceData) -> None:
    findings = review_data(plan_b, ref)
    gas = [f for f in _at(findings, "15220回风顺槽掘进工作面", Category.DATA) if f.severity == Severity.MAJOR]
    assert len(gas) == 1
    f = gas[0]
    assert f.figures["plan"] == 1.1 and f.figures["report"] == 1.6
    assert f.page == 2 and f.unit == "m³/min" and f.reviewer == "data-checker"
    assert [e.kind for e in f.evidence] == ["pdf", "reference"]
    assert f.evidence[1].detail["tool"] == "query_gas_identification_report"
    assert "1.1" in f.message and "1.6" in f.message


def test_plan_b_missing_heading_of_mining_plan(plan_b: Plan, ref: JsonReferenceData) -> None:
    findings = review_data(plan_b, ref)
    missing = _at(findings, "15222切眼掘进工作面", Category.DATA)
    assert len(missing) == 1 and missing[0].severity == Severity.MAJOR
    assert "月度采掘计划" in missing[0].message and "8月15日开工" in missing[0].message
    assert missing[0].evidence[0].detail["tool"] == "query_monthly_mining_plan"


def test_plan_b_ch4_reaches_limit_is_critical(plan_b: Plan, ref: JsonReferenceData) -> None:
    findings = review_data(plan_b, ref)
    critical = [f for f in findings if f.severity == Severity.CRITICAL]
    assert len(critical) == 1
    f = critical[0]
    assert (f.location, f.category) == ("15220回风顺槽掘进工作面", Category.REGULATION)
    assert f.figures == {"value": 1.05, "limit": 1.0, "op": ">="}
    assert "第192条" in f.source and "第173条" in f.source
    assert (f.page, f.evidence[0].table, f.evidence[0].row) == (4, 1, 4)  # 序号 4; table row 5
    assert f.evidence[0].detail["cell_row"] == 5
    assert f.evidence[-1].kind == "clause"
    # the survey shows 0.28 %: the table's figure is also flagged as not matching it
    assert any(
        x.severity == Severity.MINOR and "0.28" in x.message for x in _at(findings, f.location, Category.DATA)
    )


def test_plan_b_no_other_serious_findings(plan_b: Plan, ref: JsonReferenceData) -> None:
    serious = {
        (f.location, f.category.value, f.severity.value)
        for f in review_data(plan_b, ref)
        if f.severity in SERIOUS
    }
    assert serious == {
        ("15220回风顺槽掘进工作面", "data", "major"),
        ("15222切眼掘进工作面", "data", "major"),
        ("15220回风顺槽掘进工作面", "regulation", "critical"),
    }


@pytest.mark.parametrize("reference", [None, "other-mine", "other-month", "ignores-mine"])
def test_reference_not_available_gives_one_info(
    plan_a: Plan, ref: JsonReferenceData, reference: str | None
) -> None:
    plan = plan_a
    source: ReferenceData | None = ref
    if reference is None:
        source = None
    elif reference == "other-mine":
        plan = plan_a.model_copy(update={"mine": "红旗煤矿"})
    elif reference == "other-month":
        plan = plan_a.model_copy(update={"month": "2027-01"})
    else:  # a source that answers for its one mine whatever is asked

        class OneMine:
            def monthly(self, mine: str, month: str) -> MonthlyReference | None:
                return ref.monthly("示范煤矿", month)

        source = OneMine()
        plan = plan_a.model_copy(update={"mine": "红旗煤矿"})
    findings = review_data(plan, source)
    assert len(findings) == 1
    f = findings[0]
    assert (f.severity, f.category, f.location) == (Severity.INFO, Category.DATA, None)
    assert "参考数据不可用" in f.message


def test_without_reference_limits_still_checked(plan_b: Plan) -> None:
    findings = review_data(plan_b, None)
    assert [(f.severity, f.category) for f in findings] == [
        (Severity.INFO, Category.DATA),
        (Severity.CRITICAL, Category.REGULATION),
    ]


def test_stale_heading_in_next_month(plan_a: Plan, ref: JsonReferenceData) -> None:
    plan = plan_a.model_copy(update={"month": "2026-09"})
    findings = review_data(plan, ref)
    stale = [
        f for f in _at(findings, "15220运输顺槽掘进工作面", Category.DATA) if f.severity == Severity.MAJOR
    ]
    assert len(stale) == 1 and "贯通" in stale[0].message and stale[0].page == 2


def test_face_parameters_vs_procedure(plan_a: Plan, ref: JsonReferenceData) -> None:
    plan = plan_a.model_copy(deep=True)
    face = plan.location("15216综采工作面")
    assert face is not None
    face.inputs["mining_height"] = face.inputs["mining_height"].model_copy(update={"value": 3.0})
    face.inputs["face_length"] = face.inputs["face_length"].model_copy(update={"value": 230})
    face.inputs["workers"] = face.inputs["workers"].model_copy(update={"value": 30})
    found = {
        f.figures["procedure"]: f.severity for f in _at(review_data(plan, ref), face.name, Category.DATA)
    }
    assert found == {3.2: Severity.MAJOR, 220: Severity.MINOR, 38: Severity.MAJOR}


def _with_survey(ref: JsonReferenceData, **changes: AirSurveyRecord) -> StaticReferenceData:
    month = _august(ref)
    return StaticReferenceData([replace(month, air_survey={**month.air_survey, **changes})])


def test_back_calculated_emission_beyond_tolerance(plan_a: Plan, ref: JsonReferenceData) -> None:
    # 60 × 0.78 × 13.8 × (0.40 − 0.03) / 100 = 2.39 m³/min against 1.6 in the report
    source = _with_survey(ref, **{"15220回风顺槽掘进工作面": AirSurveyRecord(0.78, 13.8, 0.40, 0.03, 19.0)})
    findings = _at(review_data(plan_a, source), "15220回风顺槽掘进工作面", Category.DATA)
    back = [f for f in findings if "反算" in f.message]
    assert len(back) == 1 and back[0].severity == Severity.MAJOR
    assert back[0].figures["back_calculated"] == pytest.approx(2.3896, abs=1e-3)
    assert back[0].figures["reference"] == 1.6


def test_survey_temperature_needs_higher_climate_speed(plan_a: Plan, ref: JsonReferenceData) -> None:
    source = _with_survey(ref, **{"15216综采工作面": AirSurveyRecord(1.74, 11.6, 0.37, 0.02, 24.0)})
    findings = _at(review_data(plan_a, source), "15216综采工作面", Category.DATA)
    assert {f.rule_id: f.severity for f in findings} == {
        "data.intake_temperature": Severity.MINOR,
        "data.climate_speed": Severity.MAJOR,
    }


def _set(plan: Plan, location: str, field: str, value: float, unit: str) -> Plan:
    plan = plan.model_copy(deep=True)
    row = next(r for r in plan.allocation if r.location == location)
    setattr(row, field, Figure(value=value, unit=unit, ref=SourceRef(page=4, table=1, row=2, column=field)))
    return plan


@pytest.mark.parametrize(
    ("location", "field", "value", "expected"),
    [
        ("15220运输顺槽掘进工作面", "ch4", 1.0, Severity.CRITICAL),  # 达到 1.0 % means ≥
        ("15220运输顺槽掘进工作面", "ch4", 0.99, None),
        ("15220运输顺槽掘进工作面", "co2", 1.5, Severity.CRITICAL),
        ("15220运输顺槽掘进工作面", "measured_speed", 0.2, Severity.MAJOR),  # coal heading: ≥ 0.25
        ("二采区轨道下山掘进工作面", "measured_speed", 0.2, None),  # rock heading: ≥ 0.15
        ("二采区轨道下山掘进工作面", "planned_speed", 4.2, Severity.MAJOR),
        ("15216综采工作面", "measured_speed", 4.5, Severity.MINOR),  # 综采 with dust suppression: ≤ 5
        ("15216综采工作面", "measured_speed", 5.2, Severity.MAJOR),
        ("15216辅运起坡段", "measured_speed", 0.2, Severity.MAJOR),  # 采区进风巷 (reference data): ≥ 0.25
        ("15216综采工作面", "temperature", 27.0, Severity.MAJOR),
        ("15216综采工作面", "temperature", 31.0, Severity.CRITICAL),
    ],
)
def test_limits_from_the_allocation_table(
    plan_a: Plan, ref: JsonReferenceData, location: str, field: str, value: float, expected: Severity | None
) -> None:
    plan = _set(plan_a, location, field, value, "%")
    found = [f for f in review_data(plan, ref) if f.category == Category.REGULATION]
    if expected is None:
        assert found == []
    else:
        assert [(f.location, f.severity) for f in found] == [(location, expected)]
        assert found[0].figures["value"] == value and "《煤矿安全规程》" in found[0].source


def test_json_reference_data(tmp_path: Path, ref: JsonReferenceData) -> None:
    aug = _august(ref)
    assert aug.gas_report["15220回风顺槽掘进工作面"] == 1.6
    assert aug.face_procedures["15216综采工作面"].roof_control_max_m == 5.8
    assert aug.air_survey["15216辅运起坡段"].area == 12.4
    assert aug.roadway_classes["15216辅运起坡段"] == "采区进风巷"
    assert not any(e.finished for e in aug.mining_plan)
    sep = ref.monthly("示范煤矿", "2026-09")
    assert sep is not None and [e.location for e in sep.completed] == ["15220运输顺槽掘进工作面"]
    assert ref.monthly("示范 煤矿", "2026-08") is not None and ref.monthly("红旗煤矿", "2026-08") is None
    path = tmp_path / "mine.json"
    path.write_text(
        json.dumps({"mine": {"name": "红旗煤矿"}, "reference": {"2026-10": {"gas_report": {"A": 1}}}})
    )
    other = JsonReferenceData(path)
    assert present(other.monthly("红旗煤矿", "2026-10")).gas_report == {"A": 1.0}
    assert other.monthly("示范煤矿", "2026-10") is None
    with pytest.raises(ValueError):
        JsonReferenceData(data={"reference": {}})
    assert isinstance(ref, ReferenceData)


def test_reference_helpers() -> None:
    assert is_finished("8月28日贯通，停止掘进") and not is_finished("掘进（8月15日开工）")
    assert not is_finished("备用") and is_finished("回采结束")
    assert same_mine("示范煤矿", "示范 煤矿") and same_mine("山西示范煤矿", "示范煤矿")
    assert not same_mine("示范煤矿", "红旗煤矿") and not same_mine(None, "示范煤矿")
