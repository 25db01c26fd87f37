"""A finding's trace and its provenance graph name a calculator by its Chinese title, a reference-data
tool by what it queries and a calculator's inputs as ``名称 = 值 单位`` rows, never by the names the
program calls them (vent_agent/review/outputs/trace_words.py)."""

from __future__ import annotations

import re

from tests.graph_samples import GAS_TOOL, REPORT, owner, review_events, review_record
from vent_agent.graph.project import project_run
from vent_agent.review.findings import Evidence
from vent_agent.review.outputs.trace_words import argument_rows, method_title, threshold_words, tool_title

RAW_NAME = re.compile(r"\b[a-z]{2,}\d*_[a-z0-9_]{2,}")  # a program's name (calc_…, ch4_return_stop), not k_h


def test_a_calculator_and_a_reference_tool_are_named_in_chinese() -> None:
    assert method_title("calc_face_by_climate") == "采煤工作面按气象条件计算（AQ 1056）"
    assert tool_title(GAS_TOOL) == "查询瓦斯等级鉴定报告"
    assert tool_title("calc_chamber_by_equipment") == "机电硐室按发热量计算"
    assert method_title("no_such_calculator") == "no_such_calculator"  # named as recorded, not dropped
    assert threshold_words("ch4_return_stop", "2025") == "甲烷浓度 ≥ 1.0 %"
    assert threshold_words("no_such_threshold", "2025") == ""


def test_a_calculators_inputs_are_rows_of_name_value_and_unit() -> None:
    rows = argument_rows(
        {"mining_height": 3.2, "chamber_type": "substation", "power_kw": [400, 400.5], "k_h": None}
    )
    assert [(r["label"], r["value"], r["unit"]) for r in rows] == [
        ("采高 h", "3.2", "m"),
        ("硐室类型", "变电所", ""),  # the option by its Chinese word
        ("硐室运行设备总功率 ΣW", "400、400.5", "kW"),  # the glossary's remark in brackets dropped
    ]
    (road,) = argument_rows({"roadway_class": "district_roadway"})
    assert road["value"] == "输送机巷，采区进、回风巷" and road["label"] == "巷道类别"


def test_the_graph_names_calculators_tools_and_threshold_records_in_chinese() -> None:
    record = review_record("run-w")
    record.findings[0].evidence += [
        Evidence(
            kind="calc", detail={"method": "calc_tunnel_by_gas", "substituted": "100 × 1.1 × 1.8 = 198.0"}
        ),
        Evidence(kind="clause", detail={"article": 192, "edition": "2025", "key": "ch4_return_stop"}),
    ]
    # the run's events name no reference tool: the record's call gets a ToolCall node of its own
    events = [e for e in review_events("run-w") if e["type"] != "agent_executing"]
    graph = project_run(owner("run-w", "review"), events, lambda rid: record if rid == REPORT else None)
    labels: dict[str, list[str]] = {n.kind: [] for n in graph.nodes}
    for n in graph.nodes:
        labels[n.kind].append(n.label)
    assert "查询瓦斯等级鉴定报告" in labels["ToolCall"]
    assert "掘进工作面按瓦斯涌出量计算：100 × 1.1 × 1.8 = 198.0" in labels["Evidence"]
    assert "条文记录（甲烷浓度 ≥ 1.0 %）：《煤矿安全规程》（2025版）第192条" in labels["Evidence"]
    assert not [label for label in sum(labels.values(), []) if RAW_NAME.search(label)]
