"""The regulation corpus: articles, numbers in every form, page-break repair, tables, extra files."""

from __future__ import annotations

from pathlib import Path

import pytest

from vent_agent.kb.numerals import article_heading, cn_to_int, find_article_refs, int_to_cn
from vent_agent.kb.regulation_tables import normalise_unit, split_unit
from vent_agent.kb.regulations import (
    SHIPPED_DIR,
    Article,
    KBError,
    load_corpus,
    parse_text,
    repair_paragraphs,
)
from vent_agent.kb.search import KnowledgeBase
from vent_agent.kb.thresholds import ThresholdTable

SHIPPED_ARTICLES = set(range(156, 188)) | {192, 193, 194, 197}


@pytest.fixture(scope="module")
def corpus() -> dict[int, Article]:
    """The renumbered text's articles (the shipped 2016 excerpts apart: test_the_2016_excerpts)."""
    articles, problems = load_corpus()
    assert problems == []
    return {a.number: a for a in articles if not a.excerpt}


# -- numbers --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "n"),
    [
        ("一百五十七", 157),
        ("十", 10),
        ("十二", 12),
        ("二十", 20),
        ("一百零五", 105),
        ("一百一十", 110),
        ("六百五十五", 655),
        ("一千零一", 1001),
        ("一五七", 157),
        ("１５７", 157),
        ("157", 157),
    ],
)
def test_cn_to_int(text: str, n: int) -> None:
    assert cn_to_int(text) == n


def test_int_to_cn_round_trip() -> None:
    for n in range(1, 1200):
        assert cn_to_int(int_to_cn(n)) == n
    assert article_heading(157) == "第一百五十七条" and int_to_cn(110) == "一百一十"
    with pytest.raises(ValueError):
        cn_to_int("一百X")


@pytest.mark.parametrize(
    ("text", "numbers", "edition"),
    [
        ("依据第一百五十七条规定", (157,), None),
        ("第157条", (157,), None),
        ("按2016版第136条执行", (136,), "2016"),
        ("《煤矿安全规程》（2022年修订）第一百三十六条", (136,), "2022"),
        ("第177–178条", (177, 178), None),
        ("第192、193条", (192, 193), None),
        ("第一百九十二条、第一百九十三条和第一百九十四条的规定", (192, 193, 194), None),
    ],
)
def test_find_article_refs(text: str, numbers: tuple[int, ...], edition: str | None) -> None:
    (ref,) = find_article_refs(text)
    assert ref.numbers == numbers and ref.edition == edition
    assert text[ref.start : ref.end] == ref.text


def test_find_article_refs_other_forms() -> None:
    assert find_article_refs("第2次测风；第四章") == []
    assert [r.numbers for r in find_article_refs("136条和article 157", bare=True, english=True)] == [
        (136,),
        (157,),
    ]
    assert find_article_refs("136条") == []  # bare numbers only when asked for


# -- the shipped text -----------------------------------------------------------------------------------


def test_shipped_corpus_articles(corpus: dict[int, Article]) -> None:
    assert set(corpus) == SHIPPED_ARTICLES
    for n, a in corpus.items():
        assert a.edition == "2025" and a.chapter == "第四章 通风" and a.heading == article_heading(n)
        assert a.label == f"《煤矿安全规程》（2025版）第{n}条"
        assert a.text.startswith(a.heading) and a.source.endswith(".txt")
    assert (SHIPPED_DIR / "SOURCE.md").is_file()


def test_the_2016_excerpts_quote_the_thresholds_clauses() -> None:
    """The shipped excerpts of the 2016 edition hold the articles its thresholds cite that the renumbered
    text lacks, each with the clauses those thresholds quote (SOURCE.md), and give that edition no text."""
    articles, _ = load_corpus()
    excerpts = {a.number: a for a in articles if a.excerpt}
    assert all(
        a.edition == "2016" and a.label == f"《煤矿安全规程》（2016版）第{n}条" for n, a in excerpts.items()
    )
    table = ThresholdTable.load("2025")
    cited = {t.article_aliases[0] for t in table.thresholds if t.article is None and t.article_aliases}
    assert cited and cited == set(excerpts)
    for t in table.thresholds:
        if t.article is None and t.article_aliases:
            assert t.clause in excerpts[t.article_aliases[0]].text, t.key
    kb = KnowledgeBase(articles)
    assert "2016" not in kb.text_editions


@pytest.mark.parametrize(
    ("n", "sentence"),
    [
        (159, "每人每分钟供给风量不得少于4m³。"),
        (166, "井上下装、卸载装置和井塔（架）必须有防尘和封闭措施。"),
        (168, "严禁一段为进风巷、一段为回风巷。"),
        (172, "采煤工作面必须采用矿井全风压通风，严禁采用局部通风机稀释回风隅角瓦斯。"),
        (179, "轴承温度计等仪表，还必须有直通矿调度室的电话"),
        (183, "距掘进巷道回风口不得小于10m；"),
        (183, "该局部通风机通风范围内应当停止工作"),
        (186, "回风风流应当直接引入总回风巷或者采（盘）区回风巷。"),
        (164, "影响区域由煤矿总工程师组织确定。"),
    ],
)
def test_page_breaks_repaired(corpus: dict[int, Article], n: int, sentence: str) -> None:
    assert any(sentence in p for p in corpus[n].paragraphs)


def test_every_paragraph_is_whole(corpus: dict[int, Article]) -> None:
    for a in corpus.values():
        for p in a.paragraphs:
            assert "\n" not in p and p.endswith(("。", "；", "：")), (a.number, p)
            assert not p.endswith("。%"), p
    assert "H2S" in corpus[156].text and "0.5％，" in corpus[167].text


def test_table6_as_rows_matches_threshold_data(corpus: dict[int, Article]) -> None:
    (table,) = corpus[157].tables
    assert (table.label, table.title, table.columns, table.group) == (
        "表6",
        "井巷中的允许风流速度",
        ["井巷名称", "最低", "最高"],
        "允许风速",
    )
    assert table.units == [None, "m/s", "m/s"]
    rows = [(r[0], table.value(i, 1), table.value(i, 2)) for i, r in enumerate(table.rows)]
    # the thresholds data is keyed from 表6 itself (docs/DOMAIN.md §3): both read the same rows
    assert rows == ThresholdTable.load("2025").wind_speed_rows()
    assert table.row_notes == {12: "安设风门的联络巷在符合本规程第一百五十六条规定的前提下不受最低风速限制。"}
    assert "采煤工作面、掘进中的煤巷和半煤岩巷，最低允许风速 0.25 m/s，最高允许风速 4 m/s" in table.row_text(
        10
    )
    assert "最低允许风速 —，最高允许风速 15 m/s" in table.row_text(0)


def test_table5_gas_limits(corpus: dict[int, Article]) -> None:
    (table,) = corpus[156].tables
    assert table.columns == ["名称", "最高允许浓度"] and table.units == [None, "%"]
    assert [(r[0], table.value(i, 1)) for i, r in enumerate(table.rows)] == [
        ("一氧化碳CO", 0.0024),
        ("氧化氮（换算成NO2）", 0.00025),
        ("二氧化硫SO2", 0.0005),
        ("硫化氢H2S", 0.00066),
        ("氨NH3", 0.004),
    ]
    assert corpus[156].paragraphs[-1].startswith("甲烷、二氧化碳和氢气的允许浓度")


def test_threshold_articles_and_limits_are_in_the_text(corpus: dict[int, Article]) -> None:
    """Every threshold of the default edition cites an article of the shipped text that states its limit."""
    table = ThresholdTable.load("2025")
    worded = {"survey_interval": "每旬", "aux_fan_running": "不得无计划停风"}  # limits written in words
    for t in table.thresholds:
        if t.article is None:
            continue
        if t.key in worded:
            assert worded[t.key] in corpus[t.article].text
            continue
        text = corpus[t.article].text.replace("％", "%")
        limit = f"{t.limit:g}"
        if t.unit == "ppm":  # 表5 is in volume percent
            limit = f"{t.limit / 10000:g}"
        assert limit in text, (t.key, limit)


@pytest.mark.parametrize(
    ("unit", "norm"), [("m.s-9", "m/s"), ("m·s-1", "m/s"), ("m/s", "m/s"), ("m3/min", "m³/min"), ("％", "%")]
)
def test_units(unit: str, norm: str) -> None:
    assert normalise_unit(unit) == norm


def test_split_unit() -> None:
    assert split_unit("允许风速/（m.s-9）") == ("允许风速", "m/s")
    assert split_unit("最高允许浓度/%") == ("最高允许浓度", "%")
    assert split_unit("井巷名称") == ("井巷名称", None)


# -- other layouts ----------------------------------------------------------------------------------------


def test_repair_paragraphs() -> None:
    lines = ["（一）按照人数计算，每人每分钟供给风", "", "量不得少于4m³。", "", "（二）下一项。", "结束。%"]
    assert repair_paragraphs(lines) == [
        "（一）按照人数计算，每人每分钟供给风量不得少于4m³。",
        "（二）下一项。",
        "结束。",
    ]
    # an item, an article or a table starts a new paragraph even after an unfinished line
    assert repair_paragraphs(["标题", "", "1.第一项。"]) == ["标题", "1.第一项。"]


SYNTHETIC = """---
edition: 2016
title: 《煤矿安全规程》
---
第四章 通风
第一节 通风一般规定
第135条 井下空气成分应当符合下列要求：
（一）氧气浓度不低于20％。
第136条 井巷中的风流速度应当符合表1要求。
表1   允许风速
井巷名称
最高风速/（m·s-1）
风桥
10
其他巷道
8
注意超限时及时调整风量并报告，本段为说明文字。
设有梯子间的井筒，风速不得超过8m/s，并应符合本规程
第135条规定的前提条件。
第二节 局部通风
第一百六十四条 局部通风机必须由指定人员负责管理。
"""


def test_synthetic_layout() -> None:
    arts = {a.number: a for a in parse_text(SYNTHETIC.split("---\n", 2)[2], edition="2016", source="x.txt")}
    assert set(arts) == {135, 136, 164}
    assert arts[136].heading == "第一百三十六条" and arts[136].section == "第一节 通风一般规定"
    assert arts[164].section == "第二节 局部通风" and arts[164].chapter == "第四章 通风"
    (t,) = arts[136].tables
    assert t.columns == ["井巷名称", "最高风速"] and t.units == [None, "m/s"]
    assert t.rows == [["风桥", "10"], ["其他巷道", "8"]]
    # a cross-reference cut by a page break is text, not a new article
    assert "并应符合本规程第135条规定的前提条件。" in arts[136].paragraphs[-1]


def test_kb_dir_files(tmp_path: Path) -> None:
    (tmp_path / "regs-2016.txt").write_text(SYNTHETIC, encoding="utf-8")
    (tmp_path / "empty.txt").write_text("只有文字，没有条文。\n", encoding="utf-8")
    (tmp_path / "override.txt").write_text("第一百五十八条 替换后的条文。\n", encoding="utf-8")
    articles, problems = load_corpus(tmp_path, "2025")
    keys = {(a.edition, a.number) for a in articles}
    assert {("2016", 135), ("2016", 136), ("2016", 164)} <= keys
    assert len(problems) == 1 and "empty.txt" in problems[0]
    replaced = next(a for a in articles if a.key == ("2025", 158))
    assert replaced.paragraphs == ["替换后的条文。"] and replaced.source == "override.txt"
    with pytest.raises(KBError):
        parse_text("没有条文", edition="2025")


def test_edition_names_in_files_are_normalised(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("---\nedition: 2022年修订版\n---\n第136条 测试条文。\n", encoding="utf-8")
    (tmp_path / "b.txt").write_text("第一百三十七条 没有写版本的文件。\n", encoding="utf-8")
    articles, _ = load_corpus(tmp_path, "2022", shipped=False)
    assert sorted((a.edition, a.number) for a in articles) == [("2016", 136), ("2016", 137)]
