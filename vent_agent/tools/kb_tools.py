"""``query_knowledge_base``: the 《煤矿安全规程》 knowledge base as a LangChain tool, bound to one run.

Each call searches :class:`~vent_agent.kb.search.KnowledgeBase` (BM25 over the articles' passages, or
exact look-up when the query names an article: ``第157条``, ``第一百三十六条``, ``2016版第136条``) and
records what it returned in the run's :class:`~vent_agent.kb.citations.CitationRegistry`, which assigns
each article its citation marker (``[[R1]]``…). The answer is later checked with
:func:`~vent_agent.kb.citations.validate_citations` against that registry.

Use::

    registry = CitationRegistry(get_knowledge_base(settings.kb_dir, settings.regulation_edition))
    tools = [*kb_tools(registry), ...]            # one registry per run
    ...
    await references_event(emitter.send, answer, registry)   # vent_agent.chat.toolset: the additive
                                                             # "references" event, before "done"
"""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, ConfigDict, Field

from vent_agent.kb.citations import CitationRegistry
from vent_agent.kb.search import get_knowledge_base
from vent_agent.kb.thresholds import REGULATION_TITLE
from vent_agent.tools.common import ToolArgs, context_tool, validation_error_content
from vent_agent.tools.context import AgentContext

TOOL_NAME = "query_knowledge_base"
DESCRIPTION = (
    "检索煤矿安全知识库（《煤矿安全规程》条款，含表6井巷允许风速、表5有害气体最高允许浓度等表格）。"
    "query 可以是自然语言问题（如“采煤工作面最高允许风速是多少”），也可以是条号（如“第157条”“第一百五十七条”"
    "“2016版第136条”，2016/2022版条号会自动换算为现行版本）。返回 clauses：每条含 marker（引用标记，如 [[R1]]）、"
    "article（条号）、edition（版本）、label、chapter、excerpt（命中的条文或表格行）、score。"
    "回答中引用规程时，在所依据的句子末尾写上该条的引用标记 [[Rn]]；只能引用本次检索到的条款，"
    "未检索到或不存在的条号会被删除；引用条文中的数值必须与条文一致。"
)
USAGE_NOTE = "引用规程时在句末写上对应的引用标记（如 [[R1]]）；只能引用本次检索到的条款，数值须与条文一致。"


class QueryKnowledgeBaseArgs(BaseModel):
    """Arguments of ``query_knowledge_base``."""

    model_config = ConfigDict(extra="forbid")

    query: str = Field(
        ...,
        min_length=1,
        max_length=500,
        description="检索内容：自然语言问题或条号（如“第157条”“2016版第136条”）",
    )
    top_k: int = Field(5, ge=1, le=10, description="最多返回的条款数（1–10），默认5")
    edition: str | None = Field(
        None, description="规程版本（如“2025”“2016”“2022”）；不填则为系统配置的现行版本"
    )


def query_knowledge_base(
    registry: CitationRegistry, query: str, top_k: int = 5, edition: str | None = None
) -> dict[str, Any]:
    """Search the knowledge base and record the result in ``registry``.

    Returns ``{"edition": str, "query": str, "clauses": [{"marker": "[[R1]]", "article": int, "edition",
    "label", "heading", "chapter", "section", "excerpt", "score", "match", "table_row", "aliases",
    "note"}], "note": str}``; with no hit, ``clauses`` is empty and ``note`` says so.
    """
    kb = registry.kb
    clauses = kb.search(query, k=top_k, edition=edition)
    markers = registry.record(query, clauses, edition)
    items = []
    for marker, c in zip(markers, clauses, strict=True):
        item = {"marker": f"[[{marker}]]", **c.model_dump(mode="json", exclude={"document"})}
        if c.document != REGULATION_TITLE:
            item["document"] = c.document
        items.append(item)
    note = (
        USAGE_NOTE if items else "知识库中未检索到相关条款：请换用其他关键词或条号，不要引用未检索到的条款。"
    )
    return {
        "edition": kb.aliases.edition(edition) or kb.edition,
        "query": query,
        "clauses": items,
        "note": note,
    }


def make_query_knowledge_base_tool(registry: CitationRegistry) -> BaseTool:
    """The ``query_knowledge_base`` tool bound to one run's ``registry``."""

    def run(query: str, top_k: int = 5, edition: str | None = None) -> dict[str, Any]:
        return query_knowledge_base(registry, query, top_k, edition)

    return StructuredTool.from_function(
        func=run,
        name=TOOL_NAME,
        description=DESCRIPTION,
        args_schema=QueryKnowledgeBaseArgs,
        handle_validation_error=lambda err: validation_error_content(TOOL_NAME, err),
    )


def kb_tools(registry: CitationRegistry) -> list[BaseTool]:
    """The knowledge-base tools of one run (``query_knowledge_base``), bound to its ``registry``."""
    return [make_query_knowledge_base_tool(registry)]


# -- the same tool over the run's AgentContext (agents compiled once, context per run) -----------------


class _ContextArgs(QueryKnowledgeBaseArgs, ToolArgs):
    """Arguments of ``query_knowledge_base`` plus the injected runtime (hidden from the model)."""


def registry_of(ctx: AgentContext) -> CitationRegistry | None:
    """The run's citation registry carried by the context (``AgentContext.citations``), if any."""
    reg = getattr(ctx, "citations", None)
    return reg if isinstance(reg, CitationRegistry) else None


async def _query_in_context(
    ctx: AgentContext, query: str, top_k: int = 5, edition: str | None = None
) -> dict[str, Any]:
    """The tool body: the run's registry when the context has one; otherwise the knowledge base of
    ``ctx.settings`` with a throw-away registry (markers then valid for this answer only)."""
    registry = registry_of(ctx)
    if registry is None:
        registry = CitationRegistry(get_knowledge_base(ctx.settings.kb_dir, ctx.settings.regulation_edition))
    # the first call of a process builds the index (jieba's dictionary: seconds): keep the loop free
    return await asyncio.to_thread(query_knowledge_base, registry, query, top_k, edition)


def kb_context_tools() -> list[BaseTool]:
    """``query_knowledge_base`` reading the run's :class:`~vent_agent.tools.context.AgentContext`
    (errors as JSON tool errors, under ``settings.tool_timeout_s``). Its retrievals are recorded in
    ``ctx.citations`` (a :class:`CitationRegistry`) when the context carries one."""
    return [context_tool(TOOL_NAME, DESCRIPTION, _ContextArgs, _query_in_context)]
