"""Extracted PDF → plan, the document-level steps around the parser: repeated copies are read once
(:mod:`.repeats`) and how each page was read is kept on the plan (:class:`~.quality.PageRead`)."""

from __future__ import annotations

from vent_agent.documents.pdf_text import ExtractedPdf
from vent_agent.documents.plan.model import Plan
from vent_agent.documents.plan.parser import parse_plan
from vent_agent.documents.quality import PageRead, low_confidence
from vent_agent.documents.repeats import find_repeats


def pages_read(extracted: ExtractedPdf) -> list[PageRead]:
    """How each page of ``extracted`` was read (source, OCR reason, layer score, normalisation counts);
    a page still without text (OCR off or failed) has the reason it needed OCR."""
    pending = extracted.ocr_reasons()
    return [
        PageRead(
            page=p.page,
            source=p.source,
            ocr_reason=p.ocr_reason or pending.get(p.page),
            layer_score=p.layer.score if p.layer else None,
            layer_bad=dict(p.layer.bad_kinds) if p.layer else {},
            cleaned=dict(p.cleaned),
            ocr_confidence=p.ocr_confidence,
            low_confidence=p.source == "ocr"
            and low_confidence(p.ocr_confidence, p.figure_boxes, p.figures_unread),
        )
        for p in extracted.pages
    ]


def read_plan(extracted: ExtractedPdf) -> Plan:
    """The plan of ``extracted``: repeated copies found and left out (:func:`find_repeats`), the rest
    parsed (:func:`parse_plan`), with ``plan.repeats`` and ``plan.pages_read`` set. Never raises on
    content."""
    repeats = find_repeats(extracted)
    plan = parse_plan(repeats.reviewed_extraction(extracted) if repeats else extracted)
    plan.repeats = repeats
    plan.pages_read = pages_read(extracted)
    return plan
