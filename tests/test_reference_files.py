"""Reference data from files (docs/REFERENCE_DATA.md): both layouts, the air survey of a month (the
latest before it), and clear errors naming the file and the field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from vent_agent.mcp.files import load_reference_dir
from vent_agent.review.reference import JsonReferenceData, ReferenceFileError

DEMO = Path(__file__).parents[1] / "vent_agent" / "data" / "demo_mine.json"
SURVEY = {"wind_speed": 1.2, "area": 10.0, "ch4_return": 0.3, "ch4_intake": 0.02, "temp": 21.0}


def _write(path: Path, value: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    path.write_text(text, encoding="utf-8")
    return path


def _demo() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(DEMO.read_text(encoding="utf-8"))
    return document


def test_whole_mine_file_and_month_folder(tmp_path: Path) -> None:
    _write(tmp_path / "demo.json", _demo())
    _write(
        tmp_path / "红旗煤矿" / "mine.json",
        {"name": "红旗煤矿", "aliases": ["红旗矿"], "gas_grade": "低瓦斯矿井"},
    )
    _write(
        tmp_path / "红旗煤矿" / "2026-10.json",
        {
            "mining_plan": [{"location": "8101综采工作面", "kind": "coal_face", "state": "回采"}],
            "gas_report": {"8101综采工作面": 2.5},
            "air_survey": {"8101综采工作面": SURVEY},
        },
    )
    _write(tmp_path / "notes.txt", "ignored")
    ref = load_reference_dir(tmp_path)
    assert ref.monthly("示范煤矿", "2026-08") is not None and ref.monthly("示范煤矿", "2026-09") is not None
    red = ref.monthly("红旗矿", "2026-10")
    assert red is not None and red.mine == "红旗煤矿" and red.gas_report == {"8101综采工作面": 2.5}
    assert red.mining_plan[0].location == "8101综采工作面" and not red.mining_plan[0].finished
    assert red.air_survey["8101综采工作面"].wind_speed == 1.2 and red.air_survey_date == "2026-09-30"
    assert ref.monthly("红旗煤矿", "2026-08") is None  # never another mine's month


def test_folder_without_mine_json_takes_its_name(tmp_path: Path) -> None:
    _write(tmp_path / "东山煤矿" / "2026-08.json", {"gas_report": {"A": 1}})
    ref = load_reference_dir(tmp_path)
    got = ref.monthly("东山煤矿", "2026-08")
    assert got is not None and got.gas_report == {"A": 1.0}


def test_air_survey_is_latest_before_the_month(tmp_path: Path) -> None:
    folder = tmp_path / "东山煤矿"
    _write(folder / "2026-08.json", {"gas_report": {"A": 1}})
    _write(
        folder / "2026-09.json",
        {"gas_report": {"A": 1}, "air_survey": {"A": SURVEY}, "air_survey_date": "2026-08-21"},
    )
    _write(folder / "2026-10.json", {"gas_report": {"A": 1}})
    _write(folder / "surveys" / "2026-07-11.json", {"A": {**SURVEY, "wind_speed": 0.7}})
    _write(folder / "surveys" / "2026-07-21.json", {"A": {**SURVEY, "wind_speed": 0.8}})
    _write(
        folder / "surveys" / "2026-08-01.json", {"A": {**SURVEY, "wind_speed": 0.9}}
    )  # in August: not before it
    _write(folder / "surveys" / "2026-09-11.json", {"A": {**SURVEY, "wind_speed": 1.5}})
    ref = load_reference_dir(tmp_path)

    def survey(month: str) -> tuple[str | None, float | None]:
        m = ref.monthly("东山煤矿", month)
        assert m is not None
        return m.air_survey_date, m.air_survey["A"].wind_speed

    assert survey("2026-08") == ("2026-07-21", 0.8)
    assert survey("2026-09") == ("2026-08-21", 1.2)  # the month's own survey, dated 08-21, beats 08-01
    assert survey("2026-10") == ("2026-09-11", 1.5)


def test_demo_mine_surveys_dated_by_convention() -> None:
    ref = JsonReferenceData(DEMO)
    aug, sep = ref.monthly("示范煤矿", "2026-08"), ref.monthly("示范煤矿", "2026-09")
    assert aug is not None and sep is not None
    assert (aug.air_survey_date, sep.air_survey_date) == ("2026-07-31", "2026-08-31")
    assert aug.air_survey["15216综采工作面"].temp == 19.0 and sep.air_survey["15216综采工作面"].temp == 22.5


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (
            lambda d: d["reference"]["2026-08"]["gas_report"].update({"15216综采工作面": "4,2"}),
            "reference.2026-08.gas_report.15216综采工作面",
        ),
        (
            lambda d: d["reference"]["2026-08"]["air_survey"]["15216综采工作面"].update({"ch4_return": 120}),
            "ch4_return",
        ),
        (lambda d: d["reference"]["2026-08"].update({"gas_reports": {}}), "reference.2026-08.gas_reports"),
        (lambda d: d["reference"].update({"2026-13": {}}), "reference.2026-13"),
        (lambda d: d["mine"].pop("name"), "mine.name"),
        (
            lambda d: d["reference"]["2026-08"]["mining_plan"][0].pop("location"),
            "reference.2026-08.mining_plan.0.location",
        ),
        (
            lambda d: d["reference"]["2026-08"].update({"air_survey_date": "2026-08-05"}),
            "reference.2026-08.air_survey_date",
        ),
    ],
)
def test_broken_whole_mine_file_names_file_and_field(tmp_path: Path, change: Any, field: str) -> None:
    doc = _demo()
    change(doc)
    path = _write(tmp_path / "mine.json", doc)
    with pytest.raises(ReferenceFileError) as err:
        load_reference_dir(tmp_path)
    assert err.value.file == str(path)
    assert str(path) in str(err.value) and field in str(err.value)


def test_broken_month_file_names_it(tmp_path: Path) -> None:
    bad = _write(tmp_path / "东山煤矿" / "2026-08.json", {"face_procedures": {"F": {"mining_height_m": -3}}})
    with pytest.raises(ReferenceFileError) as err:
        load_reference_dir(tmp_path)
    assert err.value.file == str(bad) and "face_procedures.F.mining_height_m" in str(err.value)


def test_not_json_names_line(tmp_path: Path) -> None:
    bad = _write(tmp_path / "mine.json", '{"mine": {"name": "x"},\n "reference": {,}}')
    with pytest.raises(ReferenceFileError) as err:
        load_reference_dir(tmp_path)
    assert str(bad) in str(err.value) and "line 2" in str(err.value)


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"东山煤矿/2026-8.json": {}}, "YYYY-MM.json"),
        ({"东山煤矿/surveys/0801.json": {}}, "YYYY-MM-DD.json"),
        ({"东山煤矿/surveys/2026-02-30.json": {}}, "file name"),
        ({"东山煤矿/surveys/2026-07-30.json": {"A": {"speed": 1}}}, "records.A.speed"),
        ({"东山煤矿/mine.json": ["东山煤矿"]}, "object"),
        (
            {
                "a.json": {"mine": {"name": "东山煤矿"}, "reference": {"2026-08": {}}},
                "东山煤矿/2026-08.json": {},
            },
            "also given",
        ),
    ],
)
def test_layout_errors(tmp_path: Path, files: dict[str, Any], message: str) -> None:
    for name, value in files.items():
        _write(tmp_path / name, value)
    with pytest.raises(ReferenceFileError, match=message):
        load_reference_dir(tmp_path)


def test_missing_directory(tmp_path: Path) -> None:
    with pytest.raises(ReferenceFileError, match="not a directory"):
        load_reference_dir(tmp_path / "nowhere")
