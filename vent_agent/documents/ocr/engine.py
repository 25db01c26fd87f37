"""The OCR-engine interface: one page image in, text boxes with coordinates and confidence out.

An engine is any object with a ``name`` and ``recognise(image) -> list[OcrBox]``. The shipped ones are
:class:`~vent_agent.documents.ocr.rapid.RapidOcrEngine` (the default: RapidOCR 3 on ONNX Runtime, models
inside the wheel) and :class:`~vent_agent.documents.ocr.paddle.PaddleOcrEngine` (optional, local model
directories). :func:`load_engine` picks one from the settings' ``ocr_engine`` and keeps each loaded model
for the life of the process (the models are read-only and their sessions thread-safe; loading one takes
about a second).

Coordinates are pixels of the image given to the engine, origin at its top-left, y downwards.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol, runtime_checkable

from PIL import Image

if TYPE_CHECKING:
    from vent_agent.settings import Settings

EngineName = Literal["rapidocr", "paddle", "none"]
Isolation = Literal["process", "thread"]

Point = tuple[float, float]


class OcrUnavailable(RuntimeError):
    """The configured OCR engine cannot be used (not installed, model directory missing…).
    ``str(err)`` is Chinese + English, for the user."""


@dataclass(frozen=True)
class OcrBox:
    """One recognised text line: its text, the engine's confidence (0…1) and its quadrilateral
    ``quad`` = (top-left, top-right, bottom-right, bottom-left) in image pixels."""

    text: str
    score: float
    quad: tuple[Point, Point, Point, Point]

    @property
    def bbox(self) -> tuple[float, float, float, float]:
        """The axis-aligned box (x0, y0, x1, y1) around ``quad``, pixels."""
        xs = [p[0] for p in self.quad]
        ys = [p[1] for p in self.quad]
        return min(xs), min(ys), max(xs), max(ys)

    @classmethod
    def from_points(cls, text: str, score: float, points: Sequence[Point]) -> OcrBox | None:
        """A box from an engine's corner points (top-left first, clockwise); None unless there are four."""
        if len(points) != 4:
            return None
        return cls(text, score, (points[0], points[1], points[2], points[3]))

    @classmethod
    def from_rect(cls, text: str, score: float, x0: float, y0: float, x1: float, y1: float) -> OcrBox:
        """A box from an axis-aligned rectangle (pixels)."""
        return cls(text, score, ((x0, y0), (x1, y0), (x1, y1), (x0, y1)))


@runtime_checkable
class OcrEngine(Protocol):
    """What the OCR page reader needs from an engine.

    ``recognise(image)`` finds and reads every text line of an RGB page image and returns them in any
    order; it may raise on a broken engine (the caller records a warning for that page). It must be
    safe to call from a worker thread.
    """

    name: str

    def recognise(self, image: Image.Image) -> list[OcrBox]: ...


@runtime_checkable
class LineReader(Protocol):
    """An engine that can also read an image holding one text line without detecting it first
    (RapidOCR, the OCR worker pool): ``(text, score)``."""

    def read_line(self, image: Image.Image) -> tuple[str, float]: ...


_LOADED: dict[tuple[str, str | None, str, int], OcrEngine] = {}
_LOAD_LOCK = threading.Lock()


def load_engine(
    engine: EngineName,
    *,
    paddle_model_dir: Path | None = None,
    isolation: Isolation = "thread",
    workers: int = 1,
    max_tasks_per_worker: int = 10,
    idle_s: float = 10.0,
    threads: int = 0,
) -> OcrEngine | None:
    """The engine named by ``settings.ocr_engine`` (``rapidocr``, ``paddle``), loaded once per process;
    None for ``none`` (OCR switched off).

    ``isolation="thread"``: the engine runs in this process (callers use worker threads).
    ``isolation="process"`` (the service's default, ``VENT_OCR_ISOLATION``): a
    :class:`~vent_agent.documents.ocr.pool.ProcessOcrEngine` whose ``workers`` processes load the engine,
    are replaced after ``max_tasks_per_worker`` calls and exit after ``idle_s`` seconds without a call,
    so the engine's memory goes back to the system; it is probed (loaded in a worker) before it is
    returned. ``threads``: ONNX Runtime's intra-op threads of a RapidOCR engine (0: its default, one
    per core; ``VENT_OCR_THREADS``).

    Raises :class:`OcrUnavailable` when the engine's package is not installed or its models cannot be
    loaded (for ``paddle``: ``paddle_model_dir`` unset or missing, see docs/OCR.md).
    """
    if engine == "none":
        return None
    key = (engine, str(paddle_model_dir) if paddle_model_dir else None, isolation, threads)
    with _LOAD_LOCK:
        if key not in _LOADED:
            if engine not in ("rapidocr", "paddle"):
                raise OcrUnavailable(f"未知的 OCR 引擎：{engine} / unknown OCR engine: {engine}")
            if isolation == "process":
                from vent_agent.documents.ocr.pool import ProcessOcrEngine

                pooled = ProcessOcrEngine(
                    engine,
                    partial(load_engine, engine, paddle_model_dir=paddle_model_dir, threads=threads),
                    workers=workers,
                    max_tasks_per_worker=max_tasks_per_worker,
                    idle_s=idle_s,
                )
                pooled.probe()
                _LOADED[key] = pooled
            elif engine == "rapidocr":
                from vent_agent.documents.ocr.rapid import RapidOcrEngine

                _LOADED[key] = RapidOcrEngine(threads=threads)
            else:
                from vent_agent.documents.ocr.paddle import PaddleOcrEngine

                _LOADED[key] = PaddleOcrEngine.from_model_dir(paddle_model_dir)
        return _LOADED[key]


def load_configured_engine(settings: Settings) -> OcrEngine | None:
    """:func:`load_engine` with the service's OCR settings (``VENT_OCR_*``)."""
    return load_engine(
        settings.ocr_engine,
        paddle_model_dir=settings.paddle_model_dir,
        isolation=settings.ocr_isolation,
        workers=settings.ocr_concurrency,
        max_tasks_per_worker=settings.ocr_worker_max_pages,
        idle_s=settings.ocr_worker_idle_s,
        threads=settings.ocr_threads,
    )
