"""Token usage of model calls, and the session context breakdown of ``GET /api/sessions/{id}/context``
(spec §上下文用量查询: ``total_limit``, ``current_usage``, ``usage_pct``, ``breakdown`` of ``messages``,
``mcp``, ``skills``, ``system_prompt``, ``other``).

Usage arrives in streams as ``usage_metadata`` on the last chunk (every provider class streams with
``stream_options.include_usage``); a merged ``AIMessage`` carries the sum. The measured prompt size is
split over the parts of the prompt in proportion to their estimated sizes (no tokenizer is shipped for
these models); the answer's tokens count as messages, since the answer joins the history.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.messages.ai import UsageMetadata, add_usage

BREAKDOWN_PARTS: tuple[str, ...] = ("messages", "mcp", "skills", "system_prompt", "other")


def estimate_tokens(text: str) -> int:
    """A rough token count of ``text``: one per CJK character, one per four other characters."""
    cjk = sum(1 for ch in text if "\u2e80" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff")
    return cjk + (len(text) - cjk + 3) // 4


def total_usage(messages: Iterable[BaseMessage]) -> UsageMetadata | None:
    """The summed ``usage_metadata`` of the AI messages (or chunks) among ``messages``; None if none has any."""
    total: UsageMetadata | None = None
    for m in messages:
        usage = m.usage_metadata if isinstance(m, AIMessage) else None
        if usage:
            total = add_usage(total, usage)
    return total


@dataclass
class ContextUsage:
    """One request's context use. Token counts; ``usage_pct`` in % of ``total_limit``, one decimal."""

    total_limit: int
    current_usage: int
    usage_pct: float
    breakdown: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """The spec's fields (without ``session_id`` and ``updated_at``, which the route adds)."""
        return {
            "total_limit": self.total_limit,
            "current_usage": self.current_usage,
            "usage_pct": self.usage_pct,
            "breakdown": dict(self.breakdown),
        }


def context_breakdown(
    usage: Mapping[str, Any] | None, context_window: int, parts: Mapping[str, str | int]
) -> ContextUsage:
    """Split the last model call's usage over the prompt's parts.

    ``usage``: that call's ``usage_metadata`` (``input_tokens``, ``output_tokens``), or None to use the
    estimates alone. ``context_window``: the model's limit in tokens (``ModelConfig.context_window``).
    ``parts``: ``messages``, ``mcp`` (tool schemas), ``skills``, ``system_prompt`` as text or as token
    estimates; missing parts count 0, other keys are ignored. The named parts are scaled so that they
    sum to the measured input tokens at most; the remainder is ``other``; output tokens go to
    ``messages``. Raises ValueError for a non-positive ``context_window``."""
    if context_window <= 0:
        raise ValueError("context_window must be positive")
    named = [p for p in BREAKDOWN_PARTS if p != "other"]
    est = {p: _tokens(parts.get(p, 0)) for p in named}
    est_sum = sum(est.values())
    if usage is None:
        scaled, other, output = est, 0, 0
    else:
        prompt = int(usage.get("input_tokens") or 0)
        output = int(usage.get("output_tokens") or 0)
        factor = min(1.0, prompt / est_sum) if est_sum else 0.0
        scaled = {p: int(round(v * factor)) for p, v in est.items()}
        overshoot = sum(scaled.values()) - prompt
        if overshoot > 0:  # rounding only; take it from the largest part
            biggest = max(scaled, key=lambda p: scaled[p])
            scaled[biggest] -= overshoot
        other = prompt - sum(scaled.values())
    breakdown = {**scaled, "other": other}
    breakdown["messages"] += output
    current = sum(breakdown.values())
    return ContextUsage(
        total_limit=context_window,
        current_usage=current,
        usage_pct=round(100.0 * current / context_window, 1),
        breakdown={p: breakdown[p] for p in BREAKDOWN_PARTS},
    )


def _tokens(value: str | int) -> int:
    return estimate_tokens(value) if isinstance(value, str) else max(0, int(value))
