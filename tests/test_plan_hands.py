"""The corpus of hands (issue 12 item 6): the demo mine's 2026-08 plan written in every hand of
:data:`tests.plan_hands.hands.HANDS`, clean and with the ten fault kinds of plan b.

Properties, per hand: (a) the clean plan gives no major or critical finding; (b) the plan with the
seeded faults gives each seeded fault at its location, category and severity (as the plan-b tests
compare with ``plan-2026-08-b.answers.json``). Each PDF is written and reviewed once per session.

The (hand, property) pairs the reader cannot pass yet are in :data:`KNOWN`, each with what the reader
misreads; they are strict xfails, so a reader that learns the hand turns them into failures to delete.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from tests.pdf_factory import build_pdf
from tests.pg import in_ci
from tests.plan_hands.faults import demo_faults, seed_faults
from tests.plan_hands.hands import HANDS, Hand
from tests.plan_hands.model import PlanDoc, demo_plan
from tests.plan_hands.render import render_pages, render_plan
from tests.plan_hands.review import review_pdf
from vent_agent.review.findings import Finding

DATA = Path(__file__).parent / "data"
CLEAN, SEEDED = "clean", "seeded"
BY_NAME = {h.name: h for h in HANDS}

KNOWN: dict[tuple[str, str], str] = {}


def _param(hand: Hand, prop: str):
    reason = KNOWN.get((hand.name, prop))
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(hand.name, marks=marks, id=hand.name)


def _render(plan: PlanDoc, hand: Hand) -> bytes:
    """The hand's PDF of ``plan``; the scanned hand needs a CJK font for PDFium: without one the test is
    skipped with the reason (failed under ``CI=true``, whose ``.ci/run`` installs fonts-noto-cjk)."""
    try:
        return render_plan(plan, hand)
    except RuntimeError as exc:
        if "CJK font" not in str(exc):
            raise
        if in_ci():
            pytest.fail(f"CI=true requires a CJK font: {exc}")
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def corpus() -> tuple[PlanDoc, PlanDoc]:
    """The clean plan and the plan with the ten seeded faults."""
    plan = demo_plan()
    return plan, seed_faults(plan, demo_faults())


@pytest.fixture(scope="session")
def reviewed(corpus: tuple[PlanDoc, PlanDoc]) -> Callable[[str, str], list[Finding] | str]:
    """``reviewed(hand, variant)``: the findings of that PDF, written and reviewed once per session."""
    cache: dict[tuple[str, str], list[Finding] | str] = {}

    def get(hand: str, variant: str) -> list[Finding] | str:
        if (hand, variant) not in cache:
            plan = corpus[0] if variant == CLEAN else corpus[1]
            cache[hand, variant] = review_pdf(_render(plan, BY_NAME[hand]), f"{hand}-{variant}.pdf")
        return cache[hand, variant]

    return get


def _blocking(findings: list[Finding] | str) -> list[tuple[str | None, str, str, str]]:
    assert not isinstance(findings, str), f"the review failed: {findings}"
    return [
        (f.location, f.category.value, f.severity.value, f.message)
        for f in findings
        if f.severity.value in ("major", "critical")
    ]


def _missed(findings: list[Finding] | str) -> list[tuple[str | None, str, str]]:
    assert not isinstance(findings, str), f"the review failed: {findings}"
    got = {(f.location, f.category.value, f.severity.value) for f in findings}
    return [fault.expected for fault in demo_faults() if fault.expected not in got]


TEXT_HANDS = [h for h in HANDS if not h.scanned]


# The scanned hand is OCR'd with the default engine: about a minute per plan, the slowest of this module.
@pytest.mark.parametrize("hand", [_param(h, CLEAN) for h in HANDS])
def test_clean_plan_in_every_hand_has_no_major(hand: str, reviewed) -> None:
    assert _blocking(reviewed(hand, CLEAN)) == []


@pytest.mark.parametrize("hand", [_param(h, SEEDED) for h in HANDS])
def test_seeded_faults_in_every_hand_are_found(hand: str, reviewed) -> None:
    assert _missed(reviewed(hand, SEEDED)) == []


# The writer itself: the faults are plan b's, the hands are distinct and do what they say.


def test_seeded_faults_are_the_ten_kinds_of_plan_b() -> None:
    answers = json.loads((DATA / "plan-2026-08-b.answers.json").read_text(encoding="utf-8"))["findings"]
    assert sorted((a["location"] or "", a["category"], a["severity"]) for a in answers) == sorted(
        (loc or "", cat, sev) for loc, cat, sev in (f.expected for f in demo_faults())
    )


def _text(pdf: bytes) -> list[str]:
    doc = pdfium.PdfDocument(pdf)
    try:
        return [doc[i].get_textpage().get_text_range() for i in range(len(doc))]
    finally:
        doc.close()


@pytest.fixture(scope="session")
def texts(corpus: tuple[PlanDoc, PlanDoc]) -> dict[str, list[str]]:
    """Each text hand's clean plan: the text layer per page."""
    return {h.name: _text(build_pdf(render_pages(corpus[0], h))) for h in TEXT_HANDS}


def test_there_are_at_least_eight_distinct_hands(texts: dict[str, list[str]]) -> None:
    assert len(HANDS) >= 10 and any(h.scanned for h in HANDS)
    assert len({"\f".join(t) for t in texts.values()}) == len(texts) >= 8


def test_hands_write_what_they_choose(corpus: tuple[PlanDoc, PlanDoc], texts: dict[str, list[str]]) -> None:
    joined = {name: "\n".join(pages) for name, pages in texts.items()}
    for hand in TEXT_HANDS:
        text = joined[hand.name]
        assert ("\u2f2f" in text and "\u2edb" in text) == hand.radicals, hand.name
        assert any(ord(c) < 32 and c not in "\r\n\t" for c in text) == hand.controls, hand.name
        assert ("１" in text) == hand.fullwidth, hand.name
        assert ("m³/s" in text or "m3/s" in text) == ("m3s" in (hand.calc_unit, *hand.units.values())), (
            hand.name
        )
        assert ("计算公式" in text) == (hand.calc == "table"), hand.name
        if hand.signoff == "lines":
            assert "编制：通风技术员 李明" in text
        pages = render_pages(corpus[0], hand)
        assert any(p.width > p.height for p in pages) == hand.landscape, hand.name
        if hand.split_rows:
            header = hand.header("allocated")
            assert sum(header in page for page in texts[hand.name]) >= 2, hand.name


def test_the_scanned_hand_has_no_text_layer(corpus: tuple[PlanDoc, PlanDoc]) -> None:
    (hand,) = [h for h in HANDS if h.scanned]
    pages = _text(_render(corpus[0], hand))
    assert len(pages) >= 4 and all(not p.strip() for p in pages)
