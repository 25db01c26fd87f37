"""Regulation thresholds as data: 表6 complete, breach semantics, both editions' article numbers."""

from __future__ import annotations

import pytest

from vent_agent.kb.thresholds import ThresholdTable, allowed_text, breach_text
from vent_agent.settings import Settings

# 表6 井巷中的允许风流速度 of 第157条, transcribed from the shipped 2025 text (m/s; None: empty cell).
TABLE6 = [
    ("无提升设备的风井和风硐", None, 15),
    ("专为升降物料的井筒", None, 12),
    ("风桥", None, 10),
    ("升降人员和物料的井筒", None, 8),
    ("总进风巷和总回风巷", None, 8),
    ("架线电机车巷道", 1.0, 8),
    ("箕斗提升井兼作进风的井筒", None, 6),
    ("装有带式输送机兼作回风的井筒", None, 6),
    ("输送机巷，采区进、回风巷", 0.25, 6),
    ("装有带式输送机兼作进风的井筒", None, 4),
    ("采煤工作面、掘进中的煤巷和半煤岩巷", 0.25, 4),
    ("掘进中的岩巷", 0.15, 4),
    ("其他通风人行巷道", 0.15, None),
]

# docs/DOMAIN.md §3: renumbered (2025) article -> 2016/2022 article.
ARTICLE_PAIRS = {
    156: 135,
    157: 136,
    158: 137,
    159: 138,
    161: 140,
    169: 148,
    177: 158,
    178: 159,
    183: 164,
    184: 165,
}
ARTICLE_PAIRS |= {192: 173, 193: 174, 194: 175, 197: 176}
SHIPPED_2025_ARTICLES = set(range(156, 188)) | {192, 193, 194, 197}


@pytest.fixture(scope="module")
def t2025() -> ThresholdTable:
    return ThresholdTable.load("2025")


@pytest.fixture(scope="module")
def t2016() -> ThresholdTable:
    return ThresholdTable.load("2016")


def test_table6_rows_exactly_as_printed(t2025: ThresholdTable) -> None:
    assert t2025.wind_speed_rows() == TABLE6


@pytest.mark.parametrize(
    ("cls", "lo", "hi"),
    [
        ("采区进风巷", 0.25, 6),
        ("采区回风巷", 0.25, 6),
        ("输送机巷", 0.25, 6),
        ("district_roadway", 0.25, 6),
        ("总进风巷", None, 8),
        ("总回风巷", None, 8),
        ("风硐", None, 15),
        ("采煤工作面", 0.25, 4),
        ("掘进中的煤巷", 0.25, 4),
        ("掘进中的半煤岩巷", 0.25, 4),
        ("掘进中的岩巷", 0.15, 4),
        ("其他通风人行巷道", 0.15, None),
        ("综采工作面（采取降尘措施）", 0.25, 5),
        ("无瓦斯涌出的架线电机车巷道", 0.5, 8),
        ("设有梯子间的井筒", None, 8),
    ],
)
def test_wind_speed_limits_by_class(
    t2025: ThresholdTable, cls: str, lo: float | None, hi: float | None
) -> None:
    lower, upper = t2025.wind_speed_limits(cls)
    assert (lower.limit if lower else None, upper.limit if upper else None) == (lo, hi)
    for t in (lower, upper):
        if t:
            assert t.article == 157 and t.unit == "m/s"
    assert lower is None or lower.breach_op == "<"
    assert upper is None or upper.breach_op == ">"


def test_unknown_roadway_class(t2025: ThresholdTable) -> None:
    with pytest.raises(KeyError):
        t2025.wind_speed_limits("不存在的巷道")


def test_breach_semantics(t2025: ThresholdTable) -> None:
    ch4 = t2025.get("ch4_return_stop")  # 第192条 “达到1.0%”
    assert (ch4.breach_op, ch4.limit, ch4.article) == (">=", 1.0, 192)
    assert ch4.breached(1.0) and not ch4.breached(0.99)
    assert ch4.warned(0.85) and not ch4.warned(1.0) and not ch4.warned(0.5)
    wmin, wmax = t2025.wind_speed_limits("采区进风巷")
    assert wmin is not None and wmax is not None
    assert not wmin.breached(0.25) and wmin.breached(0.249)
    assert not wmax.breached(6.0) and wmax.breached(6.01)
    co = t2025.get("co_max")  # 最高允许浓度 0.0024 % = 24 ppm
    assert (co.limit, co.unit, co.breach_op) == (24, "ppm", ">")
    assert not co.breached(24) and co.breached(24.5)
    o2 = t2025.get("o2_face_intake")  # 不低于20%
    assert not o2.breached(20.0) and o2.breached(19.9)
    intake = t2025.get("intake_shaft_temp")  # 2℃以上 (includes 2)
    assert not intake.breached(2.0) and intake.breached(1.9)
    restart = t2025.get("ch4_restart_zone")  # 第197条 “不超过1.0%”
    assert not restart.breached(1.0) and restart.breached(1.01)
    per_kw = t2025.get("air_per_kw")  # 第159条 每千瓦不小于4m³/min
    assert (per_kw.limit, per_kw.breach_op, per_kw.article) == (4, "<", 159)
    assert t2025.get("air_per_person").limit == 4
    assert t2025.get("series_ch4").limit == 0.5 and t2025.get("series_ch4").article == 169
    assert allowed_text(">=", 1.0, "%") == "< 1.0 %" and breach_text(">=", 1.0, "%") == "≥ 1.0 %"


def test_gas_lookup_by_location_class(t2025: ThresholdTable) -> None:
    face = t2025.lookup("ch4", "采掘工作面")
    assert [(t.limit, t.article) for t in face] == [(1.0, 193), (1.5, 193)]
    assert [t.article for t in t2025.lookup("ch4", "采掘工作面回风巷")] == [192]
    assert [t.limit for t in t2025.lookup("co2", "采掘工作面")] == [1.5]
    assert t2025.lookup("ch4", "总回风巷")[0].limit == 0.75


def test_every_threshold_well_formed(t2025: ThresholdTable) -> None:
    keys = [t.key for t in t2025.thresholds]
    assert len(keys) == len(set(keys))
    for t in t2025.thresholds:
        assert t.breach_op in (">=", ">", "<=", "<")
        assert t.action and t.applies_to and t.edition == "2025"
        # every number cited in the default edition is an article of the shipped text
        assert t.article is None or t.article in SHIPPED_2025_ARTICLES, t.key
        if t.warn_at is not None:  # the warning value lies on the allowed side
            assert not t.breached(t.warn_at), t.key


def test_article_labels(t2025: ThresholdTable) -> None:
    assert t2025.article_label(157) == "《煤矿安全规程》（2025版）第157条"
    assert t2025.get("wind_speed.min.district_roadway").article_label() == "《煤矿安全规程》（2025版）第157条"
    heat = t2025.get("chamber_heat_stop")  # 2016 art. 655, no number in the 2025 text
    assert heat.article is None and heat.article_aliases == (655,) and heat.alias_edition == "2016"
    assert heat.article_label() == "《煤矿安全规程》（2016版）第655条"
    assert {t.limit for t in t2025.lookup("temperature", "机电设备硐室")} == {30, 34}
    assert {t.limit for t in t2025.lookup("temperature", "采掘工作面")} == {26, 30}
    main_return = t2025.get("ch4_main_return_cause")
    assert (main_return.article, main_return.article_label()) == (None, "《煤矿安全规程》（2016版）第172条")


def test_edition_2016_same_limits_own_numbers(t2025: ThresholdTable, t2016: ThresholdTable) -> None:
    assert [t.key for t in t2016.thresholds] == [t.key for t in t2025.thresholds]
    same = ("quantity", "applies_to", "limit", "unit", "breach_op", "warn_at", "action", "severity")
    for new, old in zip(t2025.thresholds, t2016.thresholds, strict=True):
        assert {f: getattr(new, f) for f in same} == {f: getattr(old, f) for f in same}
        assert old.edition == "2016"
        if new.article is not None:
            assert old.article == ARTICLE_PAIRS[new.article], new.key
            assert old.article_aliases == (new.article,) and new.article_aliases == (old.article,)
    assert t2016.get("ch4_return_stop").article_label() == "《煤矿安全规程》（2016版）第173条"
    assert t2016.get("wind_speed.max.main_intake_return").article == 136
    assert t2016.get("face_heat_stop").article == 655
    assert t2016.get("ch4_main_return_cause").article == 172


def test_aliases_resolve_both_ways(t2025: ThresholdTable, t2016: ThresholdTable) -> None:
    assert t2025.resolve_article(136) == 157 and t2025.resolve_article(157) == 157
    assert t2016.resolve_article(192) == 173 and t2016.resolve_article(173) == 173
    assert t2025.resolve_article(999) is None


def test_editions_and_default() -> None:
    assert ThresholdTable.editions() == ["2025", "2016"]
    assert ThresholdTable.load().edition == Settings(_env_file=None).regulation_edition == "2025"
    assert ThresholdTable.load("2016") is ThresholdTable.load("2016")  # cached
    with pytest.raises(ValueError, match="unknown regulation edition"):
        ThresholdTable.load("1999")


def test_edition_2022_is_the_2016_numbering() -> None:
    assert ThresholdTable.load("2022") is ThresholdTable.load("2016")
    assert ThresholdTable.load("2022").get("wind_speed.max.coal_face_heading").article == 136


def test_alias_table_is_domain_section_3() -> None:
    from vent_agent.kb.aliases import ArticleAliases

    aliases = ArticleAliases.load()
    assert aliases.pairs[("2025", "2016")] == ARTICLE_PAIRS | {182: 163}
    assert aliases.map(157, "2025", "2016") == 136 and aliases.map(136, "2016", "2025") == 157
    assert aliases.map(160, "2025", "2016") is None  # no pair known: none guessed
    assert aliases.aliases_of(192, "2025") == {"2016": 173} and aliases.aliases_of(160, "2025") == {}
    assert [aliases.edition(x) for x in ("2016版", "2022年修订", "2022", "2025年版", None, "新版")] == [
        "2016",
        "2016",
        "2016",
        "2025",
        None,
        None,
    ]
    assert aliases.editions == ["2025", "2016"] and aliases.default_edition == "2025"
