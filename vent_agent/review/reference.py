"""Reference data the data-checker compares a plan with: for one mine and month, the monthly mining
plan, the gas-grade report, the faces' operating procedures and the air survey (docs/DOMAIN.md §4).

:class:`ReferenceData` is a synchronous Protocol with one method, :meth:`~ReferenceData.monthly`; the
rules (``review_data``) take any implementation. The review fetches the month over MCP beforehand
(:func:`vent_agent.mcp.client.load_reference`) and hands the result over as a
:class:`StaticReferenceData`, or as an :class:`UnavailableReference` saying why there is none.

The reference *document* format (:class:`ReferenceDocument`, validated with pydantic) is the demo
mine's (``vent_agent/data/demo_mine.json``) and the one a
mine without the platform writes its files in (``docs/REFERENCE_DATA.md``). :class:`JsonReferenceData`
reads one such document; :func:`default_reference` is the demo mine.

The air survey of a month is the **latest survey taken before the month starts** (the plan for August
is drawn up in July from the survey then current): see :func:`build_months`.

Units: gas emission m³/min (absolute, ventilation-borne); wind speed m/s; area m²; CH₄ %; temperature
°C; face length, mining height, roof-control distances m; workers persons.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from vent_agent.documents.plan.text_primitives import name_key

_FINISHED = re.compile(r"贯通|停掘|停止|结束|完工|封闭|撤除|撤出|停采|采完|已完成|报废")
MONTH_PATTERN = r"^\d{4}-(0[1-9]|1[0-2])$"
"""A plan month, ``YYYY-MM``."""


def is_finished(state: str) -> bool:
    """True when a mining-plan state says the face or heading no longer works (贯通, 停止掘进, 回采结束…)."""
    return bool(_FINISHED.search(state or ""))


@dataclass(frozen=True)
class MiningPlanEntry:
    """One face or heading of the monthly mining plan: ``kind`` coal_face / heading / standby_face…,
    ``state`` as written (回采, 掘进（8月15日开工）, 8月28日贯通，停止掘进), ``finished`` derived from it."""

    location: str
    kind: str = ""
    state: str = ""
    finished: bool = False


@dataclass(frozen=True)
class FaceProcedure:
    """A face's operating-procedure (作业规程) parameters, m and persons; None where not given."""

    face_length_m: float | None = None
    mining_height_m: float | None = None
    roof_control_max_m: float | None = None
    roof_control_min_m: float | None = None
    max_workers: float | None = None


@dataclass(frozen=True)
class AirSurveyRecord:
    """One location of the air survey: wind speed m/s, section m², CH₄ % in the return and the intake,
    temperature °C; None where not measured."""

    wind_speed: float | None = None
    area: float | None = None
    ch4_return: float | None = None
    ch4_intake: float | None = None
    temp: float | None = None


@dataclass(frozen=True)
class MonthlyReference:
    """Everything known about one mine in one month. ``completed`` lists faces and headings that
    stopped during or before the month (stale if still planned); ``air_survey`` is the latest survey
    before the month, taken on ``air_survey_date`` (ISO date, None when unknown); ``roadway_classes``
    maps a roadway to its 表6 class (采区进风巷 …) where known; ``diesel_kw`` a roadway's diesel vehicles
    running at once, their total power (kW, the mine's vehicle register); ``gaps`` names the parts the source had
    no data for (MCP tool name → reason), so the rules can say which checks were skipped."""

    mine: str
    month: str
    mining_plan: list[MiningPlanEntry] = field(default_factory=list)
    completed: list[MiningPlanEntry] = field(default_factory=list)
    gas_report: dict[str, float] = field(default_factory=dict)
    face_procedures: dict[str, FaceProcedure] = field(default_factory=dict)
    air_survey: dict[str, AirSurveyRecord] = field(default_factory=dict)
    roadway_classes: dict[str, str] = field(default_factory=dict)
    diesel_kw: dict[str, float] = field(default_factory=dict)
    air_survey_date: str | None = None
    gaps: dict[str, str] = field(default_factory=dict)


@runtime_checkable
class ReferenceData(Protocol):
    """Reference data by mine and month (``YYYY-MM``)."""

    def monthly(self, mine: str, month: str) -> MonthlyReference | None:
        """The month's reference data of ``mine``, or None when this source has none (unknown mine,
        month not available). Must not return another mine's data."""
        ...


def same_mine(a: str | None, b: str | None) -> bool:
    """True when two mine names name the same mine (equal after normalisation, or one the other's
    tail of at least four characters: ``山西示范煤矿`` ~ ``示范煤矿``)."""
    if not a or not b:
        return False
    ka, kb = name_key(a), name_key(b)
    short, long_ = sorted((ka, kb), key=len)
    return ka == kb or (len(short) >= 4 and long_.endswith(short))


class StaticReferenceData:
    """Reference data held in memory: ``{(mine, month): MonthlyReference}``. Mine names are matched
    with :func:`same_mine` against each mine's name and ``aliases``."""

    def __init__(self, months: list[MonthlyReference], aliases: dict[str, list[str]] | None = None) -> None:
        self._months = list(months)
        self._aliases = aliases or {}

    @property
    def months(self) -> list[MonthlyReference]:
        """Every (mine, month) held, in load order."""
        return list(self._months)

    def monthly(self, mine: str, month: str) -> MonthlyReference | None:
        for ref in self._months:
            names = [ref.mine, *self._aliases.get(ref.mine, [])]
            if ref.month == month and any(same_mine(mine, n) for n in names):
                return ref
        return None


class UnavailableReference:
    """No reference data could be had: the source is unreachable, timed out, answered with an error
    or its files are broken. ``reason`` (Chinese, for the finding) says which; :meth:`monthly` always
    answers None, and ``review_data`` gives one info finding quoting ``reason``."""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def monthly(self, mine: str, month: str) -> MonthlyReference | None:
        return None


# --- the reference document format (docs/REFERENCE_DATA.md) ---------------------------------------

MonthKey = Annotated[str, StringConstraints(pattern=MONTH_PATTERN)]
_Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MiningPlanItemDoc(_Strict):
    """A face or heading of the monthly mining plan: its name, kind and state as written."""

    location: _Name
    kind: str = ""
    state: str = ""


class FaceProcedureDoc(_Strict):
    """A face's operating-procedure parameters: m, persons."""

    face_length_m: float | None = Field(default=None, gt=0, le=1000)
    mining_height_m: float | None = Field(default=None, gt=0, le=20)
    roof_control_max_m: float | None = Field(default=None, gt=0, le=50)
    roof_control_min_m: float | None = Field(default=None, gt=0, le=50)
    max_workers: float | None = Field(default=None, ge=0, le=1000)


class AirSurveyDoc(_Strict):
    """One station of an air survey: m/s, m², CH₄ % (return and intake), °C."""

    wind_speed: float | None = Field(default=None, ge=0, le=30)
    area: float | None = Field(default=None, gt=0, le=200)
    ch4_return: float | None = Field(default=None, ge=0, le=100)
    ch4_intake: float | None = Field(default=None, ge=0, le=100)
    temp: float | None = Field(default=None, ge=-40, le=60)


class DatedSurveyDoc(_Strict):
    """An air survey with the day it was taken."""

    date: dt.date
    records: dict[_Name, AirSurveyDoc]


class MonthDoc(_Strict):
    """One month's reference data. ``air_survey`` is the survey this month's plan is based on (taken
    before the month; ``air_survey_date`` when known, else taken to be the previous month's last day)."""

    mining_plan: list[MiningPlanItemDoc] = Field(default_factory=list)
    completed_this_month: list[MiningPlanItemDoc] = Field(default_factory=list)
    gas_report: dict[_Name, float] = Field(default_factory=dict)
    face_procedures: dict[_Name, FaceProcedureDoc] = Field(default_factory=dict)
    air_survey: dict[_Name, AirSurveyDoc] = Field(default_factory=dict)
    air_survey_date: dt.date | None = None
    roadway_classes: dict[_Name, str] = Field(default_factory=dict)
    diesel_kw: dict[_Name, float] = Field(default_factory=dict)


class MineDoc(BaseModel):
    """The mine: its name (as plans write it) and other names it goes by; other profile fields (gas
    grade, fans, totals) are kept but not used by the review."""

    model_config = ConfigDict(extra="allow")
    name: _Name
    aliases: list[_Name] = Field(default_factory=list)


class ReferenceDocument(BaseModel):
    """A mine's reference data document: ``mine``, ``reference`` by month, dated ``air_surveys`` and
    ``roadway_classes`` that hold for every month. Other top-level keys are allowed; the roadway class
    of items in ``plan_inputs*`` lists (the demo mine's) is read too."""

    model_config = ConfigDict(extra="allow")
    mine: MineDoc
    reference: dict[MonthKey, MonthDoc] = Field(default_factory=dict)
    air_surveys: list[DatedSurveyDoc] = Field(default_factory=list)
    roadway_classes: dict[_Name, str] = Field(default_factory=dict)
    diesel_kw: dict[_Name, float] = Field(default_factory=dict)


class ReferenceFileError(ValueError):
    """A reference data file that cannot be used: ``file`` (path or label), and one line per problem
    naming the field (``reference.2026-08.gas_report.A: Input should be a valid number``)."""

    def __init__(self, file: str, problems: list[str]) -> None:
        self.file = file
        self.problems = problems
        super().__init__(f"参考数据文件 {file} 无效：" + "；".join(problems))


def validation_problems(exc: ValidationError, prefix: str = "") -> list[str]:
    """One ``field.path: message`` line per error of ``exc`` (at most 8), prefixed with ``prefix``."""
    out = []
    for err in exc.errors()[:8]:
        loc = ".".join(str(p) for p in (*([prefix] if prefix else []), *err["loc"]))
        out.append(f"{loc or '(document)'}: {err['msg']}")
    if len(exc.errors()) > 8:
        out.append(f"… {len(exc.errors()) - 8} more")
    return out


def parse_document(data: Any, file: str) -> ReferenceDocument:
    """Validate ``data`` (a loaded JSON value) as a :class:`ReferenceDocument`. Raises
    :class:`ReferenceFileError` naming ``file`` and each bad field."""
    try:
        return ReferenceDocument.model_validate(data)
    except ValidationError as exc:
        raise ReferenceFileError(file, validation_problems(exc)) from exc


def read_json(path: Path) -> Any:
    """A JSON file's value. Raises :class:`ReferenceFileError` (file unreadable or not JSON, with the
    line and column)."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        problem = f"not valid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        raise ReferenceFileError(str(path), [problem]) from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ReferenceFileError(str(path), [f"cannot read: {exc}"]) from exc


def month_start(month: str) -> dt.date:
    """The first day of ``YYYY-MM``."""
    year, mon = (int(x) for x in month.split("-"))
    return dt.date(year, mon, 1)


def _entry(e: MiningPlanItemDoc, finished: bool | None = None) -> MiningPlanEntry:
    done = is_finished(e.state) if finished is None else finished
    return MiningPlanEntry(location=e.location, kind=e.kind, state=e.state, finished=done)


def _survey(records: dict[str, AirSurveyDoc]) -> dict[str, AirSurveyRecord]:
    return {k: AirSurveyRecord(**v.model_dump()) for k, v in records.items()}


def build_months(doc: ReferenceDocument, file: str = "<document>") -> list[MonthlyReference]:
    """The document's months as :class:`MonthlyReference`.

    Air survey of month M: every survey of the mine is dated (``air_surveys`` entries by their
    ``date``; a month's own ``air_survey`` by its ``air_survey_date``, else the last day of the month
    before it), and M gets the latest one dated before M's first day (on equal dates, the month's own).
    Raises :class:`ReferenceFileError` when a month's ``air_survey_date`` is not before that month.
    """
    surveys: list[tuple[dt.date, int, str, dict[str, AirSurveyDoc]]] = [
        (s.date, 0, f"air_surveys[{i}]", s.records) for i, s in enumerate(doc.air_surveys)
    ]
    for month, rec in doc.reference.items():
        if not rec.air_survey:
            continue
        start = month_start(month)
        when = rec.air_survey_date or start - dt.timedelta(days=1)
        if when >= start:
            raise ReferenceFileError(
                file, [f"reference.{month}.air_survey_date: {when} is not before the month {month}"]
            )
        surveys.append((when, 1, month, rec.air_survey))
    classes = {**_plan_input_classes(doc), **doc.roadway_classes}
    diesel = {**_plan_input_diesel(doc), **doc.diesel_kw}
    out = []
    for month, rec in doc.reference.items():
        start = month_start(month)
        earlier = [s for s in surveys if s[0] < start]
        latest = max(earlier, key=lambda s: (s[0], s[1]), default=None)
        out.append(
            MonthlyReference(
                mine=doc.mine.name,
                month=month,
                mining_plan=[_entry(e) for e in rec.mining_plan],
                completed=[_entry(e, True) for e in rec.completed_this_month],
                gas_report=dict(rec.gas_report),
                face_procedures={k: FaceProcedure(**v.model_dump()) for k, v in rec.face_procedures.items()},
                air_survey=_survey(latest[3]) if latest else {},
                air_survey_date=latest[0].isoformat() if latest else None,
                roadway_classes={**classes, **rec.roadway_classes},
                diesel_kw={**diesel, **rec.diesel_kw},
            )
        )
    return out


def _plan_input_classes(doc: ReferenceDocument) -> dict[str, str]:
    """Roadway classes given with the demo mine's ``plan_inputs_YYYY_MM`` items."""
    return {
        str(item["name"]): str(item["roadway_class"])
        for key, items in (doc.model_extra or {}).items()
        if key.startswith("plan_inputs") and isinstance(items, list)
        for item in items
        if isinstance(item, dict) and item.get("roadway_class") and item.get("name")
    }


def _plan_input_diesel(doc: ReferenceDocument) -> dict[str, float]:
    """Diesel power running at once (kW: ``vehicles`` × ``vehicle_kw``) given with the demo mine's
    ``plan_inputs_YYYY_MM`` items."""
    return {
        str(item["name"]): float(item["vehicles"]) * float(item["vehicle_kw"])
        for key, items in (doc.model_extra or {}).items()
        if key.startswith("plan_inputs") and isinstance(items, list)
        for item in items
        if isinstance(item, dict) and item.get("name") and item.get("vehicles") and item.get("vehicle_kw")
    }


class JsonReferenceData(StaticReferenceData):
    """Reference data from one JSON document in the reference format (docs/REFERENCE_DATA.md)::

        {"mine": {"name": "示范煤矿", "aliases": [...]?},
         "reference": {"2026-08": {"mining_plan": [{"location", "kind", "state"}],
                                   "completed_this_month": [{"location", "state"}]?,
                                   "gas_report": {location: m³/min},
                                   "face_procedures": {location: {face_length_m, mining_height_m,
                                       roof_control_max_m, roof_control_min_m, max_workers}},
                                   "air_survey": {location: {wind_speed, area, ch4_return, ch4_intake, temp}},
                                   "air_survey_date": "YYYY-MM-DD"?,
                                   "roadway_classes": {location: 表6 class}?}},
         "air_surveys": [{"date": "YYYY-MM-DD", "records": {location: {...}}}]?,
         "roadway_classes": {location: 表6 class}?,
         "plan_inputs_YYYY_MM": [{"name", "roadway_class"?}]?}

    Give ``path`` or an already loaded ``data`` dict; default: the packaged demo mine. Raises
    :class:`ReferenceFileError` (a ``ValueError``) naming the file and field when the document is not
    valid (no ``mine.name``, a figure that is not a number or out of range, an unknown field in a
    month…).
    """

    def __init__(self, path: Path | None = None, *, data: dict[str, Any] | None = None) -> None:
        label = str(path) if path is not None else "<data>"
        if data is None:
            if path is None:
                label = "vent_agent/data/demo_mine.json"
                text = (
                    resources.files("vent_agent").joinpath("data/demo_mine.json").read_text(encoding="utf-8")
                )
                data = json.loads(text)
            else:
                data = read_json(Path(path))
        doc = parse_document(data, label)
        super().__init__(build_months(doc, label), {doc.mine.name: list(doc.mine.aliases)})
        self.mine = doc.mine.name
        self.document = doc


def default_reference() -> JsonReferenceData:
    """The embedded demo mine's reference data (``vent_agent/data/demo_mine.json``)."""
    return JsonReferenceData()
