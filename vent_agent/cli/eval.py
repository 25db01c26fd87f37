"""``vent-agent eval``: run the eval (:mod:`vent_agent.evals`) and print where its report is."""

from __future__ import annotations

import asyncio
import sys

from vent_agent.cli.usage import PROG
from vent_agent.evals.run import EvalError, EvalOptions, run_eval


def run_cli_eval(opts: EvalOptions) -> int:
    """Run the eval; its exit code (0 gate holds, 1 worse than the baseline, 2 could not run)."""
    try:
        return asyncio.run(run_eval(opts))
    except EvalError as exc:
        print(f"{PROG} eval 出错：{exc}", file=sys.stderr)
        return 2
