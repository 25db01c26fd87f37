"""An optional reading aid: a language model reads a table the rules could not map (docs/DOMAIN.md §5).

Off unless ``VENT_REVIEW_MODEL_READING=true`` and a model is configured; the offline review is complete
without it. It only fills gaps: a ruled table that names plan locations which have no allocation row
after the rules ran is given to the model with the target schema (:class:`ModelTable`, through
``model.with_structured_output``). Each answered row is checked like any figure read from the PDF
before it is used (:func:`check_row`):

- the location is one of the plan's own (from its calculation section or location list) and still
  lacks a row;
- every number the model gives is a number written in that table row (the model copies, never computes);
- the air-volume unit is resolved: the model names it, and it agrees with the unit the table writes
  (when the table writes one); volumes are converted once to m³/min;
- the magnitude is in the range of its kind (:data:`RANGES`);
- the plan's own arithmetic: the required Q equals the one the location's calculation states (±1 %),
  and a planned speed agrees with 60·v·S of the allocation (±10 %; otherwise the speed is dropped).

Accepted figures carry ``SourceRef.text`` starting with :data:`MODEL_MARK` (and
``confidence="uncertain"`` where the plan model has that field), so that no finding rests on them
alone: :func:`cap_model_findings` lowers a major or critical finding built on such a figure to minor.

Hook points (:func:`vent_agent.review.service.pipeline.review_plan`): :func:`read_unmapped_tables` after the
plan is parsed, :func:`cap_model_findings` on each reviewer's findings.
"""

from __future__ import annotations

import asyncio
import logging
import re
import unicodedata
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from vent_agent.documents.pdf_text import ExtractedPdf
from vent_agent.documents.plan.model import AllocationRow, Figure, Plan, SourceRef
from vent_agent.documents.plan.tables import Cell, LogicalTable, logical_tables
from vent_agent.documents.plan.text_primitives import match_name, name_key
from vent_agent.review.findings import Finding, Severity

log = logging.getLogger(__name__)

MODEL_MARK = "【模型辅助读取】"
"""Prefix of ``SourceRef.text`` of every figure the model read."""

FlowUnit = Literal["m³/min", "m³/s", "m³/h"]
TO_M3MIN: dict[str, float] = {"m³/min": 1.0, "m³/s": 60.0, "m³/h": 1 / 60}
_UNIT_WRITTEN = [
    ("m³/min", r"m[³3]\s*/\s*min|立方米\s*/\s*分|立方米每分"),
    ("m³/s", r"m[³3]\s*/\s*s(?!\w)|立方米\s*/\s*秒|立方米每秒"),
    ("m³/h", r"m[³3]\s*/\s*h(?!\w)|立方米\s*/\s*(?:小时|时)|立方米每小时"),
]
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
MAX_TABLES = 3
"""At most this many tables are given to the model per plan."""


@dataclass(frozen=True)
class Range:
    """A plausible magnitude: ``low ≤ value ≤ high`` (air volumes in m³/min)."""

    low: float
    high: float


RANGES: dict[str, Range] = {
    # required / allocated Q by location kind, m³/min (docs/DOMAIN.md §5; wider than any working mine)
    "coal_face": Range(100, 5000),
    "standby_face": Range(50, 5000),
    "heading": Range(40, 3000),
    "chamber_heat": Range(40, 1500),
    "explosives_store": Range(40, 1500),
    "charging": Range(40, 1500),
    "other_roadway": Range(10, 6000),
    "diesel_roadway": Range(10, 6000),
    "unknown": Range(10, 6000),
    # other columns
    "area": Range(2, 40),  # m²
    "speed": Range(0, 15),  # m/s
    "ch4": Range(0, 10),  # %
    "temperature": Range(-10, 45),  # ℃
}


class ModelRow(BaseModel):
    """One location's row of an allocation table, figures copied from the table as written."""

    location: str = Field(description="用风地点名称，照抄表中文字")
    required_q: float | None = Field(None, description="需风量（需要风量/计算风量），照抄表中数字，不换算")
    allocated_q: float | None = Field(None, description="配风量（计划风量/分配风量），照抄表中数字，不换算")
    area: float | None = Field(None, description="断面，m²")
    planned_speed: float | None = Field(None, description="计划风速，m/s")
    measured_speed: float | None = Field(None, description="实测风速，m/s")
    ch4: float | None = Field(None, description="CH₄ 浓度，%")
    temperature: float | None = Field(None, description="温度，℃")


class ModelTable(BaseModel):
    """The target schema: is the table an air-allocation table, the unit of its air volumes, its rows."""

    is_allocation_table: bool = Field(description="这是否是风量分配表（各用风地点的需风量与配风量）")
    flow_unit: FlowUnit | None = Field(
        None, description="需风量与配风量的单位，按表头或单元格中写明的；表中没有写明时为 null"
    )
    rows: list[ModelRow] = Field(default_factory=list)


SYSTEM_PROMPT = (
    "你是煤矿配风计划的读表助手。下面是从 PDF 中提取的一张表格（每行一行，单元格以 | 分隔）。"
    "请按给定结构读出这张表：只照抄表中写出的数字，不要计算、换算或补全；表中没有的项填 null；"
    "风量单位只按表中写明的填写，没有写明时填 null。"
)


@dataclass
class ModelReading:
    """What the aid did: the plan (with the accepted rows added), the number of tables given to the
    model, the rows accepted, and notes (in Chinese) on what was rejected and why."""

    plan: Plan
    tables: int = 0
    accepted: int = 0
    notes: list[str] = field(default_factory=list)


def _clean(text: str | None) -> str:
    return unicodedata.normalize("NFKC", text or "").replace("\n", "")


def _numbers(text: str) -> list[float]:
    return [float(x) for x in _NUMBER.findall(_clean(text).replace(",", ""))]


def written_unit(text: str) -> str | None:
    """The one flow unit ``text`` writes (``m³/s`` for ``需风量(m3/s)``), None for none or several."""
    found = {unit for unit, pattern in _UNIT_WRITTEN if re.search(pattern, _clean(text))}
    return found.pop() if len(found) == 1 else None


def _gaps(plan: Plan) -> list[str]:
    """Plan locations (calculation section, else location list) without an allocation row."""
    names = [loc.name for loc in plan.locations] or list(plan.listed_locations)
    have = [r.location for r in plan.allocation]
    return [n for n in names if match_name(n, have) is None]


def _row_location(row: list[Cell], names: list[str]) -> str | None:
    for cell in row:
        hit = match_name(_clean(cell.text), names) if cell.text else None
        if hit:
            return hit
    return None


def candidate_tables(plan: Plan, extracted: ExtractedPdf) -> list[LogicalTable]:
    """Ruled tables (joined over page breaks, as the rules join them) naming at least two plan
    locations that lack an allocation row, with figures: what the rules could not map (at most
    :data:`MAX_TABLES`)."""
    gaps = _gaps(plan)
    if not gaps:
        return []
    out = []
    for t in logical_tables(extracted.tables):
        named = {_row_location(r, gaps) for r in t.rows} - {None}
        if len(named) >= min(2, len(gaps)) and any(_numbers(c.text) for r in t.rows for c in r[1:]):
            out.append(t)
    return out[:MAX_TABLES]


def _row_text(row: list[Cell]) -> str:
    return " | ".join(_clean(c.text) for c in row)


def table_text(t: LogicalTable) -> str:
    """The table as the model sees it: one line per row, cells joined by `` | ``."""
    return "\n".join(_row_text(row) for row in t.rows)


def _stated_required(plan: Plan, name: str) -> float | None:
    loc = plan.location(name)
    if loc is None or loc.stated_required is None:
        return None
    fig = loc.stated_required
    unit = written_unit(fig.unit or "") or "m³/min"
    return fig.value * TO_M3MIN[unit]


def _kind(plan: Plan, name: str) -> str:
    loc = plan.location(name)
    return loc.kind if loc is not None else "unknown"


def check_row(
    plan: Plan, name: str, row: ModelRow, cells: list[str | None], unit: str
) -> tuple[dict[str, float], str | None]:
    """Check the model's ``row`` for plan location ``name`` against the table row ``cells`` as
    extracted, ``unit`` the model's flow unit (already checked against the table's): returns the
    accepted figures (air volumes converted to m³/min) and None, or ``{}`` and why the row is rejected."""
    written = [x for c in cells for x in _numbers(c or "")]
    fields = row.model_dump(exclude={"location"})
    for key, value in fields.items():
        if value is not None and not any(abs(value - w) <= 1e-6 * max(1.0, abs(w)) for w in written):
            return {}, f"{name}：模型给出的 {key}={value:g} 不在该行表格中"
    figures: dict[str, float] = {}
    kind_range = RANGES.get(_kind(plan, name), RANGES["unknown"])
    for key in ("required_q", "allocated_q"):
        if fields[key] is not None:
            q = fields[key] * TO_M3MIN[unit]
            if not kind_range.low <= q <= kind_range.high:
                return {}, f"{name}：{key}={q:.1f} m³/min 超出该类地点的合理范围"
            figures[key] = round(q, 3)
    for key, rng in _OTHER_RANGES.items():
        if fields[key] is not None and RANGES[rng].low <= fields[key] <= RANGES[rng].high:
            figures[key] = fields[key]
    stated = _stated_required(plan, name)
    if stated is not None and "required_q" in figures and abs(figures["required_q"] - stated) > 0.01 * stated:
        return {}, f"{name}：需风量 {figures['required_q']:.1f} 与计算过程所取 {stated:.1f} m³/min 不符"
    if {"allocated_q", "area", "planned_speed"} <= figures.keys():
        implied = 60 * figures["planned_speed"] * figures["area"]
        if abs(implied - figures["allocated_q"]) > 0.1 * figures["allocated_q"]:
            figures.pop("planned_speed")
    return figures, None


_OTHER_RANGES = {
    "area": "area",
    "planned_speed": "speed",
    "measured_speed": "speed",
    "ch4": "ch4",
    "temperature": "temperature",
}
_UNITS = {"area": "m²", "planned_speed": "m/s", "measured_speed": "m/s", "ch4": "%", "temperature": "℃"}


def _allocation_row(cells: list[Cell], name: str, figures: dict[str, float], unit: str) -> AllocationRow:
    text = MODEL_MARK + _row_text(cells)
    first = cells[0]

    def ref(column: str | None) -> SourceRef:
        data = {"page": first.page, "table": first.table, "row": first.row, "column": column, "text": text}
        return SourceRef.model_validate(data | {"confidence": "uncertain"})

    values: dict[str, Figure] = {}
    for key, value in figures.items():
        flow = key in ("required_q", "allocated_q")
        values[key] = Figure.model_validate(
            {
                "value": value,
                "unit": "m³/min" if flow else _UNITS[key],
                "ref": ref(key),
            }
            | ({"unit_written": unit} if flow and unit != "m³/min" else {})
        )
    return AllocationRow(location=name, ref=ref(None), **values)


async def _ask(model: BaseChatModel, t: LogicalTable, timeout_s: float) -> ModelTable:
    structured = model.with_structured_output(ModelTable)
    messages = [SystemMessage(SYSTEM_PROMPT), HumanMessage(f"第 {t.page} 页的表格：\n{table_text(t)}")]
    answer = await asyncio.wait_for(structured.ainvoke(messages), timeout_s)
    if not isinstance(answer, ModelTable):
        raise TypeError(f"unexpected structured output {type(answer).__name__}")
    return answer


def _row_cells(t: LogicalTable, name: str, gaps: list[str]) -> list[Cell] | None:
    return next((row for row in t.rows if _row_location(row, gaps) == name), None)


async def read_unmapped_tables(
    plan: Plan,
    extracted: ExtractedPdf,
    model: BaseChatModel,
    *,
    timeout_s: float = 60.0,
    progress: Callable[[str], Awaitable[None]] | None = None,
) -> ModelReading:
    """Give each table the rules could not map (:func:`candidate_tables`) to ``model`` and add the rows
    that pass :func:`check_row` to a copy of ``plan``. Never raises for the model's sake: a failed or
    late call (``timeout_s`` per table) is a note. ``progress`` receives a Chinese status line."""
    out = plan.model_copy(deep=True)
    reading = ModelReading(plan=out)
    for t in candidate_tables(plan, extracted):
        reading.tables += 1
        if progress is not None:
            await progress(f"第 {t.page} 页有规则未能识别的表格，正在请模型辅助读取…")
        try:
            answer = await _ask(model, t, timeout_s)
        except Exception as exc:  # a model's failure must never fail the review
            log.warning("model reading of the table on p%s failed: %s", t.page, exc)
            reading.notes.append(f"第 {t.page} 页表格的模型辅助读取失败（{type(exc).__name__}）")
            continue
        header_unit = written_unit(table_text(t))
        if not answer.is_allocation_table:
            continue
        if answer.flow_unit is None or (header_unit is not None and header_unit != answer.flow_unit):
            reading.notes.append(f"第 {t.page} 页表格的风量单位无法确定，模型读取结果未采用")
            continue
        for row in answer.rows:
            gaps = _gaps(out)
            name = match_name(row.location, gaps)
            cells = _row_cells(t, name, gaps) if name else None
            if name is None or cells is None:
                reading.notes.append(
                    f"模型辅助读取结果未采用：“{row.location}”不是表中缺少配风数据的用风地点"
                )
                continue
            figures, reason = check_row(out, name, row, [c.text for c in cells], answer.flow_unit)
            if reason or not figures:
                reading.notes.append(f"模型辅助读取结果未采用：{reason or name + '没有可用数据'}")
                continue
            out.allocation.append(_allocation_row(cells, name, figures, answer.flow_unit))
            reading.accepted += 1
    if reading.accepted:
        out.warnings.append(
            f"风量分配表有 {reading.accepted} 行由模型辅助读取（已校核），相关问题最高定为一般"
        )
    out.warnings.extend(reading.notes)
    return reading


def _model_values(plan: Plan) -> dict[str, set[float]]:
    out: dict[str, set[float]] = {}
    for r in plan.allocation:
        if r.ref.text.startswith(MODEL_MARK):
            figs = [
                r.required_q,
                r.allocated_q,
                r.area,
                r.planned_speed,
                r.measured_speed,
                r.ch4,
                r.temperature,
            ]
            out[name_key(r.location)] = {round(f.value, 1) for f in figs if f is not None}
    return out


def cap_model_findings(findings: list[Finding], plan: Plan) -> list[Finding]:
    """``findings`` with every major or critical finding that rests on a model-read figure lowered to
    minor (its message says so): one whose PDF evidence is a model-read figure, or, without PDF
    evidence, one at a location with model-read figures whose compared figures include one of them."""
    model = _model_values(plan)
    if not model:
        return findings
    out = []
    for f in findings:
        pdf = [e for e in f.evidence if e.kind == "pdf"]
        on_model = any((e.text or "").startswith(MODEL_MARK) for e in pdf)
        if not pdf and f.location is not None and name_key(f.location) in model:
            values = {round(v, 1) for v in f.figures.values() if isinstance(v, int | float)}
            on_model = bool(values & model[name_key(f.location)])
        if on_model and f.severity in (Severity.MAJOR, Severity.CRITICAL):
            f = f.model_copy(
                update={
                    "severity": Severity.MINOR,
                    "message": f"{f.message}（所依据的数据由模型辅助读取，规则未能确认，请人工核对原表）",
                }
            )
        out.append(f)
    return out
