"""Pages stored with a display rotation (/Rotate 90, 180 or 270) whose text was written upright are read
as written (issue [A] item 8): the same text and the same plan as the upright file."""

from __future__ import annotations

import io
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from vent_agent.documents.pdf_text import extract_pdf, sideways_pages
from vent_agent.documents.reading import read_plan

DATA = Path(__file__).parent / "data"


def _rotated(pdf: Path, rotation: int, pages: list[int]) -> bytes:
    doc = pdfium.PdfDocument(pdf.read_bytes())
    for number in pages:
        doc[number - 1].set_rotation(rotation)
    out = io.BytesIO()
    doc.save(out)
    doc.close()
    return out.getvalue()


@pytest.mark.parametrize("rotation", [90, 180, 270])
def test_pages_turned_by_rotate_are_read_upright(tmp_path: Path, rotation: int) -> None:
    upright = extract_pdf(DATA / "plan-2026-08-b.pdf", max_pages=50)
    path = tmp_path / "rotated.pdf"
    path.write_bytes(_rotated(DATA / "plan-2026-08-b.pdf", rotation, [2, 4]))
    assert sideways_pages(path.read_bytes()) == [2, 4]
    turned = extract_pdf(path, max_pages=50)
    assert [p.text for p in turned.pages] == [p.text for p in upright.pages]
    assert any("旋转" in w for w in turned.warnings)
    plan, clean = read_plan(turned), read_plan(upright)
    assert [r.location for r in plan.allocation] == [r.location for r in clean.allocation]
    assert [loc.name for loc in plan.locations] == [loc.name for loc in clean.locations]


def test_an_upright_file_has_no_sideways_page() -> None:
    assert sideways_pages((DATA / "plan-2026-08-b.pdf").read_bytes()) == []
