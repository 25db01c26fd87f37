"""The text-layer scorer (documents/quality.py) on several members of each kind: good layers (also with a
few radicals or control characters), and garbage ones (private-use glyphs, mojibake, replacement chars)."""

from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium
import pytest

from vent_agent.documents.quality import score_layer

DATA = Path(__file__).parent / "data"


def _raw_pages() -> list[str]:
    out = []
    for name in ("plan-2026-08-a.pdf", "plan-2026-08-b.pdf"):
        doc = pdfium.PdfDocument(DATA / name)
        out += [doc[i].get_textpage().get_text_range() for i in range(len(doc))]
        doc.close()
    return out


PAGES = _raw_pages()
RADICALS = str.maketrans({"风": "⻛", "工": "⼯", "面": "⾯", "人": "⼈", "大": "⼤", "月": "⺝", "长": "⻓"})


def _pua(text: str) -> str:  # a font without a usable ToUnicode map: glyph ids in the private-use area
    return "".join(c if c.isspace() else chr(0xE000 + ord(c) % 6000) for c in text)


def _utf8_as_cp1252(text: str) -> str:
    return text.encode("utf-8").decode("cp1252", errors="replace")


def _gbk_as_latin1(text: str) -> str:
    return text.encode("gbk", errors="replace").decode("latin-1")


def _replacement(text: str) -> str:  # every non-ASCII character lost
    return "".join(c if c.isascii() else "\ufffd" for c in text)


@pytest.mark.parametrize("page", range(len(PAGES)))
def test_the_samples_text_layers_are_good(page: int) -> None:
    q = score_layer(PAGES[page])
    assert not q.garbage and q.score > 0.99 and q.good > 20


@pytest.mark.parametrize("page", range(len(PAGES)))
def test_a_few_radicals_and_controls_keep_a_layer_good(page: int) -> None:
    raw = PAGES[page].translate(RADICALS).replace("量", "量\x07").replace("计", "计\ue001")
    q = score_layer(raw)
    assert not q.garbage and q.score > 0.7, q


@pytest.mark.parametrize("garble", [_pua, _utf8_as_cp1252, _gbk_as_latin1, _replacement])
@pytest.mark.parametrize("page", range(len(PAGES)))
def test_garbage_layers_are_garbage(garble, page: int) -> None:
    q = score_layer(garble(PAGES[page]))
    assert q.garbage and q.score < 0.6, q
    assert q.reason_cn().startswith("文字层为乱码")


def test_what_is_counted() -> None:
    q = score_layer("\ue001\ue002\ue003 ⻛\x07 ç¤ºèŒƒ \ufffd 工作面 12.5")
    assert q.bad_kinds == {"private_use": 3, "radical": 1, "control": 1, "mojibake": 6, "replacement": 1}
    assert q.good == 3 + 4  # 工作面 and 12.5


def test_short_or_empty_layers_are_not_judged() -> None:
    assert not score_layer("").garbage and score_layer("").score == 1.0
    assert not score_layer("\ue001\ue002").garbage  # too few to judge: fewer than MIN_BAD bad characters
