"""Text layers from other hands: radicals and control characters change no finding; a garbage layer
(private-use glyphs, mojibake) over a scan is OCR'd like a page without one, and says why."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
import pytest

from tests.ocr_fakes import FakeEngine, synthetic_scan
from tests.pdf_edit import remap_to_unicode
from tests.pdf_factory import Page, build_pdf
from tests.review_runs import Events, finding_keys, review_file
from vent_agent.documents.ocr.engine import OcrBox
from vent_agent.documents.pdf_text import extract_pdf
from vent_agent.documents.upload import sha256_file
from vent_agent.review.outputs.provenance import build_record
from vent_agent.review.service.pipeline import ReviewFailed, ReviewRequest, load_extracted, review_plan
from vent_agent.settings import Settings

DATA = Path(__file__).parent / "data"
# radicals from both blocks (Kangxi and the supplement), and characters followed by control, format and
# private-use code points, as broken exporters write them in a ToUnicode map
QUIRKS = {
    "风": "\u2edb",
    "工": "\u2f2f",
    "面": "\u2faf",
    "人": "\u2f08",
    "大": "\u2f24",
    "月": "\u2e9d",
    "车": "\u2ecb",
    "长": "\u2ed3",
    "高": "\u2fbc",
    "量": "量\x07",
    "计": "计\ue123",
    "划": "划\u200b",
    "算": "算\x1f",
}


@pytest.mark.parametrize("name", ["plan-2026-08-a.pdf", "plan-2026-08-b.pdf"])
def test_radicals_and_control_characters_change_no_finding(name: str, tmp_path: Path) -> None:
    quirky = tmp_path / f"quirky-{name}"
    quirky.write_bytes(remap_to_unicode((DATA / name).read_bytes(), QUIRKS))
    ex = extract_pdf(quirky, max_pages=50)
    assert [p.source for p in ex.pages] == ["text"] * ex.page_count  # read as text, not OCR'd
    assert sum(p.cleaned.get("radical", 0) for p in ex.pages) > 100
    assert all(p.cleaned.get("control", 0) for p in ex.pages[:4])
    assert ex.text == extract_pdf(DATA / name, max_pages=50).text
    clean = review_file(DATA / name, tmp_path / "clean")
    got = review_file(quirky, tmp_path / "quirky")
    assert finding_keys(got.findings) == finding_keys(clean.findings)
    assert got.pages_read[0].cleaned["radical"] > 0 and got.pages_read[0].ocr_reason is None


def _jpeg(image) -> bytes:
    buf = io.BytesIO()
    image.convert("RGB").save(buf, "JPEG", quality=85)
    return buf.getvalue()


def _pua(text: str) -> str:
    return "".join(c if c.isspace() else chr(0xE000 + ord(c) % 6000) for c in text)


def _mojibake(text: str) -> str:
    return text.encode("utf-8").decode("cp1252", errors="replace")


LAYER_LINES = ["示范煤矿2026年8月份矿井配风计划", "用风地点 需风量 配风量", "15216综采工作面 1132.2 1200"]


def _scan_with_layer(layer: list[str] | None) -> tuple[bytes, list[OcrBox]]:
    scan = synthetic_scan(
        [["序号", "用风地点", "类别"], ["1", "15216综采工作面", "采煤工作面"]],
        col_widths=[200, 600, 400],
        lines_above=["示范煤矿2026年8月份矿井配风计划"],
    )
    page = Page()
    page.scan(_jpeg(scan.image), *scan.image.size)
    for i, line in enumerate(layer or []):
        page.text(57, 80 + 20 * i, line, invisible=True)
    return build_pdf([page]), scan.boxes


@pytest.mark.parametrize(("garble", "kind"), [(_pua, "private_use"), (_mojibake, "mojibake")])
def test_a_garbage_layer_over_a_scan_is_ocrd_and_says_why(garble, kind: str, tmp_path: Path) -> None:
    data, boxes = _scan_with_layer([garble(x) for x in LAYER_LINES])
    pdf = tmp_path / "scan.pdf"
    pdf.write_bytes(data)
    engine = FakeEngine(pages=[boxes])
    events = Events()
    settings = Settings(_env_file=None, data_dir=tmp_path / "d")
    req = ReviewRequest(pdf, sha256_file(pdf), pdf.name)
    ex = asyncio.run(load_extracted(req, settings, events, ocr_engine=engine))
    assert len(engine.calls) == 1
    page = ex.page(1)
    assert page.source == "ocr" and page.ocr_reason == "garbage_text_layer"
    assert page.layer is not None and page.layer.garbage and page.layer.bad_kinds[kind] > 10
    assert "15216综采工作面" in page.text and ex.tables_on(1)[0].rows()[1][1] == "15216综采工作面"
    (progress,) = events.with_field("ocr_progress")
    assert progress["ocr_progress"]["reason"] == "garbage_text_layer"
    assert "文字层为乱码" in progress["message"] and "文字层为乱码" in events.messages()


def test_a_good_invisible_layer_over_a_scan_is_read_as_text(tmp_path: Path) -> None:
    data, boxes = _scan_with_layer(LAYER_LINES)  # a searchable scan: its layer is text
    pdf = tmp_path / "searchable.pdf"
    pdf.write_bytes(data)
    engine = FakeEngine(pages=[boxes])
    settings = Settings(_env_file=None, data_dir=tmp_path / "d")
    ex = asyncio.run(
        load_extracted(ReviewRequest(pdf, sha256_file(pdf), pdf.name), settings, Events(), ocr_engine=engine)
    )
    assert not engine.calls and ex.page(1).source == "text" and ex.page(1).ocr_reason is None
    assert "15216综采工作面" in ex.page(1).text


def test_a_scanned_plan_under_an_invisible_garbage_layer_is_ocrd_and_reviewed(
    scanned_b_pdf: Path, tmp_path: Path
) -> None:
    """Real RapidOCR (about a minute): the scanned sample's pages under an invisible private-use layer
    (plan b's own text, garbled) give the findings of plan b's text layer."""
    text_layer = extract_pdf(DATA / "plan-2026-08-b.pdf", max_pages=50)
    doc = pdfium.PdfDocument(scanned_b_pdf)
    pages = []
    for i in range(len(doc)):
        (image,) = doc[i].get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE])  # the scan's own JPEG
        page = Page()
        page.scan(image.get_data(decode_simple=False), *image.get_px_size())
        for k, line in enumerate(text_layer.page(i + 1).text.splitlines()[:60]):
            page.text(40, 20 + 13 * k, _pua(line), size=9, invisible=True)
        pages.append(page)
    doc.close()
    pdf = tmp_path / "scan-under-garbage.pdf"
    pdf.write_bytes(build_pdf(pages))
    events = Events()
    got = review_file(pdf, tmp_path / "g", events=events)
    assert [p.ocr_reason for p in got.pages_read] == ["garbage_text_layer"] * 5
    assert [p.source for p in got.pages_read] == ["ocr"] * 5
    assert all(e["ocr_progress"]["reason"] == "garbage_text_layer" for e in events.with_field("ocr_progress"))
    log = [{"type": t, "seq": i, **f} for i, (t, f) in enumerate(events.items)]
    record = build_record(got, report_id="r", run_id=None, session_id=None, events=log, artifacts=[])
    assert [p.ocr_reason for p in record.pages_read] == ["garbage_text_layer"] * 5
    assert all(p.layer_bad["private_use"] >= 20 for p in record.pages_read)
    ocr_tasks = [t for t in record.tasks if "ocr_progress" in t]
    assert [t["ocr_progress"]["pdf_page"] for t in ocr_tasks] == [1, 2, 3, 4, 5]
    want = review_file(DATA / "plan-2026-08-b.pdf", tmp_path / "t")
    key = {(f.location, f.category.value, f.severity.value) for f in want.findings}
    assert {(f.location, f.category.value, f.severity.value) for f in got.findings} == key


def test_with_ocr_off_a_garbage_layer_is_named_in_the_error(tmp_path: Path) -> None:
    data, _ = _scan_with_layer([_pua(x) for x in LAYER_LINES])
    pdf = tmp_path / "scan.pdf"
    pdf.write_bytes(data)
    settings = Settings(_env_file=None, data_dir=tmp_path / "d", ocr_engine="none")
    events = Events()
    req = ReviewRequest(pdf, sha256_file(pdf), pdf.name)
    with pytest.raises(ReviewFailed) as err:
        asyncio.run(review_plan(req, settings, events, None))
    assert "第 1 页文字层为乱码" in err.value.message
    assert "第 1 页文字层为乱码（私用区字符" in events.messages() and "OCR 已关闭" in events.messages()
