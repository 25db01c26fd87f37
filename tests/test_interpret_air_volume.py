"""A tunnel's measured air volume (not a heading's) against its people, its diesel power and the plan's
required air volume: short by more than a point reading's uncertainty is a breach, within it a warning to
re-measure; the allocation is stated with the measured share, never judged."""

from __future__ import annotations

import pytest

from vent_agent.interpret.air_volume import MEASURE_MARGIN, air_volume_assessment
from vent_agent.interpret.facts import tunnel_kind_label
from vent_agent.kb.thresholds import ThresholdTable
from vent_agent.upstream.models import Tunnel

TABLE = ThresholdTable.load("2025")


def place(kind: str, **kw: object) -> Tunnel:
    fields: dict[str, object] = {
        "tun_id": "P-1",
        "name": "试验地点",
        "roadway_class": "采煤工作面" if kind == "coal_face" else "机电硐室",
        "kind": kind,
        "area": 10.0,
        "length": 200,
        "model_id": "M",
        "max_workers": 30,
        **kw,
    }
    return Tunnel(**fields)


@pytest.mark.parametrize("kind", ["coal_face", "chamber"])
@pytest.mark.parametrize(
    ("speed", "status"),
    [
        (2.1, "ok"),
        (2.0, "ok"),
        (1.95, "warning"),
        (2.0 * (1 - MEASURE_MARGIN) + 0.001, "warning"),
        (1.7, "breach"),
    ],
)
def test_the_plans_required_air_is_judged_with_the_readings_uncertainty(
    kind: str, speed: float, status: str
) -> None:
    a = air_volume_assessment(place(kind, required_q=1200, allocated_q=1250), speed, TABLE)  # 60·2·10 = 1200
    assert a.status == status, (speed, a.value, a.limit)
    assert "配风计划需风量 1200 m³/min" in a.basis and "实测为其" in a.basis
    if status != "ok":
        assert "需风量（配风计划）" in (a.source or "")


def test_without_the_plans_requirement_the_people_rule_is_a_lower_bound_and_the_allocation_is_not_judged() -> (
    None
):
    a = air_volume_assessment(place("coal_face", allocated_q=1200), 1.7, TABLE)  # 1020 < allocation 1200
    assert a.status == "ok" and a.limit == 120  # 30 people × 4 m³/min
    assert "数据未提供配风计划需风量" in a.basis and "下限" in a.basis
    assert "配风计划配风量 1200 m³/min，实测为其 85%" in a.basis


def test_a_tunnels_type_names_its_kind_once() -> None:
    """The class 采煤工作面 already says the kind (never 采煤工作面（采煤工作面）); a heading's class does not."""
    assert tunnel_kind_label(place("coal_face")) == "采煤工作面"
    assert tunnel_kind_label(place("heading", roadway_class="掘进中的煤巷")) == "掘进中的煤巷（掘进工作面）"
