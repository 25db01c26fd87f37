"""Frames the spec's frontend parser survives: every event cut or bounded to :data:`FRAME_CAP` bytes.

The spec's example parser splits each network read on blank lines and keeps no buffer, so a frame split
across two reads is lost; frames of at most 1 KiB (one TCP segment) arrive whole. :func:`fit_frames`
turns one payload into the payloads to log, each of which fits with its ``seq`` and ``run_id``:

- ``token`` and ``reasoning``: several events of the same type, the text cut on character boundaries
  (never inside a multi-byte character; the client concatenates as always);
- a model with ``SPLIT_LISTS``/``SPLIT_TEXT`` (``references``, ``interrupt``, todo lists): parts
  (``part``/``parts``) joined by :func:`vent_agent.event_parts.merge_parts`;
- anything else, and a single list item too large for a part: its longest strings shortened with ``…``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from json.encoder import encode_basestring
from typing import Any

from vent_agent.events import CATALOGUE
from vent_agent.wire import FRAME_CAP, SEQ_WIDTH, frame_bytes, frame_size

log = logging.getLogger(__name__)

ELLIPSIS = "…"
TEXT_EVENTS = ("token", "reasoning")
_PART_MARK = {"part": 99_999, "parts": 99_999}

Probe = Callable[[dict[str, Any]], int]


def char_cost(ch: str) -> int:
    """Bytes ``ch`` takes inside a JSON string of the wire (escapes included)."""
    if ch in '"\\\n\r\t\b\f':
        return 2
    if ch < " ":
        return 6
    return len(ch.encode("utf-8", "surrogatepass"))


def text_cost(text: str) -> int:
    """Bytes ``text`` takes inside a JSON string of the wire: the sum of :func:`char_cost` over its
    characters, computed by the JSON encoder's C escaping."""
    return len(encode_basestring(text).encode("utf-8", "surrogatepass")) - 2


def take_prefix(text: str, budget: int) -> tuple[str, str]:
    """The longest prefix of ``text`` whose JSON-escaped UTF-8 takes at most ``budget`` bytes (at least
    one character, so that a cut always advances), and the rest. A binary search on the prefix length
    (the cost grows with it), each step one C-escaped measure: a frame's cut costs about ten passes
    over at most ``budget`` characters instead of a Python step per character."""
    if text_cost(text) <= budget:
        return text, ""
    lo, hi = 0, min(len(text), max(budget, 0))  # a character takes a byte at least
    while lo < hi:  # the longest fitting length is in [lo, hi]
        mid = (lo + hi + 1) // 2
        if text_cost(text[:mid]) <= budget:
            lo = mid
        else:
            hi = mid - 1
    cut = max(lo, 1)
    return text[:cut], text[cut:]


def split_text(text: str, budget: int) -> list[str]:
    """``text`` cut into pieces of at most ``budget`` escaped bytes, on character boundaries."""
    pieces: list[str] = []
    while text:
        piece, text = take_prefix(text, budget)
        pieces.append(piece)
    return pieces or [""]


def fits_as_is(data: str, seq: int, cap: int = FRAME_CAP) -> bool:
    """True when ``data``, the JSON of an event numbered ``seq``, is a frame :func:`fit_frames` would
    leave whole: within ``cap`` bytes once its ``seq`` is as wide as any run's (``SEQ_WIDTH``). Lets the
    emitter measure the JSON it logs instead of serialising the event a second time to probe it."""
    return frame_size(data) + len(str(SEQ_WIDTH)) - len(str(seq)) <= cap


def fit_frames(payload: dict[str, Any], run_id: str, cap: int = FRAME_CAP) -> list[dict[str, Any]]:
    """The payloads to log for ``payload`` (no ``seq``/``run_id`` yet), each within ``cap`` bytes once
    numbered. One payload when it fits already."""

    def probe(p: dict[str, Any]) -> int:
        return frame_bytes({**p, "seq": SEQ_WIDTH, "run_id": run_id})

    if probe(payload) <= cap:
        return [payload]
    kind = str(payload.get("type"))
    if kind in TEXT_EVENTS and isinstance(payload.get("content"), str):
        room = cap - probe({**payload, "content": ""})
        if room > 0:
            pieces = [{**payload, "content": piece} for piece in split_text(payload["content"], room)]
            for piece in pieces[
                1:
            ]:  # a text that replaces the answer so far does so once, in its first piece
                piece.pop("replace", None)
            return pieces
    model = CATALOGUE.get(kind)
    parts = [payload]
    if model is not None and (model.SPLIT_LISTS or model.SPLIT_TEXT):
        parts = _in_parts(payload, model.SPLIT_LISTS, model.SPLIT_TEXT, probe, cap)
    return [p if probe(p) <= cap else shrink(p, probe, cap) for p in parts]


def _in_parts(
    payload: dict[str, Any], lists: tuple[str, ...], texts: tuple[str, ...], probe: Probe, cap: int
) -> list[dict[str, Any]]:
    base = {k: v for k, v in payload.items() if k not in texts}
    base.update({k: [] for k in lists if k in payload})
    parts: list[dict[str, Any]] = []
    cur = {**base, **_PART_MARK}

    def carries(p: dict[str, Any]) -> bool:
        return any(p.get(k) for k in lists) or any(k in p for k in texts)

    for key in lists:
        for item in payload.get(key) or []:
            trial = {**cur, key: [*cur[key], item]}
            if probe(trial) > cap and carries(cur):
                parts.append(cur)
                cur = {**base, **_PART_MARK}
                trial = {**cur, key: [item]}
            if probe(trial) > cap:
                trial = shrink(trial, probe, cap, within=(key, len(trial[key]) - 1))
            cur = trial
    for key in texts:
        text = payload.get(key)
        if not isinstance(text, str):
            continue
        while True:
            room = cap - probe({**cur, key: ""})
            if room < 64 and carries(cur):
                parts.append(cur)
                cur = {**base, **_PART_MARK}
                continue
            piece, text = take_prefix(text, max(room, 1))
            cur = {**cur, key: piece}
            if not text:
                break
            parts.append(cur)
            cur = {**base, **_PART_MARK}
    parts.append(cur)
    for i, p in enumerate(parts, 1):
        p.update(part=i, parts=len(parts))
    if len(parts) == 1:
        parts[0].pop("part")
        parts[0].pop("parts")
    return parts


def _strings(value: Any, path: tuple[Any, ...]) -> list[tuple[int, tuple[Any, ...]]]:
    if isinstance(value, str):
        return [(len(value), path)]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in _strings(v, (*path, k))]
    if isinstance(value, list):
        return [s for i, v in enumerate(value) for s in _strings(v, (*path, i))]
    return []


def _get(root: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        root = root[key]
    return root


def _set(root: Any, path: tuple[Any, ...], value: Any) -> None:
    for key in path[:-1]:
        root = root[key]
    root[path[-1]] = value


def shrink(
    payload: dict[str, Any], probe: Probe, cap: int, *, within: tuple[Any, ...] = ()
) -> dict[str, Any]:
    """``payload`` with its longest strings (under ``within``, a path; ``type`` never) cut and ended with
    ``…`` until it fits; as small as it gets, with a warning in the log, when strings cannot make room."""
    out: dict[str, Any] = json.loads(json.dumps(payload))
    skip = {("type",)}
    while probe(out) > cap:
        found = [(n, p) for n, p in _strings(_get(out, within), within) if p not in skip and n > 1]
        if not found:
            log.warning("a %s event of %d bytes cannot be cut to %d", out.get("type"), probe(out), cap)
            return out
        _, path = max(found)
        text = _get(out, path)
        excess = probe(out) - cap + char_cost(ELLIPSIS)
        keep = len(text)
        while keep > 0 and excess > 0:
            keep -= 1
            excess -= char_cost(text[keep])
        _set(out, path, text[:keep] + ELLIPSIS)
        if keep == 0:
            skip.add(path)
    return out
