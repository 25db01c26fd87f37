"""Reference data the data-checker compares a plan with: for one mine and month, the monthly mining
plan, the gas-grade report, the faces' operating procedures and the air survey (DOMAIN.md §4).

:class:`ReferenceData` is a synchronous Protocol with one method, :meth:`~ReferenceData.monthly`. The
review runs ``review_data`` in a worker thread, so an implementation over an async client (the mine
platform's MCP server) either fetches the month beforehand and hands the result over as a
:class:`StaticReferenceData`, or bridges inside ``monthly`` with ``asyncio.run_coroutine_threadsafe``
onto its own event loop. :class:`JsonReferenceData` reads the demo mine's JSON format
(``vent_agent/data/demo_mine.json``); :func:`default_reference` is that file.

Units: gas emission m³/min (absolute, ventilation-borne); wind speed m/s; area m²; CH₄ %; temperature
°C; face length, mining height, roof-control distances m.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from vent_agent.documents.plan_text import name_key

_FINISHED = re.compile(r"贯通|停掘|停止|结束|完工|封闭|撤除|撤出|停采|采完|已完成|报废")


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
    stopped during or before the month (stale if still planned); ``roadway_classes`` maps a roadway to
    its 表6 class (采区进风巷 …) where known."""

    mine: str
    month: str
    mining_plan: list[MiningPlanEntry] = field(default_factory=list)
    completed: list[MiningPlanEntry] = field(default_factory=list)
    gas_report: dict[str, float] = field(default_factory=dict)
    face_procedures: dict[str, FaceProcedure] = field(default_factory=dict)
    air_survey: dict[str, AirSurveyRecord] = field(default_factory=dict)
    roadway_classes: dict[str, str] = field(default_factory=dict)


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
    with :func:`same_mine`."""

    def __init__(self, months: list[MonthlyReference], aliases: dict[str, list[str]] | None = None) -> None:
        self._months = list(months)
        self._aliases = aliases or {}

    def monthly(self, mine: str, month: str) -> MonthlyReference | None:
        for ref in self._months:
            names = [ref.mine, *self._aliases.get(ref.mine, [])]
            if ref.month == month and any(same_mine(mine, n) for n in names):
                return ref
        return None


def _num(v: Any) -> float | None:
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None


def _month(mine: str, month: str, rec: dict[str, Any], classes: dict[str, str]) -> MonthlyReference:
    def entry(e: dict[str, Any], finished: bool | None = None) -> MiningPlanEntry:
        state = str(e.get("state", ""))
        done = is_finished(state) if finished is None else finished
        return MiningPlanEntry(
            location=str(e["location"]), kind=str(e.get("kind", "")), state=state, finished=done
        )

    return MonthlyReference(
        mine=mine,
        month=month,
        mining_plan=[entry(e) for e in rec.get("mining_plan", [])],
        completed=[entry(e, True) for e in rec.get("completed_this_month", [])],
        gas_report={k: float(v) for k, v in rec.get("gas_report", {}).items() if _num(v) is not None},
        face_procedures={
            k: FaceProcedure(**{f: _num(v.get(f)) for f in FaceProcedure.__dataclass_fields__})
            for k, v in rec.get("face_procedures", {}).items()
        },
        air_survey={
            k: AirSurveyRecord(**{f: _num(v.get(f)) for f in AirSurveyRecord.__dataclass_fields__})
            for k, v in rec.get("air_survey", {}).items()
        },
        roadway_classes={**classes, **rec.get("roadway_classes", {})},
    )


class JsonReferenceData(StaticReferenceData):
    """Reference data from a JSON document in the demo mine's format::

        {"mine": {"name": "示范煤矿", "aliases": [...]?},
         "reference": {"2026-08": {"mining_plan": [{"location", "kind", "state"}],
                                   "completed_this_month": [{"location", "state"}]?,
                                   "gas_report": {location: m³/min},
                                   "face_procedures": {location: {face_length_m, mining_height_m,
                                       roof_control_max_m, roof_control_min_m, max_workers}},
                                   "air_survey": {location: {wind_speed, area, ch4_return, ch4_intake, temp}},
                                   "roadway_classes": {location: 表6 class}?}},
         "plan_inputs_YYYY_MM": [{"name", "roadway_class"?}]?}

    Give ``path`` or an already loaded ``data`` dict; default: the packaged demo mine. Raises
    ``ValueError`` when the document has no ``mine.name``.
    """

    def __init__(self, path: Path | None = None, *, data: dict[str, Any] | None = None) -> None:
        if data is None:
            if path is None:
                text = (
                    resources.files("vent_agent").joinpath("data/demo_mine.json").read_text(encoding="utf-8")
                )
            else:
                text = Path(path).read_text(encoding="utf-8")
            data = json.loads(text)
        mine = (data.get("mine") or {}).get("name")
        if not mine:
            raise ValueError("reference data: mine.name missing")
        classes = {
            str(item["name"]): str(item["roadway_class"])
            for key, items in data.items()
            if key.startswith("plan_inputs") and isinstance(items, list)
            for item in items
            if isinstance(item, dict) and item.get("roadway_class") and item.get("name")
        }
        months = [_month(mine, m, rec, classes) for m, rec in (data.get("reference") or {}).items()]
        super().__init__(months, {mine: list((data.get("mine") or {}).get("aliases", []))})
        self.mine = mine


def default_reference() -> JsonReferenceData:
    """The embedded demo mine's reference data (``vent_agent/data/demo_mine.json``)."""
    return JsonReferenceData()
