"""Uploads that cannot be a plan are refused before OCR (issue 26, item 7): blank and near-blank pages
are found from a low-scale rendering by cheap statistics and never OCR'd; a PDF with no page worth
reading is refused at once, the OCR engine never called."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image, ImageDraw

from tests.ocr_fakes import FakeEngine, synthetic_scan
from tests.pdf_factory import blank_pdf, image_pdf
from vent_agent.documents.ocr.blank import blank_pages, ink_share
from vent_agent.documents.upload import sha256_file
from vent_agent.events import EventModel
from vent_agent.review.service.pipeline import ReviewFailed, ReviewRequest, load_extracted
from vent_agent.settings import Settings

DATA = Path(__file__).parent / "data"
ROWS: list[list[str | None]] = [["序号", "用风地点", "类别"], ["1", "15216综采工作面", "采煤工作面"]]


def _empty_scan(seed: int, page_number: str | None = None) -> Image.Image:
    """A scanned empty A4 page at 100 dpi: grey paper, scanner noise, dark speckles, perhaps a page number."""
    rng = np.random.default_rng(seed)
    paper = np.clip(232 + rng.normal(0, 6, (1169, 827)), 0, 255).astype(np.uint8)
    paper[rng.random(paper.shape) < 0.0005] = 40
    image = Image.fromarray(paper)
    if page_number:
        ImageDraw.Draw(image).text((400, 1120), page_number, fill=0)
    return image


def _pdf(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "upload.pdf"
    path.write_bytes(data)
    return path


class Events:
    def __init__(self) -> None:
        self.messages: list[str] = []

    async def __call__(self, event: EventModel) -> None:
        self.messages.append(str(event.wire().get("message", "")))


class NoOcr(FakeEngine):
    def recognise(self, image: Image.Image) -> Any:
        raise AssertionError("a blank page was OCR'd")


def test_ink_share_of_plain_images() -> None:
    assert ink_share(np.full((40, 30), 255, np.uint8)) == 0.0
    assert ink_share(np.zeros((40, 30), np.uint8)) == 0.0  # all black: no contrast, nothing to read
    page = np.full((100, 100), 240, np.uint8)
    page[10:12, 10:60] = 20  # one dark stroke of 100 pixels
    assert ink_share(page) == pytest.approx(0.01)


def test_the_samples_pages_are_worth_reading_and_empty_ones_are_not(tmp_path: Path) -> None:
    assert blank_pages(DATA / "plan-2026-08-b-scanned.pdf", [1, 2, 3, 4, 5]) == []
    assert blank_pages(DATA / "plan-2026-08-b.pdf", [1, 2, 3, 4, 5]) == []
    assert blank_pages(_pdf(tmp_path, blank_pdf(3)), [1, 2, 3]) == [1, 2, 3]


def test_a_noisy_empty_scan_with_only_a_page_number_is_blank(tmp_path: Path) -> None:
    scan = synthetic_scan(ROWS, col_widths=[100, 400, 300])
    pdf = _pdf(tmp_path, image_pdf([_empty_scan(1), scan.image, _empty_scan(2, "- 3 -")]))
    assert blank_pages(pdf, [1, 2, 3]) == [1, 3]


async def test_a_pdf_of_blank_pages_is_refused_before_any_ocr(settings: Settings, tmp_path: Path) -> None:
    pdf = _pdf(tmp_path, blank_pdf(30))
    req = ReviewRequest(pdf, sha256_file(pdf), pdf.name)
    with pytest.raises(ReviewFailed) as failed:
        await load_extracted(req, settings, Events(), ocr_engine=NoOcr())
    assert failed.value.message == (
        "PDF 共 30 页，全部为空白或近乎空白的页面（无文字层，页面上几乎没有字迹），不是配风计划：未进行 OCR。"
        "请确认上传的是配风计划文件，扫描件请检查是否扫描成功"
    )


async def test_blank_pages_of_a_scan_are_skipped_and_the_rest_ocrd(
    settings: Settings, tmp_path: Path
) -> None:
    scan = synthetic_scan(ROWS, col_widths=[100, 400, 300])
    pdf = _pdf(tmp_path, image_pdf([_empty_scan(3), scan.image, _empty_scan(4), _empty_scan(5, "4")]))
    engine = FakeEngine(pages=[scan.boxes])
    events = Events()
    extracted = await load_extracted(
        ReviewRequest(pdf, sha256_file(pdf), pdf.name), settings, events, ocr_engine=engine
    )
    assert len(engine.calls) == 1  # page 2 only
    assert "跳过 3 页空白或近乎空白的页面（第 1、3–4 页），不做 OCR" in events.messages
    assert "15216综采工作面" in extracted.page(2).text and extracted.page(1).text == ""
