"""Fold a run's event stream into the assistant turn the history keeps: the final text, with its tool
calls, todos, references and suggested follow-ups where present. The history is this fold of what the
stream sent, so a client that lost the stream can rebuild the answer from it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from vent_agent.event_parts import merge_parts
from vent_agent.events import (
    INCOMPLETE_NOTICES,
    Error,
    Interrupt,
    Progress,
    References,
    Suggestions,
    Token,
    ToolCall,
    UpdatedTodoList,
    parse_event,
)


def fold_events(events: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """``{"role": "assistant", "content": str, "tool_calls"?: [{"tool", "source"}], "todos"?: [...],
        "references"?: [...], "suggestions"?: [...], "interrupt"?: {...}, "error"?: str, "notices"?: [{"notice", "message"}], "download_url"?: str,
        "incomplete"?: true, "finish_reason"?: str}``.

        ``content`` is the concatenation of the main agent's ``token`` events (subagent tokens are the
        reviewers' own and stay out), or the corrected text of a ``references`` event when the citation
        check removed something; a ``token`` with ``replace: true`` discards the text before it; the last
        ``updated_todo_list`` gives the todos; each ``progress`` with a ``notice`` (the run's time-out or call
        limit cut the answer short, no model, the rules answered…) is kept in ``notices``; an ``error`` or a
    notice saying the answer is partial (``incomplete``, :data:`~vent_agent.events.INCOMPLETE_NOTICES`) sets
    ``incomplete: true`` and the model's ``finish_reason`` when known. Events sent in parts are joined first; each is read through the
        event catalogue (:func:`vent_agent.events.parse_event`)."""
    content: list[str] = []
    corrected: str | None = None
    turn: dict[str, Any] = {"role": "assistant"}
    tool_calls: list[dict[str, Any]] = []
    for ev in map(parse_event, merge_parts(events)):
        if isinstance(ev, Token) and ev.replace:  # the text so far was partial: this one replaces it
            content = [ev.content]
        elif isinstance(ev, Token) and ev.source == "main":
            content.append(ev.content)
        elif isinstance(ev, ToolCall):
            tool_calls.append({"tool": ev.tool, "source": ev.source})
        elif isinstance(ev, UpdatedTodoList):
            turn["todos"] = [t.model_dump(mode="json") for t in ev.todos]
        elif isinstance(ev, References):
            turn["references"] = [r.model_dump(mode="json") for r in ev.references]
            if ev.warnings:
                turn["citation_warnings"] = [w.model_dump(mode="json") for w in ev.warnings]
            if ev.content is not None:  # the citation check removed some: this corrected text replaces it
                corrected = ev.content
        elif isinstance(ev, Suggestions):
            turn["suggestions"] = ev.suggestions
        elif isinstance(ev, Interrupt):
            turn["interrupt"] = {"message": ev.message, "interrupts": ev.interrupts, "plan": ev.plan}
            if ev.interrupt_ids:
                turn["interrupt"]["interrupt_ids"] = ev.interrupt_ids
        elif isinstance(ev, Error):
            turn["error"] = ev.message
            _flag_incomplete(turn, ev.incomplete, ev.finish_reason)
        elif isinstance(ev, Progress) and ev.notice is not None:
            turn.setdefault("notices", []).append({"notice": ev.notice, "message": ev.message})
            _flag_incomplete(turn, ev.notice in INCOMPLETE_NOTICES, ev.finish_reason)
        url = getattr(ev, "download_url", None)
        if url:
            turn["download_url"] = url
    turn["content"] = corrected if corrected is not None else "".join(content)
    if tool_calls:
        turn["tool_calls"] = tool_calls
    return turn


def _flag_incomplete(turn: dict[str, Any], incomplete: bool | None, finish_reason: str | None) -> None:
    """Mark the folded ``turn`` incomplete (``incomplete: true``, the model's ``finish_reason`` if any)."""
    if incomplete:
        turn["incomplete"] = True
        if finish_reason:
            turn["finish_reason"] = finish_reason


def turn_extra(turn: dict[str, Any]) -> dict[str, Any]:
    """The parts of a folded turn stored beside its text (everything but role and content)."""
    return {k: v for k, v in turn.items() if k not in ("role", "content")}


def review_turn_extra(events: Sequence[Mapping[str, Any]], thread_id: str) -> dict[str, Any]:
    """What the history keeps beside the text of a review's assistant turn in a session: its
    ``thread_id``, ``kind: "review"``, and from the run's ``events`` the report's ``download_url``, the
    findings' counts (``summary``) or the ``error``."""
    folded = fold_events(events)
    extra: dict[str, Any] = {"thread_id": thread_id, "kind": "review"}
    for key in ("download_url", "error"):
        if folded.get(key):
            extra[key] = folded[key]
    counts = next((ev["summary"] for ev in events if isinstance(ev.get("summary"), dict)), None)
    if counts is not None:
        extra["summary"] = counts
    return extra
