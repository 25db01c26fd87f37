"""The agents' tools and the per-user parts of their prompts, assembled per run."""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool

from vent_agent.events import References
from vent_agent.events import Send as Emit
from vent_agent.kb.citations import CitationRegistry, consecutive, validate_citations
from vent_agent.kb.numerals import find_article_refs
from vent_agent.kb.search import get_knowledge_base
from vent_agent.skills import CLICK_INTERPRET, VENT_CHAT, render_prompt_index
from vent_agent.skills.tool import make_load_skill_tool
from vent_agent.state import AppState
from vent_agent.tools.calc_tools import calc_tools
from vent_agent.tools.data_tools import data_tools
from vent_agent.tools.graph_tools import graph_tools
from vent_agent.tools.kb_tools import TOOL_NAME as KB_TOOL
from vent_agent.tools.kb_tools import kb_context_tools, query_knowledge_base
from vent_agent.tools.network_tools import network_tools
from vent_agent.tools.preference_store import render_preferences
from vent_agent.tools.preference_tools import preference_tools
from vent_agent.tools.system_tools import system_tools

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PromptExtras:
    """The enabled skills' index (names and descriptions only) and the user's preferences, rendered."""

    skills_index: str
    preferences: str


def _skill_tools(state: AppState, agent: str) -> list[BaseTool]:
    return [make_load_skill_tool(state.skills, agent)]


def chat_tools(state: AppState) -> list[BaseTool]:
    """The dialogue agent's tools: the 11 data tools (over the mine's ventilation system), the knowledge
    base, the calculators, the network tools (solve, what-if, regulator, diagonal branches), user
    preferences, the current time, the provenance graph (``query_graph``) and ``load_skill``;
    ``write_todos`` comes with the todo middleware."""
    return [
        *data_tools(),
        *kb_context_tools(),
        *calc_tools(),
        *network_tools(),
        *preference_tools(),
        *system_tools(),
        *graph_tools(),
        *_skill_tools(state, VENT_CHAT.agent_id),
    ]


def click_tools(state: AppState) -> list[BaseTool]:
    """The click-interpret agent's tools: the data tools, the knowledge base and ``load_skill``."""
    return [*data_tools(), *kb_context_tools(), *_skill_tools(state, CLICK_INTERPRET.agent_id)]


async def skills_index(state: AppState, agent: str) -> str:
    """The prompt block listing the enabled skills of ``agent`` ('' when none)."""
    return render_prompt_index(await state.skills.prompt_index(agent))


async def prompt_extras(state: AppState, user_name: str) -> PromptExtras:
    """The parts of the dialogue agent's system prompt that depend on the service state and the user."""
    return PromptExtras(
        skills_index=await skills_index(state, VENT_CHAT.agent_id),
        preferences=await render_preferences(state.db, user_name),
    )


def new_citations(state: AppState) -> CitationRegistry:
    """A fresh registry of retrieved articles for one run (the knowledge base is built once per process)."""
    return CitationRegistry(get_knowledge_base(state.settings.kb_dir, state.settings.regulation_edition))


async def references_event(
    emit: Emit,
    answer: str,
    citations: CitationRegistry,
    *,
    check_figures: bool = True,
    attachments: Iterable[str] = (),
    one_off: bool = False,
) -> None:
    """Check the answer's citations against what the run retrieved and send the additive
    ``references`` event (before ``done``): the reference list, the warnings, and — when a citation had
    to be removed — the corrected ``content`` that the history keeps. ``check_figures`` False skips the
    figure check (the deterministic interpretation writes measured readings beside the clauses it
    cites: its figures are not the clause's); removed citations are warned about either way.
    ``attachments``: the names of the files the user attached in the conversation, never listed as
    sources when the answer names them in 《》. ``one_off``: a text no later turn reads (an
    interpretation), its references numbered without gaps (:func:`~vent_agent.kb.citations.consecutive`)."""
    if not answer.strip() and not citations.retrieved():
        return
    checked = validate_citations(answer, citations, figures=check_figures, attachments=attachments)
    if one_off:
        checked = consecutive(checked)
    removed = sum(1 for w in checked.warnings if w.removed)
    await emit(
        References(
            references=checked.references,
            warnings=checked.warnings,
            content=checked.text if checked.text != answer else None,
            message=f"引用校验：删除 {removed} 处无效引用" if removed else "引用的规程条款",
        )
    )


async def replay_retrievals(graph: Any, config: RunnableConfig, citations: CitationRegistry) -> set[str]:
    """Record again, in order, the knowledge-base look-ups already made in this thread (earlier turns,
    and the part of an approved plan run before its interrupt), so that the answer may cite what the
    conversation retrieved and the markers stay the same (retrieval is deterministic). Returns the ids
    of the tool calls already answered in the thread."""
    snap = await graph.aget_state(config, subgraphs=True)
    messages = list(snap.values.get("messages", []))
    for task in snap.tasks:
        if task.state is not None:
            messages += task.state.values.get("messages", [])
    seen: set[str] = set()
    answered = {m.tool_call_id for m in messages if getattr(m, "type", "") == "tool"}
    for msg in messages:
        for call in getattr(msg, "tool_calls", None) or []:
            if call.get("name") != KB_TOOL or call.get("id") in seen:
                continue
            seen.add(call.get("id") or "")
            args = call.get("args") or {}
            if isinstance(args.get("query"), str) and args["query"].strip():
                with contextlib.suppress(Exception):  # a look-up that failed then fails now: nothing to cite
                    query_knowledge_base(
                        citations, args["query"], int(args.get("top_k") or 5), args.get("edition")
                    )
    return answered


_ARTICLE = re.compile(r"第\s*(\d+)\s*条")


def record_text_articles(citations: CitationRegistry, text: str) -> None:
    """Record in ``citations`` every article of 《煤矿安全规程》 that ``text`` cites by number and the
    knowledge base holds (aliases followed), unless already recorded: the service's own text cites
    only what its ``references`` event lists. Articles the knowledge base lacks are left to the check
    (a ``not_in_kb`` warning)."""
    kb = citations.kb
    for ref in find_article_refs(text):
        for n in ref.numbers:
            res = kb.resolve(n, ref.edition)
            if res is None or citations.get(res.article.edition, res.article.number, res.article.document):
                continue
            clause = kb.lookup(n, ref.edition)
            if clause is not None:
                citations.record(f"第{n}条", [clause], None)


def record_fact_references(citations: CitationRegistry, references: list[Any]) -> None:
    """Record in ``citations`` the provisions a deterministic interpretation cites (``article`` label
    with 第N条 and the ``clause`` text), looked up in the knowledge base by number and row, so that its
    ``references`` event lists them with their excerpts (the table row for 表6)."""
    for ref in references:
        m = _ARTICLE.search(str(getattr(ref, "article", "")))
        if m is None:
            continue
        text = str(getattr(ref, "clause", "") or getattr(ref, "requirement", ""))
        row = text.split("：", 1)[-1][:60]
        clauses = citations.kb.search(f"第{m.group(1)}条 {row}", k=1)
        if clauses:
            citations.record(f"第{m.group(1)}条", clauses, None)
