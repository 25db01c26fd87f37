"""OCR inside the review pipeline: per-page ``ocr_progress`` events, the extraction cache (sha256 +
extractor version, ``force_refresh``), the OCR slot (queued ``progress``), OCR off the event loop, and
the clear failures (OCR off, engine unavailable, an engine failing on one page)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.helpers import parse_spec_stream
from tests.ocr_fakes import FakeEngine, synthetic_scan
from tests.pdf_factory import image_pdf
from vent_agent.documents.ocr.engine import OcrUnavailable
from vent_agent.documents.upload import sha256_file
from vent_agent.events import EventModel
from vent_agent.review.service import pipeline
from vent_agent.review.service.pipeline import ReviewFailed, ReviewRequest, load_extracted, review_plan
from vent_agent.runs.slots import FairSlots
from vent_agent.settings import Settings

ROWS: list[list[str | None]] = [["序号", "用风地点", "类别"], ["1", "15216综采工作面", "采煤工作面"]]


@pytest.fixture
def scan() -> Any:
    return synthetic_scan(
        ROWS, col_widths=[100, 400, 300], angle=0.6, lines_above=["三、用风地点清单如下所示"]
    )


@pytest.fixture
def scanned_pdf(tmp_path: Path, scan: Any) -> Path:
    path = tmp_path / "scan.pdf"
    path.write_bytes(image_pdf([scan.image, scan.image]))
    return path


def _req(path: Path, force: bool = False) -> ReviewRequest:
    return ReviewRequest(path, sha256_file(path), path.name, force_refresh=force)


class Events:
    def __init__(self) -> None:
        self.items: list[tuple[str, dict[str, Any]]] = []

    async def __call__(self, event: EventModel) -> None:
        fields = event.wire()
        self.items.append((fields.pop("type"), fields))

    def with_field(self, name: str) -> list[dict[str, Any]]:
        return [f for _, f in self.items if name in f]

    def messages(self) -> str:
        return "\n".join(str(f.get("message", "")) for _, f in self.items)


async def test_ocr_progress_per_page_then_the_cache(settings: Settings, scanned_pdf: Path, scan: Any) -> None:
    engine = FakeEngine(pages=[scan.boxes, scan.boxes])
    events = Events()
    extracted = await load_extracted(_req(scanned_pdf), settings, events, ocr_engine=engine)
    assert [f["page_progress"] for f in events.with_field("page_progress")] == [
        {"page": 1, "total": 2},
        {"page": 2, "total": 2},
    ]
    assert [f["ocr_progress"] for f in events.with_field("ocr_progress")] == [
        {"page": 1, "total": 2, "pdf_page": 1, "reason": "no_text_layer"},
        {"page": 2, "total": 2, "pdf_page": 2, "reason": "no_text_layer"},
    ]
    assert [p.ocr_reason for p in extracted.pages] == ["no_text_layer", "no_text_layer"]
    assert all(f["hash_id"] == sha256_file(scanned_pdf) for f in events.with_field("ocr_progress"))
    assert "2 页没有文字层" in events.messages()
    assert [p.source for p in extracted.pages] == ["ocr", "ocr"] and extracted.pages_without_text == []
    assert extracted.tables_on(1)[0].rows()[1] == ["1", "15216综采工作面", "采煤工作面"]
    assert len(engine.calls) == 2

    again = Events()
    cached = await load_extracted(_req(scanned_pdf), settings, again, ocr_engine=engine)
    assert cached == extracted and len(engine.calls) == 2
    assert "缓存" in again.messages() and not again.with_field("ocr_progress")

    forced = Events()
    await load_extracted(_req(scanned_pdf, force=True), settings, forced, ocr_engine=FakeEngine())
    assert len(forced.with_field("ocr_progress")) == 2


async def test_the_cache_key_has_the_extractor_version(settings: Settings, scanned_pdf: Path) -> None:
    await load_extracted(_req(scanned_pdf), settings, Events(), ocr_engine=FakeEngine())
    (path,) = settings.cache_dir.glob("*.extract.json")
    assert path.name == f"{sha256_file(scanned_pdf)}.{pipeline.extractor_id('fake-ocr')}.extract.json"
    assert pipeline.EXTRACTOR_VERSION in path.name and "ocr-layout" in path.name


async def test_a_run_waits_for_the_ocr_slot_with_a_queued_progress(
    settings: Settings, scanned_pdf: Path
) -> None:
    slots = FairSlots(1)
    other = slots.slot("another user")
    await other.__aenter__()  # another user's scanned plan is being OCR'd
    events = Events()
    task = asyncio.create_task(
        load_extracted(_req(scanned_pdf), settings, events, ocr_slots=slots, ocr_engine=FakeEngine())
    )
    for _ in range(200):
        if any(f.get("queued") for _, f in events.items):
            break
        await asyncio.sleep(0.01)
    assert any(f.get("queued") and "排队" in f["message"] for _, f in events.items)
    assert not events.with_field("ocr_progress") and not task.done()
    await other.__aexit__(None, None, None)
    await asyncio.wait_for(task, timeout=30)
    assert len(events.with_field("ocr_progress")) == 2


async def test_ocr_runs_off_the_event_loop(settings: Settings, scanned_pdf: Path) -> None:
    release = threading.Event()

    class BlockingEngine(FakeEngine):
        def recognise(self, image):
            assert release.wait(timeout=20), "the event loop was blocked by OCR"
            return super().recognise(image)

    async def unblock() -> None:
        await asyncio.sleep(0.05)  # runs only if the loop is free while the engine works
        release.set()

    _, extracted = await asyncio.gather(
        unblock(), load_extracted(_req(scanned_pdf), settings, Events(), ocr_engine=BlockingEngine())
    )
    assert extracted.page_count == 2


async def test_an_engine_failing_on_one_page_is_a_warning(
    settings: Settings, scanned_pdf: Path, scan: Any
) -> None:
    engine = FakeEngine(pages=[[], scan.boxes], fail_on={0})
    extracted = await load_extracted(_req(scanned_pdf), settings, Events(), ocr_engine=engine)
    assert [p.source for p in extracted.pages] == ["none", "ocr"]
    assert any("第 1 页 OCR 识别失败" in w for w in extracted.warnings)


async def test_ocr_switched_off_says_so(tmp_path: Path, scanned_pdf: Path) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path / "d", ocr_engine="none")
    events = Events()
    with pytest.raises(ReviewFailed, match="OCR 已关闭"):
        await review_plan(_req(scanned_pdf), settings, events, None)
    assert not events.with_field("ocr_progress")


async def test_an_unavailable_engine_is_a_clear_failure(
    settings: Settings, scanned_pdf: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unavailable(*_a: Any, **_k: Any) -> None:
        raise OcrUnavailable("未配置 PaddleOCR 模型目录（VENT_PADDLE_MODEL_DIR）")

    monkeypatch.setattr(pipeline, "load_configured_engine", unavailable)
    with pytest.raises(ReviewFailed, match="OCR 引擎不可用.*VENT_PADDLE_MODEL_DIR"):
        await review_plan(_req(scanned_pdf), settings, Events(), None)


async def test_api_stream_of_a_scan_without_plan_content(
    client: httpx.AsyncClient, scanned_pdf: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = synthetic_scan(
        [["项目", "内容"], ["天气", "晴"]], col_widths=[200, 200], lines_above=["会议纪要"]
    )
    engine = FakeEngine(pages=[other.boxes, other.boxes])
    monkeypatch.setattr(pipeline, "load_configured_engine", lambda *_a, **_k: engine)
    files = {"file": ("scan.pdf", scanned_pdf.read_bytes(), "application/pdf")}
    resp = await client.post("/api/vent/review/pdf", files=files)
    events = parse_spec_stream(resp.text)
    assert resp.status_code == 200
    ocr = [e for e in events if e.get("ocr_progress")]
    assert [{k: e["ocr_progress"][k] for k in ("page", "total")} for e in ocr] == [
        {"page": 1, "total": 2},
        {"page": 2, "total": 2},
    ]
    assert all(e["ocr_progress"]["reason"] == "no_text_layer" for e in ocr)
    assert all(e["type"] == "progress" and e["agent"] == "system" and e["hash_id"] for e in ocr)
    assert [e["type"] for e in events][-2:] == ["error", "done"]
    assert "未能从 PDF 中识别出配风计划内容" in events[-2]["message"]
