"""The registry of readiness checks: the components a worker needs to serve (checkpointer, knowledge
base, OCR engine…: :mod:`vent_agent.observability.component_readiness`) register a check here;
``GET /readyz`` runs them all, with the store's own checks.

A check is an async callable: returning None or True means ready (a returned string is shown as its
detail), returning False or raising means not ready (the exception's text is shown). Each check has a
time limit (s); one that overruns is not ready.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI

ReadinessCheck = Callable[[], Awaitable[Any]]


@dataclass
class CheckResult:
    """One check's answer: ``ok``, a short ``detail`` and how long it took (ms)."""

    ok: bool
    detail: str = ""
    ms: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "detail": self.detail, "ms": round(self.ms, 1)}


@dataclass
class ReadinessRegistry:
    """Named readiness checks of one app (one registry per app: :func:`readiness_registry`)."""

    checks: dict[str, tuple[ReadinessCheck, float]] = field(default_factory=dict)

    def register(self, name: str, check: ReadinessCheck, *, timeout_s: float = 5.0) -> None:
        """Add (or replace) the check ``name``; ``timeout_s``: its time limit, s."""
        self.checks[name] = (check, timeout_s)

    def unregister(self, name: str) -> None:
        self.checks.pop(name, None)

    async def run(
        self, extra: dict[str, tuple[ReadinessCheck, float]] | None = None
    ) -> dict[str, CheckResult]:
        """Run every check (and ``extra``) concurrently; results by name."""
        items = {**self.checks, **(extra or {})}
        results = await asyncio.gather(*(run_check(c, t) for c, t in items.values()))
        return dict(zip(items, results, strict=True))


async def run_check(check: ReadinessCheck, timeout_s: float) -> CheckResult:
    """Run one check under its time limit."""
    start = time.perf_counter()
    try:
        answer = await asyncio.wait_for(check(), timeout_s)
    except TimeoutError:
        return CheckResult(False, f"no answer within {timeout_s:g} s", (time.perf_counter() - start) * 1000)
    except Exception as exc:  # a probe reports, it does not raise
        return CheckResult(False, f"{type(exc).__name__}: {exc}", (time.perf_counter() - start) * 1000)
    ms = (time.perf_counter() - start) * 1000
    if answer is False:
        return CheckResult(False, "not ready", ms)
    return CheckResult(True, answer if isinstance(answer, str) else "", ms)


def readiness_registry(app: FastAPI) -> ReadinessRegistry:
    """The app's registry (created on first use); components register into it in the lifespan."""
    registry = getattr(app.state, "readiness", None)
    if registry is None:
        registry = ReadinessRegistry()
        app.state.readiness = registry
    return registry
