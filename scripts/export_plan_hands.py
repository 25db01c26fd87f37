"""Write the plan writer's hands (tests/plan_hands) into evals/hands/plan_hands/ for the review's eval:
each text hand's clean plan (no fault: its key, evals/hands/clean.answers.json, has none) and the plan
with the ten seeded faults of plan b (its key is plan b's, tests/data/plan-2026-08-b.answers.json;
tests/test_plan_hands.py checks they are the same faults).
The scanned hand is left out: the eval's scanned plans are the samples' (h3, plan b scanned).

Run from the repository root after changing the writer: ``.venv/bin/python scripts/export_plan_hands.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.plan_hands.faults import demo_faults, seed_faults  # noqa: E402
from tests.plan_hands.hands import HANDS  # noqa: E402
from tests.plan_hands.model import demo_plan  # noqa: E402
from tests.plan_hands.render import render_plan  # noqa: E402

OUT = ROOT / "evals" / "hands" / "plan_hands"


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    clean = demo_plan()
    variants = {"clean": clean, "seeded": seed_faults(clean, demo_faults())}
    for hand in HANDS:
        if hand.scanned:
            continue
        for variant, plan in variants.items():
            path = OUT / f"{hand.name}-{variant}.pdf"
            path.write_bytes(render_plan(plan, hand))
            print(path.relative_to(ROOT))


if __name__ == "__main__":
    main()
