"""OCR in recycled worker processes (documents/ocr/pool.py): calls run in another process, a worker is
replaced after its quota of calls, the pool exits when idle, a failing engine is OcrUnavailable."""

from __future__ import annotations

import os
import time
from functools import partial
from pathlib import Path

import pytest
from PIL import Image

from tests.pdf_factory import image_pdf
from tests.test_memory import GLIBC_ONLY, freed_block_left_kib
from vent_agent.documents.ocr.engine import OcrBox, OcrUnavailable, load_engine
from vent_agent.documents.ocr.page import ocr_pages
from vent_agent.documents.ocr.pool import ProcessOcrEngine
from vent_agent.documents.pdf_text import PdfError, extract_pdf


class PidEngine:
    """Answers one box whose text is the worker's pid and whose width is the image's."""

    name = "pid-ocr"

    def recognise(self, image: Image.Image) -> list[OcrBox]:
        return [OcrBox.from_rect(str(os.getpid()), 0.9, 0, 0, image.size[0], image.size[1])]


def make_pid_engine() -> PidEngine:
    return PidEngine()


class HeapEngine:
    """Answers one box whose text is the KiB of RSS a freed 8 MiB block left in the worker."""

    name = "heap-probe"

    def recognise(self, image: Image.Image) -> list[OcrBox]:
        return [OcrBox.from_rect(str(freed_block_left_kib()), 0.9, 0, 0, 1, 1)]


def make_heap_engine() -> HeapEngine:
    return HeapEngine()


class TunablesEngine:
    """Answers one box whose text is the worker's ``GLIBC_TUNABLES``."""

    name = "tunables"

    def recognise(self, image: Image.Image) -> list[OcrBox]:
        return [OcrBox.from_rect(os.environ.get("GLIBC_TUNABLES", "-"), 0.9, 0, 0, 1, 1)]


def make_tunables_engine() -> TunablesEngine:
    return TunablesEngine()


def broken_engine() -> PidEngine:
    raise OcrUnavailable("模型缺失 / models missing")


def test_calls_run_in_a_recycled_worker_process() -> None:
    engine = ProcessOcrEngine("pid-ocr", make_pid_engine, max_tasks_per_worker=2, idle_s=60)
    try:
        image = Image.new("RGB", (37, 11), "white")
        pids = [engine.recognise(image)[0].text for _ in range(4)]
        assert str(os.getpid()) not in pids
        assert pids[0] == pids[1] and pids[2] == pids[3] and pids[1] != pids[2]  # replaced after 2 calls
        box = engine.recognise(image)[0]
        assert box.bbox == (0, 0, 37, 11)  # the pixels crossed the boundary intact
        text, score = engine.read_line(image)  # no read_line on the engine: recognise's boxes joined
        assert text.isdigit() and score == pytest.approx(0.9)
    finally:
        engine.close()
    assert not engine.running


def test_pool_exits_when_idle_and_starts_again() -> None:
    engine = ProcessOcrEngine("pid-ocr", make_pid_engine, idle_s=0.2)
    try:
        first = engine.probe()
        assert first == "pid-ocr" and engine.running
        deadline = time.monotonic() + 10
        while engine.running and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not engine.running
        assert engine.recognise(Image.new("RGB", (8, 8)))[0].text.isdigit()
    finally:
        engine.close()


@GLIBC_ONLY
def test_a_worker_unmaps_a_freed_large_block() -> None:
    engine = ProcessOcrEngine("heap-probe", make_heap_engine, idle_s=60)
    try:
        left_kib = int(engine.recognise(Image.new("RGB", (8, 8)))[0].text)
    finally:
        engine.close()
    assert left_kib < 1024  # the worker's mmap threshold is fixed (glibc's default would keep 8 MiB)


def test_workers_are_started_asking_for_huge_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GLIBC_TUNABLES", raising=False)
    engine = ProcessOcrEngine("tunables", make_tunables_engine, idle_s=60)
    try:
        assert engine.recognise(Image.new("RGB", (8, 8)))[0].text == "glibc.malloc.hugetlb=1"
    finally:
        engine.close()


def test_engine_that_cannot_load_is_unavailable() -> None:
    engine = ProcessOcrEngine("broken", broken_engine, idle_s=60)
    try:
        with pytest.raises(OcrUnavailable, match="模型缺失"):
            engine.probe()
    finally:
        engine.close()


def test_load_engine_in_process_isolation_probes_the_engine() -> None:
    with pytest.raises(OcrUnavailable):
        load_engine("paddle", paddle_model_dir=None, isolation="process", idle_s=0.1)
    engine = load_engine("rapidocr", isolation="process", idle_s=5)
    assert isinstance(engine, ProcessOcrEngine) and engine.name == "rapidocr"
    assert load_engine("rapidocr", isolation="process") is engine
    engine.close()


def test_factory_is_picklable_for_spawn() -> None:
    import pickle

    pickle.dumps(partial(load_engine, "rapidocr", paddle_model_dir=None))


def test_scanned_pages_are_rendered_and_read_in_the_worker(tmp_path: Path) -> None:
    path = tmp_path / "scan.pdf"  # two image-only pages of different widths, at 100 dpi
    path.write_bytes(
        image_pdf([Image.new("RGB", (400, 300), "white"), Image.new("RGB", (600, 300))], dpi=100)
    )
    extracted = extract_pdf(path, max_pages=10)
    assert extracted.pages_without_text == [1, 2]
    engine = ProcessOcrEngine("pid-ocr", make_pid_engine, max_tasks_per_worker=1, idle_s=60)
    try:
        read = engine.read_pdf_page(path, 2, dpi=200, max_render_px=4000, min_score=0.5)
        assert read.page_no == 2 and read.size == (1200, 600)  # rendered there at 200 dpi
        assert read.result is not None and read.result.text.source == "ocr"
        assert read.result.text.text.isdigit() and read.result.text.text != str(os.getpid())
        result = ocr_pages(path, extracted, engine, dpi=100)
        texts = [result.page(n).text for n in (1, 2)]
        assert all(t.isdigit() for t in texts) and texts[0] != texts[1]  # one page per worker
        assert [result.page(n).width for n in (1, 2)] == pytest.approx([288.0, 432.0])
        with pytest.raises(PdfError) as err:  # the worker's PdfError reaches the caller with its code
            engine.read_pdf_page(tmp_path / "gone.pdf", 1, dpi=200, max_render_px=4000, min_score=0.5)
        assert err.value.code == "not_found"
    finally:
        engine.close()


def _exited(pid: int) -> bool:
    """True when process ``pid`` is gone or a zombie (it has exited; nobody reaped it yet)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    return any(line.split()[1] in {"Z", "X"} for line in status.splitlines() if line.startswith("State:"))


PARENT = """
import sys
from PIL import Image
from tests.test_ocr_pool import make_pid_engine
from vent_agent.documents.ocr.pool import ProcessOcrEngine

engine = ProcessOcrEngine("pid-ocr", make_pid_engine, idle_s=600)
print(engine.recognise(Image.new("RGB", (4, 4)))[0].text, flush=True)
sys.stdin.read()  # until killed
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc (Linux)")
def test_a_worker_ends_when_the_service_is_killed() -> None:
    import signal
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])),
    }
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT],
        cwd=root,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert parent.stdout is not None
        worker = int(parent.stdout.readline())
        assert worker != parent.pid and not _exited(worker)
        parent.send_signal(signal.SIGKILL)  # as the OOM killer would: no shutdown runs
        parent.wait(timeout=10)
        deadline = time.monotonic() + 10
        while not _exited(worker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _exited(worker), "the OCR worker outlived the killed service"
    finally:
        parent.kill()
