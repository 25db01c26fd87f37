"""Prometheus metrics of the service and the helpers other modules call to record them.

Names (all prefixed ``vent_``): ``runs_started_total{kind}``, ``runs_total{kind,outcome}`` (outcome:
done, failed, cancelled, lost — a run whose worker died), ``runs_active{kind}``,
``events_appended_total{type}``, ``tool_latency_seconds{tool,outcome}``,
``model_latency_seconds{model,outcome}``, ``model_first_token_seconds{model}``,
``ocr_pages_total{engine,outcome}``, ``ocr_page_seconds{engine}``, ``upload_disk_used_bytes``,
``upload_disk_cap_bytes`` (0: no cap), ``upload_retention_hours``. Served by ``GET /metrics``.

Each worker process keeps its own figures; scrape every worker (one target each), as usual for several
processes behind a load balancer.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING

from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, Counter, Gauge, Histogram, generate_latest

if TYPE_CHECKING:
    from vent_agent.settings import Settings

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120)

RUNS_STARTED = Counter("vent_runs_started_total", "Runs started, by kind", ["kind"])
RUNS_FINISHED = Counter("vent_runs_total", "Runs ended, by kind and outcome", ["kind", "outcome"])
RUNS_ACTIVE = Gauge("vent_runs_active", "Runs executing in this worker, by kind", ["kind"])
EVENTS_APPENDED = Counter("vent_events_appended_total", "Events appended to the run log, by type", ["type"])
TOOL_LATENCY = Histogram(
    "vent_tool_latency_seconds", "Tool call time, s", ["tool", "outcome"], buckets=LATENCY_BUCKETS
)
MODEL_LATENCY = Histogram(
    "vent_model_latency_seconds",
    "Model call time (whole answer), s",
    ["model", "outcome"],
    buckets=LATENCY_BUCKETS,
)
MODEL_FIRST_TOKEN = Histogram(
    "vent_model_first_token_seconds",
    "Time to a model's first streamed token, s",
    ["model"],
    buckets=LATENCY_BUCKETS,
)
OCR_PAGES = Counter(
    "vent_ocr_pages_total", "Pages recognised by OCR, by engine and outcome", ["engine", "outcome"]
)
OCR_PAGE_SECONDS = Histogram(
    "vent_ocr_page_seconds", "OCR time of one page, s", ["engine"], buckets=LATENCY_BUCKETS
)

UPLOAD_DISK_USED = Gauge("vent_upload_disk_used_bytes", "Bytes the uploaded files use on disk")
UPLOAD_DISK_CAP = Gauge("vent_upload_disk_cap_bytes", "Cap on the uploads' disk use (0: none), bytes")
UPLOAD_RETENTION = Gauge(
    "vent_upload_retention_hours", "Age after which review files outside sessions are deleted, h"
)


def _outcome(ok: bool) -> str:
    return "ok" if ok else "error"


def run_started(kind: str) -> None:
    """Count a run that starts executing in this worker."""
    RUNS_STARTED.labels(kind).inc()
    RUNS_ACTIVE.labels(kind).inc()


def run_ended(kind: str, outcome: str | None, *, local: bool = True) -> None:
    """Count a run's end; ``outcome``: done, failed, cancelled or lost (None: already counted by the
    worker that marked it lost). ``local``: it was executing in this worker (False for a dead worker's
    run marked failed here)."""
    if outcome is not None:
        RUNS_FINISHED.labels(kind, outcome).inc()
    if local:
        RUNS_ACTIVE.labels(kind).dec()


def event_appended(type_: str, count: int = 1) -> None:
    """Count ``count`` events of ``type_`` written to the run log."""
    EVENTS_APPENDED.labels(type_).inc(count)


def observe_tool_call(tool: str, seconds: float, ok: bool = True) -> None:
    """Record one tool call of ``seconds`` (s)."""
    TOOL_LATENCY.labels(tool, _outcome(ok)).observe(seconds)


def observe_model_call(
    model: str, seconds: float, ok: bool = True, first_token_s: float | None = None
) -> None:
    """Record one model call: its whole time and, when streamed, the time to its first token (s)."""
    MODEL_LATENCY.labels(model, _outcome(ok)).observe(seconds)
    if first_token_s is not None:
        MODEL_FIRST_TOKEN.labels(model).observe(first_token_s)


def count_ocr_pages(engine: str, pages: int = 1, ok: bool = True) -> None:
    """Count ``pages`` pages put through OCR ``engine`` (rapidocr, paddle…)."""
    OCR_PAGES.labels(engine, _outcome(ok)).inc(pages)


def observe_ocr_page(engine: str, seconds: float, ok: bool = True) -> None:
    """Record one page's OCR time (s) and count the page."""
    OCR_PAGE_SECONDS.labels(engine).observe(seconds)
    count_ocr_pages(engine, 1, ok)


@contextmanager
def _timed(observe: Callable[[str, float, bool], None], name: str) -> Iterator[None]:
    """Time the block and ``observe(name, seconds, ok)``; an exception counts as an error outcome and
    is re-raised."""
    start = time.perf_counter()
    ok = False
    try:
        yield
        ok = True
    finally:
        observe(name, time.perf_counter() - start, ok)


def time_tool(tool: str) -> AbstractContextManager[None]:
    """``with time_tool("query_tun_data_by_id"): …`` records the block's time (s) as one tool call;
    an exception counts as an error outcome and is re-raised."""
    return _timed(observe_tool_call, tool)


def time_model(model: str) -> AbstractContextManager[None]:
    """``with time_model("deepseek-chat"): …`` records one model call's time (s); errors re-raised."""
    return _timed(observe_model_call, model)


def set_upload_disk(settings: Settings) -> None:
    """Refresh the upload gauges: disk in use under ``uploads_dir`` (walks it), cap and retention."""
    from vent_agent.documents.upload import disk_usage

    UPLOAD_DISK_USED.set(disk_usage(settings.uploads_dir))
    UPLOAD_DISK_CAP.set(settings.max_upload_disk_mb << 20)
    UPLOAD_RETENTION.set(settings.upload_retention_hours)


def render_latest() -> tuple[bytes, str]:
    """The metrics in Prometheus' text format and their content type."""
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
