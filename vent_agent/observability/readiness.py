"""The registry of readiness checks: the components a worker needs to serve (checkpointer, knowledge
base, OCR engine…: :mod:`vent_agent.observability.component_readiness`) register a check here;
``GET /readyz`` runs them all, with the store's own checks.

A check is an async callable: returning None or True means ready (a returned string is shown as its
detail), returning False or raising means not ready (the exception's text is shown); it may also return
a :class:`CheckResult` of its own (a component still ``loading``). Each check has a time limit (s); one
that overruns is not ready.

A check is **required** (the default: a failure makes the instance not ready, ``503``) or **optional**:
registered with ``degrades`` naming what stops working without it (the OCR engine: the review of
scanned plans), its failure leaves the instance ready but ``degraded``.

A slow check (loading a model takes seconds, longer than a probe waits) is a :class:`BackgroundCheck`:
its work runs once in a thread of its own, started at start-up (:meth:`ReadinessRegistry.warm_up`) or
by the first ``/readyz``, which answers at once from what it knows: ``loading``, ``ok`` or ``failed``.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from fastapi import FastAPI

from vent_agent.store.availability import store_unavailable

log = logging.getLogger(__name__)

ReadinessCheck = Callable[[], Awaitable[Any]]
CheckState = Literal["ok", "loading", "failed"]


@dataclass
class CheckResult:
    """One check's answer: ``ok``, a short ``detail`` and how long it took (ms); ``state`` ``ok``,
    ``loading`` (a background check not finished yet) or ``failed``; ``required`` False for an optional
    check (see the module's doc)."""

    ok: bool
    detail: str = ""
    ms: float = 0.0
    state: CheckState | None = None
    required: bool = True

    def __post_init__(self) -> None:
        if self.state is None:
            self.state = "ok" if self.ok else "failed"

    def as_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "detail": self.detail,
            "ms": round(self.ms, 1),
            "state": self.state,
            "required": self.required,
        }


@dataclass
class RegisteredCheck:
    """A check with its time limit (s) and, for an optional check, what it ``degrades``."""

    check: ReadinessCheck
    timeout_s: float = 5.0
    degrades: str | None = None


class BackgroundCheck:
    """A readiness check whose work (``load``: blocking, seconds; returns the detail, raises when the
    component cannot be used) runs once in a daemon thread. Calling the check starts that work if it has
    not started, and answers at once: a ``loading`` :class:`CheckResult`, then the detail, or a
    ``failed`` result with the error. The outcome is kept for the life of the process.

    The thread is not the event loop's executor: the loop never waits for it, nor does its shut-down.
    """

    def __init__(self, name: str, load: Callable[[], str]) -> None:
        self.name = name
        self._load = load
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._state: CheckState = "loading"
        self._detail = "正在加载"
        self.finished = threading.Event()
        """Set once the work has ended (ok or failed)."""

    def start(self) -> None:
        """Start the work in its thread (once; later calls do nothing)."""
        with self._lock:
            if self._thread is not None:
                return
            self._thread = threading.Thread(target=self._run, name=f"readiness-{self.name}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        start = time.perf_counter()
        try:
            detail = self._load()
        except Exception as exc:  # the component cannot be used: reported by the check, never raised
            state: CheckState = "failed"
            detail = str(exc) or type(exc).__name__
            log.warning(
                "readiness %s failed after %.1f s: %s", self.name, time.perf_counter() - start, detail
            )
        else:
            state = "ok"
            log.info("readiness %s ready after %.1f s: %s", self.name, time.perf_counter() - start, detail)
        with self._lock:
            self._state, self._detail = state, detail
        self.finished.set()

    async def __call__(self) -> CheckResult | str:
        self.start()
        with self._lock:
            state, detail = self._state, self._detail
        if state == "ok":
            return detail
        return CheckResult(False, detail, state=state)


@dataclass
class ReadinessRegistry:
    """Named readiness checks of one app (one registry per app: :func:`readiness_registry`)."""

    checks: dict[str, RegisteredCheck] = field(default_factory=dict)

    def register(
        self, name: str, check: ReadinessCheck, *, timeout_s: float = 5.0, degrades: str | None = None
    ) -> None:
        """Add (or replace) the check ``name``; ``timeout_s``: its time limit, s; ``degrades``: what
        stops working when it fails (Chinese, for the answer), which makes it optional (see the module's
        doc); None: required."""
        self.checks[name] = RegisteredCheck(check, timeout_s, degrades)

    def unregister(self, name: str) -> None:
        self.checks.pop(name, None)

    def warm_up(self) -> None:
        """Start the work of every :class:`BackgroundCheck` now, in its own thread (returns at once)."""
        for registered in self.checks.values():
            if isinstance(registered.check, BackgroundCheck):
                registered.check.start()

    async def run(
        self, extra: dict[str, tuple[ReadinessCheck, float]] | None = None
    ) -> dict[str, CheckResult]:
        """Run every check (and ``extra``, required) concurrently; results by name."""
        items = {**self.checks, **{n: RegisteredCheck(c, t) for n, (c, t) in (extra or {}).items()}}
        results = await asyncio.gather(*(run_check(r.check, r.timeout_s) for r in items.values()))
        for registered, result in zip(items.values(), results, strict=True):
            result.required = registered.degrades is None
        return dict(zip(items, results, strict=True))

    def degrades(self, name: str) -> str | None:
        """What stops working without the optional check ``name`` (None for a required one)."""
        registered = self.checks.get(name)
        return registered.degrades if registered else None


STORE_UNREACHABLE = "数据库不可达"
"""The start of a failed check's detail when its error says the database is away."""


async def run_check(check: ReadinessCheck, timeout_s: float) -> CheckResult:
    """Run one check under its time limit. A failure's detail is Chinese: ``{timeout_s} 秒内无应答``,
    ``数据库不可达：<error>`` when the error says the database is away
    (:func:`~vent_agent.store.availability.store_unavailable`), else ``<error class>: <error>``."""
    start = time.perf_counter()
    try:
        answer = await asyncio.wait_for(check(), timeout_s)
    except TimeoutError:
        return CheckResult(False, f"{timeout_s:g} 秒内无应答", (time.perf_counter() - start) * 1000)
    except Exception as exc:  # a probe reports, it does not raise
        detail = f"{type(exc).__name__}: {exc}"
        if store_unavailable(exc):
            detail = f"{STORE_UNREACHABLE}：{detail}"
        return CheckResult(False, detail, (time.perf_counter() - start) * 1000)
    ms = (time.perf_counter() - start) * 1000
    if isinstance(answer, CheckResult):
        answer.ms = ms
        return answer
    if answer is False:
        return CheckResult(False, "未就绪", ms)
    return CheckResult(True, answer if isinstance(answer, str) else "", ms)


def readiness_registry(app: FastAPI) -> ReadinessRegistry:
    """The app's registry (created on first use); components register into it in the lifespan."""
    registry = getattr(app.state, "readiness", None)
    if registry is None:
        registry = ReadinessRegistry()
        app.state.readiness = registry
    return registry
