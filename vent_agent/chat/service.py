"""Chat runs: one turn of the supervisor graph (dialogue agent or plan review) streamed as the spec's
events, and the resume of a plan-mode approval. The user message is stored before the run; the
assistant turn is stored as the fold of the run's logged events (so the history equals the stream).

A model stream cut before its end (:class:`~vent_agent.llm.finish.IncompleteResponse`) keeps the text
streamed so far, says so in an ``error`` event (stored with the turn) and ends with ``done`` saying the
answer is incomplete (``incomplete: true``), never 完成; a tool call cut or not strict JSON
(:class:`~vent_agent.llm.finish.CutToolCall`) is never run and the ``error`` names it. An answer that
arrived whole but ended with ``finish_reason`` ``length``/``content_filter``/… is kept with a ``progress``
notice; one with no text (reasoning only) is an ``error`` (:mod:`vent_agent.chat.ending`).

Budgets: the graph's call limits (``max_model_calls``, ``max_tool_calls``) and a run time-out
(``run_timeout_s``, from the start of the run); when one is hit the user keeps the text streamed so far,
with a notice, never a bare failure. The time-out bounds everything after it too: once it is hit there is
no follow-up suggestions call, and before it that call gets only the time left.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar
from zoneinfo import ZoneInfo

from langchain_core.messages import HumanMessage

from vent_agent.auth import User
from vent_agent.chat.approvals import (
    announce_rest,
    interrupt_card,
    is_review,
    pending_interrupts,
    resume_command,
)
from vent_agent.chat.ending import answer_ending
from vent_agent.chat.suggest import suggest_followups
from vent_agent.chat.toolset import (
    PromptExtras,
    chat_tools,
    new_citations,
    prompt_extras,
    references_event,
    replay_retrievals,
)
from vent_agent.events import (
    ChatDone,
    ChatProgress,
    Done,
    Error,
    Suggestions,
)
from vent_agent.graphs.dialogue import AGENT_NAME, build_dialogue_agent
from vent_agent.graphs.prompts import system_prompt
from vent_agent.graphs.stream import StreamMapper, tool_label
from vent_agent.graphs.supervisor import DIALOGUE, REVIEW, build_supervisor, wants_review
from vent_agent.llm.chunks import model_name
from vent_agent.llm.failures import model_endpoint, model_failure_message
from vent_agent.llm.finish import CutToolCall, IncompleteResponse
from vent_agent.llm.no_model import NoChatModel
from vent_agent.llm.usage import context_breakdown
from vent_agent.review.service.pipeline import ReviewRequest
from vent_agent.review.service.run import REVIEW_FAILED, review_run
from vent_agent.runs.agent_span import agent_done, agent_start
from vent_agent.runs.emitter import Emitter
from vent_agent.sessions import store
from vent_agent.sessions.fold import fold_events, turn_extra
from vent_agent.sessions.threads import graph_config
from vent_agent.state import AppState
from vent_agent.store.models import SessionRow, utcnow
from vent_agent.tools.context import AgentContext

log = logging.getLogger(__name__)

REVIEW_AGENT = "配风计划审查"
E = TypeVar("E", bound=BaseException)
SUGGEST_TIMEOUT_S = 20.0
INCOMPLETE = "模型回答在中途中断（连接在回答结束前关闭），以上为不完整的部分回答，请重试"
NO_MODEL = "未配置对话模型（VENT_MODELS），暂时无法对话；配风计划审查（上传 PDF）仍可使用"


@dataclass
class ChatTurn:
    """One chat request, validated: the caller, their session, the LangGraph thread (namespaced by the
    session, so one user's thread id can never reach another's checkpoints), the message and the saved
    attachment (``{"kind": "pdf", "path", "sha256", "file_name"}``) if any."""

    user: User
    session: SessionRow
    thread_id: str
    message: str
    attachment: dict[str, Any] | None
    base_url: str
    deadline: float | None = None
    """The run's end at the latest (event-loop time, s): set when the run starts (``run_timeout_s``)."""
    timed_out: bool = False
    """The run time-out was hit (the graph was stopped by it)."""
    prompt_parts: dict[str, str] = field(default_factory=dict)
    """The dialogue agent's system prompt of this turn in parts (``system_prompt``, ``skills``), for the
    context breakdown of its last model request; empty when no dialogue agent was built."""

    def start_clock(self, timeout_s: float) -> None:
        """Set :attr:`deadline` ``timeout_s`` seconds from now (the run's start)."""
        self.deadline = asyncio.get_running_loop().time() + timeout_s

    def time_left(self) -> float:
        """Seconds until :attr:`deadline` (0 when passed; no limit before the clock starts)."""
        if self.deadline is None:
            return float("inf")
        return max(0.0, self.deadline - asyncio.get_running_loop().time())


async def thread_exists(state: AppState, session_id: str, thread_id: str) -> bool:
    """True when the thread has a checkpoint."""
    return await state.checkpointer.aget_tuple(graph_config(session_id, thread_id)) is not None


def _done(
    turn: ChatTurn, message: str, *, incomplete: bool | None = None, finish: str | None = None
) -> ChatDone:
    return ChatDone(
        session_id=turn.session.id,
        thread_id=turn.thread_id,
        message=message,
        incomplete=incomplete,
        finish_reason=finish,
    )


async def _context(state: AppState, turn: ChatTurn, run_id: str, citations: Any = None) -> AgentContext:
    return AgentContext(
        citations=citations,
        source=state.source,
        settings=state.settings,
        db=state.db,
        user_name=turn.user.user_name,
        token=turn.user.token,
        run_id=run_id,
        session_id=turn.session.id,
        thread_id=turn.thread_id,
        graph=state.graph.store,
    )


async def _build_graph(state: AppState, emitter: Emitter, turn: ChatTurn, mode: str, model: Any) -> Any:
    """The supervisor for this turn, with the dialogue agent (when a model is configured) and the
    review node bound to this run's emitter."""

    async def review(att: dict[str, Any]) -> str:
        req = ReviewRequest(
            att["path"], att["sha256"], att["file_name"], False, turn.message, turn.session.user_name
        )
        try:
            return await review_run(
                emitter, state, req, turn.base_url, turn.session.id, final=False, agent=REVIEW_AGENT
            )
        except Exception as exc:  # not the model's fault: the run's error must say so
            raise ReviewCrashed(type(exc).__name__) from exc

    agent = None
    if model is not None:
        extras = await prompt_extras(state, turn.user.user_name)
        tz = ZoneInfo(state.settings.timezone)
        prompt = system_prompt(
            mode=mode,
            edition=state.settings.regulation_edition,
            skills_index=extras.skills_index,
            preferences=extras.preferences,
            now=datetime.now(tz).strftime("%Y-%m-%d %H:%M"),
        )
        agent = build_dialogue_agent(
            model,
            chat_tools(state),
            prompt=prompt,
            mode=mode,
            max_model_calls=state.settings.max_model_calls,
            max_tool_calls=state.settings.max_tool_calls,
            context_schema=AgentContext,
        )
        _remember_prompt(turn, prompt, extras)
    return build_supervisor(
        agent, review, checkpointer=state.checkpointer, context_schema=AgentContext, plan_mode=mode == "plan"
    )


def _remember_prompt(turn: ChatTurn, prompt: str, extras: PromptExtras) -> None:
    """Keep the prompt's parts with the turn for the context breakdown of its last model request."""
    turn.prompt_parts = {
        "system_prompt": prompt.replace(extras.skills_index, ""),
        "skills": extras.skills_index,
    }


async def stream_graph(
    state: AppState, emitter: Emitter, turn: ChatTurn, graph_input: Any, mode: str, model: Any
) -> StreamMapper:
    """Run the supervisor on ``graph_input`` (new messages or a resume Command) and stream its events.
    Emits agent_start/agent_done around the dialogue agent; applies the run time-out."""
    graph = await _build_graph(state, emitter, turn, mode, model)
    mapper = StreamMapper(emitter.send, model_name=model_name(model))
    mapper.citations = new_citations(state)
    mapper.done_tool_calls = await replay_retrievals(
        graph, graph_config(turn.session.id, turn.thread_id), mapper.citations
    )
    ctx = await _context(state, turn, emitter.run_id, mapper.citations)
    started: dict[str, float] = {}
    timed_out = False
    if turn.deadline is None:
        turn.start_clock(state.settings.run_timeout_s)
    try:
        async with asyncio.timeout_at(turn.deadline):
            async for ns, stream_mode, data in graph.astream(
                graph_input,
                graph_config(turn.session.id, turn.thread_id),
                context=ctx,
                stream_mode=["messages", "updates", "tasks", "custom"],
                subgraphs=True,
            ):
                if not ns and stream_mode == "tasks" and data.get("name") == DIALOGUE:
                    if "input" in data:
                        started[data["id"]] = await agent_start(emitter.send, AGENT_NAME)
                    elif not data.get("interrupts") and not data.get("error"):
                        await agent_done(emitter.send, AGENT_NAME, started.pop(data["id"], time.monotonic()))
                    continue
                if not ns and stream_mode != "updates":
                    continue
                await mapper.feed((ns, stream_mode, data))
    except TimeoutError:
        timed_out = True
    except Exception as exc:  # the model endpoint or a middleware failed: say so, keep what was said
        log.warning("chat run %s failed: %s", emitter.run_id, exc, exc_info=True)
        mapper.failure = _failure_message(exc, model)
        cut = _cause_of(exc, IncompleteResponse)
        mapper.failure_incomplete = cut is not None
        mapper.failure_finish = cut.finish if isinstance(cut, CutToolCall) else None
    if timed_out:
        await emitter.send(
            ChatProgress(
                message=f"已达到单次运行时限（{int(state.settings.run_timeout_s)} 秒），以上为目前的部分结果",
                notice="run_timeout",
            )
        )
    elif mapper.model_calls >= state.settings.max_model_calls and not mapper.interrupt:
        await emitter.send(
            ChatProgress(
                message=f"已达到模型调用次数上限（{state.settings.max_model_calls} 次），以上为目前的部分结果",
                notice="model_call_limit",
            )
        )
    if model is not None and mapper.model_calls:
        failed = mapper.failure if mapper.failure and not mapper.failure_incomplete else None
        state.models.note_call(model_endpoint(model)[0], failed)
    await _record_usage(state, turn, mapper)
    turn.timed_out = turn.timed_out or timed_out
    return mapper


class ReviewCrashed(RuntimeError):
    """A review run inside a chat turn failed unexpectedly (a bug, a full disk…), not the model call.
    Its argument is the name of the original exception's type, which is its ``__cause__``."""


def _failure_message(exc: BaseException, model: Any) -> str:
    """The ``error`` message of a chat run that raised ``exc``: an incomplete model answer, a review
    that crashed, or else a failed call of ``model`` (named with its base URL; the endpoint, or a
    middleware around it)."""
    cut_call = _cause_of(exc, CutToolCall)
    if cut_call is not None:
        log.warning("tool calls %s refused: %s", cut_call.tools, cut_call.message)
        return cut_call.describe(tool_label)
    if _cause_of(exc, IncompleteResponse) is not None:
        return INCOMPLETE
    crashed = _cause_of(exc, ReviewCrashed)
    if crashed is not None:
        return f"{REVIEW_FAILED}：服务内部错误（{crashed.args[0]}），请稍后重试；如反复出现请联系管理员"
    return model_failure_message(exc, model)


def _cause_of(exc: BaseException, kind: type[E]) -> E | None:
    """``exc``, or the first exception it was raised from (or during), that is a ``kind``; else None."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, kind):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


async def _record_usage(state: AppState, turn: ChatTurn, mapper: StreamMapper) -> None:
    """Store the last model request's token usage, split over the prompt's parts (system prompt,
    skills index, the conversation so far; tool schemas and results fall to ``other``), for
    ``GET …/context``."""
    if not mapper.usage or not mapper.usage.get("input_tokens"):
        return
    messages, _total = await store.history(state.db, turn.session.id, limit=1000, offset=0)
    usage = context_breakdown(
        mapper.usage,
        state.models.context_window(),
        {**turn.prompt_parts, "messages": "\n".join(m["content"] for m in messages)},
    ).as_dict()
    usage["updated_at"] = utcnow().isoformat(timespec="seconds")  # UTC; answered in the mine's time
    await store.update_session(state.db, turn.session.id, context_usage=json.dumps(usage, ensure_ascii=False))


async def finish_turn(
    state: AppState, emitter: Emitter, turn: ChatTurn, mapper: StreamMapper, model: Any
) -> None:
    """After the graph: an interrupt ends the stream without ``done``; otherwise the follow-up
    suggestions, the assistant turn stored as the fold of the log, then ``done``."""
    if mapper.interrupt:
        pending = await pending_interrupts(state, turn.session.id, turn.thread_id)
        await emitter.send(interrupt_card(pending, turn.session.id, turn.thread_id))
        await _store_turn(state, emitter, turn)
        emitter.saw_done = True  # an interrupted turn ends without done (spec); resume continues it
        return
    if mapper.failure:
        incomplete, finish = mapper.failure_incomplete or None, mapper.failure_finish
        await emitter.send(Error(message=mapper.failure, incomplete=incomplete, finish_reason=finish))
        await _store_turn(state, emitter, turn)
        message = "对话中断（回答不完整）" if incomplete else "对话失败"
        await emitter.send(_done(turn, message, incomplete=incomplete, finish=finish))
        return
    ending = answer_ending(mapper.last_response)
    if ending is not None and ending.error is not None:
        await emitter.send(Error(message=ending.error, incomplete=True, finish_reason=ending.finish))
        await _store_turn(state, emitter, turn)
        await emitter.send(_done(turn, "对话失败", incomplete=True, finish=ending.finish))
        return
    if ending is not None and ending.notice is not None:
        await emitter.send(
            ChatProgress(message=ending.message, notice=ending.notice, finish_reason=ending.finish)
        )
    answer = "".join(mapper.text)
    if mapper.citations is not None:
        await references_event(
            emitter.send, answer, mapper.citations, attachments=await _attachment_names(state, turn)
        )
    timed_out = turn.timed_out or turn.time_left() <= 0
    cut_short = timed_out or ending is not None or mapper.model_calls >= state.settings.max_model_calls
    if model is not None and answer.strip() and not timed_out and ending is None:
        suggestions = await suggest_followups(
            model, turn.message, answer, timeout_s=min(SUGGEST_TIMEOUT_S, turn.time_left())
        )
        if suggestions:
            await emitter.send(Suggestions(suggestions=suggestions, message="您可能还想问"))
    await _store_turn(state, emitter, turn)
    if mapper.review_failed(REVIEW_FAILED):
        message = "审查失败"
    elif timed_out:
        message = "对话超时（以上为部分结果）"
    elif ending is not None:
        message = "对话中断（回答不完整）"
    else:
        message = "对话完成"
    finish = ending.finish if ending is not None else None
    await emitter.send(_done(turn, message, incomplete=cut_short or None, finish=finish))


async def _attachment_names(state: AppState, turn: ChatTurn) -> list[str]:
    """The names of the files attached in the turn's session (this turn's and earlier turns')."""
    names = await store.attachment_names(state.db, turn.session.id)
    if turn.attachment and turn.attachment.get("file_name"):
        names.append(str(turn.attachment["file_name"]))
    return names


async def _store_turn(state: AppState, emitter: Emitter, turn: ChatTurn) -> None:
    await emitter.flush()
    events = [ev.payload for ev in await state.runs.events_after(emitter.run_id, 0, limit=100_000)]
    folded = fold_events(events)
    await store.add_message(
        state.db,
        turn.session.id,
        "assistant",
        folded["content"],
        run_id=emitter.run_id,
        extra=turn_extra(folded) or None,
    )


async def refuse_without_model(emitter: Emitter) -> None:
    """The body of a chat run that opened no session (no chat model configured): the ``error`` and a
    ``done`` (``对话失败``) whose ``session_id`` and ``thread_id`` are null."""
    await emitter.send(Error(message=NO_MODEL))
    await emitter.send(Done(message="对话失败"))


async def chat_run(emitter: Emitter, state: AppState, turn: ChatTurn) -> None:
    """The body of a chat run (``RunManager.start``)."""
    turn.start_clock(state.settings.run_timeout_s)
    review = wants_review(turn.message, turn.attachment)
    model = None if review else await state.models.chat_model()
    if model is None and not review:
        await emitter.send(Error(message=NO_MODEL))
        await _store_turn(state, emitter, turn)
        await emitter.send(_done(turn, "对话失败"))
        return
    content = turn.message
    if turn.attachment and not review:
        content += await attachment_note(
            state, emitter, turn.attachment, turn.message, owner=turn.session.user_name
        )
    graph_input = {
        "messages": [HumanMessage(content=content)],
        "attachment": turn.attachment,
        "route": REVIEW if review else DIALOGUE,
    }
    mapper = await stream_graph(state, emitter, turn, graph_input, turn.session.mode, model)
    await finish_turn(state, emitter, turn, mapper, model)


async def attachment_note(
    state: AppState, emitter: Emitter, attachment: dict[str, Any], message: str, *, owner: str = ""
) -> str:
    """What the dialogue agent is told of a PDF attached to a question that is not a review: the plan as
    parsed (locations, methods, figures with their pages), or why it could not be read."""
    from vent_agent.review.outputs.remarks_digest import plan_digest
    from vent_agent.review.service.pipeline import ReviewFailed, ReviewRequest, load_plan

    req = ReviewRequest(
        attachment["path"], attachment["sha256"], attachment["file_name"], False, message, owner
    )
    head = f"\n\n[用户附带了文件《{attachment['file_name']}》"
    try:
        plan = await load_plan(req, state.settings, emitter.send, ocr_slots=state.ocr_slots)
    except ReviewFailed as exc:
        return f"{head}，无法解析：{exc.message}]"
    if not plan.locations and not plan.allocation:
        return f"{head}，其中未识别出配风计划内容]"
    return f"{head}，以下是其解析结果（如需完整审查，请用户说明“审查这份配风计划”）]\n{plan_digest(plan)}"


async def resume_run(
    emitter: Emitter, state: AppState, turn: ChatTurn, action: str, interrupt_ids: list[str]
) -> None:
    """The body of a resume run: decide the pending interrupts ``interrupt_ids`` (all of them, or one of
    several) with the user's ``action`` (``approve``; ``reject``/``cancel`` reject) and go on; approvals
    still pending after it are announced again (:mod:`vent_agent.chat.approvals`)."""
    turn.start_clock(state.settings.run_timeout_s)
    model = await state.models.chat_model()
    pending = await pending_interrupts(state, turn.session.id, turn.thread_id)
    command = resume_command(interrupt_ids, action, turn.user.user_name)
    if action != "approve":
        # The approval tool answers with the rejection, the agent ends without a model call (the
        # pending tool call is closed, so the session stays usable); the stream says so (spec). No
        # model is needed for that: a rejection always releases the session.
        graph = await _build_graph(state, emitter, turn, "plan", model or NoChatModel())
        ctx = await _context(state, turn, emitter.run_id)
        await graph.ainvoke(command, graph_config(turn.session.id, turn.thread_id), context=ctx)
        if await announce_rest(emitter, state, turn.session.id, turn.thread_id, action):
            await _store_turn(state, emitter, turn)
            emitter.saw_done = True  # other approvals still pending: the turn goes on after them
            return
        await _store_turn(state, emitter, turn)
        await emitter.send(_done(turn, "已取消执行"))
        return
    if model is None and not is_review(pending):  # an approved review needs no model
        await emitter.send(Error(message=NO_MODEL))
        await emitter.send(_done(turn, "对话失败"))
        return
    mapper = await stream_graph(state, emitter, turn, command, "plan", model)
    await finish_turn(state, emitter, turn, mapper, model)
