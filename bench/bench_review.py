"""Benchmark of the plan review: each stage's time on the sample plans, against the raw baseline.

Run: ``.venv/bin/python bench/bench_review.py [PDF …]`` (default: plan-2026-08-b.pdf and its scan
plan-2026-08-b-scanned.pdf). Prints per plan, measured in one process run:

- text-layer extraction (pypdfium2 + pdfplumber tables), and for scanned pages the OCR stage split into
  rendering, the engine and our layout (skew, ruled lines, tables, lines);
- parsing into the structured plan; each reviewer (they run in parallel in the service); the Markdown
  and Word reports; the whole review without cache;
- the baseline: raw pypdfium2 text extraction for a text-layer plan, and the OCR engine's own time on
  the same rendered pages (the engine called directly, nothing else) for a scanned one;
- each figure as a ratio to that baseline.

Cheap stages are the median of ``REPEATS`` runs; OCR stages (seconds each page) run once.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pypdfium2

from reports.docx_report import render_docx
from reports.markdown import render_markdown
from vent_agent.documents.ocr import OcrStats, load_engine, ocr_pages
from vent_agent.documents.ocr.page import DEFAULT_DPI, render_page
from vent_agent.documents.pdf_text import extract_pdf
from vent_agent.documents.plan.parser import parse_plan
from vent_agent.documents.upload import sha256_file
from vent_agent.review.reference import default_reference
from vent_agent.review.reviewers import run_reviewers
from vent_agent.review.service.pipeline import ReviewRequest, review_plan
from vent_agent.settings import Settings

REPEATS = 5
ROOT = Path(__file__).resolve().parent.parent
DEFAULT = [
    ROOT / "tests" / "data" / "plan-2026-08-b.pdf",
    ROOT / "tests" / "data" / "plan-2026-08-b-scanned.pdf",
]


async def _noop(_type: str, /, **_fields: object) -> None:
    return None


def _ms(fn: Callable[[], object], repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def _raw_text(pdf: Path) -> None:
    doc = pypdfium2.PdfDocument(str(pdf))
    for page in doc:
        page.get_textpage().get_text_range()
    doc.close()


def _raw_engine_ms(pdf: Path, pages: list[int], max_px: int) -> float:
    """The engine alone on the same rendered pages (rendering not counted)."""
    engine = load_engine("rapidocr")
    assert engine is not None
    doc = pypdfium2.PdfDocument(str(pdf))
    images = [render_page(doc, p - 1, DEFAULT_DPI, max_px)[0] for p in pages]
    doc.close()
    t = time.perf_counter()
    for image in images:
        engine.recognise(image)
    return (time.perf_counter() - t) * 1000


def bench(pdf: Path) -> None:
    reference = default_reference()
    defaults = Settings(_env_file=None)  # the reviewers' settings (the embedded MCP server) and OCR's
    settings_max_px = defaults.ocr_max_render_px
    rows: dict[str, float] = {}
    rows["text-layer extraction"] = _ms(lambda: extract_pdf(pdf, max_pages=200))
    extracted = extract_pdf(pdf, max_pages=200)
    scanned = list(extracted.pages_without_text)
    if scanned:
        engine = load_engine("rapidocr")  # loaded before timing (about a second, once per process)
        assert engine is not None
        stats = OcrStats()
        t = time.perf_counter()
        extracted = ocr_pages(pdf, extracted, engine, max_render_px=settings_max_px, stats=stats)
        rows[f"OCR, {len(scanned)} pages (total)"] = (time.perf_counter() - t) * 1000
        rows["  render"] = stats.render_s * 1000
        rows["  engine (inside our OCR)"] = stats.engine_s * 1000
        rows["  layout: skew, rules, tables"] = stats.layout_s * 1000
        base_name = "OCR engine alone, same pages (baseline)"
        rows[base_name] = _raw_engine_ms(pdf, scanned, settings_max_px)
    else:
        base_name = "raw pypdfium2 text (baseline)"
        rows[base_name] = _ms(lambda: _raw_text(pdf))
    rows["parse"] = _ms(lambda: parse_plan(extracted))
    plan = parse_plan(extracted)
    durations: dict[str, list[float]] = {}
    for _ in range(REPEATS):
        reviewed = asyncio.run(run_reviewers(plan, _noop, reference, defaults))
        for outcome in reviewed.outcomes:
            durations.setdefault(f"reviewer {outcome.agent}", []).append(float(outcome.duration_ms))
    rows.update({name: statistics.median(ms) for name, ms in durations.items()})
    rows["three reviewers (parallel)"] = _ms(
        lambda: asyncio.run(run_reviewers(plan, _noop, reference, defaults))
    )
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(_env_file=None, data_dir=Path(tmp))
        req = ReviewRequest(pdf, sha256_file(pdf), pdf.name, force_refresh=True)
        t = time.perf_counter()
        result = asyncio.run(review_plan(req, settings, _noop, reference))
        whole = (time.perf_counter() - t) * 1000
        rows["markdown report"] = _ms(lambda: render_markdown(result))
        rows["word report"] = _ms(lambda: render_docx(result, Path(tmp) / "r.docx"))
        rows["whole review (no cache)"] = (
            whole if scanned else _ms(lambda: asyncio.run(review_plan(req, settings, _noop, reference)))
        )
        cached = ReviewRequest(pdf, req.sha256, pdf.name)
        rows["whole review (parsed plan cached)"] = _ms(
            lambda: asyncio.run(review_plan(cached, settings, _noop, reference))
        )
    base = rows[base_name]
    kind = f"scanned, {len(scanned)} pages OCR'd" if scanned else "text layer"
    print(f"\n{pdf.name} ({kind}): {len(result.findings)} findings")
    print(f"  {'stage':44s} {'ms':>10s} {'× baseline':>11s}")
    for name, ms in rows.items():
        print(f"  {name:44s} {ms:10.1f} {ms / base:10.2f}×")


if __name__ == "__main__":
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for path in [Path(p) for p in sys.argv[1:]] or DEFAULT:
        bench(path)
