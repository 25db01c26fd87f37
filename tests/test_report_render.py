"""The Word report as LibreOffice lays it out (``soffice --headless --convert-to pdf``, then the PDF's
text per page): a finding kept whole is never cut across a page.

Skipped when ``soffice`` is missing (LibreOffice is not a dependency of the service).
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
