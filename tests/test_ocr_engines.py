"""OCR engines: RapidOCR loads its shipped models offline and reads an image; the PaddleOCR adapter
(tested with a fake PaddleOCR, whose models cannot be fetched here) passes local model folders and turns
its results into boxes; engine selection by settings."""

from __future__ import annotations

import os
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from vent_agent.documents.ocr.engine import OcrBox, OcrEngine, OcrUnavailable, load_engine
from vent_agent.documents.ocr.paddle import PaddleOcrEngine, find_models


def test_rapidocr_reads_an_image_offline() -> None:
    engine = load_engine("rapidocr")
    assert engine is not None and isinstance(engine, OcrEngine)
    assert os.environ.get("ORT_DISABLE_TELEMETRY") == "1"
    assert load_engine("rapidocr") is engine  # loaded once per process
    img = Image.new("RGB", (900, 120), "white")
    ImageDraw.Draw(img).text((30, 30), "Q = 630.0 m3/min", fill="black", font=ImageFont.load_default(size=48))
    boxes = engine.recognise(img)
    text = " ".join(b.text for b in boxes).replace(" ", "")
    assert "630.0" in text
    (x0, y0, x1, y1) = boxes[0].bbox
    assert 0 <= x0 < x1 <= 900 and 0 <= y0 < y1 <= 120 and 0 < boxes[0].score <= 1
    # RapidOCR's stubs do not declare the stages it builds at run time
    for model in (engine._ocr.text_det, engine._ocr.text_rec):  # type: ignore[attr-defined]
        options = model.session.session.get_session_options()
        assert not options.enable_mem_pattern and not options.enable_cpu_mem_arena


def test_no_engine_when_ocr_is_off() -> None:
    assert load_engine("none") is None


class FakePaddle:
    """Answers ``predict`` like PaddleOCR 3 (one dict-like result per image); records the input."""

    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs
        self.inputs: list[np.ndarray] = []

    def predict(self, input: Any) -> list[dict[str, Any]]:  # noqa: A002
        self.inputs.append(input)
        return [
            {
                "rec_texts": ["取最大值：Q需=630.0m³/min", " "],
                "rec_scores": [0.97, 0.5],
                "rec_polys": [np.array([[10, 20], [410, 22], [409, 52], [9, 50]]), np.zeros((4, 2))],
            }
        ]


def test_paddle_adapter_turns_results_into_boxes() -> None:
    fake = FakePaddle()
    engine = PaddleOcrEngine(fake)
    img = Image.new("RGB", (500, 100), (255, 0, 0))  # red, so that the channel order shows
    boxes = engine.recognise(img)
    assert boxes == [OcrBox("取最大值：Q需=630.0m³/min", 0.97, ((10, 20), (410, 22), (409, 52), (9, 50)))]
    (arr,) = fake.inputs
    assert arr.shape == (100, 500, 3) and tuple(arr[0, 0]) == (0, 0, 255)  # BGR, as PaddleOCR reads images
    assert engine.name == "paddle" and isinstance(engine, OcrEngine)


def _model_dir(tmp_path: Path) -> Path:
    for name in ("PP-OCRv5_mobile_det", "PP-OCRv5_server_det", "PP-OCRv5_server_rec"):
        (tmp_path / "models" / name).mkdir(parents=True)
    return tmp_path / "models"


def test_paddle_is_configured_with_local_model_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    models = _model_dir(tmp_path)
    assert [p.name for p in find_models(models)] == ["PP-OCRv5_server_det", "PP-OCRv5_server_rec"]
    monkeypatch.setitem(sys.modules, "paddleocr", types.SimpleNamespace(PaddleOCR=FakePaddle))
    engine = PaddleOcrEngine.from_model_dir(models)
    assert isinstance(engine._ocr, FakePaddle)
    kwargs = engine._ocr.kwargs
    assert kwargs["text_detection_model_dir"] == str(models / "PP-OCRv5_server_det")
    assert kwargs["text_recognition_model_name"] == "PP-OCRv5_server_rec"
    assert kwargs["use_doc_orientation_classify"] is False and kwargs["device"] == "cpu"
    assert os.environ.get("PADDLE_PDX_DISABLE_MODEL_SOURCE_CHECK") == "True"


def test_paddle_without_models_or_package_is_unavailable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(OcrUnavailable, match="VENT_PADDLE_MODEL_DIR"):
        PaddleOcrEngine.from_model_dir(None)
    with pytest.raises(OcrUnavailable, match="不存在"):
        PaddleOcrEngine.from_model_dir(tmp_path / "nowhere")
    (tmp_path / "only" / "PP-OCRv5_server_det").mkdir(parents=True)
    with pytest.raises(OcrUnavailable, match="_rec"):
        find_models(tmp_path / "only")
    monkeypatch.setitem(sys.modules, "paddleocr", None)  # not installed
    with pytest.raises(OcrUnavailable, match="paddle"):
        load_engine("paddle", paddle_model_dir=_model_dir(tmp_path))


def test_paddle_load_failure_is_unavailable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(**_kwargs: Any) -> None:
        raise RuntimeError("inference.json missing")

    monkeypatch.setitem(sys.modules, "paddleocr", types.SimpleNamespace(PaddleOCR=broken))
    with pytest.raises(OcrUnavailable, match="inference.json"):
        PaddleOcrEngine.from_model_dir(_model_dir(tmp_path))
