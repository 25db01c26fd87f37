"""OCR of scanned pages: an engine interface (:mod:`.engine`), RapidOCR (default, :mod:`.rapid`) and
PaddleOCR (optional, :mod:`.paddle`) behind it, and the layout that turns boxes into the text-layer
path's page structure (:mod:`.layout`, :mod:`.rules`, :mod:`.tables`, :mod:`.page`)."""

from vent_agent.documents.ocr.engine import (
    OcrBox,
    OcrEngine,
    OcrUnavailable,
    load_configured_engine,
    load_engine,
)
from vent_agent.documents.ocr.page import OCR_LAYOUT_VERSION, OcrStats, ocr_pages

__all__ = [
    "OCR_LAYOUT_VERSION",
    "OcrBox",
    "OcrEngine",
    "OcrStats",
    "OcrUnavailable",
    "load_configured_engine",
    "load_engine",
    "ocr_pages",
]
