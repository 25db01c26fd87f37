"""Citations of the rule-based interpretation: every 第N条 of every demo tunnel's and device's text is
in the knowledge base and in the ``references`` event, the related provisions list each article once,
and a citation the check removes is a warning of the event."""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo

import httpx
import pytest

from tests.helpers import parse_spec_stream, present
from vent_agent.chat.toolset import record_fact_references, record_text_articles, references_event
from vent_agent.events import EventModel, References
from vent_agent.interpret.cite import NOT_IN_KB, kb_label
from vent_agent.interpret.facts import InterpretationFacts, gather_device_facts, gather_tunnel_facts
from vent_agent.interpret.render import render_interpretation
from vent_agent.kb.citations import CitationRegistry
from vent_agent.kb.numerals import find_article_refs
from vent_agent.kb.regulations import SHIPPED_DIR, load_file
from vent_agent.kb.search import KnowledgeBase, get_knowledge_base
from vent_agent.settings import Settings
from vent_agent.upstream.demo_mine import DemoMine

TZ = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 8, 20, 10, 37, tzinfo=TZ)
MINE = DemoMine(now=lambda: NOW)


def settings(**kw) -> Settings:
    return Settings(_env_file=None, **{"timezone": "Asia/Shanghai", "stale_data_minutes": 30, **kw})


async def _facts(target: str, target_id: str, edition: str) -> InterpretationFacts:
    gather = gather_tunnel_facts if target == "tunnel" else gather_device_facts
    return await gather(MINE, target_id, settings(regulation_edition=edition), NOW)


async def _references(text: str, facts: InterpretationFacts, edition: str) -> References:
    """The references event of a rule-based text, built as the click run builds it."""
    citations = CitationRegistry(get_knowledge_base(None, edition))
    record_fact_references(citations, facts.references)
    record_text_articles(citations, text)
    sent: list[References] = []

    async def emit(ev: EventModel) -> None:
        assert isinstance(ev, References), ev
        sent.append(ev)

    await references_event(emit, text, citations, check_figures=False)
    (ev,) = sent
    return ev


TARGETS = [("tunnel", t) for t in MINE.tunnels] + [("device", d) for d in MINE.devices]


@pytest.mark.parametrize("edition", ["2025", "2016"])
async def test_every_demo_text_cites_only_articles_of_the_kb_and_lists_them(edition: str) -> None:
    kb = get_knowledge_base(None, edition)
    assert len(TARGETS) > 60
    for target, target_id in TARGETS:
        facts = await _facts(target, target_id, edition)
        text = render_interpretation(facts)
        refs = find_article_refs(text)
        for ref in refs:
            for n in ref.numbers:
                assert kb.resolve(n, ref.edition) is not None, (target_id, ref.text)
        ev = await _references(text, facts, edition)
        # nothing removed; reading a 2016 number as the 2025 text's article is an info note
        assert {w.kind for w in ev.warnings} <= {"alias"} and ev.content is None, (target_id, ev.warnings)
        listed = {(r.edition, r.article) for r in ev.references if r.article is not None}
        for ref in refs:
            for n in ref.numbers:
                art = present(kb.resolve(n, ref.edition)).article
                assert (art.edition, art.number) in listed, (target_id, ref.text)
        # each clause quoted once: the event quotes the articles it lists, the text only the others
        related = text.split("### 其他相关规定", 1)[-1] if "### 其他相关规定" in text else ""
        articles = re.findall(r"^- (《煤矿安全规程》[^：]*)：", related, re.M)
        assert len(articles) == len(set(articles)), (target_id, articles)
        assert all(NOT_IN_KB in a for a in articles), (target_id, articles)
        for r in facts.references:
            assert NOT_IN_KB in r.article or f"- {r.article}：" not in text, (target_id, r.article)


@pytest.mark.parametrize("edition", ["2025", "2016"])
async def test_the_2016_provisions_are_cited_by_number_and_quoted(edition: str) -> None:
    """The heat limits (2016版第655条) and the main return's CH₄ limit (2016版第172条), which the
    renumbered text lacks, are cited as the other limits are: with their article number, in the table
    and in the references event with their clause quoted, never as 相关条款（知识库未收录原文）."""
    for target_id, quantity, number, words in [
        ("15222-QY", "temperature", 655, "26℃"),  # heading faces with a temperature sensor
        ("15220-HF", "temperature", 655, "30℃"),
        ("ZHFX", "ch4", 172, "0.75"),  # the main return
    ]:
        facts = await _facts("tunnel", target_id, edition)
        a = next(a for a in facts.assessments if a.quantity == quantity and a.threshold_key)
        label = f"《煤矿安全规程》（2016版）第{number}条"
        assert a.article == a.source == label
        text = render_interpretation(facts)
        assert NOT_IN_KB not in text and f"| {label} |" in text
        ev = await _references(text, facts, edition)
        quoted = next(r for r in ev.references if (r.edition, r.article) == ("2016", number))
        assert words in quoted.excerpt and quoted.label == label
        assert {w.kind for w in ev.warnings} <= {"alias"} and ev.content is None  # nothing removed


def test_a_provision_the_kb_lacks_is_named_without_its_number() -> None:
    """A limit whose article the knowledge base does not hold keeps its figure, its source named without
    the number (here: a knowledge base of the renumbered text alone)."""
    articles = load_file(SHIPPED_DIR / "coal-mine-safety-regulations-ch4-ventilation.txt", "2025")
    kb = KnowledgeBase(articles, edition="2025")
    label = "《煤矿安全规程》（2016版）第655条"
    assert kb_label(label, kb) == f"《煤矿安全规程》（2016版）{NOT_IN_KB}"
    assert kb_label("《煤矿安全规程》（2025版）第157条", kb) == "《煤矿安全规程》（2025版）第157条"


async def test_main_fan_provisions_are_listed_once_each() -> None:
    for device_id in ("FAN-001", "FAN-002"):
        facts = await _facts("device", device_id, "2025")
        labels = [r.article for r in facts.references]
        assert len(labels) == len(set(labels)) and any("第177条" in x for x in labels)
        art177 = next(r for r in facts.references if "第177条" in r.article)
        assert art177.clause.count("备用通风机必须能在10min内开动") == 1


async def test_a_removed_citation_of_a_rule_text_is_a_warning() -> None:
    facts = await _facts("tunnel", "15216", "2025")
    text = render_interpretation(facts) + "\n温度另见《煤矿安全规程》（2016版）第654条。\n"
    ev = await _references(text, facts, "2025")
    assert [w.kind for w in ev.warnings if w.removed] == ["not_in_kb"]
    assert ev.content is not None and "第654条" not in ev.content


async def test_fast_mode_references_event_covers_the_heading_text(client: httpx.AsyncClient) -> None:
    body = {"tun_id": "15222-QY", "tun_name": "15222 切眼掘进工作面", "mode": "fast"}
    events = parse_spec_stream((await client.post("/api/interpret/click/tun", json=body)).text)
    text = "".join(e["content"] for e in events if e["type"] == "token")
    parts = [e for e in events if e["type"] == "references"]  # one event, split in parts on the wire
    assert parts and "需风量取最大值" in text
    assert [w for e in parts for w in e.get("warnings", [])] == []
    listed = {r["article"] for e in parts for r in e.get("references", []) if r.get("article")}
    assert {n for ref in find_article_refs(text) for n in ref.numbers} <= listed
