"""The registry of plan methods (vent_agent/documents/plan/methods.py): one entry per method, read by the
reader, the calc-verifier and the plausibility checks; a method added to the registry is read from a
plan's text with its label, symbols, inputs and location kind, and nothing else needs changing."""

from __future__ import annotations

from vent_agent.documents.pdf_text import ExtractedPdf, PageText
from vent_agent.documents.plan import methods
from vent_agent.documents.plan.methods import PlanMethod, registered
from vent_agent.documents.plan.model import LocationPlan
from vent_agent.documents.plan.parser import parse_plan


def _plan(body: str) -> list[LocationPlan]:
    text = f"示范煤矿2026年9月份矿井配风计划\n四、需风量计算\n1. 一号机电硐室\n{body}\n"
    return parse_plan(ExtractedPdf(page_count=1, pages=[PageText(page=1, text=text)])).locations


def test_every_method_key_is_registered_once_with_a_label_and_the_kinds_are_known() -> None:
    keys = [m.key for m in methods.METHODS]
    assert len(keys) == len(set(keys))
    assert {
        "gas",
        "co2",
        "climate",
        "workers",
        "explosives",
        "fan_intake",
        "vehicle",
        "heat",
        "standby",
    } <= set(keys)
    assert methods.method_key("按瓦斯涌出量计算") == "gas"
    assert methods.method_key("按回采工作面备用风量计算") == "standby"  # the more specific method first
    assert methods.method_key("按气象条件计算", "Q = Q基 × k温 × k面长") == "climate_textbook"
    assert methods.method_key("按经验取值") == "min_q"
    assert methods.method_key("按某种新方法") == "other"


def test_a_method_added_to_the_registry_is_read_with_its_symbols_and_kind() -> None:
    """A made-up method (按示例甲法, symbol Xd): one registry entry makes the reader name the method, fill
    the input its symbol gives and type the location; nothing else is changed."""
    body = "按示例甲法计算：Q = 1.2 × Xd = 1.2 × 150 = 180.0 m³/min\n取最大值：Q需 = 180.0 m³/min"
    (before,) = _plan(body)
    assert [m.method for m in before.methods] == ["other"]
    example = PlanMethod("example_a", r"示例甲", {"xd": "example_q"}, ("example_q",), "chamber_heat", None)
    with registered(example):
        (loc,) = _plan(body)
        assert [m.method for m in loc.methods] == ["example_a"]
        assert loc.inputs["example_q"].value == 150.0
        assert loc.kind == "chamber_heat"
        assert methods.inputs_of("example_a") == ("example_q",)
    assert methods.method("example_a") is None  # the registry restored
