"""Formula symbols in finding messages: a symbol the plan spells without its underscore (``Qf``) is
written the calculators' way (``Q_f``, calc.symbols.notate) by the finding builder, so the Word report sets
it with a subscript run (the console's ``<sub>``: tests/test_console_browser.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from docx import Document
from docx.oxml.ns import qn
from docx.text.run import Run

from calc.symbols import SUBSCRIPT, notate, symbols
from reports.content import FINDINGS_HEADER
from reports.docx_report import render_docx
from tests.report_samples import make_result
from vent_agent.review.findings import Severity
from vent_agent.review.result import ReviewerOutcome
from vent_agent.review.rule_common import finding

PLAN_FORMULA = "按局部通风机吸风量计算与按规程系数核算不符：计划 Q = Qf × I + 60 × 0.25 × S = 489.0 m³/min"


def _subscripts(runs: list[Run]) -> list[str]:
    """The texts of the runs set as subscripts."""
    return [r.text for r in runs if r._r.rPr is not None and r._r.rPr.find(qn("w:vertAlign")) is not None]


@pytest.mark.parametrize(
    ("written", "notated"),
    [
        ("Q = Qf × I + 60 × 0.25 × S", "Q = Q_f × I + 60 × 0.25 × S"),
        ("计划Qf=420，vmin取0.25", "计划Q_f=420，v_min取0.25"),
        ("Q = 67·qCO₂·k；kh × kl", "Q = 67·q_CO₂·k；k_h × k_l"),
        ("Q = Q_f·I（已是计算模块写法）", "Q = Q_f·I（已是计算模块写法）"),
        ("Qfan 与 m³/min、Kmax 不是符号", "Qfan 与 m³/min、Kmax 不是符号"),
    ],
)
def test_a_symbol_spelled_without_its_underscore_is_written_the_calculators_way(
    written: str, notated: str
) -> None:
    assert notate(written) == notated


def test_the_symbols_are_the_calculators_glossary() -> None:
    assert {"Q_f", "v_min", "k_h", "k_l", "q_CO₂", "k_mine"} <= symbols()
    assert all(SUBSCRIPT.fullmatch(s) for s in symbols())


def test_the_builder_writes_a_quoted_plan_formula_in_symbols() -> None:
    f = finding("calc.method_coefficient", "二采区轨道下山掘进工作面", PLAN_FORMULA)
    assert "Q = Q_f × I" in f.message and "Qf" not in f.message


def test_the_word_report_sets_a_finding_messages_symbols_with_subscript_runs(tmp_path: Path) -> None:
    f = finding("calc.method_coefficient", "二采区轨道下山掘进工作面", PLAN_FORMULA, severity=Severity.MAJOR)
    result = make_result(reviewers=[ReviewerOutcome(agent="calc-verifier", findings=[f])])
    doc = Document(str(render_docx(result, tmp_path / "r.docx")))
    table = next(t for t in doc.tables if tuple(c.text for c in t.rows[0].cells) == FINDINGS_HEADER)
    cell = table.rows[1].cells[4]
    assert (
        _subscripts([r for p in cell.paragraphs for r in p.runs]) == ["f"] and "Q_f" not in cell.text
    )  # Q, then f set as a subscript
    # page 1's line of the major item too
    key = next(p for p in doc.paragraphs if "二采区轨道下山掘进工作面" in p.text and p.text.startswith("【"))
    assert _subscripts(key.runs) == ["f"]
