"""The report streamed as tokens: pieces end at line ends and join back into the report."""

from __future__ import annotations

from typing import Any

from reports.markdown import render_markdown
from tests.report_samples import make_result
from vent_agent.events import EventModel
from vent_agent.review.service.publish import stream_markdown, token_pieces


def test_token_pieces_end_at_line_ends_and_join_back() -> None:
    md = render_markdown(make_result())
    pieces = token_pieces(md, 200)
    assert "".join(pieces) == md
    assert all(len(p) <= 200 for p in pieces)
    long_lines = {line for line in md.splitlines(keepends=True) if len(line) > 200}
    for piece in pieces[:-1]:
        assert piece.endswith("\n") or any(piece in line for line in long_lines)


async def test_stream_markdown_emits_the_report_as_tokens() -> None:
    events: list[tuple[str, dict[str, Any]]] = []

    async def emit(event: EventModel) -> None:
        fields = event.wire()
        events.append((fields.pop("type"), fields))

    text = await stream_markdown(make_result(), emit)
    tokens = [f for t, f in events if t == "token"]
    assert [t for t, _ in events[:2]] == ["progress", "generating"]
    assert all(f["source"] == "main" for f in tokens)
    assert "".join(f["content"] for f in tokens) == text == render_markdown(make_result())
