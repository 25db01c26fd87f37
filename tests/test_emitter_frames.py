"""The emitter's front: typed events only, tokens merged up to the frame cap, every logged frame within
1 KiB with its seq and run_id, seq dense across the pieces of a cut event."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vent_agent.event_parts import merge_parts
from vent_agent.events import Error, References, Token
from vent_agent.kb.quoted import Reference
from vent_agent.runs import emitter as emitter_module
from vent_agent.runs.emitter import Emitter
from vent_agent.runs.frames import char_cost, fit_frames, take_prefix, text_cost
from vent_agent.wire import FRAME_CAP, frame_bytes, wire_json


class Log:
    """Stands in for the run manager: keeps what the emitter appends."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.appended = asyncio.Event()  # set at each append: a test waits on it, not on the clock

    async def append_event(self, run_id: str, seq: int, payload: dict[str, Any], data: str) -> None:
        assert payload["seq"] == seq and payload["run_id"] == run_id
        assert data == wire_json(payload)  # the JSON logged and sent is the payload's, made once
        self.events.append(payload)
        self.appended.set()


def new_emitter() -> tuple[Emitter, Log]:
    log = Log()
    # Log is not a RunManager: it has the one method the emitter calls, append_event
    return Emitter(log, "run-0123456789abcdefghijk"), log  # type: ignore[arg-type]


def sizes(log: Log) -> list[int]:
    return [frame_bytes(e) for e in log.events]


async def test_small_tokens_merge_up_to_the_cap_and_no_further(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(emitter_module, "TOKEN_MERGE_S", 60.0)  # the cap, not the clock, cuts here
    em, log = new_emitter()
    text = "风速与风量均在规定范围内。" * 400  # ~15.6 KB of UTF-8, sent 3 characters at a time
    for i in range(0, len(text), 3):
        await em.send(Token(source="main", content=text[i : i + 3]))
    await em.flush()
    assert "".join(e["content"] for e in log.events) == text
    assert max(sizes(log)) <= FRAME_CAP
    assert [e["seq"] for e in log.events] == list(range(1, len(log.events) + 1))
    # full: within a character (3 bytes) and the room kept for a 10-digit seq of the cap
    assert min(sizes(log)[:-1]) > FRAME_CAP - 16, "merging still coalesces: every frame but the last is full"


async def test_tokens_of_another_source_are_not_merged_in() -> None:
    em, log = new_emitter()
    await em.send(Token(source="main", content="甲"))
    await em.send(Token(source="fast", content="乙"))
    await em.send(Error(message="错"))
    assert [(e["type"], e.get("content")) for e in log.events] == [
        ("token", "甲"),
        ("token", "乙"),
        ("error", None),
    ]
    assert em.saw_error


async def test_a_large_event_is_logged_in_parts_with_dense_seq() -> None:
    em, log = new_emitter()
    await em.send(Token(source="main", content="前"))
    refs = [Reference(marker=f"R{i}", article=i, label=f"第{i}条", excerpt="条" * 400) for i in range(1, 5)]
    await em.send(References(references=refs, warnings=[], message="引用的规程条款"))
    assert max(sizes(log)) <= FRAME_CAP
    assert [e["seq"] for e in log.events] == list(range(1, len(log.events) + 1))
    joined = merge_parts(log.events)
    assert [e["type"] for e in joined] == ["token", "references"]
    assert len(joined[1]["references"]) == 4


async def test_undeclared_fields_and_unknown_types_are_refused() -> None:
    em, log = new_emitter()
    with pytest.raises(ValueError):
        await em.send(Token(source="main", content="x", colour="red"))
    with pytest.raises(ValueError):
        await em.emit("not_an_event", message="x")
    await em.emit("error", message="已知类型经 emit 也按目录校验")
    assert [e["type"] for e in log.events] == ["error"]


async def test_a_pending_merge_is_written_by_its_timer_without_a_flush() -> None:
    em, log = new_emitter()
    loop = asyncio.get_running_loop()
    sent_at = loop.time()
    await em.send(Token(source="main", content="片段"))
    assert log.events == []
    await asyncio.wait_for(log.appended.wait(), 10)  # no flush, no further send: the merge timer writes it
    assert loop.time() - sent_at >= emitter_module.TOKEN_MERGE_S * 0.99  # held for the merge window first
    assert [e["content"] for e in log.events] == ["片段"]


def _take_prefix_by_char(text: str, budget: int) -> tuple[str, str]:
    """The cut as defined: character by character, each at its escaped UTF-8 cost."""
    used = 0
    for i, ch in enumerate(text):
        used += char_cost(ch)
        if used > budget:
            return (text[:i], text[i:]) if i else (text[:1], text[1:])
    return text, ""


@settings(max_examples=400, deadline=None, derandomize=True)
@given(
    text=st.text(alphabet=st.sampled_from(list('ab"\\\n\t\x01\x1f中文₄😀') + ["\ud800"]), max_size=300),
    budget=st.integers(min_value=-2, max_value=400),
)
def test_take_prefix_cuts_where_the_character_by_character_cost_does(text: str, budget: int) -> None:
    assert take_prefix(text, budget) == _take_prefix_by_char(text, budget)
    assert text_cost(text) == sum(char_cost(ch) for ch in text)


SMALL_CAP = 160  # frames cut often


def _merged_by_probing(chunks: list[str], run_id: str) -> list[list[str]]:
    """The frames' texts logged after each chunk, when every merge probes the whole pending token with
    fit_frames (the rule the emitter keeps while measuring only the text each merge adds); the last
    list after the final flush."""
    out: list[str] = []
    after: list[list[str]] = []
    pending: dict[str, Any] | None = None
    for chunk in chunks:
        if pending is None:
            pending = {"type": "token", "source": "main", "content": chunk}
        else:
            pending["content"] += chunk
            pieces = fit_frames(pending, run_id, SMALL_CAP)
            out += [p["content"] for p in pieces[:-1]]
            pending = pieces[-1]
        after.append(list(out))
    if pending is not None:
        out += [p["content"] for p in fit_frames(pending, run_id, SMALL_CAP)]
    return [*after, out]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    chunks=st.lists(
        st.text(alphabet=st.sampled_from(list('ab"\\\n\x01中😀') + ["\ud800"]), min_size=1, max_size=40),
        min_size=1,
        max_size=40,
    )
)
def test_merged_tokens_are_cut_when_and_where_probing_every_merge_cuts(chunks: list[str]) -> None:
    async def run() -> list[list[str]]:
        em, log = new_emitter()
        em.frame_cap = SMALL_CAP
        after = []
        for chunk in chunks:
            await em.send(Token(source="main", content=chunk))
            after.append([e["content"] for e in log.events])
        await em.flush()
        return [*after, [e["content"] for e in log.events]]

    emitter_module.TOKEN_MERGE_S, saved = 3600.0, emitter_module.TOKEN_MERGE_S
    try:
        got = asyncio.run(run())
    finally:
        emitter_module.TOKEN_MERGE_S = saved
    assert got == _merged_by_probing(chunks, "run-0123456789abcdefghijk")
