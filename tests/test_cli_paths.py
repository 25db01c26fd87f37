"""What a new user sees outside the API: ``vent-agent review`` leaves the working directory alone (its
cache goes to VENT_DATA_DIR or the user's cache directory), the start-up log names the whole database
URL with the password masked, and bm25s' DEBUG lines stay out of an INFO log."""

from __future__ import annotations

import io
import logging
from pathlib import Path

import pytest

from vent_agent.app import masked_url
from vent_agent.cli import main
from vent_agent.observability.logging import configure_logging


def test_cli_review_creates_no_data_dir_in_the_working_directory(
    tmp_path: Path, plan_a_pdf: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work, cache = tmp_path / "work", tmp_path / "xdg"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    with pytest.raises(SystemExit) as exit_:
        main(["review", str(plan_a_pdf), "-o", str(tmp_path / "report.docx"), "--json"])
    assert exit_.value.code == 0
    assert list(work.iterdir()) == []
    assert list((cache / "vent-agent" / "cache").glob("*.extract.json"))
    assert (tmp_path / "report.docx").stat().st_size > 0


def test_cli_review_uses_the_data_dir_when_set(
    tmp_path: Path, plan_a_pdf: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("VENT_DATA_DIR", str(tmp_path / "vent-data"))
    with pytest.raises(SystemExit):
        main(["review", str(plan_a_pdf), "--json"])
    assert list((tmp_path / "vent-data" / "cache").glob("*.extract.json"))


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (
            "postgresql+asyncpg://vent:s3cret@db.example:5432/vent",
            "postgresql+asyncpg://vent:***@db.example:5432/vent",
        ),
        (
            "sqlite+aiosqlite:////srv/vent/data/vent_agent.db",
            "sqlite+aiosqlite:////srv/vent/data/vent_agent.db",
        ),
        ("postgresql://db.example/vent?sslmode=require", "postgresql://db.example/vent?sslmode=require"),
    ],
)
def test_database_url_in_the_log_is_whole_and_masked(url: str, shown: str) -> None:
    assert masked_url(url) == shown


def test_bm25s_debug_lines_are_not_logged_at_info() -> None:
    out = io.StringIO()
    root = logging.getLogger()
    level = root.level
    try:
        configure_logging("plain", "INFO", stream=out)
        bm25s_log = logging.getLogger("bm25s")
        bm25s_log.setLevel(logging.DEBUG)  # as bm25s does on import
        configure_logging("plain", "INFO", stream=out)
        bm25s_log.debug("Building index from tokens")
        logging.getLogger("vent_agent.test").info("visible")
    finally:
        root.setLevel(level)
    assert "Building index" not in out.getvalue() and "visible" in out.getvalue()
