"""The property that keeps the review honest (docs/DOMAIN.md §5, issue [A] item 9): degrading a plan can only
lose findings, never make them. For each plan and each degradation, the (rule, location) pairs found at
major or critical are a subset of the clean plan's.

Plans: plan b (text layer) and the seeded demo plan written in several hands of tests/plan_hands.
Degradations: a page dropped; an unrelated page inserted; a page stored sideways (/Rotate); a page printed
and scanned, then blurred, darkened, turned 90° or photographed at an angle (OCR'd); section titles
renamed to words the reader does not know; allocation headers renamed likewise; the location list
dropped; unnumbered sections; the allocation table broken over pages. Each review takes seconds: the
module is in the slow tier."""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pypdfium2 as pdfium
import pytest
from PIL import Image, ImageEnhance, ImageFilter

from tests.pdf_factory import Page, build_pdf, image_pdf
from tests.plan_hands.faults import demo_faults, seed_faults
from tests.plan_hands.hands import HANDS, Hand
from tests.plan_hands.model import PlanDoc, demo_plan
from tests.plan_hands.render import render_plan
from tests.plan_hands.review import review_pdf

pytestmark = pytest.mark.slow

DATA = Path(__file__).parent / "data"
Serious = set[tuple[str | None, str | None]]


def _serious(pdf: bytes, name: str) -> Serious:
    findings = review_pdf(pdf, name)
    if isinstance(findings, str):  # not reviewable at all: nothing judged
        return set()
    return {(f.rule_id, f.location) for f in findings if f.severity.value in ("major", "critical")}


def _pages(pdf: bytes) -> int:
    doc = pdfium.PdfDocument(pdf)
    try:
        return len(doc)
    finally:
        doc.close()


def _edit(pdf: bytes, change: Callable[[pdfium.PdfDocument], None]) -> bytes:
    doc = pdfium.PdfDocument(pdf)
    try:
        change(doc)
        out = io.BytesIO()
        doc.save(out)
        return out.getvalue()
    finally:
        doc.close()


def _drop(page: int) -> Callable[[bytes], bytes]:
    return lambda pdf: _edit(pdf, lambda doc: doc.del_page(page))


def _rotate(page: int) -> Callable[[bytes], bytes]:
    return lambda pdf: _edit(pdf, lambda doc: doc[page].set_rotation(90))


def _unrelated_page() -> bytes:
    page = Page()
    page.para("附件：井下供电系统检修安排（与本月配风无关）", 12)
    page.para("检修内容：更换 3 号变压器油，检查 12 台开关柜，计划停电 4 小时，检修人员 16 人。")
    page.table(
        [["序号", "设备", "数量", "功率"], ["1", "开关柜", "12", "45"], ["2", "变压器", "1", "630"]],
        [40, 160, 80, 80],
    )
    return build_pdf([page])


def _insert_unrelated(at: int) -> Callable[[bytes], bytes]:
    def change(doc: pdfium.PdfDocument) -> None:
        extra = pdfium.PdfDocument(_unrelated_page())
        doc.import_pages(extra, index=at)
        extra.close()

    return lambda pdf: _edit(pdf, change)


def _scanned(page: int, perturb: Callable[[Image.Image], Image.Image]) -> Callable[[bytes], bytes]:
    """Page ``page`` printed and scanned (an image at 150 dpi, no text layer), then ``perturb`` ed:
    blurred, darkened, turned, photographed at an angle. The other pages keep their text layer, so only
    this one is OCR'd."""

    def change(doc: pdfium.PdfDocument) -> None:
        image = perturb(doc[page].render(scale=150 / 72).to_pil().convert("L"))
        scan = pdfium.PdfDocument(image_pdf([image], dpi=150.0))
        doc.del_page(page)
        doc.import_pages(scan, index=page)
        scan.close()

    return lambda pdf: _edit(pdf, change)


def _photographed(image: Image.Image) -> Image.Image:
    """``image`` as a phone sees it held at an angle, on a dark background, lit from one side."""
    w, h = image.size
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float32)
    dst = np.array([[0.06 * w, 40], [0.95 * w, 20], [w - 10, h - 15], [20, h - 40]], dtype=np.float32)
    warped = cv2.warpPerspective(
        np.asarray(image), cv2.getPerspectiveTransform(src, dst), (w, h), borderValue=50
    )
    return Image.fromarray((warped * np.linspace(1.0, 0.75, w)[None, :]).astype(np.uint8))


SCAN_PERTURBATIONS: dict[str, Callable[[Image.Image], Image.Image]] = {
    "blurred": lambda im: im.filter(ImageFilter.GaussianBlur(1.6)),
    "darkened": lambda im: ImageEnhance.Brightness(ImageEnhance.Contrast(im).enhance(0.6)).enhance(0.55),
    "turned": lambda im: im.transpose(Image.Transpose.ROTATE_90),
    "photographed": _photographed,
}


PLAN_B = (DATA / "plan-2026-08-b.pdf").read_bytes()


@pytest.fixture(scope="module")
def clean_b() -> Serious:
    return _serious(PLAN_B, "plan-b.pdf")


PDF_DEGRADATIONS: dict[str, Callable[[bytes], bytes]] = {
    **{f"drop-page-{n + 1}": _drop(n) for n in range(_pages(PLAN_B))},
    "unrelated-page-first": _insert_unrelated(0),
    "unrelated-page-middle": _insert_unrelated(2),
    "page-2-sideways": _rotate(1),
    "page-4-sideways": _rotate(3),
    **{f"page-4-scanned-{name}": _scanned(3, perturb) for name, perturb in SCAN_PERTURBATIONS.items()},
}


@pytest.mark.parametrize("degradation", list(PDF_DEGRADATIONS))
def test_degrading_plan_b_only_loses_findings(degradation: str, clean_b: Serious) -> None:
    degraded = PDF_DEGRADATIONS[degradation](PLAN_B)
    assert _serious(degraded, f"b-{degradation}.pdf") <= clean_b


HAND_DEGRADATIONS: dict[str, Callable[[Hand], Hand]] = {
    "titles-unknown": lambda h: replace(
        h, titles={**h.titles, "calc": "各处风量测算", "allocation": "各处安排", "list": "各处名目"}
    ),
    "headers-unknown": lambda h: replace(
        h, headers={**h.headers, "required": "应需数", "allocated": "安排数", "name": "处所"}
    ),
    "no-location-list": lambda h: replace(h, location_list=False),
    "unnumbered-sections": lambda h: replace(h, numbering="none"),
    "allocation-split": lambda h: replace(h, split_rows=3),
}
TEXT_HANDS = [h for h in HANDS if not h.scanned][:3]


@pytest.fixture(scope="module")
def seeded() -> PlanDoc:
    return seed_faults(demo_plan(), demo_faults())


@pytest.fixture(scope="module")
def clean_hands(seeded: PlanDoc) -> dict[str, Serious]:
    return {h.name: _serious(render_plan(seeded, h), f"{h.name}.pdf") for h in TEXT_HANDS}


@pytest.mark.parametrize("degradation", list(HAND_DEGRADATIONS))
@pytest.mark.parametrize("hand", TEXT_HANDS, ids=lambda h: h.name)
def test_degrading_a_hand_only_loses_findings(
    hand: Hand, degradation: str, seeded: PlanDoc, clean_hands: dict[str, Serious]
) -> None:
    degraded = HAND_DEGRADATIONS[degradation](hand)
    got = _serious(render_plan(seeded, degraded), f"{hand.name}-{degradation}.pdf")
    assert got <= clean_hands[hand.name]
