"""The boundary normalisation (documents/normalize.py): radicals, removed code points, NFKC, the fold."""

from __future__ import annotations

import unicodedata

import pytest

from vent_agent.documents.normalize import clean_cell, clean_text, fold, radical_table
from vent_agent.documents.plan import text_primitives

_UNIFIED = [(0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0x20000, 0x3134F)]


def _unified(ch: str) -> bool:
    return any(lo <= ord(ch) <= hi for lo, hi in _UNIFIED)


def test_every_radical_of_the_block_maps_to_a_unified_ideograph() -> None:
    table = radical_table()
    assigned = [cp for cp in range(0x2E80, 0x2FE0) if unicodedata.category(chr(cp)) != "Cn"]
    assert len(assigned) >= 328  # 115 supplement + 214 Kangxi (Unicode 14)
    unmapped = [f"{cp:04X}" for cp in assigned if cp not in table]
    assert unmapped == ["2E80"]  # CJK RADICAL REPEAT: no equivalent ideograph (UCD)
    for cp in assigned:
        if cp in table:
            out, counts = clean_text(chr(cp))
            assert len(out) == 1 and _unified(out), (f"{cp:04X}", out)
            assert counts["radical"] == 1
    for cp in range(0x2F00, 0x2FD6):  # where NFKC maps a radical, the table agrees with it
        assert table[cp] == unicodedata.normalize("NFKC", chr(cp)), f"{cp:04X}"


@pytest.mark.parametrize(
    ("radical", "ideograph"),
    [
        ("⼯", "工"),
        ("⻛", "风"),
        ("⾯", "面"),
        ("⻓", "长"),
        ("⻋", "车"),
        ("⺝", "月"),
        ("⽓", "气"),
        ("⾼", "高"),
    ],
)
def test_radicals_in_a_line(radical: str, ideograph: str) -> None:
    out, counts = clean_text(f"15216综采{radical}作面 {radical}")
    assert out == f"15216综采{ideograph}作面 {ideograph}" and counts == {"radical": 2}


def test_removed_code_points_are_counted() -> None:
    raw = "需\x07风\x00量\u200b：\ue123630.0\ufdd0 m³/min\ufeff\r\n下一行\x1f\U000f0001\uffff"
    out, counts = clean_text(raw)
    assert out == "需风量：630.0 m³/min\n下一行"
    assert counts == {"control": 3, "format": 2, "private_use": 2, "noncharacter": 2}
    ascii_out, ascii_counts = clean_text("Q = 4 \x02x 38\tok")
    assert ascii_out == "Q = 4 x 38\tok" and ascii_counts == {"control": 1}


def test_nfkc_except_what_the_display_keeps() -> None:
    out, counts = clean_text("Ⅱ采区 ㎥ ﬁ 﨎 （1）① CH₄ 12 m³/min 25℃：，")
    # compatibility forms folded; full-width ASCII, circled numbers, super/subscripts and ℃ kept
    assert out == "II采区 m3 fi 﨎 （1）① CH₄ 12 m³/min 25℃：，"
    assert not counts


def test_fold_is_the_parsers_one_normalisation() -> None:
    display = "（１）需风量：１，２００ｍ³／ｍｉｎ　≦∆"
    assert fold(display) == "(1)需风量:1,200m³/min ≤Δ" and len(fold(display)) == len(display)
    assert text_primitives.normalize(display) == fold(display)
    assert text_primitives.parse_number("１，２００") == 1200.0


def test_clean_cell_keeps_none() -> None:
    assert clean_cell(None) is None and clean_cell("⼯作\x07面") == "工作面"
