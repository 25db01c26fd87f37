"""The words a finding's trace and its provenance graph name things by, for a person rather than a program:
a calculator by its Chinese title (:data:`calc.CATALOG`: ``calc_face_by_climate`` → 采煤工作面按气象条件计算
（AQ 1056）), a reference-data tool by what it queries (:data:`vent_agent.mcp.schemas.TOOL_LABELS`), and a
calculator's inputs as ``名称 = 值 单位`` rows by the glossary of its parameters (:data:`calc.PARAMS`: their
Chinese labels and units; an option such as ``substation`` by its Chinese word, 变电所), and a threshold record
by what it limits (``ch4_return_stop`` → 甲烷浓度 ≥ 1.0 %)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from calc import CATALOG, PARAMS
from calc.tables import DEFAULT_TABLES
from vent_agent.kb.thresholds import ThresholdTable, breach_text
from vent_agent.mcp.schemas import TOOL_LABELS
from vent_agent.upstream.models import QUANTITY_LABELS


def method_title(method: str) -> str:
    """A calculator's Chinese title; the name itself for one the catalogue does not hold."""
    info = CATALOG.get(method)
    return info.title_cn if info is not None else method


def tool_title(tool: str) -> str:
    """A tool's Chinese name: a reference-data tool's (查询瓦斯等级鉴定报告), a calculator's title, else the
    name itself."""
    return TOOL_LABELS.get(tool) or method_title(tool)


def threshold_words(key: str | None, edition: str) -> str:
    """What the threshold ``key`` of ``edition`` limits, as the regulation states it: ``ch4_return_stop`` →
    ``甲烷浓度 ≥ 1.0 %``; ``""`` for a key the table does not hold or a quantity without a Chinese label."""
    try:
        threshold = ThresholdTable.load(edition).get(key or "")
    except (KeyError, ValueError):
        return ""
    label = QUANTITY_LABELS.get(threshold.quantity)
    return f"{label} {breach_text(threshold.breach_op, threshold.limit, threshold.unit)}" if label else ""


def _options(name: str, label: str) -> tuple[str, dict[str, str]]:
    """A glossary label's name and the Chinese words of its options: ``硐室类型：compressor 空压机房/pump
    水泵房`` → ``("硐室类型", {"compressor": "空压机房", "pump": "水泵房"})``; a trailing remark in
    brackets is dropped (``硐室运行设备总功率 ΣW（或各台功率列表）`` → ``硐室运行设备总功率 ΣW``); a 表6
    roadway class by its row's name."""
    head, _, listed = label.partition("：")
    head = re.sub(r"（[^（）]*）$", "", head.partition("，如")[0])
    options = dict(re.findall(r"([A-Za-z_]+) ([^/\s]+)", listed))
    if name == "roadway_class":
        options = {k: c.name_cn for k, c in DEFAULT_TABLES.wind_speed.classes.items()}
    return head, options


def _value_text(value: Any, options: Mapping[str, str]) -> str:
    if isinstance(value, bool):
        return "是" if value else "否"
    if isinstance(value, int | float):
        return f"{value:g}"
    if isinstance(value, Mapping):
        return "；".join(f"{k} {_value_text(v, options)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return "、".join(_value_text(v, options) for v in value)
    text = str(value)
    return options.get(text, text)


def argument_rows(inputs: Mapping[str, Any]) -> list[dict[str, str]]:
    """A calculator's recorded inputs as rows ``{"name", "label", "value", "unit"}`` (the parameter, its
    Chinese label, the value as text, its unit or ``""``), in the order given; inputs without a value are
    left out, a parameter the glossary does not hold is labelled by its name."""
    rows = []
    for name, value in inputs.items():
        if value is None:
            continue
        doc = PARAMS.get(name)
        label, options = _options(name, doc.label_cn) if doc is not None else (name, {})
        rows.append(
            {
                "name": name,
                "label": label,
                "value": _value_text(value, options),
                "unit": doc.unit if doc is not None else "",
            }
        )
    return rows
