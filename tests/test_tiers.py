"""The test tiers' measured list: written from pytest's durations report, read back at collection."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tiers import SLOW_FILE, measured_slow, slow_file_from_durations

DURATIONS = """
============================= slowest durations ==============================
0.20s setup    tests/test_a.py::test_one
0.10s call     tests/test_a.py::test_one
0.05s teardown tests/test_a.py::test_one
0.24s call     tests/test_a.py::test_two[case-\\u8d85\\u65f6]
1.50s call     tests/test_b.py::test_three
(12 durations < 0.02s hidden.  Use -vv to show these durations.)
"""


def test_the_list_holds_tests_whose_phases_add_up_to_the_threshold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TIERS_REMEASURE", raising=False)  # the re-measuring run itself reads no list
    text = slow_file_from_durations(DURATIONS, seconds=0.25)
    assert text.splitlines()[-2:] == [
        "tests/test_a.py::test_one  # 0.35 s",
        "tests/test_b.py::test_three  # 1.50 s",
    ]
    path = tmp_path / "slow_tests.txt"
    path.write_text(text, encoding="utf-8")
    assert measured_slow(path) == {"tests/test_a.py::test_one", "tests/test_b.py::test_three"}


def test_remeasuring_reads_no_list(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "slow_tests.txt"
    path.write_text("tests/test_b.py::test_three  # 1.50 s\n", encoding="utf-8")
    monkeypatch.setenv("TIERS_REMEASURE", "1")
    assert measured_slow(path) == frozenset()


def test_every_listed_test_is_in_the_slow_tier(request: pytest.FixtureRequest) -> None:
    listed = measured_slow(SLOW_FILE)
    collected = {item.nodeid: item for item in request.session.items}
    if not listed & collected.keys():
        pytest.skip("none of the listed tests is collected in this run")
    for node in listed & collected.keys():
        assert collected[node].get_closest_marker("slow") is not None, node
        assert collected[node].get_closest_marker("unit") is None, node
