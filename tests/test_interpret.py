"""Deterministic interpretation: facts of tunnels and devices with a fixed clock, staleness, breaches with
the right article, the rendered Markdown and the model prompt."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from tests.helpers import present
from vent_agent.interpret.assess import assess
from vent_agent.interpret.facts import (
    InterpretationFacts,
    device_anomalies,
    device_assessments,
    gather_device_facts,
    gather_tunnel_facts,
)
from vent_agent.interpret.facts_cache import FactsCache
from vent_agent.interpret.prompt import build_messages
from vent_agent.interpret.render import chunk_text, render_interpretation
from vent_agent.kb.thresholds import ThresholdTable
from vent_agent.settings import Settings
from vent_agent.upstream.demo_mine import DemoMine
from vent_agent.upstream.models import NotFoundError, Reading, reading_text

TZ = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 8, 20, 10, 37, tzinfo=TZ)
ART = "《煤矿安全规程》（2025版）第{}条"


def settings(**kw) -> Settings:
    return Settings(_env_file=None, **{"timezone": "Asia/Shanghai", "stale_data_minutes": 30, **kw})


@pytest.fixture
def mine() -> DemoMine:
    return DemoMine(now=lambda: NOW)


def by(facts: InterpretationFacts, quantity: str, device_id: str | None = None):
    return next(
        a
        for a in facts.assessments
        if a.quantity == quantity and (device_id is None or a.device_id == device_id)
    )


async def test_tunnel_15216_facts(mine: DemoMine) -> None:
    f = await gather_tunnel_facts(mine, "15216", settings(), NOW)
    assert (f.target, f.target_id, f.name, f.edition) == ("tunnel", "15216", "15216 辅运起坡段", "2025")
    assert f.data_time == NOW and not f.stale and f.age_minutes == 0
    ws = by(f, "wind_speed")
    assert ws.value == pytest.approx(0.95, abs=0.08) and ws.status == "ok"
    assert (ws.limit_text, ws.article) == ("0.25–6 m/s", ART.format(157))
    q = by(f, "measured_q")
    assert q.value == pytest.approx(60 * ws.value * 12.4, abs=0.1)
    assert (q.limit, q.breach_op, q.article, q.status) == (560, "<", ART.format(159), "ok")
    assert "Q = 60 × v × S" in q.basis and "140 kW" in q.basis
    assert by(f, "co").article == ART.format(156) and by(f, "ch4").article == ART.format(193)
    assert by(f, "temperature").limit is None  # an intake roadway has no temperature limit
    [co] = f.anomalies  # the CO spike of the last 24 h
    assert (co.device_id, co.status, co.article, co.ongoing) == ("CO-15216", "breach", ART.format(156), False)
    assert co.value > 24 and NOW - timedelta(hours=24) < co.start < co.end < NOW
    assert f.status == "ok"


async def test_fan_001_facts(mine: DemoMine) -> None:
    f = await gather_device_facts(mine, "FAN-001", settings(), NOW)
    assert (f.target, f.name, f.kind_label, present(f.device).state) == (
        "device",
        "1号主通风机",
        "主要通风机",
        "运行",
    )
    quantities = {a.quantity for a in f.assessments}
    assert quantities == {
        "running",
        "air_volume",
        "negative_pressure",
        "motor_current",
        "power",
        "bearing_temp",
        "vibration",
    }
    assert all(a.status == "ok" for a in f.assessments)
    running = by(f, "running")
    assert (running.value_text, running.article) == ("运行", ART.format(177))
    air = by(f, "air_volume")
    assert air.source == "设备报警限值" and air.limit_text == "≥ 5800 m³/min" and "额定 7800" in air.basis
    assert by(f, "negative_pressure").limit_text == "1800–3400 Pa"
    [bearing] = f.anomalies
    assert (bearing.quantity, bearing.status, bearing.limit, bearing.ongoing) == (
        "bearing_temp",
        "breach",
        85,
        False,
    )
    assert bearing.value > 85 and bearing.source == "设备报警限值"
    assert {ART.format(177), ART.format(178)} <= {r.article for r in f.references}


async def test_standby_fan_is_judged_by_its_state_only(mine: DemoMine) -> None:
    f = await gather_device_facts(mine, "FAN-002", settings(), NOW)
    [state] = f.assessments
    assert (state.value_text, state.status, state.article) == ("备用", "ok", None)
    assert f.anomalies == [] and any("备用" in n for n in f.notes)


async def test_stale_data(mine: DemoMine) -> None:
    later = NOW + timedelta(hours=2)
    f = await gather_tunnel_facts(mine, "15216", settings(), later)
    assert f.stale and f.age_minutes == 120 and f.data_time == NOW
    assert "数据已过时" in render_interpretation(f)
    fresh = await gather_tunnel_facts(mine, "15216", settings(stale_data_minutes=180), later)
    assert not fresh.stale and "数据已过时" not in render_interpretation(fresh)
    naive = await gather_device_facts(mine, "FAN-001", settings(), later.replace(tzinfo=None))
    assert naive.stale and naive.now == later  # a naive time is mine time


async def test_ch4_breach_in_heading_return_cites_192(mine: DemoMine) -> None:
    f = await gather_tunnel_facts(mine, "15220-HF", settings(), NOW)
    t2 = by(f, "ch4", "CH4-15220-HF-T2")
    assert t2.status == "breach" and t2.value >= 1.0
    assert (t2.limit, t2.breach_op, t2.article, t2.severity) == (1.0, ">=", ART.format(192), "critical")
    assert "撤出人员" in t2.action
    t1 = by(f, "ch4", "CH4-15220-HF-T1")
    assert (t1.status, t1.article) == ("warning", ART.format(193))
    assert f.status == "breach"
    ongoing = [a for a in f.anomalies if a.ongoing and a.status == "breach"]
    assert [(a.device_id, a.article) for a in ongoing] == [("CH4-15220-HF-T2", ART.format(192))]
    assert any(a.active for a in f.alarms)
    old = await gather_tunnel_facts(mine, "15220-HF", settings(regulation_edition="2016"), NOW)
    assert by(old, "ch4", "CH4-15220-HF-T2").article == "《煤矿安全规程》（2016版）第173条"
    assert old.edition_label == "《煤矿安全规程》（2016版）"


@pytest.mark.parametrize(
    ("value", "status", "limit", "action"),
    [
        (0.5, "ok", 1.0, ""),
        (0.85, "warning", 1.0, "接近规程限值"),
        (1.0, "breach", 1.0, "停止用电作业"),
        (1.6, "breach", 1.5, "切断电源"),
    ],
)
def test_ch4_at_a_heading_face_cites_193(
    mine: DemoMine, value: float, status: str, limit: float, action: str
) -> None:
    sensor, tunnel = mine.devices["CH4-15220-YS-T1"], mine.tunnels["15220-YS"]
    reading = Reading(device_id=sensor.device_id, time=NOW, values={"ch4": value})
    [a] = device_assessments(sensor, reading, tunnel, ThresholdTable.load())
    assert (a.status, a.limit, a.article) == (status, limit, ART.format(193))
    assert a.warn_at == (0.8 if status == "warning" else None)
    assert action in a.action


async def test_missing_value_is_a_warning(mine: DemoMine) -> None:
    sensor, tunnel = mine.devices["WS-15216"], mine.tunnels["15216"]
    [a] = device_assessments(sensor, None, tunnel, ThresholdTable.load())
    assert (a.status, a.value_text) == ("warning", "无数据")


async def test_only_the_planted_anomalies_in_30_days(mine: DemoMine) -> None:
    table, found = ThresholdTable.load(), set()
    for d in mine.devices.values():
        history = await mine.list_ventanaly_monitor_data_days(d.device_id, days=30)
        since = history[0].time - timedelta(hours=1)
        found |= {
            (a.device_id, a.quantity, a.status)
            for a in device_anomalies(d, history, mine.tunnels[present(d.tun_id)], table, since)
        }
    assert found == {
        ("CH4-15220-HF-T2", "ch4", "breach"),
        ("CH4-15220-HF-T1", "ch4", "warning"),
        ("CO-15216", "co", "breach"),
        ("FAN-001", "bearing_temp", "breach"),
        ("WS-15218-GZM", "wind_speed", "breach"),
    }


async def test_render_contains_values_and_articles(mine: DemoMine) -> None:
    f = await gather_tunnel_facts(mine, "15220-HF", settings(), NOW)
    text = render_interpretation(f)
    assert text.startswith("## 15220 回风顺槽掘进工作面（15220-HF）")
    assert "2026-08-20 10:37（Asia/Shanghai）" in text and "数据已过时" not in text
    for a in f.assessments:
        assert a.value_text in text
    for label in (ART.format(157), ART.format(192), ART.format(193)):
        assert label in text
    # the heat provision (2016 edition only, in the knowledge base's 2016 excerpts): cited by its number
    assert "| 《煤矿安全规程》（2016版）第655条 |" in text and "知识库未收录" not in text
    assert "**超限**" in text and "**预警**" in text and "**正常**" in text
    assert not set("✅⚠❌🔔") & set(text), "status in words, never a glyph that needs an emoji font"
    assert "近24小时异常" in text and "仍在持续" in text and "撤出人员" in text
    assert "规程版本：《煤矿安全规程》（2025版）" in text


async def test_render_device(mine: DemoMine) -> None:
    f = await gather_device_facts(mine, "FAN-001", settings(), NOW)
    text = render_interpretation(f)
    assert "1号主通风机（FAN-001）" in text and "设备报警限值" in text and ART.format(177) in text
    assert by(f, "bearing_temp").value_text in text and "已恢复" in text
    # the rating as the data give it: two 355 kW, 10 kV motors, the rated current per motor
    assert "电机 2 台 × 355 kW（10 kV），每台额定电流 25.5 A，合计功率 710 kW" in text
    assert "额定 25.5 A（每台电机，2 台 × 355 kW，10 kV）" in text


async def test_prompt_carries_the_facts_only(mine: DemoMine) -> None:
    f = await gather_tunnel_facts(mine, "15220-HF", settings(), NOW)
    system, user = build_messages(f)
    assert (system["role"], user["role"]) == ("system", "user")
    assert "只依据" in system["content"] and "不得编造" in system["content"]
    payload = json.loads(present(re.search(r"```json\n(.*)\n```", user["content"], re.S)).group(1))
    assert payload["数据时间"] == "2026-08-20 10:37" and payload["数据过时"] is False
    assert [m["当前值"] for m in payload["监测项"]] == [a.value_text for a in f.assessments]
    allowed = user["content"].split("可引用条款（仅限以下）：")[1].split("事实：")[0]
    assert set(re.findall(r"《煤矿安全规程》（\d+版）第\d+条", allowed)) == set(f.articles())
    assert ART.format(192) in f.articles()


def test_chunk_text() -> None:
    text = "风速 0.95 m/s，符合第157条。" * 5
    pieces = list(chunk_text(text, 7))
    assert "".join(pieces) == text and all(len(p) <= 7 for p in pieces) and len(pieces[0]) == 7
    assert list(chunk_text("", 4)) == []
    with pytest.raises(ValueError):
        list(chunk_text(text, 0))


async def test_unknown_ids_raise_not_found(mine: DemoMine) -> None:
    with pytest.raises(NotFoundError):
        await gather_tunnel_facts(mine, "NOPE", settings(), NOW)
    with pytest.raises(NotFoundError):
        await gather_device_facts(mine, "NOPE", settings(), NOW)


@pytest.mark.parametrize(
    ("target", "target_id"), [("tunnel", "15216"), ("device", "FAN-001"), ("tunnel", "15220-HF")]
)
async def test_cached_facts_are_the_facts_computed_afresh(target: str, target_id: str) -> None:
    """A click whose data reads the same gets the cached facts with its own data-time fields, equal to
    facts computed afresh; other data, another anomaly window or another edition computes again."""
    clock = {"now": NOW}
    mine = DemoMine(now=lambda: clock["now"])
    gather = gather_tunnel_facts if target == "tunnel" else gather_device_facts
    cache = FactsCache()

    async def both(at: datetime, edition: str = "2025") -> tuple[InterpretationFacts, InterpretationFacts]:
        s = settings(regulation_edition=edition)
        return await gather(mine, target_id, s, at, cache=cache), await gather(mine, target_id, s, at)

    cached, fresh = await both(NOW)
    assert (cached, cache.hits, cache.misses) == (fresh, 0, 1)
    # 40 s later, the same data (the snapshot is stamped to the minute of the source's clock)
    cached, fresh = await both(NOW + timedelta(seconds=40))
    assert fresh.age_minutes is not None
    assert cached == fresh and cache.hits == 1 and cached.age_minutes == fresh.age_minutes > 0
    # the clock 3 h on, the source's data unchanged: the anomaly window moved, computed again
    cached, fresh = await both(NOW + timedelta(hours=3))
    assert cached == fresh and (cache.hits, cache.misses) == (1, 2)
    # the source's data moved on (a new hour of readings): computed again
    clock["now"] = NOW + timedelta(hours=1)
    cached, fresh = await both(NOW + timedelta(hours=1))
    assert cached == fresh and (cache.hits, cache.misses) == (1, 3)
    # another edition of the regulations: other thresholds, computed again
    cached, fresh = await both(NOW + timedelta(hours=1), edition="2016")
    assert cached == fresh and (cache.hits, cache.misses) == (1, 4)
    cached, fresh = await both(NOW + timedelta(hours=1, seconds=5), edition="2016")
    assert cached == fresh and (cache.hits, cache.misses) == (2, 4)


def test_the_facts_cache_keeps_the_most_recently_used() -> None:
    cache = FactsCache(max_entries=2)
    # the cache only keys on the knowledge base and stores the facts: plain objects stand in for them
    table, kb = ThresholdTable.load("2025"), object()
    facts = {k: object() for k in "abc"}
    for k in "ab":
        cache.put(("tunnel", k), table, kb, b"x", facts[k])  # type: ignore[arg-type]
    cache._entries.move_to_end(("tunnel", "a"))  # a used last
    cache.put(("tunnel", "c"), table, kb, b"x", facts["c"])  # type: ignore[arg-type]
    assert list(cache._entries) == [("tunnel", "a"), ("tunnel", "c")]


@pytest.mark.parametrize(
    ("quantity", "value", "unit", "text"),
    [
        ("wind_speed", 0.236, "m/s", "0.24 m/s"),
        ("wind_speed", 0.2, "m/s", "0.20 m/s"),
        ("ch4", 0.5, "%", "0.50 %"),
        ("co", 7.4, "ppm", "7 ppm"),
        ("measured_q", 645.8, "m³/min", "646 m³/min"),
        ("temperature", 19.06, "°C", "19.1 °C"),
        (
            "unlisted",
            0.236,
            "x",
            "0.236 x",
        ),  # a quantity without a precision: as the regulation writes figures
    ],
)
def test_a_reading_is_shown_at_its_quantity_precision(
    quantity: str, value: float, unit: str, text: str
) -> None:
    """The service's texts show a reading as the console does: one precision per quantity."""
    assert reading_text(value, quantity, unit) == text
    assert assess(quantity, "x", value, unit, []).value_text == text
