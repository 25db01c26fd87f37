"""OCR in recycled worker processes, so that the engine's memory goes back to the system.

An OCR engine on ONNX Runtime (or Paddle) grows its process by several hundred MiB while it reads a
large page and keeps most of it: run in the service's own process, a review of a scan left the service
at about three times its idle size. :class:`ProcessOcrEngine` keeps the same
:class:`~vent_agent.documents.ocr.engine.OcrEngine` interface but runs every call in a
:class:`concurrent.futures.ProcessPoolExecutor` (``spawn`` start method: the workers share nothing with
the service's threads and event loop):

- each worker loads the engine once (``factory``, a picklable callable, run by the pool's initializer,
  after fixing glibc's mmap threshold: :func:`~vent_agent.observability.memory.map_large_blocks`, so
  that the engine's large tensors are unmapped when freed instead of fragmenting the heap; the service
  sets ``GLIBC_TUNABLES`` so that the workers fill those mappings with transparent huge pages:
  :func:`~vent_agent.observability.memory.children_use_huge_pages`) and is replaced after
  ``max_tasks_per_worker`` calls (``max_tasks_per_child``), which bounds what one worker can pile up;
- the pool is shut down once no call has been made for ``idle_s`` seconds (all workers exit), and started
  again by the next call; the first call after that pays the engine's load time again (about 2 s).

A scanned PDF is read page by page with :meth:`ProcessOcrEngine.read_pdf_page`: the worker gets the
file's path and the page number, renders the page itself, recognises and lays it out
(:func:`~vent_agent.documents.ocr.page.read_pdf_page`) and sends back the page's text and tables, so
the page's bitmap never enters the service's process; after each page the worker gives its freed heap
back (:func:`~vent_agent.observability.memory.release_memory`). ``recognise``/``read_line`` of an
image given by the caller remain: the image crosses as raw pixels (mode, size, bytes), boxes come back
pickled.
"""

from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.connection
import os
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, TypeVar

from PIL import Image

from vent_agent.documents.ocr.engine import OcrBox, OcrEngine, OcrUnavailable
from vent_agent.documents.ocr.page import PageOptions, PageRead
from vent_agent.observability.memory import children_use_huge_pages, map_large_blocks, release_memory

log = logging.getLogger(__name__)
T = TypeVar("T")

EngineFactory = Callable[[], OcrEngine | None]
"""Builds the engine inside a worker; raises :class:`OcrUnavailable` when it cannot."""

PackedImage = tuple[str, tuple[int, int], bytes]

_WORKER_ENGINE: OcrEngine | None = None
_WORKER_ERROR: str | None = None


def _exit_with_parent() -> None:
    """Start a daemon thread that ends this worker as soon as the process that spawned it is gone.

    A pool worker waits for calls on a queue whose pipe it holds both ends of (``multiprocessing``
    pickles both into the worker), so when the service is killed (``kill -9``, the OOM killer) the
    worker never reads end-of-file and would wait, holding its engine's ~200 MiB, for ever. The
    parent's sentinel (``multiprocessing.parent_process().sentinel``) becomes readable when it dies."""
    parent = multiprocessing.parent_process()
    if parent is None:  # not started by multiprocessing: nothing to watch
        return

    def watch() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="ocr-parent-watch", daemon=True).start()


def _init_worker(factory: EngineFactory) -> None:
    """Pool initializer: end with the parent (:func:`_exit_with_parent`), fix glibc's mmap threshold,
    then load the engine once per worker (an error is kept and raised on each call)."""
    global _WORKER_ENGINE, _WORKER_ERROR
    _exit_with_parent()
    map_large_blocks()
    try:
        _WORKER_ENGINE = factory()
    except OcrUnavailable as exc:
        _WORKER_ERROR = str(exc)
    except Exception as exc:  # any other failure to build the engine reaches the caller as OcrUnavailable
        _WORKER_ERROR = f"OCR 引擎加载失败 / cannot load the OCR engine: {exc}"


def _worker_engine() -> OcrEngine:
    if _WORKER_ENGINE is None:
        raise OcrUnavailable(_WORKER_ERROR or "OCR 引擎未加载 / no OCR engine in the worker")
    return _WORKER_ENGINE


def _pack(image: Image.Image) -> PackedImage:
    image = image.convert("RGB")
    return image.mode, image.size, image.tobytes()


def _unpack(packed: PackedImage) -> Image.Image:
    mode, size, data = packed
    return Image.frombytes(mode, size, data)


def _probe() -> str:
    """Runs in a worker: the loaded engine's name (raises OcrUnavailable when it failed to load)."""
    return _worker_engine().name


def _recognise(packed: PackedImage) -> list[OcrBox]:
    return _worker_engine().recognise(_unpack(packed))


def _read_line(packed: PackedImage) -> tuple[str, float]:
    from vent_agent.documents.ocr.recover import read_line

    return read_line(_worker_engine(), _unpack(packed))


def _read_pdf_page(path: str, page_no: int, options: PageOptions) -> PageRead:
    from vent_agent.documents.ocr.page import read_pdf_page

    try:
        return read_pdf_page(Path(path), page_no, _worker_engine(), **options)
    finally:
        release_memory()


class ProcessOcrEngine:
    """An :class:`~vent_agent.documents.ocr.engine.OcrEngine` whose calls run in recycled worker
    processes (see the module docstring).

    ``name``: the engine's name (for progress messages and cache keys). ``workers``: pool size (the
    service's OCR concurrency). Calls are blocking and thread-safe. Raises :class:`OcrUnavailable` when
    the engine cannot load in the worker, or the worker died (e.g. killed for memory) during a call.
    Constructing one adds ``glibc.malloc.hugetlb=1`` to this process' ``GLIBC_TUNABLES`` (see
    :func:`~vent_agent.observability.memory.children_use_huge_pages`).
    """

    def __init__(
        self,
        name: str,
        factory: EngineFactory,
        *,
        workers: int = 1,
        max_tasks_per_worker: int = 25,
        idle_s: float = 10.0,
    ) -> None:
        self.name = name
        self._factory = factory
        self._workers = max(1, workers)
        self._max_tasks = max(1, max_tasks_per_worker)
        self._idle_s = idle_s
        self._lock = threading.Lock()
        self._executor: ProcessPoolExecutor | None = None
        self._busy = 0
        self._timer: threading.Timer | None = None
        children_use_huge_pages()  # the workers inherit the environment when they are spawned

    @property
    def running(self) -> bool:
        """True while the worker pool is up (between a call and the idle shut-down)."""
        return self._executor is not None

    def _acquire(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if self._executor is None:
                self._executor = ProcessPoolExecutor(
                    self._workers,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_init_worker,
                    initargs=(self._factory,),
                    max_tasks_per_child=self._max_tasks,
                )
            self._busy += 1
            return self._executor

    def _release(self) -> None:
        with self._lock:
            self._busy -= 1
            if self._busy == 0 and self._executor is not None:
                self._timer = threading.Timer(self._idle_s, self._shutdown_if_idle)
                self._timer.daemon = True
                self._timer.start()

    def _shutdown_if_idle(self) -> None:
        with self._lock:
            if self._busy or self._executor is None:
                return
            executor, self._executor, self._timer = self._executor, None, None
        executor.shutdown(wait=True, cancel_futures=True)
        log.debug("OCR worker pool of %s shut down after %.0f s idle", self.name, self._idle_s)

    def _call(self, fn: Callable[..., T], *args: Any) -> T:
        executor = self._acquire()
        try:
            return executor.submit(fn, *args).result()
        except BrokenProcessPool as exc:
            with self._lock:  # a dead worker breaks the pool: the next call starts a new one
                if self._executor is executor:
                    self._executor = None
            executor.shutdown(wait=False, cancel_futures=True)
            raise OcrUnavailable(f"OCR 工作进程意外退出 / the OCR worker process died: {exc}") from exc
        finally:
            self._release()

    def probe(self) -> str:
        """Load the engine in a worker now; its name. Raises :class:`OcrUnavailable` when it cannot."""
        return self._call(_probe)

    def recognise(self, image: Image.Image) -> list[OcrBox]:
        """Text boxes of an image, found and read in a worker (see ``OcrEngine.recognise``)."""
        return self._call(_recognise, _pack(image))

    def read_line(self, image: Image.Image) -> tuple[str, float]:
        """One text line read in a worker: the engine's recognition-only ``read_line`` when it has one."""
        return self._call(_read_line, _pack(image))

    def read_pdf_page(
        self, path: Path, page_no: int, *, dpi: float, max_render_px: int, min_score: float
    ) -> PageRead:
        """Page ``page_no`` (1-based) of the PDF at ``path`` rendered, OCR'd and laid out in a worker
        (see :func:`~vent_agent.documents.ocr.page.read_pdf_page`); one call = one page of the
        worker's quota. Raises :class:`~vent_agent.documents.pdf_text.PdfError` when the file no longer
        opens, :class:`OcrUnavailable` when the engine cannot load or the worker died."""
        options: PageOptions = {"dpi": dpi, "max_render_px": max_render_px, "min_score": min_score}
        return self._call(_read_pdf_page, str(path), page_no, options)

    def close(self) -> None:
        """Shut the pool down now (waits for running calls)."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            executor, self._executor, self._timer = self._executor, None, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)
