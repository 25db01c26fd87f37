"""Plan parser on both sample PDFs, in full: cover, basis, every location with its kind, inputs, methods
(operands, stated values, pages), the allocation table, totals and sign-offs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import present
from vent_agent.documents.plan.model import Plan

DATA = Path(__file__).parent / "data"


# name, kind, kind label, rock, first page of the block
LOCATIONS_A = [
    ("15216综采工作面", "coal_face", "采煤工作面", None, 1),
    ("15218工作面", "standby_face", "备用工作面", None, 2),
    ("15220运输顺槽掘进工作面", "heading", "掘进工作面", "coal", 2),
    ("15220回风顺槽掘进工作面", "heading", "掘进工作面", "coal", 2),
    ("15222切眼掘进工作面", "heading", "掘进工作面", "coal", 3),
    ("二采区轨道下山掘进工作面", "heading", "掘进工作面", "rock", 3),
    ("中央变电所", "chamber_heat", "机电硐室", None, 3),
    ("主排水泵房", "chamber_heat", "机电硐室", None, 3),
    ("井下爆炸材料库", "explosives_store", "爆炸材料库", None, 4),
    ("充电硐室", "charging", "充电硐室", None, 4),
    ("15216辅运起坡段", "diesel_roadway", "其他用风巷道(胶轮车)", None, 4),
]

# location -> [(method, operands, stated, page of the stated figure)], stated Q需, speed bounds
METHODS_A: dict[str, tuple[list[tuple[str, list[float], float, int]], float, tuple[float, float] | None]] = {
    "15216综采工作面": (
        [
            ("gas", [100, 4.2, 1.5], 630.0, 2),
            ("co2", [67, 0.8, 1.5], 80.4, 2),
            ("climate", [60, 0.7, 1.0, 16.64, 1.2, 1.35], 1132.2, 2),
            ("workers", [4, 38], 152.0, 2),
        ],
        1132.2,
        (194.9, 2473.0),
    ),
    "15218工作面": ([("standby", [0.5, 1132.2], 566.1, 2)], 566.1, None),
    "15220运输顺槽掘进工作面": (
        [
            ("gas", [100, 0.8, 1.8], 144.0, 2),
            ("fan_intake", [420, 1, 60, 0.25, 14.2], 633.0, 2),
            ("workers", [4, 18], 72.0, 2),
        ],
        633.0,
        (213.0, 3408.0),
    ),
    "15220回风顺槽掘进工作面": (
        [
            ("gas", [100, 1.6, 1.8], 288.0, 2),
            ("fan_intake", [420, 1, 60, 0.25, 13.8], 627.0, 2),
            ("workers", [4, 16], 64.0, 2),
        ],
        627.0,
        (207.0, 3312.0),
    ),
    "15222切眼掘进工作面": (
        [
            ("gas", [100, 0.6, 1.8], 108.0, 3),
            ("fan_intake", [300, 1, 60, 0.25, 12.0], 480.0, 3),
            ("workers", [4, 14], 56.0, 3),
        ],
        480.0,
        (180.0, 2880.0),
    ),
    "二采区轨道下山掘进工作面": (
        [
            ("gas", [100, 0.2, 1.5], 30.0, 3),
            ("explosives", [25, 24], 600.0, 3),
            ("fan_intake", [300, 1, 60, 0.15, 12.6], 413.4, 3),
            ("workers", [4, 14], 56.0, 3),
        ],
        600.0,
        (113.4, 3024.0),
    ),
    "中央变电所": ([("heat", [3600, 800, 0.02, 1.2, 1.0006, 60, 5.0], 159.9, 3)], 159.9, None),
    "主排水泵房": ([("heat", [3600, 1260, 0.01, 1.2, 1.0006, 60, 3.0], 209.9, 3)], 209.9, None),
    "井下爆炸材料库": ([("volume", [4, 1200, 60], 80.0, 4), ("min_q", [60], 60.0, 4)], 80.0, None),
    "充电硐室": ([("h2", [200, 0.2], 40.0, 4), ("min_q", [100], 100.0, 4)], 100.0, None),
    "15216辅运起坡段": ([("vehicle", [4, 2, 70], 560.0, 4)], 560.0, (186.0, 4464.0)),
}

INPUTS_A: dict[str, dict[str, tuple[float, str | None]]] = {
    "15216综采工作面": {
        "face_length": (220, "m"),
        "mining_height": (3.2, "m"),
        "roof_control_max": (5.8, "m"),
        "roof_control_min": (4.6, "m"),
        "gas_emission": (4.2, "m³/min"),
        "k_gas": (1.5, None),
        "intake_temp": (19.0, "℃"),
        "workers": (38, "人"),
        "co2_emission": (0.8, None),
        "v_climate": (1.0, None),
        "k_h": (1.2, None),
        "k_l": (1.35, None),
    },
    "15220运输顺槽掘进工作面": {
        "area": (14.2, "m²"),
        "gas_emission": (0.8, "m³/min"),
        "k_gas": (1.8, None),
        "explosive_kg": (0, "kg"),
        "fan_intake_q": (420, "m³/min"),
        "fan_count": (1, "台"),
        "workers": (18, "人"),
    },
    "二采区轨道下山掘进工作面": {
        "area": (12.6, "m²"),
        "gas_emission": (0.2, "m³/min"),
        "explosive_kg": (24, "kg"),
    },
    "中央变电所": {"power_kw": (800, None), "theta": (0.02, None), "delta_t": (5.0, None)},
    "井下爆炸材料库": {"volume_m3": (1200, None)},
    "充电硐室": {"h2_emission": (0.2, None)},
    "15216辅运起坡段": {"area": (12.4, "m²"), "vehicles": (2, "台"), "vehicle_kw": (70, "kW")},
}

# location, required, allocated, area, planned speed, measured speed, CH4, temperature (None for "—")
ALLOCATION_A = [
    ("15216综采工作面", 1132.2, 1200, 11.6, 1.72, 1.74, 0.37, 19.0),
    ("15218工作面", 566.1, 580, None, None, None, None, None),
    ("15220运输顺槽掘进工作面", 633.0, 650, 14.2, 0.76, 0.77, 0.14, 19.5),
    ("15220回风顺槽掘进工作面", 627.0, 640, 13.8, 0.77, 0.78, 0.28, 19.0),
    ("15222切眼掘进工作面", 480.0, 500, 12.0, 0.69, None, None, None),
    ("二采区轨道下山掘进工作面", 600.0, 620, 12.6, 0.82, 0.82, 0.05, 18.5),
    ("中央变电所", 159.9, 180, None, None, None, None, None),
    ("主排水泵房", 209.9, 220, None, None, None, None, None),
    ("井下爆炸材料库", 80.0, 100, None, None, None, None, None),
    ("充电硐室", 100.0, 120, None, None, None, None, None),
    ("15216辅运起坡段", 560.0, 600, 12.4, 0.81, 0.95, 0.04, 20.0),
]
ROW_FIELDS = ["required_q", "allocated_q", "area", "planned_speed", "measured_speed", "ch4", "temperature"]
UNITS = ["m³/min", "m³/min", "m²", "m/s", "m/s", "%", "℃"]


def _value(fig):
    return None if fig is None else fig.value


def test_cover_fields(plan_a: Plan) -> None:
    assert plan_a.title == "示范煤矿2026年8月份配风计划"
    assert (plan_a.mine, plan_a.month, plan_a.version, plan_a.prepared_date) == (
        "示范煤矿",
        "2026-08",
        "V1.0",
        "2026-07-25",
    )
    assert plan_a.page_count == 5 and plan_a.char_count > 2000
    assert plan_a.warnings == []
    assert plan_a.section_pages == {
        "basis": 1,
        "overview": 1,
        "locations": 1,
        "calculation": 1,
        "allocation": 4,
        "totals": 4,
        "measures": 5,
        "signoff": 5,
    }


def test_basis_and_citations(plan_a: Plan) -> None:
    assert len(plan_a.basis) == 5
    assert plan_a.basis[0] == "2026年8月份采掘作业计划"
    assert "瓦斯等级鉴定报告" in plan_a.basis[1] and "测风报表" in plan_a.basis[2]
    assert plan_a.regulation_editions == ["《煤矿安全规程》", "AQ 1056-2008"]
    assert all(c.edition is None for c in plan_a.citations if c.document == "煤矿安全规程")


def test_locations_kinds_and_pages(plan_a: Plan) -> None:
    assert plan_a.listed_locations == [name for name, *_ in LOCATIONS_A]
    got = [
        (loc.name, loc.kind, loc.kind_label, loc.rock, loc.ref.page if loc.ref else None)
        for loc in plan_a.locations
    ]
    assert got == LOCATIONS_A
    assert present(plan_a.location("15218工作面")).standby_of == "15216综采工作面"
    assert plan_a.location("15216 综采工作面") is not None


@pytest.mark.parametrize("name", list(METHODS_A))
def test_methods_operands_and_stated(plan_a: Plan, name: str) -> None:
    methods, required, speed = METHODS_A[name]
    loc = plan_a.location(name)
    assert loc is not None
    got = [
        (m.method, m.operands, m.stated.value if m.stated else None, m.stated.ref.page if m.stated else None)
        for m in loc.methods
    ]
    expected: list[tuple[object, ...]] = [(k, pytest.approx(ops), v, p) for k, ops, v, p in methods]
    assert got == expected
    assert all(m.stated and m.stated.unit == "m³/min" for m in loc.methods)
    assert all(m.label.startswith("按") and m.label.endswith("计算") for m in loc.methods)
    assert loc.stated_required is not None and loc.stated_required.value == required
    assert loc.stated_required.unit == "m³/min"
    if speed is None:
        assert loc.speed_check is None
    else:
        assert loc.speed_check is not None and (loc.speed_check.lower, loc.speed_check.upper) == speed


def test_expressions_and_symbols(plan_a: Plan) -> None:
    face = plan_a.location("15216综采工作面")
    assert face is not None
    gas = face.methods[0]
    assert gas.expression == "Q = 100 × q × k = 100 × 4.20 × 1.5 = 630.0 m³/min"
    assert gas.symbols == {"q": 4.2, "k": 1.5}
    assert face.methods[2].symbols["S"] == pytest.approx(16.64)
    heat = present(plan_a.location("中央变电所")).methods[0]
    assert heat.symbols["ΣW"] == 800 and heat.symbols["Δt"] == 5.0


@pytest.mark.parametrize("name", list(INPUTS_A))
def test_inputs(plan_a: Plan, name: str) -> None:
    loc = plan_a.location(name)
    assert loc is not None
    for key, (value, unit) in INPUTS_A[name].items():
        assert loc.inputs[key].value == pytest.approx(value), key
        assert loc.inputs[key].unit == unit, key
    assert loc.inputs[next(iter(INPUTS_A[name]))].ref.page in (1, 2, 3, 4)


def test_allocation_rows(plan_a: Plan) -> None:
    rows = plan_a.allocation
    assert [r.location for r in rows] == [a[0] for a in ALLOCATION_A]
    for row, expected in zip(rows, ALLOCATION_A, strict=True):
        assert [_value(getattr(row, f)) for f in ROW_FIELDS] == list(expected[1:]), row.location
        for f, unit in zip(ROW_FIELDS, UNITS, strict=True):
            fig = getattr(row, f)
            if fig is not None:
                assert fig.unit == unit
                assert (fig.ref.page, fig.ref.table) == (4, 1)
    assert [r.ref.row for r in rows] == list(range(1, 12))  # as the plan numbers them (序号)
    assert [r.ref.cell_row for r in rows] == list(range(2, 13))  # the physical row, header counted
    assert present(rows[3].ch4).ref.column == "CH₄(%)"


def test_totals(plan_a: Plan) -> None:
    t = plan_a.totals
    stated_sum = present(t.stated_sum)
    assert (stated_sum.value, stated_sum.unit, stated_sum.ref.page) == (5148.1, "m³/min", 5)
    assert present(t.k_mine).value == 1.18 and present(t.mine_total).value == 6074.8
    assert present(t.max_people).value == 420 and present(t.capacity).value == 7600


def test_signoffs(plan_a: Plan) -> None:
    got = [(s.role, s.title, s.name, s.date, s.ref.page if s.ref else None) for s in plan_a.signoffs]
    assert got == [
        ("编制", "通风技术员", "李明", "2026-07-25", 5),
        ("审核", "通风区长", "王建国", "2026-07-27", 5),
        ("审核", "通风副总工程师", "赵志强", "2026-07-27", 5),
        ("批准", "总工程师", "陈卫东", "2026-07-28", 5),
    ]


def test_plan_b_faults_are_read_as_written(plan_b: Plan) -> None:
    assert plan_b.warnings == []
    assert "15222切眼掘进工作面" not in plan_b.listed_locations and len(plan_b.locations) == 10
    face = plan_b.location("15216综采工作面")
    assert face is not None and present(face.stated_required).value == 630.0
    assert [m.method for m in face.methods] == ["gas", "co2", "climate", "workers"]
    assert present(face.methods[0].stated).ref.page == 1
    transport = present(plan_b.location("15220运输顺槽掘进工作面")).methods[0]
    assert transport.operands == [100, 0.8, 1.8] and present(transport.stated).value == 114.0
    gas = present(plan_b.location("15220回风顺槽掘进工作面")).inputs["gas_emission"]
    assert gas.value == 1.1 and gas.ref.page == 2
    rock = present(plan_b.location("二采区轨道下山掘进工作面"))
    assert rock.rock == "rock" and rock.methods[2].operands == [300, 1, 60, 0.25, 12.6]
    rows = {r.location: r for r in plan_b.allocation}
    assert present(rows["15220回风顺槽掘进工作面"].ch4).value == 1.05
    assert present(rows["中央变电所"].allocated_q).value == 150
    store = rows["井下爆炸材料库"].required_q
    assert store is not None and (store.value, store.unit) == (1.33, "m³/min")
    assert present(rows["15216综采工作面"].allocated_q).value == 700
    assert present(plan_b.totals.stated_sum).value == 4265.9


def test_plan_b_signoff_split_over_page_break(plan_b: Plan) -> None:
    got = [(s.role, s.title, s.name, s.date, s.ref.page if s.ref else None) for s in plan_b.signoffs]
    assert got == [
        ("编制", "通风技术员", "李明", "2026-07-25", 5),
        ("审核", "通风区长", "王建国", "2026-07-27", 5),
        ("审核", "通风副总工程师", "赵志强", "2026-07-27", 5),
        ("批准", "总工程师", None, None, 5),
    ]


def test_plan_b_block_over_page_break(plan_b: Plan) -> None:
    road = plan_b.location("15216辅运起坡段")
    assert road is not None and present(road.ref).page == 3
    assert road.inputs["vehicle_kw"].ref.page == 4 and present(road.methods[0].stated).ref.page == 4
