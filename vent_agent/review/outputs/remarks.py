"""The reviewers' language-and-logic remarks, written by a chat model after the deterministic rules.

For one reviewer (form-reviewer 基本形式审查, data-checker 数据一致性审查, calc-verifier 计算核验审查),
:func:`review_remarks` makes one model call with the Chinese prompt in ``remarks_prompt.md`` (a SKILL-like
text: frontmatter, common instructions, one focus section per reviewer), the plan digest and that
reviewer's rule findings, and reads the answer as JSON (``{"remarks": [...]}``, validated with pydantic).

Rules decide, the model writes (docs/DESIGN.md). The decisions this module takes:

- Remarks are :class:`~vent_agent.review.result.Remark` objects (``origin="model"``) kept beside the rule
  findings, never among them: the rule findings passed in are neither changed nor removed, and a remark
  repeating a rule finding's text is dropped.
- Severity is at most **minor**: a model answer of major or critical is lowered to minor and says so.
  Citing a figure the rules confirm does not raise it either: when the rules confirm a problem, the rule
  finding already carries its severity, and a remark cannot set one.
- Every figure a remark cites must be one of the plan's figures or of the figures the rule findings
  compared (±0.5 %, docs/DOMAIN.md §5 rounding tolerance); its location must name a location of the plan and
  its page must exist. Otherwise the remark is kept as **info**, ``verified=False``, with a note.
- A remark at the location of a rule finding that cites only figures that finding compared speaks of a
  problem the rules already judged: it is kept as **info** with a note naming that finding.
- A time-out, an exception or a malformed answer gives no remarks and a recorded reason
  (:attr:`RemarkSet.note`); the review itself never fails because of the model.
- With no model (the default: none configured), nothing is called and nothing is emitted.

Events (through the ``emit`` callback the pipeline passes): ``agent_thinking`` when the call starts and
one per accepted remark (with an additive ``remark`` field), then ``agent_tool_result`` with
``tool="model_remarks"`` saying how many remarks were added, or why none.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_core.utils.json import parse_json_markdown
from pydantic import BaseModel, Field, ValidationError, field_validator

from vent_agent.documents.plan.model import Plan
from vent_agent.documents.plan.text_primitives import match_name
from vent_agent.events import AgentThinking, AgentToolResult, EventModel
from vent_agent.events import Remark as RemarkEvent
from vent_agent.events import Send as Emit
from vent_agent.llm.providers import build_chat_model
from vent_agent.llm.registry import configured_models
from vent_agent.observability import metrics
from vent_agent.review.findings import GENERAL_LOCATION, Category, Finding, Severity
from vent_agent.review.outputs.remarks_digest import citable_figures, findings_digest, plan_digest
from vent_agent.review.result import REVIEWERS, Remark
from vent_agent.review.rule_common import plan_names
from vent_agent.review.rules import ROUNDING_TOLERANCE
from vent_agent.settings import Settings

log = logging.getLogger(__name__)

PROMPT_FILE = Path(__file__).with_name("remarks_prompt.md")
REMARKS_TOOL = "model_remarks"
MAX_REMARKS = 8
DEFAULT_TIMEOUT_S = 60.0
REMARK_RULE = "语言与逻辑审查（模型意见）"
REMARK_SOURCE = "语言模型意见，未经确定性规则核实"
DEFAULT_CATEGORY: dict[str, Category] = {
    "form-reviewer": Category.FORM,
    "data-checker": Category.DATA,
    "calc-verifier": Category.CALCULATION,
}
_NO_LOCATION = {"", "null", "none", "无", GENERAL_LOCATION, "全局", "整体"}
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL)
_PUNCT = re.compile(r"[\s，。；：、,.;:！!？?“”\"'（）()]")


class RemarksFormatError(ValueError):
    """The model's answer is not the agreed JSON; the message says what is wrong (Chinese)."""


class RemarkItem(BaseModel):
    """One remark as the model writes it (lenient: strings are checked by :func:`to_remarks`)."""

    location: str | None = None
    category: str | None = None
    severity: str | None = None
    message: str = Field(min_length=1, max_length=1000)
    page: int | None = None
    figures: dict[str, Any] = Field(default_factory=dict)
    basis: str | None = None

    @field_validator("page", mode="before")
    @classmethod
    def _page(cls, value: Any) -> Any:
        """``5``, ``"5"``, ``"第5页"`` → 5; anything without a number → None."""
        if isinstance(value, str):
            digits = re.search(r"\d+", value)
            return int(digits.group()) if digits else None
        return value

    @field_validator("figures", mode="before")
    @classmethod
    def _figures(cls, value: Any) -> Any:
        return value if isinstance(value, dict) else {}


@dataclass
class RemarkSet:
    """What one reviewer's remark call gave: the remarks, the model asked (None: no model), why there
    are none or fewer (``note``), and how long the call took (ms)."""

    remarks: list[Remark] = field(default_factory=list)
    model: str | None = None
    note: str | None = None
    duration_ms: int = 0


# --- prompt ---------------------------------------------------------------------------------------


@cache
def _prompt_parts() -> tuple[str, dict[str, str]]:
    """The prompt file as (common instructions, reviewer → focus section); frontmatter dropped.

    Raises FileNotFoundError when ``remarks_prompt.md`` is missing (a broken install)."""
    text = PROMPT_FILE.read_text(encoding="utf-8")
    if text.startswith("---"):
        text = text.split("\n---", 2)[-1].split("\n", 1)[-1]
    common, *sections = re.split(r"^## ", text, flags=re.MULTILINE)
    focus = {}
    for section in sections:
        name, _, body = section.partition("\n")
        focus[name.strip()] = body.strip()
    return common.strip(), focus


def build_messages(
    agent: str, plan: Plan, findings: list[Finding], max_remarks: int = MAX_REMARKS
) -> list[BaseMessage]:
    """The one call's messages: the reviewer's system prompt, then the plan digest and its rule findings."""
    common, focus = _prompt_parts()
    system = (
        common.replace("{reviewer_cn}", REVIEWERS.get(agent, agent))
        .replace("{focus}", focus.get(agent, ""))
        .replace("{max_remarks}", str(max_remarks))
    )
    user = (
        "以下是待审查的月度配风计划（由 PDF 解析得到，数字单位按原文，括号内为 PDF 页码）：\n"
        f"<plan>\n{plan_digest(plan)}\n</plan>\n\n"
        "本环节确定性规则的审查结论（不得删除、修改或重复）：\n"
        f"<rules>\n{findings_digest(findings)}\n</rules>\n\n"
        "请按要求只输出 JSON。"
    )
    return [SystemMessage(content=system), HumanMessage(content=user)]


# --- answer ---------------------------------------------------------------------------------------


def answer_text(content: Any) -> str:
    """A model message's text (string or content parts), without ``<think>…</think>`` blocks."""
    if isinstance(content, list):
        content = "".join(p if isinstance(p, str) else str(p.get("text", "")) for p in content)
    return _THINK.sub("", str(content)).strip()


def parse_answer(text: str) -> tuple[list[RemarkItem], int]:
    """The remarks of an answer and the number of items dropped as malformed.

    Accepts the JSON object alone, in a ```json fence, or surrounded by prose; a bare list is taken as
    the remarks. Raises :class:`RemarksFormatError` when there is no such JSON or no ``remarks`` list.
    """
    if not text:
        raise RemarksFormatError("模型回答为空")
    try:
        data = parse_json_markdown(text, parser=json.loads)
    except json.JSONDecodeError:
        start, end = text.find("{"), text.rfind("}")
        if start < 0:
            raise RemarksFormatError("模型回答中没有 JSON 对象") from None
        if end <= start:
            raise RemarksFormatError("模型回答的 JSON 不完整，无法解析（可能被截断）") from None
        try:
            data = json.loads(text[start : end + 1])
        except json.JSONDecodeError as exc:
            raise RemarksFormatError(f"模型回答的 JSON 无法解析（{exc.msg}）") from None
    if isinstance(data, dict):
        data = data.get("remarks")
    if not isinstance(data, list):
        raise RemarksFormatError("模型回答缺少 remarks 列表")
    items: list[RemarkItem] = []
    for raw in data:
        try:
            items.append(RemarkItem.model_validate(raw))
        except ValidationError:
            continue
    return items, len(data) - len(items)


def _key(text: str) -> str:
    return _PUNCT.sub("", text)


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        match = re.fullmatch(r"\s*(-?\d+(?:\.\d+)?)\s*[^\d]*", value)
        return float(match.group(1)) if match else None
    return None


def _is_citable(value: float, citable: list[float]) -> bool:
    return any(abs(value - c) <= max(abs(c) * ROUNDING_TOLERANCE, 1e-9) for c in citable)


def _same_problem(location: str | None, figures: dict[str, float], findings: list[Finding]) -> Finding | None:
    """The rule finding at the same location whose compared figures include every figure the remark
    cites (at least one), or None: the remark then speaks of a problem the rules already judged."""
    if not figures:
        return None
    for f in findings:
        if f.location != location:
            continue
        compared = [
            float(v) for v in f.figures.values() if isinstance(v, int | float) and not isinstance(v, bool)
        ]
        if compared and all(_is_citable(v, compared) for v in figures.values()):
            return f
    return None


def _severity(raw: str | None, notes: list[str]) -> Severity:
    value = (raw or "").strip().lower()
    if value in ("minor", "一般"):
        return Severity.MINOR
    if value in ("major", "critical", "重大", "严重"):
        notes.append(f"模型给出的程度“{raw}”已降为一般（重大、严重只由规则判定）")
        return Severity.MINOR
    return Severity.INFO


def to_remarks(
    agent: str,
    items: list[RemarkItem],
    plan: Plan,
    findings: list[Finding],
    *,
    max_remarks: int = MAX_REMARKS,
) -> tuple[list[Remark], list[str]]:
    """The model's items as remarks of ``agent``, checked against the plan and the rule findings (see
    the module docstring for the severity cap and the verification), and the notes on what was dropped.
    ``findings`` are read, never changed."""
    names = plan_names(plan)
    citable = citable_figures(plan, findings)
    seen = {_key(f.message) for f in findings}
    remarks: list[Remark] = []
    dropped = over = 0
    for item in items:
        message = item.message.strip()
        if not message or _key(message) in seen:
            dropped += 1
            continue
        if len(remarks) >= max_remarks:
            over += 1
            continue
        seen.add(_key(message))
        issues: list[str] = []
        severity = _severity(item.severity, issues)
        verified = True
        location = None
        if item.location and item.location.strip().lower() not in _NO_LOCATION:
            location = match_name(item.location.strip(), names)
            if location is None:
                verified = False
                issues.append(f"所指地点“{item.location.strip()}”未在计划中找到")
        page = item.page
        if page is not None and not 1 <= page <= max(plan.page_count, 1):
            issues.append(f"所指页码 {page} 不在计划页码范围内")
            verified, page = False, None
        figures: dict[str, float] = {}
        for label, raw in item.figures.items():
            value = _number(raw)
            if value is None:
                continue
            figures[str(label)] = value
            if not _is_citable(value, citable):
                verified = False
                issues.append(f"所引数值 {value:g} 未在计划或规则核算结果中找到")
        if not verified:
            severity = Severity.INFO
            issues.append("未核实，仅作提示")
        elif (same := _same_problem(location, figures, findings)) is not None:
            severity = Severity.INFO
            issues.append(f"所述问题已由规则判定（{same.message[:40]}），程度以规则为准")
        try:
            category = Category((item.category or "").strip().lower())
        except ValueError:
            category = DEFAULT_CATEGORY.get(agent, Category.FORM)
        basis = item.basis.strip() if item.basis and item.basis.strip().lower() != "null" else None
        remarks.append(
            Remark(
                location=location,
                category=category,
                severity=severity,
                message=message,
                figures=dict(figures),
                rule=REMARK_RULE,
                source=REMARK_SOURCE,
                page=page,
                reviewer=agent,
                verified=verified,
                basis=basis,
                note="；".join(issues),
            )
        )
    notes = [f"{dropped} 条与规则结论重复或为空的意见已略去"] if dropped else []
    return remarks, notes + ([f"超过 {max_remarks} 条的 {over} 条意见已略去"] if over else [])


# --- the call -------------------------------------------------------------------------------------


def model_name(model: BaseChatModel) -> str:
    """The model's id as configured (``model_name``/``model``), else its class name."""
    for attr in ("model_name", "model"):
        value = getattr(model, attr, None)
        if isinstance(value, str) and value:
            return value
    return type(model).__name__


async def review_remarks(
    agent: str,
    plan: Plan,
    findings: list[Finding],
    *,
    model: BaseChatModel | None,
    emit: Emit | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    max_remarks: int = MAX_REMARKS,
) -> RemarkSet:
    """Ask ``model`` (one call, at most ``timeout_s`` seconds) for ``agent``'s language and logic remarks
    on ``plan`` beside its rule ``findings``; emit them as the reviewer's events.

    Never raises for a model failure: a time-out, an exception or a malformed answer gives an empty
    :class:`RemarkSet` whose ``note`` says why. ``asyncio.CancelledError`` (the run was cancelled)
    propagates. With ``model=None``: an empty set, no call, no event.
    """
    if model is None:
        return RemarkSet()
    cn = REVIEWERS.get(agent, agent)
    name = model_name(model)
    started = time.perf_counter()

    async def send(event: EventModel) -> None:
        if emit is not None:
            await emit(event)

    await send(AgentThinking(agent=agent, message=f"「{cn}」正在撰写语言与逻辑审查意见（模型：{name}）..."))
    remarks: list[Remark] = []
    notes: list[str] = []
    try:
        async with asyncio.timeout(timeout_s):
            with metrics.time_model(name):
                answer = await model.ainvoke(build_messages(agent, plan, findings, max_remarks))
        items, bad = parse_answer(answer_text(answer.content))
        remarks, notes = to_remarks(agent, items, plan, findings, max_remarks=max_remarks)
        if bad:
            notes.insert(0, f"{bad} 条格式不符的意见已略去")
    except TimeoutError:
        log.warning("%s: remarks model %s timed out after %gs", agent, name, timeout_s)
        notes = [f"模型调用超时（{timeout_s:g} 秒），本环节无模型意见"]
    except RemarksFormatError as exc:
        log.warning("%s: remarks model %s gave a malformed answer: %s", agent, name, exc)
        notes = [f"{exc}，本环节无模型意见"]
    except Exception as exc:  # any client or provider error: the review goes on without remarks
        log.warning("%s: remarks model %s failed", agent, name, exc_info=True)
        notes = [f"模型调用失败（{type(exc).__name__}: {str(exc)[:200]}），本环节无模型意见"]
    duration = int((time.perf_counter() - started) * 1000)
    for r in remarks:
        where = f"{r.location}：" if r.location else ""
        await send(
            AgentThinking(
                agent=agent,
                message=f"「{cn}」模型意见：{where}{r.message}"[:300],
                remark=RemarkEvent.model_validate(
                    r.model_dump(mode="json", include={"location", "category", "severity", "message", "page"})
                ),
            )
        )
    note = "；".join(notes) or None
    summary = f"「{cn}」语言与逻辑审查意见 {len(remarks)} 条 完成"
    await send(
        AgentToolResult(agent=agent, tool=REMARKS_TOOL, message=summary + (f"（{note}）" if note else ""))
    )
    return RemarkSet(remarks=remarks, model=name, note=note, duration_ms=duration)


def make_remarks_model(settings: Settings) -> BaseChatModel | None:
    """The chat model that writes the reviewers' remarks when no run-time choice is passed (the CLI),
    or None when no model is configured.

    The configured model named ``VENT_DEFAULT_MODEL`` (else the first of ``VENT_LLM_*`` / ``VENT_MODELS``,
    see :func:`vent_agent.llm.registry.configured_models`), built by the project's provider layer with
    thinking off, so one call answers within the time-out. The service passes the registry's current
    model instead (``await state.models.chat_model()``).
    """
    configs = configured_models(settings)
    chosen = next((c for c in configs if c.name == settings.default_model), None)
    cfg = chosen or (configs[0] if configs else None)
    return build_chat_model(cfg, "off") if cfg is not None else None
