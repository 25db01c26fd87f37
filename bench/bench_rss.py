"""Memory of a started service: idle RSS, and peak RSS under click streams and plan reviews (a plain
script, not a test).

Run: ``.venv/bin/python bench/bench_rss.py [--clicks 100] [--scan-pages 50] [PDF …]`` (default PDFs:
plan-2026-08-b.pdf and its scan plan-2026-08-b-scanned.pdf from tests/data). ``--scan-pages N``
adds a review of an N-page scan built from the scanned sample's pages repeated in turn (written to the
temporary directory; ``--scan-from PDF`` picks another scan to repeat). Linux only (reads ``/proc``).

``vent-agent serve`` runs in a subprocess on the embedded defaults (SQLite in a temp data dir, the demo
mine, no model). Once ``/healthz`` answers (the knowledge base index is built in the lifespan, before
the service accepts requests) and two quiet seconds have passed, its ``VmRSS`` is the idle figure (the
baseline). Then, one after the other, each phase starts from a reset high-water mark
(``/proc/<pid>/clear_refs``) and its peak is ``VmHWM`` (and the highest of ``VmRSS`` sampled every 50 ms,
should the reset be refused):

- ``--clicks`` concurrent fast click interpretations (``POST /api/interpret/click/tun``), from an httpx
  client in another process;
- one review (``POST /api/vent/review/pdf``) of each PDF, read to its ``done`` event; the scanned one goes
  through OCR.

Printed per phase: duration, RSS before, peak, RSS after (MiB), peak as a ratio to idle, the peak
RSS of the service's child processes (the OCR workers), if it started any, the peak of the service
and its children together (their summed ``VmRSS``, sampled), and the same sum in PSS (``Pss`` of
``/proc/<pid>/smaps_rollup``: a page shared by several processes, such as the code of the libraries
both load, counts once in all, where the RSS sum counts it in each).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from _common import SAMPLES, StreamResult, free_port, load_in_process, print_table, summarise

DEFAULT_PDFS = [SAMPLES / "plan-2026-08-b.pdf", SAMPLES / "plan-2026-08-b-scanned.pdf"]
SAMPLE_S = 0.05


def status_kib(pid: int, field: str) -> int:
    """A ``kB`` field of ``/proc/<pid>/status`` (``VmRSS``, ``VmHWM``), in KiB; 0 when the process is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except (OSError, ValueError):
        return 0
    return 0


def pss_kib(pid: int) -> int:
    """The process' proportional set size (``Pss`` of ``/proc/<pid>/smaps_rollup``), in KiB; 0 when the
    process is gone."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        return 0
    return 0


def descendants(pid: int) -> list[int]:
    """Ids of the process' children, grandchildren…, from ``/proc/<pid>/task/*/children``."""
    out: list[int] = []
    stack = [pid]
    while stack:
        parent = stack.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            with contextlib.suppress(OSError):
                kids = [int(k) for k in (task / "children").read_text().split()]
                out.extend(kids)
                stack.extend(kids)
    return out


def reset_peak(pid: int) -> bool:
    """Reset the process' ``VmHWM`` to its current RSS (``echo 5 > clear_refs``); False when refused."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
    except OSError:
        return False
    return True


@dataclass
class Phase:
    """One measured phase: its name, seconds, RSS before/peak/after (KiB), the children's peak and the
    peak of the service and its children together, in RSS and in PSS (KiB)."""

    name: str
    seconds: float
    before_kib: int
    peak_kib: int
    after_kib: int
    children_peak_kib: int
    total_peak_kib: int
    total_pss_peak_kib: int
    note: str = ""


class Sampler:
    """Samples the service's ``VmRSS``, its children's summed ``VmRSS``, the sum of both, and the sum of
    their PSS every 50 ms while running."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak_kib = 0
        self.children_peak_kib = 0
        self.total_peak_kib = 0
        self.total_pss_peak_kib = 0
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        while True:
            children = descendants(self.pid)
            own = status_kib(self.pid, "VmRSS")
            kids = sum(status_kib(k, "VmRSS") for k in children)
            pss = sum(pss_kib(p) for p in [self.pid, *children])
            self.peak_kib = max(self.peak_kib, own)
            self.children_peak_kib = max(self.children_peak_kib, kids)
            self.total_peak_kib = max(self.total_peak_kib, own + kids)
            self.total_pss_peak_kib = max(self.total_pss_peak_kib, pss)
            await asyncio.sleep(SAMPLE_S)

    async def __aenter__(self) -> Sampler:
        self._task = asyncio.create_task(self._run())
        return self

    async def __aexit__(self, *_exc: object) -> None:
        assert self._task is not None
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task


async def measure(pid: int, name: str, work: Coroutine[Any, Any, str]) -> Phase:
    """Run ``work`` (a coroutine returning a note) as one phase of the service ``pid``; return its
    figures."""
    before = status_kib(pid, "VmRSS")
    hwm_reset = reset_peak(pid)
    start = time.perf_counter()
    async with Sampler(pid) as sampler:
        note = await work
    seconds = time.perf_counter() - start
    peak = max(sampler.peak_kib, status_kib(pid, "VmHWM") if hwm_reset else 0)
    await asyncio.sleep(1.0)  # what the phase left behind once its tasks are gone
    after = status_kib(pid, "VmRSS")
    total = max(sampler.total_peak_kib, peak)
    return Phase(
        name, seconds, before, peak, after, sampler.children_peak_kib, total, sampler.total_pss_peak_kib, note
    )


async def clicks(url: str, n: int) -> str:
    """``n`` concurrent fast click interpretations; a note with the failures and the p99 time to first
    event."""
    requests = [
        {"method": "POST", "path": "/api/interpret/click/tun", "json": body}
        for body in await _tunnel_bodies(n)
    ]
    wall, results = await load_in_process(url, requests, concurrency=n, timeout_s=170)
    s = summarise(wall, results)
    failed = f"{s.errors} failed {s.error_kinds}" if s.errors else "0 failed"
    return f"{failed}, TTFE p99 {s.ttfe_p99_ms:,.0f} ms"


async def _tunnel_bodies(n: int) -> list[dict[str, str]]:
    """Request bodies for ``n`` fast clicks on the demo mine's tunnels in turn (the subprocess serves the
    same embedded mine)."""
    from vent_agent.upstream.demo_mine import DemoMine

    tunnels = await DemoMine().query_tunnel_list()
    return [
        {"tun_id": t.tun_id, "tun_name": t.name, "mode": "fast"}
        for t in (tunnels[i % len(tunnels)] for i in range(n))
    ]


async def review(url: str, pdf: Path) -> str:
    """One plan review read to its end; a note with the outcome."""
    request = {
        "method": "POST",
        "path": "/api/vent/review/pdf",
        "file": str(pdf),
        "form": {"force_refresh": "true"},
    }
    _wall, results = await load_in_process(url, [request], concurrency=1, timeout_s=1800)
    r: StreamResult = results[0]
    return "ok" if r.ok else f"failed: {r.error or r.last_type} (HTTP {r.status})"


async def wait_ready(url: str, proc: subprocess.Popen[bytes], timeout_s: float = 120) -> float:
    """Poll ``/healthz`` until it answers 200; return the seconds it took. Raises RuntimeError when the
    service exits or does not answer in time."""
    start = time.perf_counter()
    async with httpx.AsyncClient(base_url=url, timeout=2) as client:
        while time.perf_counter() - start < timeout_s:
            if proc.poll() is not None:
                raise RuntimeError(f"vent-agent serve exited with {proc.returncode}")
            with contextlib.suppress(httpx.HTTPError):
                if (await client.get("/healthz")).status_code == 200:
                    return time.perf_counter() - start
            await asyncio.sleep(0.2)
    raise RuntimeError("vent-agent serve did not answer /healthz in time")


def build_scan(source: Path, pages: int, out: Path) -> Path:
    """An ``pages``-page PDF made of ``source``'s pages repeated in turn (PDFium page import), at ``out``."""
    import pypdfium2 as pdfium

    src = pdfium.PdfDocument(source)
    dst = pdfium.PdfDocument.new()
    n = len(src)
    for i in range(pages):
        dst.import_pages(src, [i % n], index=len(dst))
    dst.save(out)
    dst.close()
    src.close()
    return out


def mib(kib: int) -> float:
    return kib / 1024


async def main(args: argparse.Namespace) -> None:
    exe = Path(sys.executable).with_name("vent-agent")
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("VENT_")}
        env.update(VENT_DATA_DIR=str(Path(tmp) / "data"), VENT_HOST="127.0.0.1", VENT_PORT=str(port))
        log = (Path(tmp) / "serve.log").open("wb")
        proc = subprocess.Popen(
            [str(exe), "serve", "--log-level", "warning"], env=env, stdout=log, stderr=log
        )
        url = f"http://127.0.0.1:{port}"
        try:
            ready_s = await wait_ready(url, proc)
            await asyncio.sleep(2.0)
            idle = status_kib(proc.pid, "VmRSS")
            startup_peak = status_kib(proc.pid, "VmHWM")
            phases = [
                await measure(proc.pid, f"{args.clicks} concurrent fast clicks", clicks(url, args.clicks))
            ]
            pdfs = list(args.pdfs)
            if args.scan_pages:
                scanned = args.scan_from or next((p for p in pdfs if "scanned" in p.name), DEFAULT_PDFS[1])
                pdfs.append(build_scan(scanned, args.scan_pages, Path(tmp) / f"scan-{args.scan_pages}p.pdf"))
            for pdf in pdfs:
                phases.append(await measure(proc.pid, f"review of {pdf.name}", review(url, pdf)))
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
            log.close()
        errors = [
            ln for ln in (Path(tmp) / "serve.log").read_text(errors="replace").splitlines() if " ERROR " in ln
        ]
    rows: list[tuple[object, ...]] = [
        (
            "idle, after start-up (baseline)",
            f"{ready_s:.1f}",
            "",
            mib(idle),
            "",
            "1.00×",
            "",
            "",
            "",
            f"start-up peak {mib(startup_peak):.0f} MiB; s = time to /healthz",
        ),
    ]
    for p in phases:
        rows.append(
            (
                p.name,
                f"{p.seconds:.1f}",
                mib(p.before_kib),
                mib(p.peak_kib),
                mib(p.after_kib),
                f"{p.peak_kib / idle:.2f}×",
                mib(p.children_peak_kib) if p.children_peak_kib else "–",
                mib(p.total_peak_kib),
                mib(p.total_pss_peak_kib),
                p.note,
            )
        )
    print_table(
        "RSS of `vent-agent serve` (MiB; VmRSS/VmHWM from /proc; peak/idle as the ratio)",
        [
            "phase",
            "s",
            "RSS before",
            "peak",
            "RSS after",
            "peak/idle",
            "children peak",
            "total peak",
            "total PSS peak",
            "note",
        ],
        rows,
    )
    if errors:
        print(f"{len(errors)} ERROR lines in the service's log, first: {errors[0][:300]}")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("pdfs", nargs="*", type=Path, default=DEFAULT_PDFS, help="plans to review")
    parser.add_argument("--clicks", type=int, default=100, help="concurrent click streams")
    parser.add_argument(
        "--scan-pages", type=int, default=0, help="also review a scan of this many pages (0: none)"
    )
    parser.add_argument(
        "--scan-from",
        type=Path,
        default=None,
        help="the scan whose pages --scan-pages repeats (default: the scanned PDF given, or the sample)",
    )
    args = parser.parse_args()
    missing = [p for p in args.pdfs if not p.is_file()]
    if missing:
        parser.error(f"missing PDF: {missing}")
    return args


if __name__ == "__main__":
    asyncio.run(main(parse_args()))
