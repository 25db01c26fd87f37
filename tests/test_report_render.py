"""The Word report as LibreOffice lays it out (``soffice --headless --convert-to pdf``, then the PDF's
text per page and the face of each character): a finding kept whole is never cut across a page; every
character, symbols included, is set in the report's two faces' stand-ins.

Skipped when ``soffice`` is missing (LibreOffice is not a dependency of the service), the faces test when
the stand-ins are not installed.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pdfplumber
import pytest

from reports.docx_report import render_docx
from tests.report_samples import finding, make_result
from vent_agent.review.findings import Category, Severity
from vent_agent.review.result import ReviewerOutcome

SOFFICE = shutil.which("soffice") or shutil.which("libreoffice")
LINES = 8
"""How many lines each finding of the layout test has."""
pytestmark = pytest.mark.skipif(SOFFICE is None, reason="no LibreOffice (soffice) to lay out the report")


def to_pdf(docx: Path) -> Path:
    """``docx`` converted by LibreOffice beside it, with a profile of its own (a running LibreOffice
    holds the user's profile)."""
    profile = docx.parent / "lo-profile"
    subprocess.run(
        [
            str(SOFFICE),
            f"-env:UserInstallation={profile.as_uri()}",
            "--headless",
            "--convert-to",
            "pdf",
            "--outdir",
            str(docx.parent),
            str(docx),
        ],
        check=True,
        capture_output=True,
        timeout=180,
    )
    return docx.with_suffix(".pdf")


def installed(family: str) -> bool:
    """Whether fontconfig knows a face of ``family``."""
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return False
    out = subprocess.run([fc_list, ":", "family"], capture_output=True, text=True, check=False).stdout
    return family in out


def page_texts(pdf: Path) -> list[str]:
    """Each page's text."""
    with pdfplumber.open(pdf) as doc:
        return [page.extract_text() or "" for page in doc.pages]


def test_no_finding_kept_whole_is_cut_across_a_page(tmp_path: Path) -> None:
    """Findings of eight lines (a message, its figures, the reference and the cell read), enough of them
    to fill several pages: each one's first and last line are on one page."""
    findings = [
        finding(
            Severity.MINOR,
            Category.DATA,
            "\n".join(f"甲{i:02d}项第{j}行" for j in range(1, LINES + 1)),
        )
        for i in range(1, 31)
    ]
    result = make_result(reviewers=[ReviewerOutcome(agent="data-checker", findings=findings)])
    pages = page_texts(to_pdf(render_docx(result, tmp_path / "r.docx")))
    where = {
        (int(m[1]), int(m[2])): n
        for n, text in enumerate(pages)
        for m in re.finditer(r"甲(\d+)项第(\d+)行", text)
    }
    assert len({page for page in where.values()}) >= 3, "the findings fill several pages"
    cut = [i for i in range(1, 31) if where[(i, 1)] != where[(i, LINES)]]
    assert not cut, f"findings cut across a page: {cut}"


STAND_INS = ("Liberation Sans", "Noto Sans CJK SC")
"""What LibreOffice sets Arial and 微软雅黑 in on a machine without them."""


@pytest.mark.skipif(
    not all(installed(f) for f in STAND_INS), reason="Liberation Sans or Noto Sans CJK missing"
)
def test_every_character_is_set_in_the_reports_two_faces(tmp_path: Path) -> None:
    """℃ (which Liberation Sans lacks), ±, ≥, ×, ³ and ₄ after Latin text and after Chinese text, in a
    paragraph and in a table cell: each in Liberation Sans or Noto Sans CJK, never a third face
    (DejaVu Sans, OpenSymbol)."""
    symbols = "℃±≥×³₄"
    message = "温度 19.0 ℃，偏差 ±10 %，风速 ≥ 0.25 m/s，4 × 1.2 m³/min，CH₄ 浓度；T = 26 ℃ ≥ 20 ℃"
    result = make_result(
        reviewers=[
            ReviewerOutcome(agent="data-checker", findings=[finding(Severity.MAJOR, Category.DATA, message)])
        ]
    )
    pdf = to_pdf(render_docx(result, tmp_path / "r.docx"))
    with pdfplumber.open(pdf) as doc:
        chars = [c for page in doc.pages for c in page.chars if c["text"].strip()]
    faces = {c["fontname"].split("+")[-1] for c in chars}
    assert all(re.match("LiberationSans|NotoSansCJK", face) for face in faces), faces
    seen = {c["text"] for c in chars}
    assert set(symbols) <= seen
