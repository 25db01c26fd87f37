"""Giving freed memory back to the operating system after a large job (a plan review, an OCR'd page), and
keeping the start-up heap out of the garbage collector's way.

CPython frees objects to glibc's ``malloc``, which keeps freed pages in its arenas for reuse instead of
returning them: after a review that built and dropped a few hundred MiB of pages and tables, the
process' RSS stays near its peak. :func:`release_memory` runs a full garbage collection and then
glibc's ``malloc_trim(0)``, which returns the free pages at the top of the heap and the free pages
inside every arena to the system. On a C library other than glibc (musl, macOS) only the collection
runs.

The service's start-up leaves a few hundred thousand long-lived objects (the knowledge base's index,
jieba's dictionary, the catalogue models) that CPython's cyclic collector walks on every full
collection: under a burst of requests, which makes many short-lived objects survive a young
collection, a full collection then held the event loop for 0.1–0.4 s. :func:`freeze_startup_heap`
moves them to the permanent generation (``gc.freeze``), which collections skip, and raises the young
generation's threshold from 700 to :data:`YOUNG_THRESHOLD` allocations: a burst of 500 clicks made 435
young and 3 full collections (0.6–0.8 s in all, the longest pause 0.2 s); with it, 9 young and no full
one (0.1 s, the longest pause 20–30 ms). :func:`thaw_startup_heap` undoes both at shutdown.

A process that allocates and frees many large blocks (ONNX Runtime's tensors, with its memory arena off)
calls :func:`map_large_blocks` first: glibc then serves every block from 128 KiB up with a mapping of
its own, unmapped when it is freed, instead of from a heap that fragments and stays at its peak. The
process that starts such workers calls :func:`children_use_huge_pages`, so that those fresh mappings are
filled with transparent huge pages rather than one 4 KiB page fault at a time.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import logging
import os
import sys
from collections.abc import Callable, MutableMapping
from functools import cache
from typing import Any

log = logging.getLogger(__name__)


@cache
def _libc_function(name: str, argtypes: tuple[Any, ...], restype: Any) -> Any:
    """glibc's function ``name`` with its argument and result types set, or None when the C library is
    not glibc (or has no such function)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        function = getattr(ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6"), name)
    except (OSError, AttributeError):
        return None
    function.argtypes = list(argtypes)
    function.restype = restype
    return function


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None when the C library is not glibc."""
    trim: Callable[[int], int] | None = _libc_function("malloc_trim", (ctypes.c_size_t,), ctypes.c_int)
    return trim


M_MMAP_THRESHOLD = -3
"""``mallopt`` parameter number of the mmap threshold (glibc's ``malloc.h``)."""
MMAP_THRESHOLD_BYTES = 128 * 1024
"""The fixed mmap threshold of :func:`map_large_blocks`: glibc's starting value, 128 KiB."""


def _mallopt() -> Callable[[int, int], int] | None:
    """glibc's ``mallopt``, or None when the C library is not glibc."""
    mallopt: Callable[[int, int], int] | None = _libc_function(
        "mallopt", (ctypes.c_int, ctypes.c_int), ctypes.c_int
    )
    return mallopt


def map_large_blocks(threshold_bytes: int = MMAP_THRESHOLD_BYTES) -> bool:
    """Have glibc serve every block of at least ``threshold_bytes`` (bytes) with a mapping of its own,
    returned to the system when the block is freed (``mallopt(M_MMAP_THRESHOLD)``).

    glibc's threshold starts at 128 KiB but rises, up to 32 MiB, to the size of each mapped block that is
    freed, so after the first large tensor is freed the next ones (a few MiB to 32 MiB each: ONNX
    Runtime's activations) come from the heap, which fragments: an OCR worker reading the scanned
    sample's 5 pages (200 dpi) peaked at 946 MiB and kept 509 MiB; with the threshold fixed here, 741 MiB
    and 204 MiB, the same text (measured 2026-12-01, RapidOCR 3.10, onnxruntime 1.32). Fixing the
    threshold also stops glibc's trim threshold from rising with it. Process-wide; call it before the
    allocations, e.g. at a worker's start. Returns False on a C library other than glibc.
    """
    mallopt = _mallopt()
    if mallopt is None:
        return False
    return bool(mallopt(M_MMAP_THRESHOLD, threshold_bytes))


GLIBC_TUNABLES = "GLIBC_TUNABLES"
HUGE_PAGES_TUNABLE = "glibc.malloc.hugetlb"


def children_use_huge_pages(environ: MutableMapping[str, str] | None = None) -> bool:
    """Add ``glibc.malloc.hugetlb=1`` to ``GLIBC_TUNABLES`` in this process' environment (or
    ``environ``), so that the processes it starts from now on (the OCR workers) have glibc (2.35 or
    later) ask the kernel for transparent huge pages (``madvise(MADV_HUGEPAGE)``) for their heap and
    their mapped blocks. This process' own allocator is unchanged: glibc reads its tunables at a
    process' start only.

    With :func:`map_large_blocks`, ONNX Runtime's tensors are mapped afresh on every run, and faulting
    them in 4 KiB at a time cost an OCR worker 40 % more CPU on the scanned sample's pages (44 against
    31.5 s for 4 pages, 7.3 million page faults against 1.2 million); with huge pages, 33 s and 1.6
    million, the same peak (measured 2026-12-01 on 2 cores, kernel THP mode ``madvise``). It does
    nothing when the kernel's THP mode is ``never``. A value the environment already gives this
    tunable is kept. Returns True when the tunable was added.
    """
    env = os.environ if environ is None else environ
    current = env.get(GLIBC_TUNABLES, "")
    if any(item.split("=", 1)[0] == HUGE_PAGES_TUNABLE for item in current.split(":") if item):
        return False
    env[GLIBC_TUNABLES] = ":".join(filter(None, [current, f"{HUGE_PAGES_TUNABLE}=1"]))
    return True


def release_memory() -> bool:
    """Collect garbage, then give glibc's free heap pages back to the system (see the module docstring).

    Returns True when ``malloc_trim`` ran and released something. Blocking (a few ms to tens of ms for
    a large heap): call it after a job, off the event loop.
    """
    gc.collect()
    trim = _malloc_trim()
    if trim is None:
        return False
    released = bool(trim(0))
    log.debug("malloc_trim released memory: %s", released)
    return released


YOUNG_THRESHOLD = 20_000
"""Allocations (net of deallocations) between two young collections while the service runs (CPython's
default is 700); the older generations keep their thresholds, counted in young collections."""

_default_thresholds: tuple[int, int, int] | None = None
_freeze_depth = 0


def freeze_startup_heap() -> None:
    """Move every object tracked now to the permanent generation, which the cyclic collector no longer
    walks (``gc.freeze``), and collect the young generation every :data:`YOUNG_THRESHOLD` allocations;
    call it once start-up has built its long-lived objects. Garbage frozen with them is collected after
    :func:`thaw_startup_heap` (no full collection first: it would cost every start, tests included, a
    tenth of a second or more).

    Calls nest: a process that freezes its own heap first (the test runner, which starts an app per
    test) calls this too, and only the outermost :func:`thaw_startup_heap` gives the objects back;
    otherwise every app's shutdown would hand the whole process' heap back to the collector, and every
    later full collection would walk it again. Neither call counts the frozen objects
    (``gc.get_freeze_count`` walks them all: 40 ms for a test process' heap).
    """
    global _default_thresholds, _freeze_depth
    if _freeze_depth == 0:
        _default_thresholds = gc.get_threshold()
        gc.set_threshold(YOUNG_THRESHOLD, *_default_thresholds[1:])
    _freeze_depth += 1
    gc.freeze()


def thaw_startup_heap() -> None:
    """Undo one :func:`freeze_startup_heap`, e.g. at shutdown: the outermost one gives the frozen objects
    back to the collector (``gc.unfreeze``), so that what the process built and no longer uses can be
    collected, and restores the collector's thresholds. A call without a freeze does nothing."""
    global _default_thresholds, _freeze_depth
    if _freeze_depth == 0:
        return
    _freeze_depth -= 1
    if _freeze_depth == 0:
        gc.unfreeze()
        if _default_thresholds is not None:
            gc.set_threshold(*_default_thresholds)
            _default_thresholds = None
