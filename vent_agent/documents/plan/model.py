"""The structured air-distribution plan (月度配风计划) that the review works on.

Parsed from a PDF by :mod:`vent_agent.documents.plan.parser`; independent of any one layout. Every figure
keeps the unit as written and where it was read (page, and the table cell for tabular figures).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from vent_agent.documents.quality import PageRead
from vent_agent.documents.repeats import RepeatedContent

LocationKind = Literal[
    "coal_face",
    "standby_face",
    "heading",
    "chamber_heat",
    "explosives_store",
    "charging",
    "other_roadway",
    "diesel_roadway",
    "unknown",
]


Confidence = Literal["exact", "inferred", "uncertain"]
"""How sure the reader is of a figure: ``exact`` (a labelled table cell or a labelled statement, unit
resolved), ``inferred`` (read by position from text lines, or its unit assumed because none is written),
``uncertain`` (the reading is ambiguous: a range, a row with fewer values than columns…)."""


class SourceRef(BaseModel):
    """Where a figure was read: 1-based page; for table cells the 1-based table on the page, the row as
    the plan numbers it (its 序号) or else the 1-based data row under the header (header rows are never
    counted), and the column label; the raw text it was read from.

    ``cell_row`` is the 1-based row of the physical table as extracted (header rows counted), to trace
    a cell back to the extraction; ``confidence`` says how sure the reader is (:data:`Confidence`)."""

    page: int
    table: int | None = None
    row: int | None = None
    column: str | None = None
    text: str = ""
    cell_row: int | None = None
    confidence: Confidence = "exact"


class Figure(BaseModel):
    """A number as the plan states it. Flows (air volumes, gas emissions) are converted once, when
    read, to m³/min: ``unit`` is then ``m³/min`` and ``unit_written`` the unit as the plan wrote it
    (``m³/s``, ``m3/h``, ``立方米/分`` …; None when the same). Other figures keep the plan's unit
    (``m²``, ``m/s``, ``%``, ``℃``…). ``upper`` is the upper end of a range written ``1.5–1.8``
    (``value`` is then its lower end)."""

    value: float
    unit: str | None = None
    ref: SourceRef
    unit_written: str | None = None
    upper: float | None = None


class MethodStatement(BaseModel):
    """One stated calculation method of a location.

    ``method`` is a normalised key: gas, co2, climate, climate_textbook, workers, explosives, fan_intake,
    vehicle, heat, volume, min_q, h2, standby, other. ``operands`` are the numbers of the substituted
    expression in order (e.g. ``[100, 4.2, 1.5]``); ``stated`` is the result the plan writes.
    """

    method: str
    label: str
    expression: str
    operands: list[float] = Field(default_factory=list)
    stated: Figure | None = None
    symbols: dict[str, float] = Field(default_factory=dict)
    """Symbol → value where the symbolic and the substituted expression line up (``{"q": 4.2, "k": 1.5}``)."""


class SpeedCheckStatement(BaseModel):
    """The wind-speed check as the plan writes it: ``lower ≤ Q ≤ upper`` (m³/min)."""

    lower: float | None = None
    upper: float | None = None
    ref: SourceRef


class LocationPlan(BaseModel):
    """One air-using location (用风地点) with its inputs and calculation process.

    ``inputs`` keys use the glossary names: gas_emission (m³/min), k_gas, co2_emission, face_length (m),
    mining_height (m), roof_control_max / roof_control_min (m), intake_temp (°C), workers, area (m²),
    explosive_kg, fan_intake_q (m³/min), fan_count, power_kw, theta, delta_t, volume_m3, h2_emission,
    vehicles, vehicle_kw, v_climate (m/s), k_h, k_l; ``rock`` is coal / half_coal / rock for headings.
    """

    name: str
    kind: LocationKind = "unknown"
    kind_label: str = ""
    rock: str | None = None
    standby_of: str | None = None
    inputs: dict[str, Figure] = Field(default_factory=dict)
    methods: list[MethodStatement] = Field(default_factory=list)
    stated_required: Figure | None = None
    speed_check: SpeedCheckStatement | None = None
    ref: SourceRef | None = None


class AllocationRow(BaseModel):
    """A row of the allocation table (风量分配表). Units as written in the column headers."""

    location: str
    required_q: Figure | None = None
    allocated_q: Figure | None = None
    area: Figure | None = None
    planned_speed: Figure | None = None
    measured_speed: Figure | None = None
    ch4: Figure | None = None
    co2: Figure | None = None
    temperature: Figure | None = None
    measured_q: Figure | None = None
    ref: SourceRef


class SignOff(BaseModel):
    """One sign-off column of the approval block: role (编制/审核/批准), title, name, date (ISO)."""

    role: str
    title: str = ""
    name: str | None = None
    date: str | None = None
    ref: SourceRef | None = None


class Totals(BaseModel):
    """The mine totals as stated: Σ required Q, k_mine, the mine total, people, capacity (m³/min)."""

    stated_sum: Figure | None = None
    k_mine: Figure | None = None
    mine_total: Figure | None = None
    max_people: Figure | None = None
    capacity: Figure | None = None


class Citation(BaseModel):
    """A regulation or standard cited in the plan: ``document`` (``煤矿安全规程``, ``AQ 1056-2008``…),
    the edition year as written (``2016``, ``2022``, ``2025``; None when not stated), the article number
    when one is cited (digits or Chinese numerals), and where."""

    document: str
    edition: str | None = None
    article: int | None = None
    text: str = ""
    page: int | None = None
    context: str = ""
    """The words of the sentence before the citation (what it is cited for: ``风速验算…符合``)."""


class ReadingGap(BaseModel):
    """Something the plan shows that the reader could not attribute: ``topic`` is ``calculation``
    (calculation statements outside any location block, or a block with formulas but no method read)
    or ``signoff`` (approval words in the text but no sign-off read); ``location`` when known."""

    topic: Literal["calculation", "signoff", "allocation"]
    location: str | None = None
    page: int | None = None
    note: str = ""


class Plan(BaseModel):
    """A parsed monthly air-distribution plan."""

    title: str = ""
    mine: str | None = None
    month: str | None = None  # "YYYY-MM"
    version: str | None = None
    prepared_date: str | None = None  # ISO date
    basis: list[str] = Field(default_factory=list)
    regulation_editions: list[str] = Field(default_factory=list)
    locations: list[LocationPlan] = Field(default_factory=list)
    listed_locations: list[str] = Field(default_factory=list)
    allocation: list[AllocationRow] = Field(default_factory=list)
    totals: Totals = Field(default_factory=Totals)
    signoffs: list[SignOff] = Field(default_factory=list)
    page_count: int = 0
    char_count: int = 0
    warnings: list[str] = Field(default_factory=list)
    citations: list[Citation] = Field(default_factory=list)
    gaps: list[ReadingGap] = Field(default_factory=list)
    """What the plan shows but the reader could not attribute (see :class:`ReadingGap`)."""
    section_pages: dict[str, int] = Field(default_factory=dict)
    """First page of each recognised section: basis, overview, locations, calculation, allocation,
    totals, measures, signoff."""
    repeats: RepeatedContent | None = None
    """Copies of the plan or its tables found in the PDF (read once: :mod:`.repeats`); None when none."""
    pages_read: list[PageRead] = Field(default_factory=list)
    """How each page was read: text layer or OCR and why, layer score, normalisation counts."""

    def location(self, name: str) -> LocationPlan | None:
        """The location of that name (exact match after removing spaces), or None."""
        key = name.replace(" ", "")
        return next((loc for loc in self.locations if loc.name.replace(" ", "") == key), None)
