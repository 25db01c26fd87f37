"""Hostile and broken PDFs: each gives a clear Chinese ``error`` event then ``done`` over HTTP (or the
upload's 4xx), a ``PdfError`` with its code from the extractor, exit code 2 from the CLI; never a 500,
a hang or a traceback. Generated in the tests (tests/pdf_factory.py)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests.helpers import parse_spec_stream
from tests.ocr_fakes import FakeEngine
from tests.pdf_factory import Page, blank_pdf, build_pdf, huge_page_pdf, image_pdf, zero_page_pdf
from vent_agent.cli import main
from vent_agent.documents.ocr.page import ocr_pages
from vent_agent.documents.pdf_text import PdfError, extract_pdf
from vent_agent.settings import Settings

CJK = re.compile(r"[\u4e00-\u9fff]")


def _text_pdf(n_pages: int = 1) -> bytes:
    pages = []
    for i in range(n_pages):
        page = Page()
        page.para(f"示范煤矿配风计划第 {i + 1} 页")
        pages.append(page)
    return build_pdf(pages)


def _truncated() -> bytes:
    data = _text_pdf(3)
    return data[: len(data) // 2]


HOSTILE: dict[str, tuple[Callable[[], bytes], str]] = {
    "encrypted": (lambda: build_pdf([Page()], encrypt=True), "encrypted"),
    "truncated": (_truncated, "truncated"),
    "zero_pages": (zero_page_pdf, "no_pages"),
    "huge_page": (huge_page_pdf, "page_too_large"),
    "garbage_after_header": (lambda: b"%PDF-1.7\n" + bytes(range(256)) * 40 + b"\n%%EOF\n", "corrupt"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_extractor_raises_a_coded_error(name: str, tmp_path: Path) -> None:
    make, code = HOSTILE[name]
    path = tmp_path / f"{name}.pdf"
    path.write_bytes(make())
    with pytest.raises(PdfError) as info:
        extract_pdf(path, max_pages=50)
    assert info.value.code == code and CJK.search(str(info.value))


@pytest.mark.parametrize("name", sorted(HOSTILE))
async def test_api_gives_error_then_done(name: str, client: httpx.AsyncClient) -> None:
    make, _ = HOSTILE[name]
    resp = await client.post(
        "/api/vent/review/pdf", files={"file": (f"{name}.pdf", make(), "application/pdf")}
    )
    assert resp.status_code == 200
    events = parse_spec_stream(resp.text)
    assert [e["type"] for e in events][-2:] == ["error", "done"]
    assert CJK.search(events[-2]["message"])
    assert "Traceback" not in resp.text


@pytest.mark.parametrize("content", [b"PK\x03\x04 a zip file", b"\x89PNG\r\n\x1a\n...", b"   "])
async def test_non_pdf_upload_is_refused_before_any_run(client: httpx.AsyncClient, content: bytes) -> None:
    resp = await client.post("/api/vent/review/pdf", files={"file": ("x.pdf", content, "application/pdf")})
    assert resp.status_code == 400 and CJK.search(resp.json()["error"])


def test_non_pdf_and_empty_files_from_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VENT_DATA_DIR", str(tmp_path / "d"))
    for name, content in [("zip.pdf", b"PK\x03\x04 not a pdf"), ("empty.pdf", b"")]:
        path = tmp_path / name
        path.write_bytes(content)
        with pytest.raises(SystemExit) as info:
            main(["review", str(path)])
        assert info.value.code == 2
        err = capsys.readouterr().err
        assert "审查失败" in err and "Traceback" not in err


async def test_too_many_pages_is_an_error_event(tmp_path: Path) -> None:
    from vent_agent.app import create_app

    app = create_app(Settings(_env_file=None, data_dir=tmp_path / "d", max_pdf_pages=2))
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t", timeout=60) as c,
    ):
        resp = await c.post(
            "/api/vent/review/pdf", files={"file": ("p.pdf", _text_pdf(3), "application/pdf")}
        )
    events = parse_spec_stream(resp.text)
    assert [e["type"] for e in events][-2:] == ["error", "done"]
    assert "超过上限 2 页" in events[-2]["message"]


def test_size_cap_outside_the_upload_route(tmp_path: Path) -> None:
    path = tmp_path / "big.pdf"
    path.write_bytes(blank_pdf(1) + b"%" + b"0" * (2 << 20))
    with pytest.raises(PdfError) as info:
        extract_pdf(path, max_pages=5, max_bytes=1 << 20)
    assert info.value.code == "too_large" and "文件过大" in str(info.value)


def test_render_size_is_capped_for_a_large_scanned_page(tmp_path: Path) -> None:
    from PIL import Image

    path = tmp_path / "a0.pdf"  # an A0-sized scan at 20 dpi: 3370 pt high
    path.write_bytes(image_pdf([Image.new("RGB", (662, 936), "white")], dpi=20))
    extracted = extract_pdf(path, max_pages=5)
    engine = FakeEngine()
    result = ocr_pages(path, extracted, engine, dpi=200, max_render_px=1200)
    ((w, h),) = engine.calls
    assert max(w, h) <= 1200
    assert any("dpi" in warning for warning in result.warnings)
