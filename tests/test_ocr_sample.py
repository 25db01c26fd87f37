"""The scanned sample (plan b printed and scanned: 200 dpi, skewed, noisy) OCR'd once per session with
the default engine: the same page structure and the same structured plan as the text layer of plan b."""

from __future__ import annotations

from tests.helpers import present
from vent_agent.documents.pdf_text import ExtractedPdf, extract_pdf
from vent_agent.documents.plan.model import Figure, Plan
from vent_agent.documents.plan.parser import parse_plan
from vent_agent.documents.plan.text_primitives import DASHES, name_key, parse_number, squeeze


def _cell(text: str | None) -> str | None:
    if text is None:
        return None
    s = squeeze(text.replace("\n", "")).replace("m3", "m³").replace("CH4", "CH₄")
    return "" if s in DASHES else s


def test_every_page_is_ocrd(scanned_b_extracted: ExtractedPdf) -> None:
    ex = scanned_b_extracted
    assert ex.page_count == 5 and ex.pages_without_text == []
    assert [p.source for p in ex.pages] == ["ocr"] * 5
    assert "示范煤矿" in ex.page(1).text and "配风计划" in ex.page(1).text


def test_ruled_tables_match_the_text_layer(scanned_b_extracted: ExtractedPdf, plan_b_pdf) -> None:
    text_layer = extract_pdf(plan_b_pdf, max_pages=50)
    ocr = scanned_b_extracted
    assert [(t.page, t.index, t.n_rows, t.n_cols) for t in ocr.tables] == [
        (t.page, t.index, t.n_rows, t.n_cols) for t in text_layer.tables
    ]
    cells = misread = 0
    for got, want in zip(ocr.tables, text_layer.tables, strict=True):
        for got_row, want_row in zip(got.rows(), want.rows(), strict=True):
            for a, b in zip(got_row, want_row, strict=True):
                cells += 1
                if _cell(a) != _cell(b):
                    misread += 1
                    assert parse_number(b) is None, (a, b)  # every figure is read right
                    assert b and a and len(set(b) & set(a)) >= len(b) - 1, (a, b)  # a character at most
        for got_edge, want_edge in zip(got.bbox, want.bbox, strict=True):
            assert abs(got_edge - want_edge) < 8  # points: the scan is skewed, the grid is found upright
    assert misread <= cells // 50


def test_the_plan_read_from_the_scan_is_the_plan_of_the_text_layer(
    scanned_b_extracted: ExtractedPdf, plan_b: Plan
) -> None:
    plan = parse_plan(scanned_b_extracted)
    assert (plan.title, plan.mine, plan.month, plan.version, plan.prepared_date) == (
        plan_b.title,
        plan_b.mine,
        plan_b.month,
        plan_b.version,
        plan_b.prepared_date,
    )
    assert [name_key(n) for n in plan.listed_locations] == [name_key(n) for n in plan_b.listed_locations]
    assert [(s.role, s.name, s.date) for s in plan.signoffs] == [
        (s.role, s.name, s.date) for s in plan_b.signoffs
    ]

    def value(figure: Figure | None) -> float | None:
        return figure.value if figure else None

    def figures(p: Plan) -> list[tuple[str, float | None, float | None, float | None]]:
        return [
            (name_key(r.location), value(r.required_q), value(r.allocated_q), value(r.ch4))
            for r in p.allocation
        ]

    assert figures(plan) == figures(plan_b)
    assert len(plan.locations) == len(plan_b.locations)
    for got, want in zip(plan.locations, plan_b.locations, strict=True):
        assert (name_key(got.name), got.kind) == (name_key(want.name), want.kind)
        assert [(m.method, m.operands, m.stated.value if m.stated else None) for m in got.methods] == [
            (m.method, m.operands, m.stated.value if m.stated else None) for m in want.methods
        ]
        assert {k: v.value for k, v in got.inputs.items()} == {k: v.value for k, v in want.inputs.items()}
    assert value(plan.totals.stated_sum) == present(plan_b.totals.stated_sum).value
