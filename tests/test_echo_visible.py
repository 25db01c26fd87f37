"""Echoed input made visible: a tunnel or device id with a right-to-left override, a zero-width space or
a NUL comes back in the error as escapes (``\\u202e``…), never raw; in stream errors and in 4xx bodies."""

from __future__ import annotations

import httpx
import pytest

from tests.helpers import parse_spec_stream
from vent_agent.api.errors import error_response
from vent_agent.events import Error
from vent_agent.visible import visible_text

HIDDEN = {
    "\u202e": "\\u202e",
    "\u200b": "\\u200b",
    "\x00": "\\u0000",
    "\u2066": "\\u2066",
    "\ufeff": "\\ufeff",
}


@pytest.mark.parametrize(("char", "escape"), HIDDEN.items())
async def test_a_tunnel_id_with_a_hidden_character_is_echoed_escaped(
    client: httpx.AsyncClient, char: str, escape: str
) -> None:
    r = await client.post(
        "/api/interpret/click/tun", json={"tun_id": f"152{char}16", "tun_name": "x", "mode": "fast"}
    )
    error = next(e for e in parse_spec_stream(r.text) if e["type"] == "error")
    assert error["message"] == f"未找到巷道：152{escape}16"


def test_visible_text_keeps_ordinary_text() -> None:
    text = "未找到巷道：15216 辅运起坡段\n第二行\t制表 配风🚇 Q=4·N m³/min"
    assert visible_text(text) == text
    assert visible_text("a\u202eb\u200dc\x7f\u2028") == "a\\u202eb\\u200dc\\u007f\\u2028"


def test_error_bodies_and_error_events_escape_the_same() -> None:
    raw = "未知模型「g\u202ept\u200b」"
    assert bytes(error_response(raw, 400).body).decode() == '{"error":"未知模型「g\\\\u202ept\\\\u200b」"}'
    assert Error(message=raw).message == "未知模型「g\\u202ept\\u200b」"
