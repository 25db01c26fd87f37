"""Fold a run's event stream into the assistant turn the history keeps: the final text, with its tool
calls, todos, references and suggested follow-ups where present. The history is this fold of what the
stream sent, so a client that lost the stream can rebuild the answer from it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def fold_events(events: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """``{"role": "assistant", "content": str, "tool_calls"?: [{"tool", "source"}], "todos"?: [...],
    "references"?: [...], "suggestions"?: [...], "interrupt"?: {...}, "error"?: str, "download_url"?: str}``.

    ``content`` is the concatenation of the main agent's ``token`` events (subagent tokens are the
    reviewers' own and stay out), or the corrected text of a ``references`` event when the citation
    check removed something; a ``token`` with ``replace: true`` discards the text before it; the last
    ``updated_todo_list`` gives the todos."""
    content: list[str] = []
    corrected: str | None = None
    turn: dict[str, Any] = {"role": "assistant"}
    tool_calls: list[dict[str, Any]] = []
    for ev in events:
        kind = ev.get("type")
        if kind == "token" and ev.get("replace"):  # the text so far was partial: this one replaces it
            content = [str(ev.get("content", ""))]
        elif kind == "token" and ev.get("source", "main") == "main":
            content.append(str(ev.get("content", "")))
        elif kind == "tool_call":
            tool_calls.append({"tool": ev.get("tool"), "source": ev.get("source", "main")})
        elif kind == "updated_todo_list":
            turn["todos"] = ev.get("todos", [])
        elif kind == "references":
            turn["references"] = ev.get("references", [])
            if ev.get("warnings"):
                turn["citation_warnings"] = ev["warnings"]
            if "content" in ev:  # citations the check removed: the corrected text replaces the streamed one
                corrected = str(ev["content"])
        elif kind == "suggestions":
            turn["suggestions"] = ev.get("suggestions", [])
        elif kind == "interrupt":
            turn["interrupt"] = {k: ev.get(k) for k in ("message", "interrupts", "plan")}
        elif kind == "error":
            turn["error"] = ev.get("message")
        if ev.get("download_url"):
            turn["download_url"] = ev["download_url"]
    turn["content"] = corrected if corrected is not None else "".join(content)
    if tool_calls:
        turn["tool_calls"] = tool_calls
    return turn


def turn_extra(turn: dict[str, Any]) -> dict[str, Any]:
    """The parts of a folded turn stored beside its text (everything but role and content)."""
    return {k: v for k, v in turn.items() if k not in ("role", "content")}
