"""The content of a monthly air-distribution plan (配风计划), independent of how it is written.

:func:`demo_plan` builds the demo mine's 2026-08 plan from ``vent_agent/data/demo_mine.json``
(``plan_inputs_2026_08``, the mine profile and the month's air survey), with the plan's own arithmetic
done here the way a mine's ventilation engineer does it (docs/DOMAIN.md §2). A hand
(:mod:`tests.plan_hands.hands`) decides how it is written; a fault (:mod:`tests.plan_hands.faults`)
changes the content. Units: air volumes m³/min, speeds m/s, areas m², CH₄ %, temperatures °C.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

AIR = 60.0  # s per min
ROCK_MIN_SPEED = {"coal": 0.25, "half_coal": 0.25, "rock": 0.15}  # m/s, 规程 第136条
MAX_SPEED = {"coal_face": 4.0, "heading": 4.0, "diesel_roadway": 6.0}  # m/s, 规程 第136条


@dataclass
class Method:
    """One calculation method as the plan states it.

    ``key``: gas, co2, climate, workers, explosives, fan_intake, standby, heat, volume, min_q, h2,
    vehicle. ``formula`` symbolic (``Q = 100 × q × k``), ``operands`` the substituted numbers in the
    formula's order (already formatted as the plan writes them), ``inputs`` the symbols' values for a
    tabular hand (symbol → (value text, unit)), ``result`` m³/min as the plan writes it (a fault may
    make it wrong).
    """

    key: str
    label: str
    formula: str
    operands: list[str]
    inputs: list[tuple[str, str, str]]
    result: float

    @property
    def expression(self) -> str:
        """The substituted expression in the formula's shape (``420 × 1 + 60 × 0.25 × 14.2``)."""
        o = self.operands
        if self.key == "heat":
            return f"{o[0]} × {o[1]} × {o[2]} / ({o[3]} × {o[4]} × {o[5]} × {o[6]})"
        if self.key == "fan_intake":
            return f"{o[0]} × {o[1]} + {o[2]} × {o[3]} × {o[4]}"
        if self.key == "volume":
            return f"{o[0]} × {o[1]} / {o[2]}"
        return " × ".join(o)


@dataclass
class Location:
    """One air-using location (用风地点) with everything the plan says about it.

    ``params``: the basic parameters line, as (glossary name, label, value text, unit). ``required``
    the required Q the plan takes (m³/min); ``allocated`` the planned Q; ``area`` (m²),
    ``planned_speed``/``measured_speed`` (m/s), ``ch4`` (%), ``temp`` (°C): the allocation row, None for
    a dash. ``speed_check`` (lower, upper) m³/min. ``required_unit_slip``: the allocation table writes
    this location's required Q in another unit than its column's (a units fault).
    """

    name: str
    kind: str
    kind_label: str
    params: list[tuple[str, str, str, str]] = field(default_factory=list)
    area_lines: list[str] = field(default_factory=list)
    methods: list[Method] = field(default_factory=list)
    required: float = 0.0
    allocated: float = 0.0
    area: float | None = None
    planned_speed: float | None = None
    measured_speed: float | None = None
    ch4: float | None = None
    temp: float | None = None
    speed_check: tuple[float, float] | None = None
    required_unit_slip: bool = False

    def method(self, key: str) -> Method:
        """The method ``key`` (KeyError when the location has none)."""
        return next(m for m in self.methods if m.key == key)

    def governing(self) -> float:
        """The largest method result: what the required Q must be."""
        return max(m.result for m in self.methods)


@dataclass
class SignOff:
    """One signature: role 编制/审核/批准, title, name and date (None: left blank)."""

    role: str
    title: str
    name: str | None
    date: dt.date | None


@dataclass
class PlanDoc:
    """A whole plan: title parts, basis, overview, locations, mine totals, measures, sign-offs.

    ``stated_sum`` is ΣQ as written (m³/min; a fault may make it differ from the per-location values);
    ``k_mine`` the mine coefficient; ``people`` the most people underground; ``capacity`` m³/min.
    """

    mine: str
    year: int
    month: int
    version: str
    drawn_up: dt.date
    basis: list[str]
    overview: str
    locations: list[Location]
    stated_sum: float
    k_mine: float
    fan_mode: str
    people: int
    capacity: float
    measures: list[str]
    signoffs: list[SignOff]

    def location(self, name: str) -> Location:
        """The location called ``name`` (KeyError when absent)."""
        for loc in self.locations:
            if loc.name == name:
                return loc
        raise KeyError(name)

    def resum(self) -> None:
        """Recompute ΣQ from the stated required values (after a change of content)."""
        self.stated_sum = round(sum(loc.required for loc in self.locations), 1)

    @property
    def mine_total(self) -> float:
        """Q矿 = ΣQ × k (m³/min), from the stated ΣQ."""
        return round(self.stated_sum * self.k_mine, 1)


def q1(x: float) -> float:
    """Rounded as plans write air volumes (0.1 m³/min)."""
    return round(x + 1e-9, 1)


def f(x: float, decimals: int = 1) -> str:
    """A plain ASCII figure with ``decimals`` decimals (hands re-format figures they render)."""
    return f"{x:.{decimals}f}"


def g(x: float) -> str:
    """An input as written: no trailing zeros (``1.8``, ``420``, ``0.02``)."""
    return f"{x:g}"


KIND_LABELS = {
    "coal_face": "采煤工作面",
    "standby_face": "备用工作面",
    "heading": "掘进工作面",
    "chamber_heat": "机电硐室",
    "explosives_store": "爆炸材料库",
    "charging": "充电硐室",
    "diesel_roadway": "其他用风巷道（胶轮车）",
}


def _coal_face(p: dict[str, Any], survey: dict[str, Any]) -> Location:
    h, lmax, lmin = p["mining_height"], p["roof_control_max"], p["roof_control_min"]
    s_avg = round(h * (lmax + lmin) / 2, 3)
    s_max, s_min = round(0.7 * lmax * h, 3), round(0.7 * lmin * h, 3)
    methods = [
        Method(
            "gas",
            "按瓦斯涌出量计算",
            "Q = 100 × q × k",
            ["100", f(p["gas_emission"], 2), g(p["k_gas"])],
            [("q", f(p["gas_emission"], 2), "m³/min"), ("k", g(p["k_gas"]), "")],
            q1(100 * p["gas_emission"] * p["k_gas"]),
        ),
        Method(
            "co2",
            "按二氧化碳涌出量计算",
            "Q = 67 × q × k",
            ["67", f(p["co2_emission"], 2), g(p["k_co2"])],
            [("q", f(p["co2_emission"], 2), "m³/min"), ("k", g(p["k_co2"]), "")],
            q1(67 * p["co2_emission"] * p["k_co2"]),
        ),
        Method(
            "climate",
            "按气象条件计算",
            "Q = 60 × 70% × v × S × k采高 × k面长",
            ["60", "0.7", g(p["v_climate"]), f(s_avg, 3), g(p["k_h"]), g(p["k_l"])],
            [
                ("v", g(p["v_climate"]), "m/s"),
                ("S", f(s_avg, 3), "m²"),
                ("k采高", g(p["k_h"]), ""),
                ("k面长", g(p["k_l"]), ""),
            ],
            q1(60 * 0.7 * p["v_climate"] * s_avg * p["k_h"] * p["k_l"]),
        ),
        Method(
            "workers",
            "按人数计算",
            "Q = 4 × N",
            ["4", g(p["workers"])],
            [("N", g(p["workers"]), "人")],
            q1(4 * p["workers"]),
        ),
    ]
    loc = Location(
        p["name"],
        "coal_face",
        KIND_LABELS["coal_face"],
        params=[
            ("face_length", "工作面长度", g(p["face_length"]), "m"),
            ("mining_height", "采高", g(p["mining_height"]), "m"),
            ("roof_control_max", "最大控顶距", g(lmax), "m"),
            ("roof_control_min", "最小控顶距", g(lmin), "m"),
            ("gas_emission", "绝对瓦斯涌出量", f(p["gas_emission"], 2), "m³/min"),
            ("k_gas", "瓦斯涌出不均匀系数", g(p["k_gas"]), ""),
            ("intake_temp", "进风流温度", f(p["intake_temp"], 1), "℃"),
            ("workers", "最多作业人数", g(p["workers"]), "人"),
        ],
        area_lines=[
            f"工作面平均断面：S = 采高 × 平均控顶距 = {g(h)} × ({g(lmax)} + {g(lmin)})/2 = {f(s_avg, 3)} m²",
            f"有效断面（风速验算用）：S最大 = 0.7 × {g(lmax)} × {g(h)} = {f(s_max, 3)} m²，"
            f"S最小 = 0.7 × {g(lmin)} × {g(h)} = {f(s_min, 3)} m²，平均 {f((s_max + s_min) / 2, 3)} m²",
        ],
        methods=methods,
        speed_check=(q1(60 * 0.25 * s_max), q1(60 * MAX_SPEED["coal_face"] * s_min)),
    )
    loc.area = survey.get("area") or round((s_max + s_min) / 2, 1)
    return loc


def _heading(p: dict[str, Any]) -> Location:
    v_min = ROCK_MIN_SPEED[p["rock"]]
    s = p["area"]
    methods = [
        Method(
            "gas",
            "按瓦斯涌出量计算",
            "Q = 100 × q × k",
            ["100", f(p["gas_emission"], 2), g(p["k_gas"])],
            [("q", f(p["gas_emission"], 2), "m³/min"), ("k", g(p["k_gas"]), "")],
            q1(100 * p["gas_emission"] * p["k_gas"]),
        )
    ]
    if p["explosive_kg"]:
        methods.append(
            Method(
                "explosives",
                "按炸药量计算",
                "Q = 25 × A",
                ["25", g(p["explosive_kg"])],
                [("A", g(p["explosive_kg"]), "kg")],
                q1(25 * p["explosive_kg"]),
            )
        )
    methods += [
        Method(
            "fan_intake",
            "按局部通风机吸风量计算",
            f"Q = Qf × I + 60 × {g(v_min)} × S",
            [g(p["fan_intake_q"]), g(p["fan_count"]), "60", g(v_min), f(s, 1)],
            [("Qf", g(p["fan_intake_q"]), "m³/min"), ("I", g(p["fan_count"]), "台"), ("S", f(s, 1), "m²")],
            q1(p["fan_intake_q"] * p["fan_count"] + 60 * v_min * s),
        ),
        Method(
            "workers",
            "按人数计算",
            "Q = 4 × N",
            ["4", g(p["workers"])],
            [("N", g(p["workers"]), "人")],
            q1(4 * p["workers"]),
        ),
    ]
    rock_cn = {"coal": "煤巷", "half_coal": "半煤岩巷", "rock": "岩巷"}[p["rock"]]
    return Location(
        p["name"],
        "heading",
        KIND_LABELS["heading"],
        params=[
            ("rock", "", rock_cn, ""),
            ("area", "断面", f(s, 1), "m²"),
            ("gas_emission", "绝对瓦斯涌出量", f(p["gas_emission"], 2), "m³/min"),
            ("k_gas", "系数", g(p["k_gas"]), ""),
            ("explosive_kg", "一次爆破最大炸药量", g(p["explosive_kg"]), "kg"),
            (
                "fan",
                "局部通风机",
                f"{p['fan_model']}（吸风量{g(p['fan_intake_q'])}m³/min，{p['fan_count']}台）",
                "",
            ),
            ("workers", "最多作业人数", g(p["workers"]), "人"),
        ],
        methods=methods,
        area=s,
        speed_check=(q1(60 * v_min * s), q1(60 * MAX_SPEED["heading"] * s)),
    )


def _chamber_heat(p: dict[str, Any]) -> Location:
    return Location(
        p["name"],
        "chamber_heat",
        KIND_LABELS["chamber_heat"],
        methods=[
            Method(
                "heat",
                "按发热量计算",
                "Q = 3600 × ΣW × θ / (ρ × Cp × 60 × Δt)",
                ["3600", g(p["power_kw"]), g(p["theta"]), "1.2", "1.0006", "60", f(p["delta_t"], 1)],
                [("ΣW", g(p["power_kw"]), "kW"), ("θ", g(p["theta"]), ""), ("Δt", f(p["delta_t"], 1), "℃")],
                q1(3600 * p["power_kw"] * p["theta"] / (1.2 * 1.0006 * 60 * p["delta_t"])),
            )
        ],
    )


def _explosives_store(p: dict[str, Any]) -> Location:
    floor = {"大型": 100, "中型": 60, "小型": 60}[p["size"]]
    return Location(
        p["name"],
        "explosives_store",
        KIND_LABELS["explosives_store"],
        methods=[
            Method(
                "volume",
                "按库容计算",
                "Q = 4 × V / 60",
                ["4", g(p["volume_m3"]), "60"],
                [("V", g(p["volume_m3"]), "m³")],
                q1(4 * p["volume_m3"] / 60),
            ),
            Method("min_q", "按最低风量计算", f"{p['size']}库不小于 {floor} m³/min", [], [], float(floor)),
        ],
    )


def _charging(p: dict[str, Any]) -> Location:
    return Location(
        p["name"],
        "charging",
        KIND_LABELS["charging"],
        methods=[
            Method(
                "h2",
                "按氢气涌出量计算",
                "Q = 200 × q",
                ["200", g(p["h2_emission"])],
                [("q", g(p["h2_emission"]), "m³/min")],
                q1(200 * p["h2_emission"]),
            ),
            Method("min_q", "按最低风量计算", "不小于 100 m³/min", [], [], 100.0),
        ],
    )


def _diesel_roadway(p: dict[str, Any]) -> Location:
    s = p["area"]
    return Location(
        p["name"],
        "diesel_roadway",
        KIND_LABELS["diesel_roadway"],
        params=[
            ("area", "断面", f(s, 1), "m²"),
            ("vehicles", "同时运行防爆胶轮车", g(p["vehicles"]), "台"),
            ("vehicle_kw", "单台功率", g(p["vehicle_kw"]), "kW"),
        ],
        methods=[
            Method(
                "vehicle",
                "按胶轮车功率计算",
                "Q = 4 × ΣP",
                ["4", g(p["vehicles"]), g(p["vehicle_kw"])],
                [("n", g(p["vehicles"]), "台"), ("P", g(p["vehicle_kw"]), "kW")],
                q1(4 * p["vehicles"] * p["vehicle_kw"]),
            ),
        ],
        area=s,
        speed_check=(q1(60 * 0.25 * s), q1(60 * MAX_SPEED["diesel_roadway"] * s)),
    )


def _standby(p: dict[str, Any], of: Location) -> Location:
    q = of.governing()
    return Location(
        p["name"],
        "standby_face",
        KIND_LABELS["standby_face"],
        methods=[
            Method(
                "standby",
                "按备用工作面计算",
                f"Q = 50% × Q{of.name}",
                ["0.5", f(q)],
                [(f"Q{of.name}", f(q), "m³/min")],
                q1(0.5 * q),
            ),
        ],
    )


_BUILDERS = {
    "heading": _heading,
    "chamber_heat": _chamber_heat,
    "explosives_store": _explosives_store,
    "charging": _charging,
    "diesel_roadway": _diesel_roadway,
}


def demo_document() -> dict[str, Any]:
    """The demo mine's document (mine profile, reference data, plan inputs) as shipped with the package."""
    text = resources.files("vent_agent.data").joinpath("demo_mine.json").read_text(encoding="utf-8")
    document: dict[str, Any] = json.loads(text)
    return document


def demo_plan() -> PlanDoc:
    """The demo mine's correct 2026-08 plan: every required Q is its methods' maximum, every allocated
    Q covers it, the speeds are the allocation over the section, the measured figures the month's survey."""
    doc = demo_document()
    mine = doc["mine"]
    survey = doc["reference"]["2026-08"]["air_survey"]
    locations: list[Location] = []
    for p in doc["plan_inputs_2026_08"]:
        s = survey.get(p["name"], {})
        if p["kind"] == "coal_face":
            loc = _coal_face(p, s)
        elif p["kind"] == "standby_face":
            loc = _standby(p, next(x for x in locations if x.name == p["of"]))
        else:
            loc = _BUILDERS[p["kind"]](p)
        loc.required = loc.governing()
        loc.allocated = float(p["allocated_q"])
        if loc.area is not None:
            loc.planned_speed = round(loc.allocated / AIR / loc.area, 2)
        loc.measured_speed = s.get("wind_speed")
        loc.ch4 = s.get("ch4_return")
        loc.temp = s.get("temp")
        locations.append(loc)
    fans = "、".join(
        f"{x['name']}（{x['model']}，{x['power_kw']}kW，{x['state']}）" for x in mine["main_fans"]
    )
    plan = PlanDoc(
        mine=mine["name"],
        year=2026,
        month=8,
        version="V1.0",
        drawn_up=dt.date(2026, 7, 25),
        basis=[
            "2026年8月份采掘作业计划",
            f"{mine['name']}2026年度矿井瓦斯等级鉴定报告",
            "2026年7月份测风报表及矿井通风阻力测定报告",
            "《煤矿安全规程》及AQ 1056-2008《煤矿通风能力核定标准》",
            f"{mine['name']}矿井风量计算方法（2024年修订）",
        ],
        overview=(
            f"{mine['name']}为{mine['gas_grade']}，核定生产能力{g(mine['capacity_mt_a'])}Mt/a，采用{mine['ventilation']}。"
            f"主要通风机：{fans}。矿井总进风量{g(mine['total_intake_q'])}m³/min，总回风量"
            f"{g(mine['total_return_q'])}m³/min，井下同时工作最多人数{mine['max_people_underground']}人。"
        ),
        locations=locations,
        stated_sum=0.0,
        k_mine=mine["k_mine"],
        fan_mode="抽出式",
        people=mine["max_people_underground"],
        capacity=mine["ventilation_capacity_q"],
        measures=[
            f"{locations[0].name}回风隅角加强瓦斯检查，每班不少于3次",
            "各掘进工作面局部通风机实行“三专两闭锁”，每天进行一次主备风机自动切换试验",
            "调风时由通风区统一指挥，调风后30min内完成测风并填写测风记录牌",
        ],
        signoffs=[
            SignOff("编制", "通风技术员", "李明", dt.date(2026, 7, 25)),
            SignOff("审核", "通风区长", "王建国", dt.date(2026, 7, 27)),
            SignOff("审核", "通风副总工程师", "赵志强", dt.date(2026, 7, 27)),
            SignOff("批准", "总工程师", "陈卫东", dt.date(2026, 7, 28)),
        ],
    )
    plan.resum()
    return plan
