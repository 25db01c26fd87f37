"""The event catalogue (vent_agent/events.py) against docs/API_DOCUMENTATION.md, both ways; the frame
cap (cut tokens on character boundaries, references and plans in parts, bounded strings); parsing."""

from __future__ import annotations

import json
import re
import types
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

import pytest

from vent_agent.event_parts import PartJoiner, merge_parts
from vent_agent.events import (
    CATALOGUE,
    AgentDone,
    ClickDone,
    EventModel,
    Interrupt,
    Progress,
    References,
    Token,
    UnknownEvent,
    make_event,
    parse_event,
)
from vent_agent.kb.quoted import Reference
from vent_agent.wire import FRAME_CAP, SEQ_WIDTH, frame_bytes, wire_json

DOC = Path(__file__).parent.parent / "docs" / "API_DOCUMENTATION.md"
TABLE_HEAD = "#### 事件字段一览"
ROW = re.compile(r"^\| `(?P<type>[a-z_]+)` \| (?P<fields>.*) \|$")
FIELD = re.compile(r"`(?P<name>[a-z_]+)(?P<opt>\??)`: (?P<type>[a-z/]+)")
COMMON = {"type", "seq", "run_id"}


def _json_type(schema: dict[str, Any]) -> str:
    if "anyOf" in schema:
        return "/".join(_json_type(s) for s in schema["anyOf"])
    if "$ref" in schema:
        return "object"
    if "const" in schema or "enum" in schema:
        return "string"
    json_type: str = schema.get("type", "any")
    return json_type


def catalogue_fields(model: type[EventModel]) -> dict[str, tuple[bool, str]]:
    """``name`` → (always on the wire, JSON type) of the model's fields, ``seq``/``run_id``/``type`` left out."""
    props = model.model_json_schema()["properties"]
    out = {}
    for name, info in model.model_fields.items():
        if name in COMMON:
            continue
        types = _json_type(props[name]).split("/")
        optional = info.default is None and name not in model.KEEP_NULL and not info.is_required()
        if optional:
            types = [t for t in types if t != "null"]
        out[name] = (not optional, "/".join(types))
    return out


def doc_row(model: type[EventModel]) -> str:
    """The docs' row of ``model`` (how the table was written)."""
    fields = ", ".join(
        f"`{n}{'' if always else '?'}`: {t}" for n, (always, t) in catalogue_fields(model).items()
    )
    return f"| `{model.model_fields['type'].default}` | {fields} |"


def documented() -> dict[str, dict[str, tuple[bool, str]]]:
    text = DOC.read_text(encoding="utf-8")
    table = text[text.index(TABLE_HEAD) :].split("\n\n")[2]
    rows = {}
    for line in table.splitlines()[2:]:
        m = ROW.match(line)
        assert m, f"not a catalogue row: {line!r}"
        rows[m["type"]] = {f["name"]: (not f["opt"], f["type"]) for f in FIELD.finditer(m["fields"])}
    return rows


def test_the_docs_table_lists_every_event_with_its_fields_and_types() -> None:
    docs = documented()
    assert set(docs) == set(CATALOGUE), "event types: docs vs catalogue"
    for type_, model in CATALOGUE.items():
        assert docs[type_] == catalogue_fields(model), f"{type_}: docs {docs[type_]} vs {doc_row(model)}"


def test_every_event_type_appears_in_the_docs_event_table() -> None:
    text = DOC.read_text(encoding="utf-8")
    table = text[text.index("### 事件类型") : text.index(TABLE_HEAD)]
    for type_ in CATALOGUE:
        assert f"`{type_}`" in table


def test_undeclared_fields_are_refused_when_sent_and_kept_when_read() -> None:
    with pytest.raises(ValueError, match="undeclared"):
        make_event("token", source="main", content="x", contnet="typo")
    with pytest.raises(ValueError, match="unknown event type"):
        make_event("tokens", content="x")
    ev = parse_event({"type": "token", "source": "main", "content": "x", "new_field": 1, "seq": 3})
    assert isinstance(ev, Token) and ev.model_extra == {"new_field": 1} and ev.seq == 3
    assert isinstance(parse_event({"type": "brand_new", "x": 1}), UnknownEvent)
    assert isinstance(parse_event({"type": "progress", "message": "m", "notice": True}), UnknownEvent)


def test_the_wire_keeps_the_spec_shape() -> None:
    assert ClickDone(thread_id="r1", message="解读完成").wire() == {
        "type": "done",
        "thread_id": "r1",
        "session_id": None,
        "message": "解读完成",
    }
    assert list(Progress(message="m", agent="system", seq=4, run_id="r").wire()) == [
        "type",
        "message",
        "agent",
        "seq",
        "run_id",
    ]
    done = AgentDone(agent="a", cn_agent="甲", message="m", duration_ms=1).wire()
    assert "preview" not in done and done["duration_ms"] == 1


def _scalar_samples(annotation: Any) -> list[Any]:
    """Values of a scalar field's type (None when optional); [] for any other type."""
    if get_origin(annotation) is Literal:
        return list(get_args(annotation))
    if get_origin(annotation) in (Union, types.UnionType):
        inner = [a for a in get_args(annotation) if a is not type(None)]
        got = [v for a in inner for v in _scalar_samples(a)]
        return [*got, None] if got else []
    samples: dict[Any, list[Any]] = {
        str: ['文本\n"x"', ""],
        int: [0, 7, -3, 10**12],
        float: [2.5, -0.0, 1e16, 3.0],
        bool: [True, False],
    }
    return samples.get(annotation, [])


@pytest.mark.parametrize("type_", sorted(CATALOGUE))
def test_the_wire_from_the_models_values_is_the_wire_from_its_dump(type_: str) -> None:
    """``wire()`` reads an event of scalar values from the model itself; it must give what the general
    path through ``model_dump`` gives, keys in the same order, JSON for JSON."""
    model = CATALOGUE[type_]
    hints = get_type_hints(model)
    samples = {name: _scalar_samples(hints[name]) for name in model.model_fields if name != "type"}
    # a required field of another type (a list of tools): an empty one
    required = {n: (samples[n] or [[]])[0] for n, f in model.model_fields.items() if f.is_required()}
    cases = [{**required, name: value} for name, values in samples.items() for value in values]
    cases += [{**required, **{n: v[-1] for n, v in samples.items() if v}}]
    cases += [{**required, n: float("inf")} for n in samples if hints[n] in (float, float | None)]
    checked = 0
    for fields in cases:
        try:
            ev = model.model_validate(fields)
        except ValueError:
            continue
        wire, dumped = ev.wire(), ev._wire_dumped()
        assert (list(wire), wire_json(wire)) == (list(dumped), wire_json(dumped)), fields
        checked += 1
    assert checked


class _Gauge(EventModel):
    """An event with a float field (none of the catalogue has one yet)."""

    type: Literal["gauge"] = "gauge"
    value: float | None = None


@pytest.mark.parametrize("value", [2.5, -0.0, 1e16, 3, float("inf"), float("-inf"), float("nan")])
def test_a_float_is_wired_as_its_dump_wires_it(value: float) -> None:
    ev = _Gauge(value=value)
    assert wire_json(ev.wire()) == wire_json(ev._wire_dumped())


def test_an_event_with_lists_or_models_is_wired_through_its_dump() -> None:
    ev = References(
        references=[Reference(marker="R1", article=157, edition="2025", label="第157条")],
        warnings=[],
        message="m",
    )
    assert ev._wire_scalars() is None and ev.wire() == ev._wire_dumped()
    assert Progress(message="m", agent="a")._wire_scalars() == Progress(message="m", agent="a")._wire_dumped()
    extra = Progress.model_validate({"message": "m", "later_field": 1})
    assert extra._wire_scalars() is None and extra.wire()["later_field"] == 1


def _frames(payloads: list[dict[str, Any]], run_id: str = "r" * 24) -> list[int]:
    return [frame_bytes({**p, "seq": SEQ_WIDTH, "run_id": run_id}) for p in payloads]


@pytest.mark.parametrize("text", ["风" * 3000, 'a\n"b"\\' * 900, "𝄞é中" * 700, "\x01" * 500 + "末"])
def test_long_text_is_cut_on_character_boundaries_under_the_cap(text: str) -> None:
    from vent_agent.runs.frames import fit_frames

    pieces = fit_frames(Token(source="main", content=text).wire(), "r" * 24)
    assert len(pieces) > 1 and max(_frames(pieces)) <= FRAME_CAP
    assert "".join(p["content"] for p in pieces) == text
    for p in pieces:
        p["content"].encode("utf-8")  # whole characters only


def test_references_and_plans_go_in_parts_that_join_back() -> None:
    from vent_agent.runs.frames import fit_frames

    refs = [
        Reference(
            marker=f"R{i}", article=100 + i, edition="2025", label=f"第{100 + i}条", excerpt="条文" * 150
        )
        for i in range(6)
    ]
    event = References(
        references=refs, warnings=[], content="修正后的回答。" * 200, message="引用的规程条款"
    ).wire()
    parts = fit_frames(event, "r" * 24)
    assert len(parts) > 2 and max(_frames(parts)) <= FRAME_CAP
    assert [p["part"] for p in parts] == list(range(1, len(parts) + 1))
    (joined,) = merge_parts(parts)
    assert joined["content"] == event["content"]
    assert [r["marker"] for r in joined["references"]] == [r.marker for r in refs]
    assert all(r["excerpt"].startswith("条文") for r in joined["references"])  # excerpts bounded, not lost
    plan = Interrupt(
        message="待审批", interrupts=["计划" * 900], plan="计划" * 900, session_id="s", thread_id="t"
    )
    parts = fit_frames(plan.wire(), "r" * 24)
    assert max(_frames(parts)) <= FRAME_CAP
    (joined,) = merge_parts(parts)
    assert joined["plan"] == "计划" * 900 and joined["session_id"] == "s"


def test_a_split_event_interrupted_by_another_is_not_lost() -> None:
    joiner = PartJoiner()
    assert (
        joiner.feed(
            {"type": "references", "references": [], "warnings": [], "message": "m", "part": 1, "parts": 2}
        )
        == []
    )
    out = joiner.feed({"type": "done", "message": "x"})
    assert [e["type"] for e in out] == ["references", "done"]


def test_any_other_long_string_is_bounded() -> None:
    from vent_agent.runs.frames import fit_frames

    (ev,) = fit_frames({"type": "error", "message": "错误" * 1000}, "r" * 24)
    assert frame_bytes({**ev, "seq": SEQ_WIDTH, "run_id": "r" * 24}) <= FRAME_CAP
    assert ev["message"].endswith("…") and json.dumps(ev)


def test_the_browser_client_joins_the_same_fields_as_the_catalogue() -> None:
    js = (Path(__file__).parent.parent / "vent_agent" / "static" / "vent-client.js").read_text(
        encoding="utf-8"
    )

    def js_map(name: str) -> dict[str, list[str]]:
        body = re.search(rf"export const {name} = \{{(.*?)\}};", js, re.S)
        assert body
        return {k: re.findall(r"'([a-z_]+)'", v) for k, v in re.findall(r"(\w+): \[([^\]]*)\]", body[1])}

    assert js_map("PART_LISTS") == {t: list(m.SPLIT_LISTS) for t, m in CATALOGUE.items() if m.SPLIT_LISTS}
    assert js_map("PART_TEXT") == {t: list(m.SPLIT_TEXT) for t, m in CATALOGUE.items() if m.SPLIT_TEXT}


@pytest.mark.parametrize(
    "payload",
    [
        {"type": "progress", "message": '事件 "引号" \\ 换行\n\t\x01 😀 \u2028', "seq": 3, "run_id": "r"},
        {
            "type": "x",
            "n": [1, 2.5, -0.0, 1e16, 1e-7, float("inf"), float("nan"), True, None],
            "d": {"a": {}},
        },
        {"type": "x", "nested": [{"k": ["v", {"deep": []}]}], "big": 10**30, "neg": -7, "lone": "\ud800"},
        {},
    ],
)
def test_wire_json_is_json_dumps_compact_with_chinese_kept(payload: dict[str, Any]) -> None:
    assert wire_json(payload) == json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def test_wire_json_refuses_what_json_dumps_refuses() -> None:
    with pytest.raises(TypeError, match="not JSON serializable"):
        wire_json({"type": "x", "value": object()})
