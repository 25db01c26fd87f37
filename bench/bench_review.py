"""Benchmark of the plan review: each stage's time on the sample plans, against raw text extraction.

Run: ``.venv/bin/python bench/bench_review.py [PDF …]`` (default: the sample plans in tests/data).
Prints per plan: raw pypdfium2 text extraction (the baseline), our extraction + parsing, the three
reviewers, the Markdown and Word rendering, the whole review, and the ratio whole / raw extraction.
Each figure is the median of ``REPEATS`` runs, measured in one process.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pypdfium2

from reports.docx_report import render_docx
from reports.markdown import render_markdown
from vent_agent.documents.pdf_text import extract_pdf
from vent_agent.documents.plan_parser import parse_plan
from vent_agent.documents.upload import sha256_file
from vent_agent.review.pipeline import ReviewRequest, review_plan, run_reviewers
from vent_agent.review.reference import default_reference
from vent_agent.settings import Settings

REPEATS = 5
DEFAULT = sorted((Path(__file__).parent.parent / "tests" / "data").glob("plan-*.pdf"))


async def _noop(_type: str, /, **_fields: object) -> None:
    return None


def _median(fn) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(REPEATS):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def bench(pdf: Path) -> None:
    reference = default_reference()

    def raw() -> None:
        doc = pypdfium2.PdfDocument(str(pdf))
        for page in doc:
            page.get_textpage().get_text_range()
        doc.close()

    plan = parse_plan(extract_pdf(pdf, max_pages=200))
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(_env_file=None, data_dir=Path(tmp))
        req = ReviewRequest(pdf, sha256_file(pdf), pdf.name, force_refresh=True)
        result = asyncio.run(review_plan(req, settings, _noop, reference))
        rows = {
            "raw text extraction (baseline)": _median(raw),
            "extract + parse": _median(lambda: parse_plan(extract_pdf(pdf, max_pages=200))),
            "three reviewers": _median(lambda: asyncio.run(run_reviewers(plan, _noop, reference))),
            "markdown report": _median(lambda: render_markdown(result)),
            "word report": _median(lambda: render_docx(result, Path(tmp) / "r.docx")),
            "whole review (no cache)": _median(
                lambda: asyncio.run(review_plan(req, settings, _noop, reference))
            ),
        }
    print(f"\n{pdf.name}: {len(result.findings)} findings")
    for name, ms in rows.items():
        print(f"  {name:32s} {ms:8.1f} ms")
    base = rows["raw text extraction (baseline)"]
    print(f"  ratio whole review / raw extraction: {rows['whole review (no cache)'] / base:.1f}×")


if __name__ == "__main__":
    for path in [Path(p) for p in sys.argv[1:]] or DEFAULT:
        bench(path)
