"""Benchmark of the review queues against a service started as a user starts it (``vent-agent serve``
on a free loopback port, a temporary data dir, the real OCR engine):

1. the time to refuse a 200-page blank PDF (built here with pypdfium2): from the upload to its
   ``error`` event, and the message;
2. a text-layer review (``plan-2026-08-b.pdf``, its extraction cached by a first review) alone;
3. the same text review sent while two OCR reviews of the scanned sample (``plan-2026-08-b-scanned.pdf``,
   ``force_refresh`` so that OCR really runs) are running: its time from upload to ``done``, and the
   wait it adds over the review alone; the OCR reviews' own times.

Run: ``.venv/bin/python bench/bench_review_queue.py [--no-ocr-times]`` (about 1–3 min on an idle machine;
the OCR reviews dominate: ``--no-ocr-times`` stops them once the text review is measured). Each figure
is printed as soon as it is measured.
Settings are the defaults (``VENT_REVIEW_CONCURRENCY=2``, ``VENT_OCR_CONCURRENCY=1``).
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import pypdfium2

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine_line  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TEXT_PLAN = ROOT / "tests" / "data" / "plan-2026-08-b.pdf"
SCANNED_PLAN = ROOT / "tests" / "data" / "plan-2026-08-b-scanned.pdf"
BLANK_PAGES = 200
A4 = (595.0, 842.0)


def blank_pdf(pages: int) -> bytes:
    """A PDF of ``pages`` empty A4 pages."""
    pdf = pypdfium2.PdfDocument.new()
    for _ in range(pages):
        pdf.new_page(*A4)
    out = io.BytesIO()
    pdf.save(out)
    pdf.close()
    return out.getvalue()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def review(
    client: httpx.AsyncClient,
    name: str,
    data: bytes,
    *,
    force: bool = False,
    seen: asyncio.Event | None = None,
) -> dict[str, Any]:
    """Post one review and read its stream to the end: seconds to the end, the last error or done, and
    whether it was queued. ``seen`` is set at its first ``ocr_progress``."""
    start = time.perf_counter()
    outcome: dict[str, Any] = {"queued": False, "error": None}
    form = {"force_refresh": "true"} if force else {}
    files = {"file": (name, data, "application/pdf")}
    async with client.stream("POST", "/api/vent/review/pdf", data=form, files=files) as resp:
        resp.raise_for_status()
        async for line in resp.aiter_lines():
            if not line.startswith("data:"):
                continue
            event = json.loads(line[5:])
            outcome["queued"] = outcome["queued"] or bool(event.get("queued"))
            if event.get("type") == "error":
                outcome["error"] = event.get("message")
                outcome.setdefault("error_s", time.perf_counter() - start)
            if event.get("ocr_progress") and seen is not None:
                seen.set()
    outcome["seconds"] = time.perf_counter() - start
    return outcome


def report(what: str, seconds: float, notes: str = "") -> None:
    """One measured line, printed at once (the OCR reviews take minutes on a busy machine)."""
    print(f"{what}: {seconds:.2f} s{'  ' + notes if notes else ''}", flush=True)


async def main(base_url: str, wait_for_ocr: bool) -> None:
    text, scanned = TEXT_PLAN.read_bytes(), SCANNED_PLAN.read_bytes()
    async with httpx.AsyncClient(base_url=base_url, timeout=3600) as client:
        blank = await review(client, "blank-200.pdf", blank_pdf(BLANK_PAGES))
        report(f"refuse a {BLANK_PAGES}-page blank PDF (upload to error)", blank["error_s"], blank["error"])
        await review(client, TEXT_PLAN.name, text)  # caches its extraction
        alone = await review(client, TEXT_PLAN.name, text)
        report("text review alone (extraction cached)", alone["seconds"])
        ocr_running = asyncio.Event()
        scans = [
            asyncio.create_task(review(client, f"scan-{i}.pdf", scanned, force=True, seen=ocr_running))
            for i in (1, 2)
        ]
        await ocr_running.wait()
        during = await review(client, TEXT_PLAN.name, text)
        report(
            "text review while two OCR reviews run",
            during["seconds"],
            f"(wait added {during['seconds'] - alone['seconds']:+.2f} s; queued: {during['queued']})",
        )
        if not wait_for_ocr:
            for task in scans:
                task.cancel()
            await asyncio.gather(*scans, return_exceptions=True)
        else:
            for i, outcome in enumerate(await asyncio.gather(*scans), 1):
                report(f"OCR review {i}", outcome["seconds"], f"(queued: {outcome['queued']})")
    print(machine_line())


if __name__ == "__main__":
    port = free_port()
    with tempfile.TemporaryDirectory() as data_dir:
        env = {k: v for k, v in os.environ.items() if not k.startswith("VENT_")}
        env.update(VENT_DATA_DIR=data_dir, VENT_PORT=str(port), VENT_LOG_LEVEL="warning")
        server = subprocess.Popen([sys.executable, "-m", "vent_agent.cli", "serve"], env=env, cwd=ROOT)
        try:
            deadline = time.monotonic() + 300
            while True:
                try:
                    if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("the service did not start")
                time.sleep(0.5)
            asyncio.run(main(f"http://127.0.0.1:{port}", wait_for_ocr="--no-ocr-times" not in sys.argv))
        finally:
            server.terminate()
            server.wait(timeout=30)
