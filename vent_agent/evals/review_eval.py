"""The review's eval: every plan with an answer key (``evals/review_plans.yaml``) reviewed offline by the
service's pipeline (text layer or OCR, the demo mine's reference data, no model), its findings matched
to the key's.

A key's finding is **found** when a review finding has its location (names normalised: width, spaces)
and its category; a key finding without a location matches a finding of the whole plan (no location,
or the mine: 矿井…). A major or critical review finding that matches no key finding and no
``acceptable_consequences`` entry (matched by the location the entry starts with, ``mine total`` for the
mine) is a **false major**. Per plan: faults, found, false majors, the misses listed.

Scanned plans are read by OCR; the OCR text recorded in ``evals/hands/ocr/`` (the review's own extraction
cache files, named by the PDF's sha256 and the extractor's version) is used when its version still matches,
so the eval stays fast; otherwise, or without recordings (``--ocr``), the scan is read afresh and the
report says so.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import multiprocessing
import re
import shutil
import tempfile
import time
import unicodedata
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from vent_agent.review.findings import GENERAL_LOCATION
from vent_agent.review.rules import RULES

MAJOR = ("major", "critical")
_MINE = re.compile(r"矿井|全矿|合计|总需风量|总风量")


@dataclass
class PlanScore:
    """One plan's row of the review table (``results.json`` ``review``)."""

    plan: str
    faults: int
    found: int = 0
    false_majors: int = 0
    misses: list[str] = field(default_factory=list)
    false_major_findings: list[str] = field(default_factory=list)
    error: str | None = None
    seconds: float = 0.0
    reading: str = "文字层"
    """How the plan was read: ``文字层``, ``录制的 OCR`` (the recording matched) or ``重新 OCR``."""


def normalise(name: str | None) -> str:
    """A location name compared: NFKC (full-width folded), spaces and 、·• removed; '' for none."""
    return re.sub(r"[\s·•、]", "", unicodedata.normalize("NFKC", name or ""))


def same_location(key: str | None, got: str | None) -> bool:
    """A key's location and a finding's: equal once normalised (or one the other's longer part); a key
    without a location takes a finding of the whole plan (none, or the mine)."""
    k, g = normalise(key), normalise(got)
    if not k:
        return not g or bool(_MINE.search(g))
    if k == g:
        return True
    short, long_ = sorted((k, g), key=len)
    return len(short) >= 6 and short in long_


def _consequence_location(entry: str) -> str | None:
    """The location an ``acceptable_consequences`` entry starts with; None for the mine (``mine total``)."""
    head = re.split(r"[:：]", entry, maxsplit=1)[0].strip()
    return None if head.lower().startswith(("mine", "info")) else head


SEVERITY_RANK = {"critical": 0, "major": 1, "minor": 2, "info": 3}


def _categories(f: dict[str, Any]) -> set[str]:
    """A finding's category and those of the rules its consequences name: a root fault reported with
    its recomputation (``calc.reference_input`` over a ``data.gas_emission`` mismatch) is the key's data
    fault too."""
    cats = {str(f.get("category"))}
    for c in f.get("consequences") or []:
        rule_id = c.get("rule_id") if isinstance(c, dict) else None
        if rule_id in RULES:
            cats.add(RULES[rule_id].category.value)
    return cats


def _matches(w: dict[str, Any], f: dict[str, Any]) -> bool:
    return same_location(w.get("location"), f.get("location")) and w["category"] in _categories(f)


def score(plan: str, key: dict[str, Any], findings: list[dict[str, Any]]) -> PlanScore:
    """Match ``findings`` (the review's, as dicts: location, category, severity, message, consequences)
    to ``key``: a key finding is found by a finding at its location, of its category (or with a
    consequence of it), at its severity or worse."""
    wanted = key.get("findings", [])
    result = PlanScore(plan=plan, faults=len(wanted))
    for w in wanted:
        rank = SEVERITY_RANK.get(w.get("severity", "info"), 3)
        if any(_matches(w, f) and SEVERITY_RANK.get(str(f.get("severity")), 3) <= rank for f in findings):
            result.found += 1
        else:
            result.misses.append(
                f"[{w['severity']}] {w['category']} @ {w.get('location') or GENERAL_LOCATION}：{w['finding']}"
            )
    accepted = [_consequence_location(c) for c in key.get("acceptable_consequences", [])]
    for f in findings:
        if f.get("severity") not in MAJOR:
            continue
        if any(_matches(w, f) for w in wanted):
            continue
        if any(same_location(a, f.get("location")) for a in accepted):
            continue
        result.false_majors += 1
        result.false_major_findings.append(
            f"[{f['severity']}] {f.get('category')} @ {f.get('location') or GENERAL_LOCATION}：{f.get('message')}"
        )
    return result


@dataclass(frozen=True)
class KeyedPlan:
    """A plan PDF and its answer key (paths), ``scanned``: read by OCR."""

    pdf: Path
    key: Path
    scanned: bool = False


def load_plans(manifest: Path) -> list[KeyedPlan]:
    """The plans of ``manifest`` (YAML ``plans``: ``pdf`` or ``glob``, ``key``, ``scanned``), paths
    relative to the manifest's directory's parent (the repository). Raises ``ValueError`` (Chinese) for
    a file that is not there."""
    root = manifest.resolve().parent.parent
    raw = yaml.safe_load(manifest.read_text(encoding="utf-8")) or {}
    out: list[KeyedPlan] = []
    for entry in raw.get("plans", []):
        pdfs = sorted(root.glob(entry["glob"])) if "glob" in entry else [root / entry["pdf"]]
        key = root / entry["key"]
        for pdf in pdfs:
            if not pdf.is_file() or not key.is_file():
                raise ValueError(
                    f"审查评测清单 {manifest} 中的文件不存在：{pdf if not pdf.is_file() else key}"
                )
            out.append(KeyedPlan(pdf, key, bool(entry.get("scanned", False))))
    return out


def review_one(plan: KeyedPlan, recorded_ocr: Path | None) -> PlanScore:
    """Review ``plan`` offline (a fresh data directory; the recorded OCR text copied into its cache
    when given) and score it against its key. A review that fails scores nothing found, with the error."""
    from vent_agent.evals.targets import HermeticSettings
    from vent_agent.review.service.pipeline import ReviewFailed, ReviewRequest, extraction_cache, review_plan

    key = json.loads(plan.key.read_text(encoding="utf-8"))
    data = plan.pdf.read_bytes()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="vent-eval-review-") as tmp:
        settings = HermeticSettings(data_dir=Path(tmp) / "data", warm_up=False)
        req = ReviewRequest(plan.pdf, hashlib.sha256(data).hexdigest(), plan.pdf.name)
        reading = "文字层"
        if plan.scanned:
            settings.cache_dir.mkdir(parents=True, exist_ok=True)
            for recording in recorded_ocr.glob(f"{req.sha256}.*") if recorded_ocr else []:
                shutil.copy(recording, settings.cache_dir / recording.name)
            reading = "录制的 OCR" if extraction_cache(req, settings).is_file() else "重新 OCR"

        async def no_events(_event: object) -> None:
            return None

        try:
            result = asyncio.run(review_plan(req, settings, no_events, None))
        except ReviewFailed as exc:
            return PlanScore(plan.pdf.name, len(key.get("findings", [])), error=exc.message, reading=reading)
    findings = [f.model_dump(mode="json", warnings=False) for f in result.findings]
    scored = score(plan.pdf.name, key, findings)
    scored.seconds = round(time.monotonic() - started, 2)
    scored.reading = reading
    return scored


async def review_all(plans: list[KeyedPlan], recorded_ocr: Path | None, workers: int = 2) -> list[PlanScore]:
    """Every plan reviewed in ``workers`` processes (the review is CPU-bound), in the plans' order."""
    loop = asyncio.get_running_loop()
    # spawned, not forked: the parent runs an event loop and threads (the service under test)
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        jobs = [loop.run_in_executor(pool, review_one, p, recorded_ocr) for p in plans]
        return list(await asyncio.gather(*jobs))


def review_rows(scores: list[PlanScore]) -> list[dict[str, Any]]:
    """The ``review`` list of ``results.json``."""
    return [asdict(s) for s in scores]
