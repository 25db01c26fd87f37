"""Every reference a tracked file makes to a document or a path stays inside the repository, so that a
clone alone carries the domain (docs/DOMAIN.md), the design (docs/DESIGN.md) and the contract
(docs/spec/ventilation-api-v2.0.md) that code, docs and tests cite.

What counts as a reference, and what it must resolve to:

- a project document named by its file name (``DOMAIN.md``, ``DESIGN.md``, ``STYLE.md``,
  ``ventilation-api-v2.0.md``), with any path written before it: a file of the repository, relative to the
  repository root or to the directory of the file that names it;
- a relative path that climbs (``../x``): from the file's directory, a path of the repository;
- an absolute path into a home or a workspace (``/home/…``, ``/work/…``, ``/Users/…``): never, no clone has it;
- in Python, a path built from ``__file__`` by ``.parent``/``.parents[k]``, or from ``ROOT.parent``: it must
  not climb above the repository root.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TEXT_SUFFIXES = frozenset(
    {
        ".py",
        ".md",
        ".json",
        ".txt",
        ".toml",
        ".js",
        ".mjs",
        ".css",
        ".html",
        ".yml",
        ".yaml",
        ".cfg",
        ".ini",
        ".sh",
    }
)
# Files that send climbing paths to the service on purpose as hostile input (path traversal), or document
# its refusal of them: in them a ``../`` string is test data, not a reference. The other checks still apply.
TRAVERSAL_INPUTS = frozenset(
    {
        "docs/API_DOCUMENTATION.md",
        "tests/test_api_interpret.py",
        "tests/test_hostile_inputs.py",
        "tests/test_skills_registry.py",
        "tests/test_skills_zip.py",
        "tests/test_uploads.py",
    }
)

# Each pattern starts with its literal (quick to scan for); what comes before a match is checked apart.
DOCUMENT = re.compile(r"(?:DOMAIN|DESIGN|STYLE)\.md|ventilation-api-v2\.0\.md")
PATH_CHARS = re.compile(r"[\w./-]*\Z")
CLIMBING = re.compile(r"(?:\.\./)+[\w.-][\w./-]*")
PRIVATE_ABSOLUTE = re.compile(r"/(?:home|Users|root|work|mnt)/[\w.-]+")
FILE_PARENTS = re.compile(r"Path\(__file__\)(?:\.resolve\(\))?((?:\.parent(?!s))+|\.parents\[(\d+)\])")
ROOT_PARENT = re.compile(r"\bROOT\.parent\b")


def tracked_files() -> list[str]:
    """The repository's tracked text files (``git ls-files``; a walk of the tree without git)."""
    try:
        out = subprocess.run(
            ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True, timeout=30
        ).stdout
        names = out.splitlines()
    except (OSError, subprocess.SubprocessError):
        skipped = {".venv", ".git", "data", "build", "dist", "__pycache__"}
        names = [
            str(p.relative_to(ROOT))
            for p in ROOT.rglob("*")
            if p.is_file() and not skipped & set(p.relative_to(ROOT).parts)
        ]
    return sorted(n for n in names if Path(n).suffix in TEXT_SUFFIXES or n.startswith((".ci/", "scripts/")))


def _inside(path: Path) -> bool:
    return path.resolve().is_relative_to(ROOT)


def _resolves(name: str, source: str) -> bool:
    """``name`` is a tracked file from the root or from ``source``'s directory."""
    target = name.lstrip("./") if not name.startswith("../") else name
    for base in (ROOT, (ROOT / source).parent):
        candidate = base / target
        if _inside(candidate) and candidate.is_file():
            return True
    return False


def _matches(pattern: re.Pattern[str], text: str, literals: tuple[str, ...]) -> list[re.Match[str]]:
    """``pattern``'s matches, scanned for only when one of its literals occurs (a quick ``in``)."""
    return list(pattern.finditer(text)) if any(lit in text for lit in literals) else []


def _after_path(text: str, start: int, more: str = "") -> bool:
    """The character before ``start`` continues a path (or a URL, with ``more=":"``)."""
    before = text[start - 1] if start else " "
    return (before.isascii() and before.isalnum()) or before in "_./-" + more


def _climbs_out(source: str, match: re.Match[str]) -> bool:
    depth = len(Path(source).parts) - 1  # directories between the root and the file
    if match.group(2) is not None:
        return int(match.group(2)) > depth
    return match.group(1).count(".parent") - 1 > depth


def problems_in(source: str, text: str) -> list[str]:
    """Each reference of ``text`` (the content of the tracked file ``source``) that leaves the repository."""
    found: list[str] = []
    for m in _matches(DOCUMENT, text, ("DOMAIN.md", "DESIGN.md", "STYLE.md", "ventilation-api-v2.0.md")):
        written = PATH_CHARS.search(text, max(0, m.start() - 200), m.start())
        name = (written.group(0) if written else "") + m.group(0)
        if not _resolves(name, source):
            found.append(f"{name!r} is not a file of the repository")
    if source not in TRAVERSAL_INPUTS:
        for m in _matches(CLIMBING, text, ("../",)):
            if _after_path(text, m.start()):
                continue  # a climb inside a longer path (a/../b), not a reference from here
            target = (ROOT / source).parent / m.group(0).rstrip(".")
            if not (_inside(target) and target.exists()):
                found.append(f"{m.group(0)!r} is not a path of the repository")
    found += [
        f"{m.group(0)!r} is a path outside the repository"
        for m in _matches(PRIVATE_ABSOLUTE, text, ("/home/", "/Users/", "/root/", "/work/", "/mnt/"))
        if not _after_path(text, m.start(), ":")  # not the tail of a URL or a longer path
    ]
    if source.endswith(".py"):
        found += [
            f"{m.group(0)!r} climbs above the root"
            for m in _matches(FILE_PARENTS, text, ("__file__",))
            if _climbs_out(source, m)
        ]
        if not source.startswith("tests/test_repo_references"):
            found += [
                f"{m.group(0)!r} is the root's parent" for m in _matches(ROOT_PARENT, text, ("ROOT.parent",))
            ]
    return found


def test_no_tracked_file_refers_outside_the_repository() -> None:
    files = tracked_files()
    assert "docs/DOMAIN.md" in files and "README.md" in files
    problems = []
    for source in files:
        if source == "tests/test_repo_references.py":
            continue  # its docstring and patterns name what they look for
        text = (ROOT / source).read_text(encoding="utf-8", errors="replace")
        problems += [f"{source}: {p}" for p in problems_in(source, text)]
    assert problems == []


@pytest.mark.parametrize(
    ("source", "text"),
    [
        ("calc/face.py", "the band edges of DOMAIN.md §2"),
        ("vent_agent/review/rules.py", "see ../shared/DOMAIN.md §5"),
        ("bench/README.md", "by default `../shared/samples/plan-2026-08-b.pdf`"),
        ("tests/test_x.py", "# a copy of /work/shared/samples/demo-mine.json"),
        ("bench/_common.py", 'SAMPLES = ROOT.parent / "shared" / "samples"'),
        ("tests/test_x.py", 'DATA = Path(__file__).resolve().parents[2] / "shared"'),
        ("vent_agent/api/x.py", 'X = Path(__file__).parent.parent.parent.parent / "spec"'),
        ("docs/API_DOCUMENTATION.md", "对应规范: `spec/ventilation-api-v1.0.md` and STYLE.md"),
    ],
)
def test_a_reference_outside_the_repository_is_caught(source: str, text: str) -> None:
    assert problems_in(source, text)


@pytest.mark.parametrize(
    ("source", "text"),
    [
        ("calc/face.py", "the band edges of docs/DOMAIN.md §2"),
        ("docs/CALC.md", "implementing DOMAIN.md §2 (see ../README.md)"),
        ("docs/API_DOCUMENTATION.md", "对应规范: `spec/ventilation-api-v2.0.md`"),
        ("tests/test_x.py", 'DOC = Path(__file__).resolve().parents[1] / "docs" / "API_DOCUMENTATION.md"'),
        ("vent_agent/api/x.py", 'X = Path(__file__).resolve().parent.parent / "static"'),
        ("tests/test_x.py", 'tun_id = "15216"  # see /api/interpret/click/tun and /tmp/report.docx'),
    ],
)
def test_a_reference_inside_the_repository_passes(source: str, text: str) -> None:
    assert problems_in(source, text) == []
