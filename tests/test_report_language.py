"""The Word report an auditor signs is in Chinese: no English word or code identifier beyond the unit and
formula symbols it needs and the words the plan itself contains (issue: a report in clean Chinese)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from docx import Document
from docx.oxml.ns import qn

from vent_agent.cli import main
from vent_agent.documents.pdf_text import extract_pdf

DATA = Path(__file__).parent / "data"
WORD = re.compile(r"[A-Za-z]{2,}")
ALLOWED = {
    # units and chemical formulae
    "min", "kg", "kW", "kJ", "Pa", "CH", "CO", "NO", "SO", "NH",
    # formula symbols of the methods (Q_mine, k_h, k_l, c_p, S_eff, …) and standards
    "max", "mine", "eff", "AQ", "PDF", "SHA",
}  # fmt: skip


def _text(paragraph: Any) -> str:
    """A paragraph's text with each subscript run read back in the formulas' notation (``k`` + subscript
    ``h`` → ``k_h``), so a symbol is one known word."""
    out = []
    for run in paragraph.runs:
        rpr = run._r.rPr
        sub = rpr is not None and rpr.find(qn("w:vertAlign")) is not None
        out.append(f"_{run.text}" if sub else run.text)
    return "".join(out)


def docx_text(path: Path) -> str:
    """Every text of the document: body paragraphs, table cells, headers and footers."""
    doc = Document(str(path))
    parts = [_text(p) for p in doc.paragraphs]
    for table in doc.tables:
        parts += ["\n".join(_text(p) for p in cell.paragraphs) for row in table.rows for cell in row.cells]
    for section in doc.sections:
        parts += [p.text for p in section.footer.paragraphs] + [p.text for p in section.header.paragraphs]
    return "\n".join(parts)


def english_words(report: str, plan_text: str) -> set[str]:
    """Latin words of two letters or more in the report that are neither allowed nor in the plan."""
    own = set(WORD.findall(plan_text))
    return {w for w in WORD.findall(report) if w not in ALLOWED and w not in own}


@pytest.mark.parametrize("name", ["plan-2026-08-a.pdf", "plan-2026-08-b.pdf"])
def test_report_has_no_english_beyond_the_plans_own(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("VENT_DATA_DIR", str(tmp_path / "d"))
    out = tmp_path / "report.docx"
    with pytest.raises(SystemExit):
        main(["review", str(DATA / name), "-o", str(out)])
    capsys.readouterr()
    plan_text = "\n".join(p.text for p in extract_pdf(DATA / name, max_pages=50).pages) + name
    # the file's SHA-256 and the report number made from it are hexadecimal, not words
    report = re.sub(r"\b[0-9a-f]{64}\b|配审-[\d-]+-[0-9A-F]{6}\b", "", docx_text(out))
    assert english_words(report, plan_text) == set()
