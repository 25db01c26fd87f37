"""Retrieval: every row of the wind-speed table (表6, 第157条) by a natural question and by its article
number; look-up in every written form; 2016/2022 numbers as aliases; the index built once."""

from __future__ import annotations

from pathlib import Path

import pytest

from vent_agent.kb import search as search_module
from vent_agent.kb.search import KnowledgeBase, clear_cache, get_knowledge_base
from vent_agent.kb.thresholds import ThresholdTable

# 表6 row label → a question an engineer would ask about it (none repeats the label verbatim where a
# shorter everyday name exists).
ROW_QUESTIONS = {
    "无提升设备的风井和风硐": "风硐的最高允许风速是多少",
    "专为升降物料的井筒": "专门升降物料的井筒最高风速",
    "风桥": "风桥最高允许风速是多少",
    "升降人员和物料的井筒": "升降人员和物料的井筒允许风速",
    "总进风巷和总回风巷": "总回风巷最高允许风速是多少",
    "架线电机车巷道": "架线电机车巷道最低风速是多少",
    "箕斗提升井兼作进风的井筒": "箕斗提升井兼作进风井时最高风速",
    "装有带式输送机兼作回风的井筒": "装有带式输送机的井筒兼作回风井的最高风速",
    "输送机巷，采区进、回风巷": "采区进风巷最低允许风速是多少",
    "装有带式输送机兼作进风的井筒": "带式输送机井筒兼作进风时最高允许风速",
    "采煤工作面、掘进中的煤巷和半煤岩巷": "采煤工作面最高允许风速是多少",
    "掘进中的岩巷": "岩巷掘进工作面最低风速",
    "其他通风人行巷道": "其他通风人行巷道最低风速是多少",
}
TABLE6 = ThresholdTable.load("2025").wind_speed_rows()

# docs/DOMAIN.md §3: renumbered (2025) article -> 2016/2022 article
ALIASES = {
    156: 135,
    157: 136,
    158: 137,
    159: 138,
    161: 140,
    169: 148,
    177: 158,
    178: 159,
    182: 163,
    183: 164,
    184: 165,
    192: 173,
    193: 174,
    194: 175,
    197: 176,
}


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return get_knowledge_base()


def _row_line(row: str, lo: float | None, hi: float | None) -> str:
    """The row as the knowledge base writes it (cells as printed: ``1.0``, ``0.25``, ``6``)."""

    def cell(x: float | None) -> str:
        return "—" if x is None else ("1.0" if x == 1.0 else f"{x:g}") + " m/s"

    return f"表6 井巷中的允许风流速度：{row}，最低允许风速 {cell(lo)}，最高允许风速 {cell(hi)}。"


def test_every_table6_row_has_a_question() -> None:
    assert set(ROW_QUESTIONS) == {row for row, _, _ in TABLE6}


@pytest.mark.parametrize(("row", "lo", "hi"), TABLE6, ids=[r for r, _, _ in TABLE6])
def test_row_found_by_natural_question(
    kb: KnowledgeBase, row: str, lo: float | None, hi: float | None
) -> None:
    best = kb.search(ROW_QUESTIONS[row], k=3)[0]
    assert (best.article, best.edition, best.match, best.table_row) == (157, "2025", "bm25", row)
    assert best.label == "《煤矿安全规程》（2025版）第157条" and best.chapter == "第四章 通风"
    assert best.aliases == {"2016": 136} and best.score and best.score > 0
    assert any(line.startswith(_row_line(row, lo, hi)) for line in best.excerpt.split("\n"))


@pytest.mark.parametrize(("row", "lo", "hi"), TABLE6, ids=[r for r, _, _ in TABLE6])
@pytest.mark.parametrize("number", ["第157条", "第一百五十七条", "157条", "article 157", "2016版第136条"])
def test_row_found_by_article_number(
    kb: KnowledgeBase, number: str, row: str, lo: float | None, hi: float | None
) -> None:
    best = kb.search(f"{number} {row}", k=3)[0]
    assert (best.article, best.match, best.table_row) == (157, "number", row)
    assert _row_line(row, lo, hi) in best.excerpt
    whole = kb.search(number, k=3)
    assert [c.article for c in whole] == [157] and row in whole[0].excerpt  # the whole article, every row


@pytest.mark.parametrize(
    "query", ["第一百五十七条", "第157条", "157条", "article 157", "Art. 157", "第１５７条"]
)
def test_lookup_forms(kb: KnowledgeBase, query: str) -> None:
    (c,) = kb.search(query)
    assert (c.article, c.edition, c.match, c.score, c.note) == (157, "2025", "number", None, None)
    assert c.excerpt.startswith("第一百五十七条 井巷中的风流速度应当符合表6要求。")


@pytest.mark.parametrize(("new", "old"), sorted(ALIASES.items()))
def test_2016_numbers_are_aliases(kb: KnowledgeBase, new: int, old: int) -> None:
    for query in (f"2016版第{old}条", f"《煤矿安全规程》（2022年修订）第{old}条"):
        (c,) = kb.search(query)
        assert c.article == new and c.note == f"2016版第{old}条即2025版第{new}条"
        assert c.aliases == {"2016": old}
    (c,) = kb.search(f"第{old}条", edition="2016")
    assert c.article == new
    if old not in kb.aliases.pairs[("2025", "2016")] and kb.article(old) is None:
        (c,) = kb.search(f"第{old}条")  # not an article of the edition in force: read as 2016's number
        assert c.article == new and c.note == f"2016版第{old}条即2025版第{new}条"


def test_edition_in_force_wins(kb: KnowledgeBase) -> None:
    assert [c.article for c in kb.search("第158条")] == [158]  # 2025's 158: intake temperature
    assert [c.article for c in kb.search("2016版第158条")] == [177]  # 2016's 158: main fans
    assert kb.search("第999条") == [] and kb.search("2016版第157条") == []  # no such article in the KB
    resolved = kb.resolve(136)
    assert kb.lookup(999) is None and resolved is not None and resolved.article.number == 157


def test_edition_2016_in_force_without_its_text() -> None:
    articles = get_knowledge_base().articles
    kb16 = KnowledgeBase(articles, edition="2022")
    assert kb16.edition == "2016"
    aliased, own = kb16.lookup(136), kb16.lookup(157)
    assert aliased is not None and (aliased.article, aliased.note) == (157, "2016版第136条即2025版第157条")
    assert own is not None and own.note == "第157条按2025版条号理解"
    assert kb16.search("采煤工作面最高允许风速是多少")[0].article == 157


@pytest.mark.parametrize(
    ("query", "article"),
    [
        ("每人每分钟供风量", 159),
        ("局扇距回风口距离", 183),
        ("反风演习", 178),
        ("CO最高允许浓度", 156),
        ("串联通风次数", 169),
        ("主要通风机备用多长时间开动", 177),
        ("采空区封闭", 173),
        ("测风周期", 161),
        ("爆炸物品库风量", 185),
        ("充电硐室氢气浓度", 186),
        ("通风阻力测定多久一次", 175),
        ("下行通风风速", 171),
        ("进风井口以下空气温度", 158),
        ("综采工作面最大风速", 157),
    ],
)
def test_questions_find_their_article(kb: KnowledgeBase, query: str, article: int) -> None:
    assert kb.search(query, k=3)[0].article == article


def test_item_excerpt_keeps_its_lead(kb: KnowledgeBase) -> None:
    c = kb.search("下行通风采煤工作面风速", k=1)[0]
    assert c.article == 171 and c.excerpt.startswith(
        "第一百七十一条 煤层倾角大于8°的采煤工作面采用下行通风时"
    )
    assert "（一）采煤工作面风速不得低于1m/s。" in c.excerpt


def test_number_with_words_and_bm25_mixed(kb: KnowledgeBase) -> None:
    out = kb.search("第192条 二氧化碳浓度达到1.5%", k=3)
    assert out[0].article == 192 and out[0].match == "number"
    assert all(c.match == "bm25" for c in out[1:]) and len({c.article for c in out}) == len(out)


def test_nothing_found_and_bad_k(kb: KnowledgeBase) -> None:
    assert kb.search("？？？") == [] and kb.search("zzzz qqqq") == []
    with pytest.raises(ValueError):
        kb.search("风速", k=0)


def test_index_built_once_and_cached(kb: KnowledgeBase) -> None:
    assert get_knowledge_base() is get_knowledge_base()
    assert kb.index() is kb.index()
    assert get_knowledge_base(edition="2016") is not get_knowledge_base()


def test_a_repeated_search_is_remembered_and_gives_independent_copies(
    kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = kb.search("第157条 采煤工作面 最高允许风速", k=2)
    monkeypatch.setattr(search_module, "tokens", lambda _text: pytest.fail("searched again"))
    again = kb.search("第157条 采煤工作面 最高允许风速", k=2)
    assert again == first and again[0] is not first[0]
    first[0].excerpt = "changed by one caller"
    first[0].aliases.clear()
    assert kb.search("第157条 采煤工作面 最高允许风速", k=2) == again  # not by another's copy
    with pytest.raises(pytest.fail.Exception):
        kb.search("第157条 采煤工作面 最高允许风速", k=3)  # other arguments: another search


def test_kb_dir_text_of_another_edition(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text(
        "---\nedition: 2016\n---\n第136条 井巷中的风流速度应当符合规定（2016版测试文本）。\n",
        encoding="utf-8",
    )
    kb = get_knowledge_base(tmp_path)
    assert kb.text_editions == ["2025", "2016"] and kb.problems == []
    own = kb.lookup(136, "2016")  # the 2016 text itself, no alias
    assert own is not None and (own.article, own.edition, own.note) == (136, "2016", None)
    in_force = kb.lookup(136)  # in force 2025: 136 is read as 2016's number
    assert in_force is not None and in_force.article == 157
    assert get_knowledge_base(tmp_path) is kb
    assert kb.search("2016版测试文本", k=1, edition="2016")[0].edition == "2016"


def test_clear_cache() -> None:
    before = get_knowledge_base()
    clear_cache()
    assert get_knowledge_base() is not before


def test_table_row_clause(kb: KnowledgeBase) -> None:
    """The clause an interpretation cites for a roadway's wind-speed limits: one row of 表6."""
    for row, lo, hi in TABLE6:
        c = kb.table_row(157, row)
        assert c is not None
        assert (c.article, c.table_row) == (157, row) and c.excerpt.startswith(_row_line(row, lo, hi))
    old_row = kb.table_row(136, "采区进", edition="2016")
    assert old_row is not None and old_row.table_row == "输送机巷，采区进、回风巷"
    assert kb.table_row(157, "不存在的巷道") is None and kb.table_row(999, "风桥") is None
