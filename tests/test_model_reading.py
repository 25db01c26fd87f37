"""The optional model reading aid (vent_agent/review/judgement/model_reading.py) with a scripted model: what it
accepts, what it rejects (numbers not in the table, units unresolved or contradicted, magnitudes out of
range, a required Q that disagrees with the plan's own calculation), that a model failure is only a
note, that findings on its figures are at most minor, and that it is off by default."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import BaseMessage

from tests.plan_hands.faults import demo_faults, seed_faults
from tests.plan_hands.hands import HANDS
from tests.plan_hands.model import PlanDoc, demo_plan
from tests.plan_hands.render import render_plan
from tests.scripted_model import ScriptedChatModel, says, tool_call
from vent_agent.documents.pdf_text import ExtractedPdf, ExtractedTable, PageText, TableCell
from vent_agent.documents.plan.model import AllocationRow, Figure, LocationPlan, Plan, SourceRef
from vent_agent.events import EventModel, check_declared
from vent_agent.review.findings import Category, Evidence, Finding, Severity
from vent_agent.review.judgement.model_reading import (
    MODEL_MARK,
    SYSTEM_PROMPT,
    cap_model_findings,
    read_unmapped_tables,
)
from vent_agent.review.service.pipeline import ReviewRequest, review_plan
from vent_agent.settings import Settings

REF = SourceRef(page=2, text="取最大值")
TABLE = [
    ["地点", "甲栏(m³/s)", "乙栏(m³/s)", "断面(m²)", "丙栏(m/s)"],
    ["15216综采工作面", "18.87", "20.00", "11.6", "1.72"],
    ["中央变电所", "2.67", "3.00", "—", "—"],
    ["充电硐室", "1.67", "2.00", "—", "—"],
]


def _plan(allocated: bool = False) -> Plan:
    locs = [
        ("15216综采工作面", "coal_face", 1132.2),
        ("中央变电所", "chamber_heat", 159.9),
        ("充电硐室", "charging", 100.0),
    ]
    plan = Plan(
        locations=[
            LocationPlan(name=n, kind=k, stated_required=Figure(value=q, unit="m³/min", ref=REF))
            for n, k, q in locs
        ]
    )
    if allocated:
        plan.allocation = [AllocationRow(location=n, ref=REF) for n, _, _ in locs]
    return plan


def _extracted(rows: list[list[str]] = TABLE) -> ExtractedPdf:
    cells = [
        TableCell(page=3, table=0, row=r, col=c, text=t)
        for r, row in enumerate(rows)
        for c, t in enumerate(row)
    ]
    table = ExtractedTable(
        page=3,
        index=0,
        bbox=(50, 100, 550, 300),
        page_height=842,
        n_rows=len(rows),
        n_cols=len(rows[0]),
        cells=cells,
    )
    return ExtractedPdf(
        page_count=3, pages=[PageText(page=i, text="x" * 10) for i in (1, 2, 3)], tables=[table]
    )


def _answer(
    rows: list[dict[str, Any]], unit: str | None = "m³/s", is_table: bool = True
) -> ScriptedChatModel:
    args = {"is_allocation_table": is_table, "flow_unit": unit, "rows": rows}
    return ScriptedChatModel(script=[says("", tool_call("ModelTable", args))])


GOOD = [
    {
        "location": "15216综采工作面",
        "required_q": 18.87,
        "allocated_q": 20.0,
        "area": 11.6,
        "planned_speed": 1.72,
    },
    {"location": "中央变电所", "required_q": 2.67, "allocated_q": 3.0},
    {"location": "充电硐室", "required_q": 1.67, "allocated_q": 2.0},
]


def _read(plan: Plan, model: ScriptedChatModel, extracted: ExtractedPdf | None = None):
    return asyncio.run(read_unmapped_tables(plan, extracted or _extracted(), model, timeout_s=5))


def test_rows_are_converted_to_m3_per_min_and_marked_as_model_read() -> None:
    model = _answer(GOOD)
    reading = _read(_plan(), model)
    assert reading.tables == 1 and reading.accepted == 3 and reading.notes == []
    rows = {r.location: r for r in reading.plan.allocation}
    face = rows["15216综采工作面"]
    assert (
        face.required_q
        and face.required_q.value == pytest.approx(1132.2)
        and face.required_q.unit == "m³/min"
    )
    assert face.allocated_q and face.allocated_q.value == pytest.approx(1200.0)
    assert face.planned_speed and face.planned_speed.value == 1.72
    assert all(r.ref.text.startswith(MODEL_MARK) for r in reading.plan.allocation)
    assert face.required_q.ref.page == 3 and face.required_q.ref.text.startswith(MODEL_MARK)
    assert "15216综采工作面 | 18.87" in str(model.seen[0][-1].content)
    assert any("模型辅助读取" in w for w in reading.plan.warnings)


def test_a_number_not_written_in_the_row_is_rejected() -> None:
    rows = [dict(GOOD[0], allocated_q=25.0), *GOOD[1:]]
    reading = _read(_plan(), _answer(rows))
    assert {r.location for r in reading.plan.allocation} == {"中央变电所", "充电硐室"}
    assert any("不在该行表格中" in n for n in reading.notes)


@pytest.mark.parametrize("unit", [None, "m³/min"])
def test_an_unresolved_or_contradicted_unit_rejects_the_table(unit: str | None) -> None:
    reading = _read(_plan(), _answer(GOOD, unit=unit))
    assert reading.plan.allocation == [] and any("单位无法确定" in n for n in reading.notes)


def test_magnitudes_out_of_their_kinds_range_are_rejected() -> None:
    """A table without units: the model says m³/min, so 1.67 at a charging chamber is no air volume."""
    plain = [[c.replace("(m³/s)", "") for c in row] for row in TABLE]
    reading = _read(_plan(), _answer(GOOD, unit="m³/min"), _extracted(plain))
    assert reading.plan.allocation == []
    assert sum("超出该类地点的合理范围" in n for n in reading.notes) == 3


def test_a_required_q_disagreeing_with_the_plans_calculation_is_rejected() -> None:
    rows = [row[:] for row in TABLE]
    rows[2][1] = "2.00"  # 120 m³/min, the calculation takes 159.9
    answer = [GOOD[0], dict(GOOD[1], required_q=2.0), GOOD[2]]
    reading = _read(_plan(), _answer(answer), _extracted(rows))
    assert {r.location for r in reading.plan.allocation} == {"15216综采工作面", "充电硐室"}
    assert any("与计算过程所取 159.9" in n for n in reading.notes)


def test_a_location_the_plan_does_not_lack_is_not_taken() -> None:
    answer = [*GOOD, {"location": "某某巷道", "required_q": 18.87}]
    reading = _read(_plan(), _answer(answer))
    assert reading.accepted == 3 and any("某某巷道" in n for n in reading.notes)


def test_a_model_failure_or_refusal_leaves_the_plan_as_read() -> None:
    failing = ScriptedChatModel(script=[], fail_at={0})
    reading = _read(_plan(), failing)
    assert reading.plan.allocation == [] and any("读取失败" in n for n in reading.notes)
    reading = _read(_plan(), _answer(GOOD, is_table=False))
    assert reading.plan.allocation == [] and reading.accepted == 0


def test_no_gap_no_call() -> None:
    model = _answer(GOOD)
    reading = _read(_plan(allocated=True), model)
    assert reading.tables == 0 and model.seen == []


def _finding(severity: Severity, text: str | None, location: str = "中央变电所") -> Finding:
    ev = [Evidence(kind="pdf", page=3, text=text)] if text is not None else []
    return Finding(
        location=location,
        category=Category.CALCULATION,
        severity=severity,
        message="计划配风量小于需风量",
        figures={"allocated": 180.0, "required": 159.9},
        rule="allocated ≥ required",
        source="规程",
        evidence=ev,
    )


def test_findings_on_model_read_figures_are_at_most_minor() -> None:
    plan = _read(_plan(), _answer(GOOD)).plan
    on_model = _finding(Severity.MAJOR, MODEL_MARK + "中央变电所 | 2.67 | 3.00")
    by_value = _finding(Severity.CRITICAL, None)  # no PDF evidence, compares the model's 180.0
    by_rules = _finding(Severity.MAJOR, "取最大值：Q需 = 159.9 m³/min")
    capped = cap_model_findings([on_model, by_value, by_rules, _finding(Severity.INFO, MODEL_MARK)], plan)
    assert [f.severity for f in capped] == [Severity.MINOR, Severity.MINOR, Severity.MAJOR, Severity.INFO]
    assert "模型辅助读取" in capped[0].message
    assert cap_model_findings([on_model], _plan()) == [on_model]  # nothing model-read: unchanged


# End to end: a hand whose allocation table's headers no rule knows, reviewed with a scripted model.

OPAQUE = dataclasses.replace(
    HANDS[0],
    name="opaque-headers",
    headers={"no": "号", "name": "处所", "required": "甲栏", "allocated": "乙栏", "area": "丙栏"},
    columns=("no", "name", "required", "allocated", "area", "ch4"),
    location_list=False,
)


def _model_answer(plan: PlanDoc) -> dict[str, Any]:
    rows = [
        {
            "location": loc.name,
            "required_q": round(loc.required / 60, 2) if loc.required_unit_slip else loc.required,
            "allocated_q": loc.allocated,
            "area": loc.area,
            "ch4": loc.ch4,
        }
        for loc in plan.locations
    ]
    return {"is_allocation_table": True, "flow_unit": "m³/min", "rows": rows}


def _review(
    data: bytes, tmp_path: Path, model: ScriptedChatModel, **settings: Any
) -> tuple[list[Finding], list[str]]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "opaque.pdf"
    path.write_bytes(data)
    st = Settings(_env_file=None, data_dir=tmp_path / "d", **settings)
    req = ReviewRequest(path, hashlib.sha256(data).hexdigest(), path.name)
    messages: list[str] = []

    async def emit(event: EventModel) -> None:  # the pipeline's Send: one event of the catalogue
        check_declared(event)
        messages.append(str(event.wire().get("message", "")))

    result = asyncio.run(review_plan(req, st, emit, None, remarks_model=model))
    return result.findings, messages


def _is_reading_call(call: list[BaseMessage]) -> bool:
    return any(SYSTEM_PROMPT in str(m.content) for m in call)


def test_review_uses_the_aid_only_when_enabled_and_caps_what_rests_on_it(tmp_path: Path) -> None:
    seeded = seed_faults(demo_plan(), demo_faults())
    data = render_plan(seeded, OPAQUE)
    answer = says("", tool_call("ModelTable", _model_answer(seeded)))

    off = ScriptedChatModel(script=[], fallback=says("无"))
    findings, _ = _review(data, tmp_path / "off", off)
    assert not any(_is_reading_call(c) for c in off.seen)
    assert not any(f.location == "中央变电所" and f.category == Category.CALCULATION for f in findings)

    on = ScriptedChatModel(script=[answer], fallback=says("无"))
    findings, messages = _review(data, tmp_path / "on", on, review_model_reading=True)
    assert _is_reading_call(on.seen[0]) and any("请模型辅助读取" in m for m in messages)
    short = [f for f in findings if f.location == "中央变电所" and "配风量" in f.message]
    assert short and all(f.severity == Severity.MINOR for f in short), short
    ch4 = [
        f for f in findings if f.location == "15220回风顺槽掘进工作面" and f.category == Category.REGULATION
    ]
    assert ch4 and all(f.severity == Severity.MINOR for f in ch4)  # the CH₄ 1.05 % only the model read


def test_off_by_default() -> None:
    assert Settings(_env_file=None).review_model_reading is False
