"""Thinking levels (spec §模型管理接口: ``off``, ``high``, ``highest``) and what each means on the wire
for each provider kind, kept as data.

=========  ==========================================  ==============================================
provider   level → request parameters                  source
=========  ==========================================  ==============================================
deepseek   off: ``thinking: {type: disabled}``          DeepSeek API guide "Thinking Mode": thinking is
           high: ``thinking: {type: enabled}``,         on by default; ``reasoning_effort`` high|max
           ``reasoning_effort: high``                   (low/medium map to high, xhigh to max)
           highest: enabled, ``reasoning_effort: max``
qwen       off: ``enable_thinking: false``              DashScope OpenAI-compatible mode (Qwen3):
           high: ``enable_thinking: true``,             ``enable_thinking`` and ``thinking_budget``
           ``thinking_budget: 8192``                    (tokens) in the request body
           highest: ``enable_thinking: true``, no
           budget (the model's own maximum)
openai     off: nothing sent (the endpoint's default;   OpenAI Chat Completions ``reasoning_effort``;
           a non-reasoning model rejects the field)     the default effort of its reasoning models is
           high: ``reasoning_effort: medium``           medium
           highest: ``reasoning_effort: high``
=========  ==========================================  ==============================================

``extra_body`` entries travel as top-level JSON fields of the request (the OpenAI SDK merges them);
``reasoning_effort`` is a field of ``BaseChatOpenAI``.
"""

from __future__ import annotations

import copy
from typing import Any, Literal

ThinkingLevel = Literal["off", "high", "highest"]

THINKING_LEVELS: tuple[str, ...] = ("off", "high", "highest")
DEFAULT_THINKING_LEVEL: ThinkingLevel = "off"

#: provider kind → level → keyword arguments of the provider's chat-model class.
THINKING_PARAMS: dict[str, dict[str, dict[str, Any]]] = {
    "deepseek": {
        "off": {"extra_body": {"thinking": {"type": "disabled"}}},
        "high": {"extra_body": {"thinking": {"type": "enabled"}}, "reasoning_effort": "high"},
        "highest": {"extra_body": {"thinking": {"type": "enabled"}}, "reasoning_effort": "max"},
    },
    "qwen": {
        "off": {"extra_body": {"enable_thinking": False}},
        "high": {"extra_body": {"enable_thinking": True, "thinking_budget": 8192}},
        "highest": {"extra_body": {"enable_thinking": True}},
    },
    "openai": {
        "off": {},
        "high": {"reasoning_effort": "medium"},
        "highest": {"reasoning_effort": "high"},
    },
}


class UnknownThinkingLevel(ValueError):
    """A level that is not one of :data:`THINKING_LEVELS`."""

    def __init__(self, level: str) -> None:
        super().__init__(f"无效的思考级别「{level}」，可选：{'、'.join(THINKING_LEVELS)}")
        self.level = level


def thinking_params(provider: str, level: str) -> dict[str, Any]:
    """The chat-model keyword arguments for ``level`` on ``provider`` (a fresh copy; may be empty).

    Raises :class:`UnknownThinkingLevel` for a level outside :data:`THINKING_LEVELS`; an unknown
    provider kind is treated as ``openai``."""
    if level not in THINKING_LEVELS:
        raise UnknownThinkingLevel(level)
    return copy.deepcopy(THINKING_PARAMS.get(provider, THINKING_PARAMS["openai"])[level])
