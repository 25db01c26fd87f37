"""The event catalogue: every event a run streams, one pydantic model per type (and flow variant).

The wire is the spec's (ventilation-api v2.0, 流式响应): one ``data: <compact JSON>\\n\\n`` frame per event,
``type`` first, the log adds ``seq`` and ``run_id`` last. :data:`Event` is the union of the wire models,
discriminated by ``type``; :func:`parse_event` reads a logged or streamed payload into it (unknown types
and fields are kept, so an older client reads a newer service). Run bodies build the models and call
``Emitter.send(event)`` (:mod:`vent_agent.runs.emitter`), which refuses undeclared fields.

Flow variants are subclasses of a wire model that pin what one flow sends (``ClickDone``, ``ChatDone``,
``ReviewDone``; ``ClickProgress``, ``ChatProgress``, ``ReviewProgress``; ``ReviewerDone``): build those,
parse into the wire model.

Frames stay under :data:`vent_agent.wire.FRAME_CAP` bytes (the spec's frontend parser drops a frame split across reads):
``token``/``reasoning`` are cut into several events (on character boundaries); a model naming
``SPLIT_LISTS``/``SPLIT_TEXT`` is sent in parts (``part``/``parts``, 1-based: the lists concatenate, the
text fields concatenate, the other fields repeat; :func:`vent_agent.event_parts.merge_parts` joins them); any other string that
still does not fit is shortened with ``…`` (:func:`fit_frames`).

To add a field: declare it on the model (``None`` default if it is not always sent: ``None`` values are
left off the wire unless named in ``KEEP_NULL``), add it to the event's row in docs/API_DOCUMENTATION.md
(``tests/test_event_catalogue.py`` compares both ways) and, if it holds long text or a long list, to
``SPLIT_TEXT``/``SPLIT_LISTS``. To add a type: a model with ``type: Literal["…"] = "…"``, listed in
:data:`Event`, a row in the docs' event table, and ``TEXT_SPLIT``/``PART_TEXT`` in
``vent_agent/static/vent-client.js`` if it is split.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Mapping
from functools import cache
from typing import Annotated, Any, ClassVar, Literal, get_args

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from vent_agent.kb.quoted import CitationWarning, Reference
from vent_agent.visible import visible_text

Source = Literal["main", "subagent", "fast"]
Notice = Literal[
    "run_timeout",
    "model_call_limit",
    "no_model",
    "rule_fallback",
    "device_type_mismatch",
    "output_limit",
    "content_filter",
    "model_stopped",
    "tool_call_retry",
]
"""``progress.notice``: a budget was hit (``run_timeout``, ``model_call_limit``), no model is configured
(``no_model``), the model or agent failed and the rules answered (``rule_fallback``), a clicked device's
``device_type`` is not its real type, which the interpretation uses (``device_type_mismatch``), the chat
answer was cut by the model's output limit (``output_limit``, ``finish_reason: length``), by the provider's
moderation (``content_filter``) or ended by the provider for another reason (``model_stopped``), a tool
call cut by the output limit was not run and the model is asked for it once more (``tool_call_retry``)."""
INCOMPLETE_NOTICES: frozenset[str] = frozenset(
    {"run_timeout", "model_call_limit", "output_limit", "content_filter", "model_stopped"}
)
"""Notices after which the answer shown is incomplete (history and ``done``: ``incomplete: true``)."""
TodoStatus = Literal["pending", "in_progress", "completed"]


Send = Callable[["EventModel"], Awaitable[None]]
"""How a run body appends an event: ``Emitter.send`` (or a stand-in, such as the command line's)."""


class Todo(BaseModel):
    """One item of a todo list: ``{"content", "status"}``."""

    model_config = ConfigDict(extra="allow")
    content: str
    status: TodoStatus


class PageProgress(BaseModel):
    """Per-page progress: ``page`` of ``total`` (text layer: PDF pages; OCR: pages to recognise)."""

    model_config = ConfigDict(extra="allow")
    page: int
    total: int


class OcrProgress(PageProgress):
    """OCR progress: ``page`` of ``total`` pages to recognise, ``pdf_page`` the PDF page, and ``reason``
    why it is OCR'd: ``no_text_layer`` (a scan), ``garbage_text_layer`` (its text layer is not text:
    private-use glyphs, mojibake; :mod:`vent_agent.documents.quality`)."""

    pdf_page: int | None = None
    reason: Literal["no_text_layer", "garbage_text_layer"] | None = None


class SeverityCounts(BaseModel):
    """Rule findings per severity."""

    critical: int = 0
    major: int = 0
    minor: int = 0
    info: int = 0


class Remark(BaseModel):
    """A model remark accepted by a reviewer (``agent_thinking.remark``)."""

    model_config = ConfigDict(extra="allow")
    location: str | None = None
    category: str
    severity: str
    message: str
    page: int | None = None


class EventModel(BaseModel):
    """Base of every event. ``seq``/``run_id`` are set by the log; read models keep unknown fields."""

    model_config = ConfigDict(extra="allow")
    KEEP_NULL: ClassVar[frozenset[str]] = frozenset()
    SPLIT_LISTS: ClassVar[tuple[str, ...]] = ()
    SPLIT_TEXT: ClassVar[tuple[str, ...]] = ()

    seq: int | None = None
    run_id: str | None = None

    def wire(self) -> dict[str, Any]:
        """The payload on the wire: ``type`` first, the declared fields in order (``None`` left off
        unless in ``KEEP_NULL``), any extra fields, then ``seq``/``run_id`` when set."""
        scalars = self._wire_scalars()
        return scalars if scalars is not None else self._wire_dumped()

    def _wire_scalars(self) -> dict[str, Any] | None:
        """:meth:`wire` of an event whose values are all strings, integers, booleans, finite floats or
        None and that has no extra field (most events: progress, tokens, …), read from the model's own
        values: ``model_dump``'s JSON mode would give them back unchanged. None for any other event."""
        if self.__pydantic_extra__:
            return None
        values = self.__dict__
        keep = self.KEEP_NULL
        out: dict[str, Any] = {}
        for key in _wire_order(type(self)):
            value = values[key]
            if value is None:
                if key in keep and key not in ("seq", "run_id"):
                    out[key] = None
                continue
            kind = type(value)
            if kind is str or kind is int or kind is bool or (kind is float and math.isfinite(value)):
                out[key] = value
            else:
                return None
        return out

    def _wire_dumped(self) -> dict[str, Any]:
        """:meth:`wire` of any event, through ``model_dump``'s JSON mode."""
        data = self.model_dump(mode="json")
        seq, run_id = data.pop("seq"), data.pop("run_id")
        keep = self.KEEP_NULL
        out: dict[str, Any] = {"type": data.pop("type")}
        for key, value in data.items():
            if value is not None or key in keep:
                out[key] = value
        if seq is not None:
            out["seq"] = seq
        if run_id is not None:
            out["run_id"] = run_id
        return out


@cache
def _wire_order(model: type[EventModel]) -> tuple[str, ...]:
    """The declared fields of ``model`` in wire order: ``type``, the others, ``seq``, ``run_id``."""
    inner = [name for name in model.model_fields if name not in ("type", "seq", "run_id")]
    return ("type", *inner, "seq", "run_id")


class _Parts(EventModel):
    """An event that may be sent in parts: ``part`` of ``parts`` (1-based), only when split."""

    part: int | None = None
    parts: int | None = None


class Token(EventModel):
    """Generated text; the client concatenates ``content`` (spec: token). ``replace: true`` (only on the
    first token of a rule-based text that replaces a partial model answer): discard the text so far."""

    type: Literal["token"] = "token"
    source: Source = "main"
    content: str
    replace: bool | None = None


class Reasoning(EventModel):
    """A reasoning model's thinking (spec: reasoning); never merged."""

    type: Literal["reasoning"] = "reasoning"
    source: Source = "main"
    content: str


class Thinking(EventModel):
    """A model call (``node: "model"``) or the fast click's data query (``node: "fetching_data"``)."""

    type: Literal["thinking"] = "thinking"
    source: Source
    node: str
    message: str


class Executing(EventModel):
    """Tools about to run (spec: executing)."""

    type: Literal["executing"] = "executing"
    source: Source
    tools: list[str]
    message: str


class ToolCall(EventModel):
    """One tool call of an agent; ``args`` its arguments (added)."""

    type: Literal["tool_call"] = "tool_call"
    source: Source
    tool: str
    message: str
    args: dict[str, Any] = Field(default_factory=dict)


class ToolResult(EventModel):
    """A tool's result came back; ``status`` ``success``/``error`` (added)."""

    type: Literal["tool_result"] = "tool_result"
    source: Source
    tool: str
    status: Literal["success", "error"] = "success"
    message: str


class UpdatedTodoList(_Parts):
    """The dialogue agent's todo list (whole list; in parts when long)."""

    SPLIT_LISTS = ("todos",)
    type: Literal["updated_todo_list"] = "updated_todo_list"
    source: Source
    todos: list[Todo]
    message: str


class Generating(EventModel):
    """Text generation starts (fast click, review report)."""

    type: Literal["generating"] = "generating"
    source: Source
    message: str


class Interrupt(_Parts):
    """Plan mode waits for the user's approval; the stream ends without ``done`` (spec: interrupt).
    One card for every approval pending: ``interrupts`` the plans, ``interrupt_ids`` their ids (same
    order; ``POST /api/chat/resume`` takes one as ``interrupt_id`` to decide only that one)."""

    KEEP_NULL = frozenset({"plan", "session_id", "thread_id"})
    SPLIT_LISTS = ("interrupts",)
    SPLIT_TEXT = ("plan",)
    type: Literal["interrupt"] = "interrupt"
    node: str = "tools"
    message: str
    interrupts: list[Any]
    interrupt_ids: list[str] | None = None
    plan: str | None = None
    session_id: str | None = None
    thread_id: str | None = None


class ReviewCoverage(BaseModel):
    """What a review could read (``done.coverage``): locations found, figures read with confidence,
    figures not read (uncertain, implausible or against the plan's own arithmetic), unreadable plan;
    and, from the reader's scope: ``parts`` (cover, signoff, basis, calculations, allocation, totals →
    high / low / none), ``part_pages`` (part → the PDF pages it was read on), how many locations were established and how many names were not, the
    ``mine`` and ``month`` read, ``pages_low_confidence`` and ``reviewable`` (False: 无法可靠审查). The
    names themselves are in the report and its provenance (a frame stays under 1 KiB)."""

    locations_found: int = 0
    figures_read: int = 0
    figures_not_read: int = 0
    unreadable: bool = False
    parts: dict[str, str] | None = None
    part_pages: dict[str, list[int]] | None = None
    locations_established: int | None = None
    names_not_established: int | None = None
    mine: str | None = None
    month: str | None = None
    pages_low_confidence: list[int] | None = None
    reviewable: bool | None = None


class Progress(EventModel):
    """Progress of a click, a review or a chat (spec: progress); the flows' fields are below."""

    type: Literal["progress"] = "progress"
    message: str
    source: Source | None = None
    agent: str | None = None
    notice: Notice | None = None
    hash_id: str | None = None
    page_progress: PageProgress | None = None
    ocr_progress: OcrProgress | None = None
    download_url: str | None = None
    queued: bool | None = None
    summary: SeverityCounts | None = None
    verdict: str | None = None  # a review's conclusion, as page 1 of its report says it
    month_note: str | None = None  # the plan's month out of date for the review's date, as page 1 says it
    file_name: str | None = None
    coverage: ReviewCoverage | None = None
    finish_reason: str | None = None


class ClickProgress(Progress):
    """A click's progress: ``source`` always, ``notice`` for an explanatory note."""

    source: Source


class ChatProgress(Progress):
    """A chat's notice that the answer is incomplete: a budget (``run_timeout``, ``model_call_limit``) or
    the model's ``finish_reason`` (``output_limit``, ``content_filter``, ``model_stopped``, with
    ``finish_reason``)."""

    notice: Notice


class ReviewProgress(Progress):
    """A review's progress: ``agent: "system"``, the upload's ``hash_id`` and per-page progress; the
    first event of a standalone review names the uploaded file as the client sent it (``file_name``); the
    "审查完成" progress of a review inside a session or a chat carries ``summary`` and ``coverage``."""

    agent: str = "system"


class AgentStart(EventModel):
    """An agent starts: the dialogue agent, the review in a chat, or one of the three reviewers."""

    type: Literal["agent_start"] = "agent_start"
    agent: str
    cn_agent: str
    message: str


class AgentDone(EventModel):
    """An agent finished; a reviewer's adds ``preview`` (≤300 chars), ``progress`` (``n/3``), ``findings``."""

    type: Literal["agent_done"] = "agent_done"
    agent: str
    cn_agent: str
    message: str
    duration_ms: int
    preview: str | None = None
    progress: str | None = None
    findings: int | None = None


class ReviewerDone(AgentDone):
    """A reviewer's ``agent_done``."""

    preview: str
    progress: str
    findings: int


class AgentThinking(EventModel):
    """A reviewer is analysing; ``remark``: one accepted model remark (added)."""

    type: Literal["agent_thinking"] = "agent_thinking"
    agent: str
    message: str
    remark: Remark | None = None


class AgentTodos(_Parts):
    """A reviewer's task list."""

    SPLIT_LISTS = ("todos",)
    type: Literal["agent_todos"] = "agent_todos"
    agent: str
    message: str
    todos: list[Todo]


class AgentExecuting(EventModel):
    """A reviewer runs tools."""

    type: Literal["agent_executing"] = "agent_executing"
    agent: str
    message: str
    tools: list[str]


class AgentToolResult(EventModel):
    """A reviewer's tool finished."""

    type: Literal["agent_tool_result"] = "agent_tool_result"
    agent: str
    message: str
    tool: str


class AgentError(EventModel):
    """A reviewer failed (the others go on)."""

    type: Literal["agent_error"] = "agent_error"
    agent: str
    message: str
    error: str
    progress: str


class References(_Parts):
    """The checked citations (added): ``content`` is the corrected full text when one was removed."""

    SPLIT_LISTS = ("references", "warnings")
    SPLIT_TEXT = ("content",)
    type: Literal["references"] = "references"
    references: list[Reference]
    warnings: list[CitationWarning]
    content: str | None = None
    message: str


class Suggestions(EventModel):
    """Up to three follow-up questions (added)."""

    type: Literal["suggestions"] = "suggestions"
    suggestions: list[str]
    message: str


class Error(EventModel):
    """Something failed; ``done`` follows (spec: error). Control, bidi and zero-width characters of an
    echoed input in ``message`` are written as escapes (:func:`vent_agent.visible.visible_text`). A chat's model answer that is incomplete or
    missing adds ``incomplete: true`` and the model's ``finish_reason`` when it sent one."""

    type: Literal["error"] = "error"
    message: Annotated[str, AfterValidator(visible_text)]
    cancelled: bool | None = None
    worker_lost: bool | None = None
    incomplete: bool | None = None
    finish_reason: str | None = None


class Done(EventModel):
    """The run's last event (spec: done); the flow variants are below."""

    KEEP_NULL = frozenset({"thread_id", "session_id"})
    type: Literal["done"] = "done"
    thread_id: str | None = None
    session_id: str | None = None
    message: str = "运行结束"
    download_url: str | None = None
    summary: SeverityCounts | None = None
    verdict: str | None = None  # a review's conclusion, as page 1 of its report says it
    month_note: str | None = None  # the plan's month out of date for the review's date, as page 1 says it
    incomplete: bool | None = None
    finish_reason: str | None = None


class ClickDone(Done):
    """A click's ``done``: no session, the run is the thread; ``解读完成``/``解读失败``."""

    thread_id: str
    session_id: None = None


class ChatDone(Done):
    """A chat's ``done``: ``对话完成``/``对话失败``/``已取消执行``/``审查失败``…; ``incomplete: true``
    when the answer is partial or missing (cut stream, ``finish_reason`` other than stop/tool_calls, cut
    tool call, a budget), with ``finish_reason`` when the model sent one."""

    thread_id: str
    session_id: str


class ReviewDone(Done):
    """A review's ``done``: ``审查完成`` with ``download_url``, ``summary`` and ``coverage``, or ``审查失败``."""

    thread_id: str
    coverage: ReviewCoverage | None = None


Event = Annotated[
    Token
    | Reasoning
    | Thinking
    | Executing
    | ToolCall
    | ToolResult
    | UpdatedTodoList
    | Generating
    | Interrupt
    | Progress
    | AgentStart
    | AgentDone
    | AgentThinking
    | AgentTodos
    | AgentExecuting
    | AgentToolResult
    | AgentError
    | References
    | Suggestions
    | Error
    | Done,
    Field(discriminator="type"),
]
"""Every event the service streams, keyed on ``type``."""

EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)
CATALOGUE: dict[str, type[EventModel]] = {
    m.model_fields["type"].default: m for m in get_args(get_args(Event)[0])
}
"""``type`` → its wire model."""


class UnknownEvent(EventModel):
    """An event this version does not know (a newer service): its fields are kept as extras."""

    type: str


def parse_event(payload: Mapping[str, Any]) -> Event | UnknownEvent:
    """The model of a logged or streamed payload; :class:`UnknownEvent` for an unknown ``type`` or a
    payload that does not match its model (an older log), never an exception."""
    try:
        return EVENT_ADAPTER.validate_python(dict(payload))
    except ValidationError:
        return UnknownEvent.model_validate({"type": str(payload.get("type", "")), **payload})


def make_event(type_: str, **fields: Any) -> EventModel:
    """The wire model of ``{"type": type_, **fields}``, validated; raises ``ValueError`` for an unknown
    type or an undeclared or ill-typed field."""
    model = CATALOGUE.get(type_)
    if model is None:
        raise ValueError(f"unknown event type {type_!r}")
    event = model.model_validate(fields)
    check_declared(event)
    return event


def check_declared(event: EventModel) -> None:
    """Raise ``ValueError`` when ``event`` carries a field its model does not declare."""
    if event.model_extra:
        raise ValueError(f"{type(event).__name__}: undeclared fields {sorted(event.model_extra)}")
