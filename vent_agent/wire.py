"""The wire form of an event: its JSON made once (the same string goes to the log and to the frame) and the
size of its frame, which the spec's frontend parser needs under :data:`FRAME_CAP` bytes.

A frame is ``data: <compact JSON>\\n\\n`` (ventilation-api v2.0, 流式响应). The event models are
:mod:`vent_agent.events`; cutting events to fit is :mod:`vent_agent.runs.frames`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from typing import Any

FRAME_CAP = 1024
"""Largest frame on a spec route, bytes of UTF-8: ``data: `` + the JSON (``seq``, ``run_id`` included)
+ ``\\n\\n``."""

SEQ_WIDTH = 10**9
"""A ``seq`` as wide as any run's, used to measure a frame before its number is known."""


_WIRE_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def _unserialisable(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


# The C encoder behind JSONEncoder, made once (JSONEncoder.encode makes one per call) and without the
# circular-reference check: an event's payload is a tree of fresh dicts and lists, never circular.
_C_WIRE = (
    c_make_encoder(None, _unserialisable, encode_basestring, None, ":", ",", False, False, True)
    if c_make_encoder is not None
    else None
)


def wire_json(payload: Mapping[str, Any]) -> str:
    """The JSON of one frame as the log and the wire carry it: compact, one line, Chinese unescaped;
    ``json.dumps(payload, ensure_ascii=False, separators=(",", ":"))`` for any payload that is not
    circular, by the standard library's C encoder made once."""
    if _C_WIRE is None:
        return _WIRE_ENCODER.encode(payload)
    return "".join(_C_WIRE(payload, 0))


def frame_size(data: str) -> int:
    """Size in bytes of UTF-8 of the frame ``data: <data>\\n\\n``."""
    return (len(data) if data.isascii() else len(data.encode("utf-8", "surrogatepass"))) + 8


def frame_bytes(payload: Mapping[str, Any]) -> int:
    """Size of ``data: <json>\\n\\n`` in bytes of UTF-8."""
    return frame_size(wire_json(payload))
