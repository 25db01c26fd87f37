"""Test tiers, given at collection from what each test uses, so a new test file needs no marks of its own.

- ``store``: the test reaches PostgreSQL, Redis or service workers as processes: it requests
  ``pg_module_url`` or ``redis_url``; or it is the ``postgres``/``redis`` case of a parametrised fixture
  (``store_url[postgres]``); or its code, its fixtures' code, or a function or class of ``tests/`` they
  call (followed transitively) names a helper of ``tests/pg.py`` that opens such a service.
- ``slow``: the test uses a fixture or helper that does slow work (real OCR of the scanned sample, Node,
  Chromium, worker processes, the plan hands, reviews of long or several plans), or is listed in
  ``SLOW_TESTS`` (over ~1 s, by what it does) or in ``tests/slow_tests.txt`` (over
  :data:`SLOW_SECONDS`, measured; ``python -m tests.tiers DURATIONS`` rewrites it), or carries
  ``@pytest.mark.slow``.
- ``unit``: neither; the day-to-day tier is ``pytest -m unit``.

The markers are declared in pyproject.toml (``--strict-markers``); CI runs every tier.
"""

from __future__ import annotations

import inspect
import os
import re
import sys
import types
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

STORE_FIXTURES = frozenset({"pg_module_url", "redis_url"})
# A parametrised case whose id (or one of its ``-``-separated parts, or tuple items) names a service.
STORE_PARAMS = frozenset({"postgres", "redis", "notify"})
# Helpers of tests/pg.py that open PostgreSQL or Redis; in a parametrised fixture the case decides instead.
SERVICE_HELPERS = frozenset({"pg_database", "create_database", "require_postgres", "require_redis"})
# Helpers that start service workers or a PostgreSQL server (tests/pg_cluster.py) as processes (store and
# slow, whatever the case).
PROCESS_HELPERS = frozenset({"start_workers", "throwaway_cluster"})
# Fixtures of the scanned sample, OCR'd for real (requested, or named by a parametrised case).
SLOW_FIXTURES = frozenset({"scanned_b_pdf", "scanned_b_cache", "scanned_b_extracted", "seed_scanned_cache"})

# Tests over ~1 s that no fixture or helper above gives away: a module path (every test of the module),
# a node id without its case (every case) or with it (that case). Measured as each test's CPU time
# (setup, call and teardown: ``time.process_time``) over the whole unit tier in one process; a test
# whose time is a per-process cache warming up (the knowledge base's index, jieba, the first app) is
# not listed, since that time would only move to the next test. Re-measure when a test here gets quick
# or a new one gets slow.
SLOW_TESTS = frozenset(
    {
        "tests/test_browser_client.py",  # Node
        "tests/test_console_browser.py",  # Chromium
        "tests/test_console_airflow.py",  # Chromium
        "tests/test_console_fan_air.py",  # Chromium
        "tests/test_fuzz_openapi.py",  # schemathesis over every operation
        "tests/test_mcp_server.py::test_stdio_child_process",
        "tests/test_ocr_engines.py::test_rapidocr_reads_an_image_offline",
        "tests/test_ocr_pool.py",  # OCR in worker processes, started and recycled
        "tests/test_plan_hands.py",  # renders and reviews every hand; the scanned one is OCR'd
        "tests/test_report_language.py",  # full reviews of both sample plans
        "tests/test_demo_mine.py::test_history_720_hourly_points_per_device",
        "tests/test_turns.py::test_second_message_while_a_turn_runs_is_409",
        "tests/test_ops.py::test_readyz_ready_on_a_fresh_store",  # loads OCR in a worker process: ~5 s
        # a plan bound 12 times (60 pages: 3.6 s), 3 times (1.3 s), two versions of it (1.0-1.1 s)
        "tests/test_repeats.py::test_a_plan_bound_several_times_gives_each_finding_once[twelve]",
        "tests/test_repeats.py::test_plan_a_bound_three_times_has_no_major",
        "tests/test_repeats.py::test_two_differing_versions_are_not_mixed",
        "tests/test_api_review.py::test_second_review_uses_the_cache_unless_forced",  # 3 reviews: 1.4 s
        # both sample plans reviewed with their text layers rewritten: 1.3 s each
        "tests/test_text_layers.py::test_radicals_and_control_characters_change_no_finding",
    }
)


SLOW_FILE = Path(__file__).with_name("slow_tests.txt")
SLOW_SECONDS = 0.25
"""A test whose setup, call and teardown took this long (s) in one unit-tier run is listed in
:data:`SLOW_FILE`: with those in the slow tier, the unit tier runs in under a minute."""
SLOW_HEADER = f"""\
# Tests of the slow tier by measurement (tests/tiers.py reads this file): each took at least {SLOW_SECONDS} s
# (setup, call and teardown) in one run of the unit tier in one process on an idle 2-core machine.
# Regenerate after tests change speed:
#   TIERS_REMEASURE=1 .venv/bin/pytest -m unit -p no:xdist --durations=0 --durations-min=0.02 > durations.txt
#   .venv/bin/python -m tests.tiers durations.txt > tests/slow_tests.txt
# One node id per line (a parametrised case with its id); the seconds after ``#``.
"""


def measured_slow(path: Path = SLOW_FILE) -> frozenset[str]:
    """The node ids listed in ``tests/slow_tests.txt`` (comments and blank lines skipped); none when
    ``TIERS_REMEASURE`` is set, so that a run to re-measure them has them all in the unit tier."""
    if os.environ.get("TIERS_REMEASURE") or not path.is_file():
        return frozenset()
    lines = (line.split("#", 1)[0].strip() for line in path.read_text(encoding="utf-8").splitlines())
    return frozenset(line for line in lines if line)


_DURATION = re.compile(r"^([\d.]+)s (?:setup|call|teardown)\s+(\S+)")


def slow_file_from_durations(durations: str, seconds: float = SLOW_SECONDS) -> str:
    """The text of ``tests/slow_tests.txt`` from pytest's ``--durations=0`` report: every test whose
    phases add up to at least ``seconds``, sorted, with its time."""
    per_test: dict[str, float] = {}
    for line in durations.splitlines():
        match = _DURATION.match(line.strip())
        if match:
            per_test[match[2]] = per_test.get(match[2], 0.0) + float(match[1])
    slow = sorted(node for node, total in per_test.items() if total >= seconds)
    return SLOW_HEADER + "".join(f"{node}  # {per_test[node]:.2f} s\n" for node in slow)


def _names(code: types.CodeType) -> Iterator[str]:
    """Every global or attribute name ``code`` and the code nested in it (closures, lambdas) refer to."""
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _names(const)


def _codes(obj: Any) -> Iterator[tuple[types.CodeType, dict[str, Any]]]:
    """The code objects of a function (unwrapped) or of a class's functions, with their globals."""
    if inspect.isclass(obj):
        for member in vars(obj).values():
            yield from _codes(member.__func__ if isinstance(member, classmethod | staticmethod) else member)
        return
    func = inspect.unwrap(obj) if callable(obj) else None
    code, names = getattr(func, "__code__", None), getattr(func, "__globals__", None)
    if isinstance(code, types.CodeType) and isinstance(names, dict):
        yield code, names


def _ours(obj: Any) -> bool:
    """A function or class defined in ``tests/`` (whose code the walk follows)."""
    module = getattr(inspect.unwrap(obj) if callable(obj) else obj, "__module__", None) or ""
    return module == "tests" or module.startswith("tests.") or module == "conftest"


class _Walker:
    """Which names of ``tests/`` helpers a function reaches, followed through ``tests/`` code (cached)."""

    def __init__(self) -> None:
        self._reached: dict[types.CodeType, frozenset[str]] = {}

    def reached(self, roots: Iterable[Any]) -> frozenset[str]:
        found: set[str] = set()
        for root in roots:
            for code, globs in _codes(root):
                found |= self._walk(code, globs, set())
        return frozenset(found)

    def _walk(self, code: types.CodeType, globs: dict[str, Any], seen: set[types.CodeType]) -> frozenset[str]:
        if code in self._reached:
            return self._reached[code]
        if code in seen:
            return frozenset()
        seen.add(code)
        found: set[str] = set()
        for name in _names(code):
            found.add(name)
            target = globs.get(name)
            if target is not None and _ours(target):
                for sub, sub_globs in _codes(target):
                    found |= self._walk(sub, sub_globs, seen)
        result = frozenset(found)
        self._reached[code] = result
        return result


def _fixture_funcs(item: pytest.Function, *, parametrised: bool) -> list[Any]:
    """The functions of the fixtures ``item`` uses that are defined in ``tests/``: the parametrised ones
    (whose case decides whether a service is used) or the others."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return []
    decided = set(getattr(getattr(item, "callspec", None), "params", {}))
    return [
        fixdef.func
        for name, defs in info.name2fixturedefs.items()
        if (name in decided) == parametrised
        for fixdef in defs
        if _ours(fixdef.func)
    ]


def _case_words(item: pytest.Item) -> set[str]:
    """The words of the test's parametrised case: ``{"postgres", "notify"}`` for ``postgres-notify``."""
    words: set[str] = set()
    for value in getattr(getattr(item, "callspec", None), "params", {}).values():
        parts = value if isinstance(value, tuple | list) else (value,)
        words |= {w for part in parts if isinstance(part, str) for w in part.split("-")}
    return words


def _listed_slow(item: pytest.Item, measured: frozenset[str]) -> bool:
    node = item.nodeid.split("[", 1)[0]
    return bool({item.nodeid, node, node.split("::", 1)[0]} & SLOW_TESTS) or item.nodeid in measured


def tiers_of(item: pytest.Item, walker: _Walker, measured: frozenset[str] = frozenset()) -> set[str]:
    """The tiers of one collected test: ``{"unit"}`` or a non-empty subset of ``{"store", "slow"}``."""
    fixtures = set(getattr(item, "fixturenames", ()))
    reached: frozenset[str] = frozenset()
    reached_by_cases: frozenset[str] = frozenset()
    if isinstance(item, pytest.Function):
        reached = walker.reached([item.obj, *_fixture_funcs(item, parametrised=False)])
        reached_by_cases = walker.reached(_fixture_funcs(item, parametrised=True))
    processes = bool((reached | reached_by_cases) & PROCESS_HELPERS)
    tiers: set[str] = set()
    if (
        fixtures & STORE_FIXTURES
        or _case_words(item) & STORE_PARAMS
        or reached & SERVICE_HELPERS
        or processes
    ):
        tiers.add("store")
    if (fixtures | _case_words(item)) & SLOW_FIXTURES or processes or _listed_slow(item, measured):
        tiers.add("slow")
    tiers |= {m.name for m in item.iter_markers() if m.name in {"store", "slow"}}
    return tiers or {"unit"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every collected test with its tiers."""
    walker = _Walker()
    measured = measured_slow()
    for item in items:
        for tier in sorted(tiers_of(item, walker, measured)):
            item.add_marker(getattr(pytest.mark, tier))


if __name__ == "__main__":  # python -m tests.tiers DURATIONS > tests/slow_tests.txt
    sys.stdout.write(slow_file_from_durations(Path(sys.argv[1]).read_text(encoding="utf-8")))
