"""Calculations written as a method matrix (issue [A] item 6): a row per location, a column per method,
取最大值, the unit once in a merged header cell; read as each location's methods and stated maximum."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pdf_factory import Page, build_pdf
from vent_agent.documents.pdf_text import extract_pdf
from vent_agent.documents.reading import read_plan

HEAD = ["序号", "用风地点", "按瓦斯", "按人数", "按炸药", "按局扇", "取最大值"]
ROWS = [
    ["1", "15216综采工作面", "10.00", "2.53", "—", "—", "10.00"],
    ["2", "二采区轨道下山掘进工作面", "0.75", "0.93", "10.00", "6.89", "6.89"],
    ["3", "按人数", "1.00", "—", "—", "—", "1.00"],  # a label, not a place: never a location
]


def _matrix_pdf(unit_header: str) -> bytes:
    page = Page()
    page.para("示范煤矿2026年9月份矿井配风计划", 14)
    page.para("三、需风量计算")
    page.para(f"表 各方法计算风量（单位：{unit_header}）")
    page.table(
        [[f"{h}({unit_header})" if h.startswith(("按", "取")) else h for h in HEAD], *ROWS],
        [30, 120, 50, 50, 50, 50, 60],
    )
    return build_pdf([page])


@pytest.mark.parametrize(("unit", "factor"), [("m³/s", 60.0), ("m³/min", 1.0)])
def test_a_method_matrix_gives_each_location_its_methods_and_maximum(
    tmp_path: Path, unit: str, factor: float
) -> None:
    path = tmp_path / "matrix.pdf"
    path.write_bytes(_matrix_pdf(unit))
    plan = read_plan(extract_pdf(path, max_pages=5))
    by_name = {loc.name: loc for loc in plan.locations}
    assert set(by_name) == {"15216综采工作面", "二采区轨道下山掘进工作面"}
    heading = by_name["二采区轨道下山掘进工作面"]
    got = {m.method: m.stated.value for m in heading.methods if m.stated is not None}
    assert got == pytest.approx(
        {
            "gas": 0.75 * factor,
            "workers": 0.93 * factor,
            "explosives": 10.0 * factor,
            "fan_intake": 6.89 * factor,
        }
    )
    assert heading.stated_required is not None
    assert heading.stated_required.value == pytest.approx(6.89 * factor)
