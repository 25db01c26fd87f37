"""Up to three suggested follow-up questions after an answer (an additive ``suggestions`` event before
``done``, kept in the history). One short model call; any failure or time-out means no suggestions."""

from __future__ import annotations

import asyncio
import json
import logging
import re

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from vent_agent.llm.chunks import model_name
from vent_agent.observability import metrics

log = logging.getLogger(__name__)

PROMPT = (
    "你是煤矿通风助手。根据用户的问题和助手的回答，给出用户接下来最可能追问的 3 个问题，"
    "每行一个，不编号，每个不超过 30 字，只输出问题本身。"
)
_JSON_EDGES = " \t[],\"'“”"
"""Stripped from both ends of a line: quotes, and the brackets and commas of a JSON array cut short."""
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$")
_BULLET = re.compile(r"^\s*(?:[-*•·]|\d+[.、)）]|[（(]\d+[)）])\s*")
MAX_SUGGESTIONS = 3
MAX_LEN = 60


def _json_list(text: str) -> list[str] | None:
    """The strings of a JSON array in ``text`` (bare, or in a Markdown code fence), or None when
    ``text`` holds no such array."""
    body = _FENCE.sub("", text.strip()).strip()
    if not body.startswith("["):
        return None
    try:
        value = json.loads(body)
    except ValueError:
        return None
    if not isinstance(value, list):
        return None
    return [item for item in value if isinstance(item, str)]


def parse_suggestions(text: str) -> list[str]:
    """The questions of ``text``: a JSON array of strings (bare or fenced), else its lines; bullets,
    numbering, quotes and the brackets of a broken array stripped, blanks and duplicates dropped, at most three, each at most 60 characters."""
    items = _json_list(text)
    out: list[str] = []
    for line in items if items is not None else text.splitlines():
        q = _BULLET.sub("", line.strip(_JSON_EDGES)).strip(_JSON_EDGES)
        if q and len(q) <= MAX_LEN and q not in out:
            out.append(q)
        if len(out) == MAX_SUGGESTIONS:
            break
    return out


async def suggest_followups(
    model: BaseChatModel, question: str, answer: str, timeout_s: float = 20.0
) -> list[str]:
    """Ask ``model`` for follow-up questions; [] on any failure."""
    messages = [
        SystemMessage(content=PROMPT),
        HumanMessage(content=f"用户问题：{question[:2000]}\n\n助手回答：{answer[:4000]}"),
    ]
    try:
        async with asyncio.timeout(timeout_s):
            with metrics.time_model(model_name(model)):
                reply = await model.ainvoke(messages, config={"tags": ["suggestions"], "callbacks": []})
    except Exception as exc:  # suggestions are a nicety: never fail the turn for them
        log.info("no follow-up suggestions: %s", exc)
        return []
    content = reply.content if isinstance(reply.content, str) else ""
    return parse_suggestions(content)
