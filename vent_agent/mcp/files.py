"""Reference data from files (``VENT_REFERENCE_DIR``), for a mine without the platform's MCP server:
the backend the embedded MCP server serves instead of the demo mine. Format: docs/REFERENCE_DATA.md.

A reference directory holds, in any mix:

- ``<any name>.json`` — one whole mine, in the reference document format (like ``demo-mine.json``);
- ``<mine name>/`` — one mine as a folder: ``<YYYY-MM>.json`` per month (the fields of one month of
  ``reference``), an optional ``mine.json`` (``{"name", "aliases", "air_surveys", "roadway_classes", "diesel_kw"}``;
  the folder's name is the mine's name when absent), and optional dated surveys
  ``surveys/<YYYY-MM-DD>.json`` (``{location: {wind_speed, area, ch4_return, ch4_intake, temp}}``).

Every file is validated with pydantic; a broken one raises
:class:`~vent_agent.review.reference.ReferenceFileError` naming the file and the field. One mine given
twice for the same month is an error too (which would win is not obvious).
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from vent_agent.review.reference import (
    DatedSurveyDoc,
    MonthDoc,
    MonthlyReference,
    ReferenceDocument,
    ReferenceFileError,
    StaticReferenceData,
    build_months,
    parse_document,
    read_json,
    same_mine,
    validation_problems,
)

_MONTH_FILE = re.compile(r"^\d{4}-(0[1-9]|1[0-2])\.json$")
_SURVEY_FILE = re.compile(r"^(\d{4}-\d{2}-\d{2})\.json$")
M = TypeVar("M", bound=BaseModel)


def load_reference_dir(directory: Path) -> StaticReferenceData:
    """Every mine of ``directory`` (see the module docstring). Raises
    :class:`~vent_agent.review.reference.ReferenceFileError` when the directory is missing, a file is
    not valid JSON or not in the format (naming the file and field), or a mine's month is given twice."""
    root = Path(directory)
    if not root.is_dir():
        raise ReferenceFileError(str(root), ["not a directory"])
    months: list[MonthlyReference] = []
    aliases: dict[str, list[str]] = {}
    seen: dict[tuple[str, str], str] = {}
    for path in sorted(root.iterdir()):
        if path.name.startswith("."):
            continue
        if path.is_file() and path.suffix.lower() == ".json":
            doc, label = parse_document(read_json(path), str(path)), str(path)
        elif path.is_dir():
            doc, label = _folder_document(path), str(path)
        else:
            continue
        for ref in build_months(doc, label):
            key = next(((m, mo) for (m, mo) in seen if mo == ref.month and same_mine(m, ref.mine)), None)
            if key is not None:
                raise ReferenceFileError(label, [f"{ref.mine} {ref.month} is also given in {seen[key]}"])
            seen[(ref.mine, ref.month)] = label
            months.append(ref)
        aliases.setdefault(doc.mine.name, []).extend(doc.mine.aliases)
    return StaticReferenceData(months, aliases)


def _folder_document(folder: Path) -> ReferenceDocument:
    """One mine's folder as a :class:`ReferenceDocument` (each file validated on its own, so an error
    names the file it is in)."""
    head: dict[str, Any] = {"name": folder.name}
    mine_file = folder / "mine.json"
    if mine_file.is_file():
        value = read_json(mine_file)
        if not isinstance(value, dict):
            raise ReferenceFileError(str(mine_file), ["(document): Input should be an object"])
        head = value
    reference = {}
    for path in sorted(folder.glob("*.json")):
        if _MONTH_FILE.match(path.name):
            reference[path.stem] = _validate(MonthDoc, read_json(path), path)
        elif path.name != "mine.json":
            raise ReferenceFileError(str(path), ["file name is neither mine.json nor YYYY-MM.json"])
    surveys = []
    for path in sorted((folder / "surveys").glob("*.json")):
        m = _SURVEY_FILE.match(path.name)
        if not m:
            raise ReferenceFileError(str(path), ["survey file name is not YYYY-MM-DD.json"])
        try:
            day = dt.date.fromisoformat(m.group(1))
        except ValueError as exc:
            raise ReferenceFileError(str(path), [f"file name: {exc}"]) from exc
        surveys.append(_validate(DatedSurveyDoc, {"date": day, "records": read_json(path)}, path))
    doc = {
        "mine": {k: v for k, v in head.items() if k not in ("air_surveys", "roadway_classes", "diesel_kw")},
        "reference": {},
        "air_surveys": head.get("air_surveys", []),
        "roadway_classes": head.get("roadway_classes", {}),
        "diesel_kw": head.get("diesel_kw", {}),
    }
    parsed = parse_document(doc, str(mine_file if mine_file.is_file() else folder))
    return parsed.model_copy(update={"reference": reference, "air_surveys": [*parsed.air_surveys, *surveys]})


def _validate(model: type[M], value: Any, path: Path) -> M:
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        raise ReferenceFileError(str(path), validation_problems(exc)) from exc
