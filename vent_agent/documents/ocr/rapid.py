"""The default OCR engine: RapidOCR 3 on ONNX Runtime, with the PP-OCR models that ship inside the
``rapidocr`` wheel (no download, works offline).

ONNX Runtime's telemetry is switched off (``ORT_DISABLE_TELEMETRY=1``) before it is imported. The text
direction classifier is off: plan pages are upright, and on long formula lines the classifier sometimes
turns a line upside down, which ruins its recognition.

A page is read in overlapping horizontal strips (:mod:`~vent_agent.documents.ocr.strips`) after
RapidOCR's own scaling to at most 2000 px: the detector's activations are the largest allocation of a
page, and on the scanned sample's A4 pages at 200 dpi an OCR worker peaked at 615 MiB, of which 390 MiB
were the detector's on the whole page (measured 2026-12-01, RapidOCR 3.10, PP-OCRv6 small, onnxruntime
1.32). A smaller detection input would save as much, but lost lines of a 150-dpi scan.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Any

from PIL import Image

from vent_agent.documents.ocr.engine import OcrBox, OcrUnavailable
from vent_agent.documents.ocr.strips import recognise_in_strips, shifted

log = logging.getLogger(__name__)

REC_BATCH = 2
"""Text lines recognised at once (RapidOCR's default is 6): a batch is as wide as its widest line, and
six full-width lines of a page (48×1920 px each) took 213 MiB at once, two 71 MiB, at the same speed."""

DEFAULT_PARAMS: dict[str, Any] = {
    "Global.log_level": "error",
    "Global.use_cls": False,
    "Rec.rec_batch_num": REC_BATCH,
}


def without_memory_patterns(ocr: Any) -> None:
    """Load the detection and recognition models of a ``rapidocr.RapidOCR`` now and rebuild their ONNX
    Runtime sessions with the same options but ``enable_mem_pattern`` off.

    With memory patterns on, ONNX Runtime records each input shape's allocations on its first run and
    from the second run of that shape on allocates them as one block, planned larger than what the
    first run held at once: reading the scanned sample's pages (200 dpi, detection input 1408×1984 px),
    the detection's peak rose by about 125 MiB from the second page on. Off, an OCR worker peaked at 604
    MiB instead of 728 MiB over those 5 pages, with the same boxes and text (measured 2026-12-01,
    RapidOCR 3.10, onnxruntime 1.32, glibc's mmap threshold fixed). RapidOCR's configuration does not
    expose the option, so this reaches into RapidOCR 3's models (``text_det``/``text_rec``, whose
    ``session.session`` is the ONNX Runtime session); when they are not there, the sessions are kept
    as they are, with a warning.
    """
    import onnxruntime as ort

    try:
        models = [ocr._load_det_model(), ocr._load_rec_model()]
        for model in models:
            old = model.session.session
            options = old.get_session_options()
            options.enable_mem_pattern = False
            model.session.session = ort.InferenceSession(
                old._model_path, sess_options=options, providers=old.get_providers()
            )
    except (AttributeError, TypeError) as exc:  # pragma: no cover - another RapidOCR version
        log.warning("cannot turn ONNX Runtime's memory patterns off in this RapidOCR: %s", exc)


class RapidOcrEngine:
    """RapidOCR behind the :class:`~vent_agent.documents.ocr.engine.OcrEngine` interface.

    ``params`` override RapidOCR's configuration keys (e.g. ``{"Global.max_side_len": 2500}``; see
    rapidocr's ``config.yaml``); ``threads`` > 0 sets ONNX Runtime's intra-op threads of every model
    (0: ONNX Runtime's default, one per core). RapidOCR 3 already builds its sessions with ONNX
    Runtime's CPU memory arena off (``enable_cpu_mem_arena: false``), so freed tensors are not kept;
    the detection and recognition sessions are rebuilt here with its memory patterns off as well
    (:func:`without_memory_patterns`). The models are loaded and tried on a blank image at construction.
    Calls are serialised (RapidOCR stores each call's flags on the instance; its ONNX Runtime sessions
    use every core anyway).

    Raises :class:`OcrUnavailable` when rapidocr or onnxruntime is not installed or a model cannot load.
    """

    name = "rapidocr"

    def __init__(self, params: dict[str, Any] | None = None, *, threads: int = 0) -> None:
        os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
        self._lock = threading.Lock()  # RapidOCR keeps a call's det/cls/rec flags on the instance
        try:
            from rapidocr import RapidOCR
        except ImportError as exc:  # pragma: no cover - depends on the installation
            raise OcrUnavailable(
                "未安装 OCR 引擎 rapidocr/onnxruntime / OCR engine rapidocr is not installed "
                "(pip install rapidocr onnxruntime)"
            ) from exc
        try:
            threading_params = (
                {"EngineConfig.onnxruntime.intra_op_num_threads": threads} if threads > 0 else {}
            )
            self._ocr = RapidOCR(params={**DEFAULT_PARAMS, **threading_params, **(params or {})})
            without_memory_patterns(self._ocr)
            self._max_side = int(getattr(self._ocr, "max_side_len", 2000))
            self._ocr(Image.new("RGB", (736, 736), "white"))  # tries the detector at its smallest input
        except Exception as exc:  # rapidocr raises its own types for missing or broken models
            raise OcrUnavailable(f"OCR 模型加载失败 / cannot load the RapidOCR models: {exc}") from exc

    def read_line(self, image: Image.Image) -> tuple[str, float]:
        """Recognition only (no detection) of an image holding one text line: (text, score)."""
        from rapidocr.ch_ppocr_rec import TextRecOutput
        from rapidocr.utils.output import RapidOCROutput

        with self._lock:
            out = self._ocr(image.convert("RGB"), use_det=False, use_cls=False, use_rec=True)
        if not isinstance(out, TextRecOutput | RapidOCROutput) or not out.txts or out.scores is None:
            return "", 0.0
        return "".join(out.txts), float(min(out.scores))

    def recognise(self, image: Image.Image) -> list[OcrBox]:
        """Text boxes of an RGB image, in the image's pixels (see :class:`OcrBox`), read in strips
        (see the module docstring)."""
        import numpy as np
        from rapidocr.utils.process_img import reduce_max_side

        page = np.asarray(image.convert("RGB"))
        ratio_h = ratio_w = 1.0
        if max(page.shape[:2]) > self._max_side:  # RapidOCR's own scaling, which it skips for a strip
            page, ratio_h, ratio_w = reduce_max_side(page, self._max_side)
        boxes = recognise_in_strips(page.shape[0], lambda top, bottom: self._recognise(page[top:bottom]))
        return [shifted(box, 0.0, ratio_w, ratio_h) for box in boxes]

    def _recognise(self, image: Any) -> list[OcrBox]:
        """Detection and recognition of one image (a numpy RGB array), boxes in its pixels."""
        from rapidocr.utils.output import RapidOCROutput

        with self._lock:
            out = self._ocr(image, use_det=True, use_cls=False, use_rec=True)
        if not isinstance(out, RapidOCROutput) or out.boxes is None or out.txts is None or out.scores is None:
            return []
        boxes = []
        for quad, text, score in zip(out.boxes, out.txts, out.scores, strict=True):
            box = OcrBox.from_points(text, float(score), [(float(x), float(y)) for x, y in quad[:4]])
            if box is not None and text.strip():
                boxes.append(box)
        return boxes
