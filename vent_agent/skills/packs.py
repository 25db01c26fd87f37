"""The skill packs shipped with the service, and seeding them into the skills directory.

The packs live in the repository's ``skills/`` folder; an installed wheel carries them as package data
``vent_agent/skill_packs/`` (pyproject). On start-up :func:`seed_packs` copies each shipped pack into
``settings.resolved_skills_dir`` and never overwrites a user's change: a manifest (``.shipped.json``)
keeps the sha256 of every file as it was seeded, and a pack is replaced by a newer shipped version only
while its files are still exactly as seeded. A seeded pack the user removed is not brought back.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from vent_agent.skills.zip_install import NAME_PATTERN, SKILL_MD, TEMP_PREFIX

log = logging.getLogger(__name__)

MANIFEST = ".shipped.json"
STALE_TEMP_S = 3600.0
"""Temporary upload/seed folders older than this (seconds) are left-overs of a crash and removed."""


def shipped_packs_dir() -> Path | None:
    """Where the shipped packs are: the package data ``vent_agent/skill_packs`` of an installed wheel,
    else the repository's ``skills/`` folder; None when neither exists."""
    packaged = resources.files("vent_agent").joinpath("skill_packs")
    if packaged.is_dir():
        return Path(str(packaged))
    repo = Path(__file__).resolve().parents[2] / "skills"
    return repo if repo.is_dir() else None


def pack_digest(pack_dir: Path) -> dict[str, str]:
    """``{relative path: sha256}`` of every regular file under ``pack_dir`` (symlinks not followed)."""
    out: dict[str, str] = {}
    for path in sorted(pack_dir.rglob("*")):
        if path.is_file() and not path.is_symlink():
            out[path.relative_to(pack_dir).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


@dataclass
class SeedReport:
    """What :func:`seed_packs` did, by skill name."""

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)


def _copy_in(src: Path, skills_dir: Path, name: str) -> Path:
    tmp = Path(tempfile.mkdtemp(prefix=TEMP_PREFIX, dir=skills_dir))
    try:
        shutil.copytree(src, tmp / name, symlinks=False)
        return tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _install(src: Path, skills_dir: Path, name: str, replace: bool) -> bool:
    """Copy ``src`` to ``skills_dir/name`` through a temporary folder; False when another process won."""
    tmp = _copy_in(src, skills_dir, name)
    target = skills_dir / name
    old = tmp / "old"
    try:
        if replace:
            os.rename(target, old)
        os.rename(tmp / name, target)
        return True
    except OSError:
        if replace and old.exists() and not target.exists():
            os.rename(old, target)
        return False
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def remove_stale_temps(skills_dir: Path, older_than_s: float = STALE_TEMP_S) -> None:
    """Remove temporary folders (``.upload-*``) left by a crash more than ``older_than_s`` ago."""
    now = time.time()
    for path in skills_dir.glob(f"{TEMP_PREFIX}*"):
        try:
            if now - path.lstat().st_mtime <= older_than_s:
                continue
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink()
        except OSError:
            continue


def seed_packs(skills_dir: Path, source: Path | None = None) -> SeedReport:
    """Copy the shipped packs (``source``, default :func:`shipped_packs_dir`) into ``skills_dir``.

    A pack is added when absent and never seeded before, replaced when the shipped version changed and
    the installed copy is unchanged since seeding, and kept otherwise. Creates ``skills_dir``.
    """
    skills_dir.mkdir(parents=True, exist_ok=True)
    remove_stale_temps(skills_dir)
    report = SeedReport()
    source = source if source is not None else shipped_packs_dir()
    if source is None or not source.is_dir():
        log.warning("no shipped skill packs found; the skills directory %s is used as it is", skills_dir)
        return report
    manifest_path = skills_dir / MANIFEST
    try:
        manifest: dict[str, dict[str, str]] = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        manifest = {}
    for src in sorted(p for p in source.iterdir() if p.is_dir() and NAME_PATTERN.fullmatch(p.name)):
        if not (src / SKILL_MD).is_file():
            continue
        name, shipped = src.name, pack_digest(src)
        target = skills_dir / name
        if not target.exists():
            if name in manifest:
                report.kept.append(name)  # seeded once, removed by the user since
            elif _install(src, skills_dir, name, replace=False):
                manifest[name] = shipped
                report.added.append(name)
        elif name not in manifest and pack_digest(target) == shipped:
            manifest[name] = shipped  # identical to the shipped pack (manifest lost): track it again
            report.kept.append(name)
        elif name in manifest and manifest[name] != shipped and pack_digest(target) == manifest[name]:
            if _install(src, skills_dir, name, replace=True):
                manifest[name] = shipped
                report.updated.append(name)
        else:
            report.kept.append(name)
    tmp = manifest_path.with_name(f"{TEMP_PREFIX}{os.getpid()}.json")
    tmp.write_text(json.dumps(manifest, ensure_ascii=False, indent=1, sort_keys=True), encoding="utf-8")
    os.replace(tmp, manifest_path)
    if report.added or report.updated:
        log.info("skill packs seeded into %s: added %s, updated %s", skills_dir, report.added, report.updated)
    return report
