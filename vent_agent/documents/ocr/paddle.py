"""PaddleOCR as an optional OCR engine (``VENT_OCR_ENGINE=paddle``; extra ``[paddle]``).

PaddleOCR cannot fetch its models here: it is configured with local model directories only.
``VENT_PADDLE_MODEL_DIR`` holds one text-detection and one text-recognition model, each in a folder
named after the model (``PP-OCRv5_server_det/``, ``PP-OCRv5_server_rec/``: the exported inference
files). The document-orientation, unwarping and text-line-orientation models are not used. See
docs/OCR.md for the set-up.

:class:`PaddleOcrEngine` wraps any object with PaddleOCR 3's ``predict(input=…)`` (a list of results
with ``rec_texts``, ``rec_scores`` and ``rec_polys``), so that it can be tested with a fake one.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from PIL import Image

from vent_agent.documents.ocr.engine import OcrBox, OcrUnavailable


class PaddlePredictor(Protocol):
    """The part of ``paddleocr.PaddleOCR`` the adapter uses."""

    def predict(self, input: Any) -> Any: ...  # noqa: A002 - PaddleOCR's own keyword


def find_models(model_dir: Path) -> tuple[Path, Path]:
    """The detection and recognition model folders inside ``model_dir`` (names ending ``_det`` /
    ``_rec``; a ``server`` model is preferred to a ``mobile`` one).

    Raises :class:`OcrUnavailable` when the folder or either model is missing.
    """
    if not model_dir.is_dir():
        raise OcrUnavailable(
            f"PaddleOCR 模型目录不存在：{model_dir} / PaddleOCR model directory not found: {model_dir}"
        )
    found: dict[str, Path] = {}
    for kind in ("det", "rec"):
        dirs = sorted(
            (p for p in model_dir.iterdir() if p.is_dir() and p.name.lower().endswith(f"_{kind}")),
            key=lambda p: ("server" not in p.name.lower(), p.name),
        )
        if not dirs:
            raise OcrUnavailable(
                f"PaddleOCR 模型目录 {model_dir} 中缺少 *_{kind} 模型 / no *_{kind} model in {model_dir}"
            )
        found[kind] = dirs[0]
    return found["det"], found["rec"]


class PaddleOcrEngine:
    """PaddleOCR behind the :class:`~vent_agent.documents.ocr.engine.OcrEngine` interface."""

    name = "paddle"

    def __init__(self, predictor: PaddlePredictor) -> None:
        self._ocr = predictor

    @classmethod
    def from_model_dir(cls, model_dir: Path | None) -> PaddleOcrEngine:
        """Load PaddleOCR on the CPU from ``model_dir`` (see :func:`find_models`), never downloading.

        Raises :class:`OcrUnavailable` when ``model_dir`` is unset or incomplete, or paddleocr /
        paddlepaddle is not installed (``pip install 'vent-agent[paddle]'``).
        """
        if model_dir is None:
            raise OcrUnavailable(
                "未配置 PaddleOCR 模型目录（VENT_PADDLE_MODEL_DIR）/ VENT_PADDLE_MODEL_DIR is not set"
            )
        det, rec = find_models(Path(model_dir))
        os.environ.setdefault("PADDLE_PDX_DISABLE_MODEL_SOURCE_CHECK", "True")
        try:
            from paddleocr import PaddleOCR
        except ImportError as exc:
            raise OcrUnavailable(
                "未安装 PaddleOCR（pip install 'vent-agent[paddle]'）/ paddleocr is not installed"
            ) from exc
        try:
            predictor = PaddleOCR(
                text_detection_model_name=det.name,
                text_detection_model_dir=str(det),
                text_recognition_model_name=rec.name,
                text_recognition_model_dir=str(rec),
                use_doc_orientation_classify=False,
                use_doc_unwarping=False,
                use_textline_orientation=False,
                device="cpu",
            )
        except Exception as exc:  # paddlex raises many types for a bad model folder
            raise OcrUnavailable(f"PaddleOCR 模型加载失败 / cannot load the PaddleOCR models: {exc}") from exc
        return cls(predictor)

    def recognise(self, image: Image.Image) -> list[OcrBox]:
        """Text boxes of an RGB image (PaddleOCR gets it as a BGR array, as it reads images)."""
        bgr = np.ascontiguousarray(np.asarray(image.convert("RGB"))[:, :, ::-1])
        boxes: list[OcrBox] = []
        for res in self._ocr.predict(input=bgr):
            data: Mapping[str, Any] = (
                res.json["res"] if hasattr(res, "json") and not isinstance(res, Mapping) else res
            )
            polys = data.get("rec_polys")
            if polys is None:
                polys = data.get("dt_polys", [])
            for text, score, poly in zip(
                data.get("rec_texts", []), data.get("rec_scores", []), polys, strict=False
            ):
                pts = [(float(x), float(y)) for x, y in np.asarray(poly).reshape(-1, 2)[:4]]
                box = OcrBox.from_points(str(text), float(score), pts)
                if box is not None and str(text).strip():
                    boxes.append(box)
        return boxes
