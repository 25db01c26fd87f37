"""The four review tools' wire format (their MCP ``inputSchema`` arguments and ``outputSchema`` answers),
and the conversions between the answers and :class:`~vent_agent.review.reference.MonthlyReference`.

Every tool takes ``(mine, month)`` (``month`` is ``YYYY-MM``, the plan's month) and answers one
:class:`ToolAnswer` subclass: ``available`` false with a ``reason`` when the source has no such data
(unknown mine, month or part), never another mine's data. Units: gas emission m³/min (absolute,
ventilation-borne); wind speed m/s; section m²; CH₄ %; temperature °C; lengths m; workers persons.
A mine platform's own MCP server that answers in this format can replace the embedded one
(``VENT_MCP_URL``); docs/REFERENCE_DATA.md describes it.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field

from vent_agent.review.reference import (
    MONTH_PATTERN,
    AirSurveyRecord,
    FaceProcedure,
    MiningPlanEntry,
    MonthlyReference,
    is_finished,
)

MINING_PLAN_TOOL = "query_monthly_mining_plan"
FACE_PROCEDURE_TOOL = "query_working_face_procedure"
GAS_REPORT_TOOL = "query_gas_identification_report"
VENTILATION_REPORT_TOOL = "query_ventilation_report"
TOOL_NAMES = (MINING_PLAN_TOOL, FACE_PROCEDURE_TOOL, GAS_REPORT_TOOL, VENTILATION_REPORT_TOOL)
"""The review's MCP tools, in the order they are called (spec: MCP 配风计划审查工具)."""
TOOL_LABELS = {
    MINING_PLAN_TOOL: "查询月度采掘计划",
    FACE_PROCEDURE_TOOL: "查询工作面作业规程",
    GAS_REPORT_TOOL: "查询瓦斯等级鉴定报告",
    VENTILATION_REPORT_TOOL: "查询测风报表",
}
"""Each review tool's Chinese name, as the review's events, its trace and its provenance graph name it."""

MineArg = Annotated[
    str,
    Field(min_length=1, max_length=100, description="矿井名称，按配风计划封面所写，如“示范煤矿”"),
]
MonthArg = Annotated[
    str,
    Field(pattern=MONTH_PATTERN, description="配风计划所属月份，格式 YYYY-MM，如“2026-08”"),
]


class ToolAnswer(BaseModel):
    """What every review tool answers: the mine as the source names it, the month asked, and whether
    the source has this data (``reason`` when not)."""

    mine: str = Field(description="数据所属矿井（数据源中的矿井名称）")
    month: str = Field(description="查询的计划月份，YYYY-MM")
    available: bool = Field(description="数据源是否有该矿该月的此项数据；为 false 时见 reason")
    reason: str | None = Field(default=None, description="无数据时的原因说明")


class MiningPlanItem(BaseModel):
    """One face or heading of the monthly mining plan."""

    location: str = Field(description="采掘地点名称，如“15216综采工作面”")
    kind: str = Field(default="", description="类型：coal_face 采煤工作面、heading 掘进工作面等")
    state: str = Field(
        default="", description="计划状态原文，如“回采”“掘进（8月15日开工）”“8月28日贯通，停止掘进”"
    )
    finished: bool = Field(default=False, description="是否已停止作业（贯通、停掘、回采结束等）")


class MiningPlanAnswer(ToolAnswer):
    """``query_monthly_mining_plan``: the faces and headings of the month, and those that stopped."""

    items: list[MiningPlanItem] = Field(default_factory=list, description="本月采掘计划中的采掘工作面")
    completed: list[MiningPlanItem] = Field(
        default_factory=list, description="本月或之前已停止作业的采掘地点（配风计划中不应再按作业地点配风）"
    )


class FaceProcedureItem(BaseModel):
    """A face's operating-procedure parameters."""

    location: str = Field(description="工作面名称")
    face_length_m: float | None = Field(default=None, description="工作面长度，m")
    mining_height_m: float | None = Field(default=None, description="采高，m")
    roof_control_max_m: float | None = Field(default=None, description="最大控顶距，m")
    roof_control_min_m: float | None = Field(default=None, description="最小控顶距，m")
    max_workers: float | None = Field(default=None, description="工作面同时作业最多人数，人")


class FaceProcedureAnswer(ToolAnswer):
    """``query_working_face_procedure``: the parameters of every face with an operating procedure."""

    faces: list[FaceProcedureItem] = Field(default_factory=list, description="各工作面作业规程参数")


class GasReportItem(BaseModel):
    """One location's absolute CH₄ emission from the gas-grade certification report."""

    location: str = Field(description="用风地点名称")
    gas_emission: float = Field(description="瓦斯（CH₄）绝对涌出量（风排），m³/min")


class GasReportAnswer(ToolAnswer):
    """``query_gas_identification_report``: absolute CH₄ emission by location, m³/min."""

    unit: str = Field(default="m³/min", description="涌出量单位")
    items: list[GasReportItem] = Field(default_factory=list, description="各地点瓦斯绝对涌出量")


class AirSurveyItem(BaseModel):
    """One station of the air survey."""

    location: str = Field(description="测风地点名称")
    wind_speed: float | None = Field(default=None, description="平均风速，m/s")
    area: float | None = Field(default=None, description="断面积，m²")
    ch4_return: float | None = Field(default=None, description="回风流 CH₄ 浓度，%")
    ch4_intake: float | None = Field(default=None, description="进风流 CH₄ 浓度，%")
    temp: float | None = Field(default=None, description="温度，℃")


class VentilationReportAnswer(ToolAnswer):
    """``query_ventilation_report``: the latest air survey taken before the month starts (the one the
    month's plan is drawn up from), with its date, and the roadways' 表6 classes."""

    survey_date: str | None = Field(
        default=None, description="所返回测风报表的测定日期 YYYY-MM-DD（早于计划月份首日的最近一次）"
    )
    items: list[AirSurveyItem] = Field(default_factory=list, description="各测风地点实测数据")
    roadway_classes: dict[str, str] = Field(
        default_factory=dict, description="巷道按《煤矿安全规程》表6的类别，如“采区进风巷”"
    )
    diesel_kw: dict[str, float] = Field(
        default_factory=dict, description="巷道同时运行的防爆柴油机车辆总功率（kW，车辆台账）"
    )


# --- MonthlyReference → answers (server side) ------------------------------------------------------


def mining_plan_answer(ref: MonthlyReference) -> MiningPlanAnswer:
    """The mining-plan part of ``ref`` (``available`` false when it lists nothing)."""
    items = [MiningPlanItem(**vars(e)) for e in ref.mining_plan]
    completed = [MiningPlanItem(**vars(e)) for e in ref.completed]
    ok = bool(items or completed)
    return MiningPlanAnswer(
        mine=ref.mine,
        month=ref.month,
        available=ok,
        reason=None if ok else "该月无月度采掘计划数据",
        items=items,
        completed=completed,
    )


def face_procedure_answer(ref: MonthlyReference) -> FaceProcedureAnswer:
    """The operating-procedure part of ``ref``."""
    faces = [FaceProcedureItem(location=k, **vars(v)) for k, v in ref.face_procedures.items()]
    return FaceProcedureAnswer(
        mine=ref.mine,
        month=ref.month,
        available=bool(faces),
        reason=None if faces else "该月无工作面作业规程参数",
        faces=faces,
    )


def gas_report_answer(ref: MonthlyReference) -> GasReportAnswer:
    """The gas-grade report part of ``ref``."""
    items = [GasReportItem(location=k, gas_emission=v) for k, v in ref.gas_report.items()]
    return GasReportAnswer(
        mine=ref.mine,
        month=ref.month,
        available=bool(items),
        reason=None if items else "该月无瓦斯等级鉴定报告数据",
        items=items,
    )


def ventilation_report_answer(ref: MonthlyReference) -> VentilationReportAnswer:
    """The air-survey part of ``ref`` (the latest survey before the month) and the roadway classes."""
    items = [AirSurveyItem(location=k, **vars(v)) for k, v in ref.air_survey.items()]
    return VentilationReportAnswer(
        mine=ref.mine,
        month=ref.month,
        available=bool(items),
        reason=None if items else f"{ref.month} 之前无测风报表",
        survey_date=ref.air_survey_date,
        items=items,
        roadway_classes=dict(ref.roadway_classes),
        diesel_kw=dict(ref.diesel_kw),
    )


# --- answers → MonthlyReference (client side) ------------------------------------------------------

ANSWER_TYPES: dict[str, type[ToolAnswer]] = {
    MINING_PLAN_TOOL: MiningPlanAnswer,
    FACE_PROCEDURE_TOOL: FaceProcedureAnswer,
    GAS_REPORT_TOOL: GasReportAnswer,
    VENTILATION_REPORT_TOOL: VentilationReportAnswer,
}


def _entry(item: MiningPlanItem, finished: bool | None = None) -> MiningPlanEntry:
    done = (item.finished or is_finished(item.state)) if finished is None else finished
    return MiningPlanEntry(location=item.location, kind=item.kind, state=item.state, finished=done)


def monthly_from_answers(
    mine: str, month: str, answers: dict[str, ToolAnswer], gaps: dict[str, str]
) -> MonthlyReference:
    """Assemble a :class:`MonthlyReference` from the tools' answers: each part from its answer when
    ``available``; the roadway classes from the ventilation report whenever it answered. ``mine`` is
    the source's name for the mine (from the answers), ``gaps`` the parts missing (tool → reason)."""
    ref: dict[str, Any] = {"mine": mine, "month": month, "gaps": dict(gaps)}
    plan = answers.get(MINING_PLAN_TOOL)
    if isinstance(plan, MiningPlanAnswer) and plan.available:
        ref["mining_plan"] = [_entry(i) for i in plan.items]
        ref["completed"] = [_entry(i, True) for i in plan.completed]
    proc = answers.get(FACE_PROCEDURE_TOOL)
    if isinstance(proc, FaceProcedureAnswer) and proc.available:
        ref["face_procedures"] = {
            f.location: FaceProcedure(**f.model_dump(exclude={"location"})) for f in proc.faces
        }
    gas = answers.get(GAS_REPORT_TOOL)
    if isinstance(gas, GasReportAnswer) and gas.available:
        ref["gas_report"] = {g.location: g.gas_emission for g in gas.items}
    survey = answers.get(VENTILATION_REPORT_TOOL)
    if isinstance(survey, VentilationReportAnswer):
        ref["roadway_classes"] = dict(survey.roadway_classes)
        ref["diesel_kw"] = dict(survey.diesel_kw)
        if survey.available:
            ref["air_survey"] = {
                s.location: AirSurveyRecord(**s.model_dump(exclude={"location"})) for s in survey.items
            }
            ref["air_survey_date"] = survey.survey_date
    return MonthlyReference(**ref)
