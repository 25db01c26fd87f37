"""Text-layer extraction: pages, ruled tables, progress, and the guards against hostile files."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pdf_factory import Page, blank_pdf, build_pdf
from vent_agent.documents.pdf_text import ExtractedPdf, PageText, PdfError, extract_pdf, read_text_layer

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def plan_a_extracted() -> ExtractedPdf:
    return extract_pdf(DATA / "plan-2026-08-a.pdf", max_pages=50)


def test_pages_text_and_progress() -> None:
    calls: list[tuple[int, int]] = []
    ex = extract_pdf(DATA / "plan-2026-08-b.pdf", max_pages=50, on_page=lambda d, t: calls.append((d, t)))
    assert ex.page_count == 5 and len(ex.pages) == 5
    assert calls == [(i, 5) for i in range(1, 6)]
    assert ex.pages_without_text == []
    assert "示范煤矿" in ex.page(1).text and "\r" not in ex.text
    assert all(p.source == "text" for p in ex.pages)
    assert ex.char_count > 2000


def test_ruled_tables_with_cells(plan_a_extracted: ExtractedPdf) -> None:
    ex = plan_a_extracted
    assert [(t.page, t.index) for t in ex.tables] == [(1, 0), (4, 0), (5, 0)]
    alloc = ex.tables_on(4)[0]
    assert (alloc.n_rows, alloc.n_cols) == (12, 9)
    rows = alloc.rows()
    assert rows[0][2] == "需风量\n(m³/min)"
    assert rows[1][1] == "15216综采\n工作面" and rows[1][2] == "1132.2"
    cell = next(c for c in alloc.cells if c.row == 4 and c.col == 7)
    assert (cell.page, cell.table, cell.text) == (4, 0, "0.28")


def test_table_continued_on_next_page_is_two_tables() -> None:
    ex = extract_pdf(DATA / "plan-2026-08-b.pdf", max_pages=50)
    signoff_top, signoff_rest = ex.tables_on(4)[1], ex.tables_on(5)[0]
    assert signoff_top.rows()[0][4] == "批准"
    assert signoff_rest.rows()[0][:4] == ["签字", "李明", "王建国", "赵志强"]
    assert signoff_rest.rows()[0][4] in ("", None)


def test_scanned_pages_are_listed_and_replaceable(tmp_path: Path) -> None:
    path = tmp_path / "blank.pdf"
    path.write_bytes(blank_pdf(3))
    ex = extract_pdf(path, max_pages=10)
    assert ex.pages_without_text == [1, 2, 3]
    assert all(p.source == "none" for p in ex.pages) and ex.tables == []
    ocr = ex.with_page(PageText(page=2, text="OCR 识别的文字内容", source="ocr"))
    assert ocr.pages_without_text == [1, 3] and ocr.page(2).source == "ocr"
    assert ex.pages_without_text == [1, 2, 3]  # the original is unchanged


def test_page_reader_is_replaceable(tmp_path: Path) -> None:
    path = tmp_path / "blank.pdf"
    path.write_bytes(blank_pdf(2))

    def ocr_reader(page, page_no: int) -> PageText:
        got = read_text_layer(page, page_no)
        return got if got.has_text else PageText(page=page_no, text=f"第{page_no}页 OCR 文本", source="ocr")

    ex = extract_pdf(path, max_pages=10, page_reader=ocr_reader)
    assert ex.pages_without_text == [] and [p.source for p in ex.pages] == ["ocr", "ocr"]


def test_failing_page_reader_is_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The user gets a Chinese warning per page; the engine's own (English) error goes to the log."""
    path = tmp_path / "blank.pdf"
    path.write_bytes(blank_pdf(2))

    def broken(page, page_no: int) -> PageText:
        raise RuntimeError("engine down")

    with caplog.at_level("WARNING", logger="vent_agent.documents.pdf_text"):
        ex = extract_pdf(path, max_pages=10, page_reader=broken)
    assert ex.pages_without_text == [1, 2]
    assert "第 1 页文字提取失败" in ex.warnings and "第 2 页文字提取失败" in ex.warnings
    assert not any("engine down" in w for w in ex.warnings) and "engine down" in caplog.text


def test_generated_cjk_pdf_round_trips(tmp_path: Path) -> None:
    page = Page()
    page.para("示范煤矿 2026年8月份配风计划")
    page.table([["序号", "用风地点"], ["1", "15216综采工作面"]], [60, 200])
    path = tmp_path / "gen.pdf"
    path.write_bytes(build_pdf([page]))
    ex = extract_pdf(path, max_pages=5)
    assert "示范煤矿 2026年8月份配风计划" in ex.page(1).text
    assert ex.tables[0].rows() == [["序号", "用风地点"], ["1", "15216综采工作面"]]


@pytest.mark.parametrize(
    ("content", "code", "words"),
    [
        (b"", "empty", "文件为空"),
        (b"  \n\t ", "empty", "文件为空"),
        (b"PK\x03\x04 this is a zip, not a pdf", "not_pdf", "%PDF-"),
        (b"%PDF-1.4\n" + b"\x00garbage" * 50 + b"\n%%EOF\n", "corrupt", "损坏"),
    ],
)
def test_hostile_bytes(tmp_path: Path, content: bytes, code: str, words: str) -> None:
    path = tmp_path / "x.pdf"
    path.write_bytes(content)
    with pytest.raises(PdfError) as err:
        extract_pdf(path, max_pages=10)
    assert err.value.code == code
    assert words in str(err.value)
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize("cut", [0.5, 0.9, 0.999])
def test_truncated_pdf(tmp_path: Path, cut: float) -> None:
    raw = (DATA / "plan-2026-08-a.pdf").read_bytes()
    path = tmp_path / "cut.pdf"
    path.write_bytes(raw[: int(len(raw) * cut)])
    with pytest.raises(PdfError) as err:
        extract_pdf(path, max_pages=10)
    assert err.value.code == "truncated"
    assert "不完整" in str(err.value) and err.value.code == "truncated"


def test_encrypted_pdf(tmp_path: Path) -> None:
    path = tmp_path / "enc.pdf"
    path.write_bytes(build_pdf([Page()], encrypt=True))
    with pytest.raises(PdfError) as err:
        extract_pdf(path, max_pages=10)
    assert err.value.code == "encrypted"
    assert "加密" in str(err.value) and err.value.code == "encrypted"


def test_too_many_pages(tmp_path: Path) -> None:
    path = tmp_path / "many.pdf"
    path.write_bytes(blank_pdf(12))
    with pytest.raises(PdfError) as err:
        extract_pdf(path, max_pages=10)
    assert err.value.code == "too_many_pages"
    assert "12" in str(err.value) and "10" in str(err.value)
    with pytest.raises(PdfError):
        extract_pdf(DATA / "plan-2026-08-a.pdf", max_pages=4)


def test_no_pages_and_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "zero.pdf"
    path.write_bytes(build_pdf([]))
    with pytest.raises(PdfError) as err:
        extract_pdf(path, max_pages=10)
    assert err.value.code in ("no_pages", "corrupt")
    with pytest.raises(PdfError) as err:
        extract_pdf(tmp_path / "missing.pdf", max_pages=10)
    assert err.value.code == "not_found"
