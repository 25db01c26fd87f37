"""Giving memory back (observability/memory.py): with glibc's mmap threshold fixed, a large block that
is freed leaves the process; with glibc's default, whose threshold rises with each freed mapping, it
stays in the heap."""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os
import subprocess
import sys
from pathlib import Path

import pytest

from vent_agent.observability.memory import (
    YOUNG_THRESHOLD,
    _mallopt,
    children_use_huge_pages,
    freeze_startup_heap,
    thaw_startup_heap,
)

GLIBC_ONLY = pytest.mark.skipif(_mallopt() is None, reason="glibc only")


def _rss_kib() -> int:
    line = next(x for x in Path("/proc/self/status").read_text().splitlines() if x.startswith("VmRSS"))
    return int(line.split()[1])


def freed_block_left_kib() -> int:
    """Map, touch and free 16 MiB (glibc's default threshold then rises to 16 MiB), then allocate, touch
    and free 8 MiB; the KiB of RSS the 8 MiB left behind (glibc only)."""
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    libc.malloc.restype = ctypes.c_void_p
    libc.malloc.argtypes = [ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]

    def touched(n: int) -> int:
        address: int = libc.malloc(n)
        ctypes.memset(address, 1, n)
        return address

    libc.free(touched(16 << 20))
    before = _rss_kib()
    libc.free(touched(8 << 20))
    return _rss_kib() - before


PROBE = """
import sys
from tests.test_memory import freed_block_left_kib
from vent_agent.observability.memory import map_large_blocks
if sys.argv[1] == "fixed":
    assert map_large_blocks()
print(freed_block_left_kib())
"""


def _left_kib(mode: str) -> int:
    """:func:`freed_block_left_kib` in a fresh interpreter (the setting is process-wide)."""
    env = {k: v for k, v in os.environ.items() if k != "GLIBC_TUNABLES"}
    out = subprocess.run(
        [sys.executable, "-c", PROBE, mode], capture_output=True, text=True, check=True, env=env
    )
    return int(out.stdout)


@GLIBC_ONLY
def test_a_freed_large_block_leaves_the_process_with_the_threshold_fixed() -> None:
    assert _left_kib("default") > 6 * 1024  # glibc's rising threshold: the 8 MiB stayed in the heap
    assert _left_kib("fixed") < 1024


@pytest.mark.parametrize(
    ("before", "after", "added"),
    [
        (None, "glibc.malloc.hugetlb=1", True),
        ("glibc.malloc.arena_max=2", "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1", True),
        ("glibc.malloc.hugetlb=0", "glibc.malloc.hugetlb=0", False),  # the operator's choice is kept
        (
            "glibc.malloc.hugetlb=2:glibc.malloc.arena_max=2",
            "glibc.malloc.hugetlb=2:glibc.malloc.arena_max=2",
            False,
        ),
    ],
)
def test_children_use_huge_pages_adds_the_tunable_once(before: str | None, after: str, added: bool) -> None:
    env = {} if before is None else {"GLIBC_TUNABLES": before}
    assert children_use_huge_pages(env) is added
    assert env == {"GLIBC_TUNABLES": after}
    assert children_use_huge_pages(env) is False and env == {"GLIBC_TUNABLES": after}


def test_only_the_outermost_thaw_gives_the_heap_back() -> None:
    # tests/conftest.py froze the test process' heap once collected: the outer freeze here
    assert gc.get_threshold()[0] == YOUNG_THRESHOLD
    freeze_startup_heap()  # an app starting in a test
    thaw_startup_heap()  # ...and stopping
    assert gc.get_freeze_count() > 0 and gc.get_threshold()[0] == YOUNG_THRESHOLD
    thaw_startup_heap()  # the outermost thaw
    try:
        assert gc.get_freeze_count() == 0 and gc.get_threshold()[0] != YOUNG_THRESHOLD
        thaw_startup_heap()  # one too many does nothing
        assert gc.get_threshold()[0] != YOUNG_THRESHOLD
    finally:
        freeze_startup_heap()  # the process as tests/conftest.py left it
