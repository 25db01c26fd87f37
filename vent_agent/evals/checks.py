"""The deterministic checks of one case's transcript. Each returns a :class:`Check`: its name, passed or
not, and what differed (Chinese, expected against got), for the report's diff.

- ``service``: the request was accepted and the stream ended (``done``, or ``interrupt`` in plan mode),
  with no ``error`` event unless the case expects one;
- ``trajectory``: the expected tool calls in order with their arguments, no forbidden one;
- ``figures``: each expected figure stated, in its unit, equal to its oracle (:mod:`.oracles`);
- ``citations`` (:mod:`.citation_check`), ``refusal`` (:mod:`.refusal`), ``plan_mode``, ``degraded``,
  ``answer`` (words the answer must contain) and ``budget`` (first event, total time, tool calls).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from vent_agent.evals.cases import Budget, Case, ToolUse
from vent_agent.evals.transcript import Transcript

PLANNING_TOOLS = frozenset({"write_todos", "request_plan_approval"})
"""Tools plan mode may call before the approval: they only write the plan."""


@dataclass(frozen=True)
class Check:
    """One check's outcome: ``name``, ``passed`` and ``detail`` (what differed; '' when passed)."""

    name: str
    passed: bool
    detail: str = ""


def _same(expected: Any, got: Any) -> bool:
    """Argument equality: numbers within 1e-6 relative, text without spaces, lists and dicts item by item."""
    if isinstance(expected, bool) or isinstance(got, bool):
        return bool(expected == got)
    if isinstance(expected, int | float) and isinstance(got, int | float):
        return math.isclose(float(expected), float(got), rel_tol=1e-6, abs_tol=1e-9)
    if isinstance(expected, str) and isinstance(got, str):
        return re.sub(r"\s+", "", expected) == re.sub(r"\s+", "", got)
    if isinstance(expected, dict) and isinstance(got, dict):
        return all(k in got and _same(v, got[k]) for k, v in expected.items())
    if isinstance(expected, list) and isinstance(got, list):
        return len(expected) == len(got) and all(_same(e, g) for e, g in zip(expected, got, strict=True))
    return bool(expected == got)


def matches(expected: ToolUse, got: ToolUse) -> bool:
    """True when ``got`` is a call of the expected tool with (at least) the expected arguments."""
    return expected.name == got.name and _same(expected.args, got.args)


def _fmt(use: ToolUse) -> str:
    args = "，".join(f"{k}={v}" for k, v in use.args.items())
    return f"{use.name}({args})"


def check_service(case: Case, t: Transcript) -> Check:
    """The request accepted, the stream closed by ``done`` (or ``interrupt``), no unexpected ``error``."""
    if t.failure:
        return Check("service", False, t.failure)
    last = (t.resumed or t.events or [{}])[-1].get("type")
    ends = {"done", "interrupt"} if case.mode == "plan" else {"done"}
    problems = (
        [] if last in ends else [f"流以 {last or '（无事件）'} 结束，应以 {'/'.join(sorted(ends))} 结束"]
    )
    errors = [e["message"] for e in t.of_type("error")]
    rejected = case.resume == "reject"
    if errors and case.expect.error is None and not rejected:
        problems.append(f"出现 error 事件：{'；'.join(errors)}")
    return Check("service", not problems, "；".join(problems))


def check_trajectory(case: Case, t: Transcript) -> Check:
    """Expected calls as an ordered subsequence of the calls made, arguments included; none forbidden."""
    got = t.tool_calls(resumed=False if case.resume else None)
    problems: list[str] = []
    pos = 0
    for want in case.expect.tools:
        hit = next((i for i in range(pos, len(got)) if matches(want, got[i])), None)
        if hit is None:
            problems.append(f"缺少调用 {_fmt(want)}")
        else:
            pos = hit + 1
    used = {u.name for u in got}
    problems += [f"不应调用 {name}" for name in case.expect.forbid_tools if name in used]
    if case.expect.no_tools and got:
        problems.append("不应调用任何工具")
    if problems:
        problems.append(f"实际调用：{'、'.join(map(_fmt, got)) or '无'}")
    return Check("trajectory", not problems, "；".join(problems))


_UNIT_FORMS = {
    "m³/min": r"(?:m³|m3|m\^3|立方米)\s*/\s*(?:min|分钟|分)",
    "m³/s": r"(?:m³|m3|m\^3|立方米)\s*/\s*(?:s|秒)",
    "m²": r"(?:m²|m2|m\^2|平方米)",
    "m/s": r"(?:m/s|米/秒)",
    "%": r"%",
    "℃": r"(?:℃|°C)",
    "m": r"(?:m|米)(?![³²/\w])",
    "kW": r"kW",
    "Pa": r"Pa",
    "ppm": r"ppm",
}
_NUMBER = r"(?<![\d.])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?"


def stated_figures(text: str, unit: str) -> list[tuple[float, float]]:
    """Every number written with ``unit`` in ``text`` as ``(value, half step)``: the half step is half the
    last decimal written (the rounding the writer may have done); a m³/min unit also takes figures
    written in m³/s (× 60, the half step too)."""
    units = [(unit, 1.0)] + ([("m³/s", 60.0)] if unit == "m³/min" else [])
    out: list[tuple[float, float]] = []
    for name, factor in units:
        form = _UNIT_FORMS.get(name, re.escape(name))
        for m in re.finditer(_NUMBER + r"\s*" + form, text):
            whole, frac = m.group(1).replace(",", ""), m.group(2) or ""
            value = float(f"{whole}.{frac}" if frac else whole)
            out.append((value * factor, 0.5 * 10.0 ** -len(frac) * factor))
    return out


def figure_matches(value: float, stated: tuple[float, float], rel_tol: float) -> bool:
    """``stated`` (value, half step) equals ``value`` within ``rel_tol`` or its half step."""
    got, half_step = stated
    return abs(got - value) <= max(rel_tol * abs(value), half_step) + 1e-9


def check_figures(case: Case, t: Transcript, oracle_values: list[float]) -> Check:
    """Each expected figure, at its oracle's value, stated in the answer with its unit."""
    answer = t.answer
    problems: list[str] = []
    for fig, value in zip(case.expect.figures, oracle_values, strict=True):
        stated = stated_figures(answer, fig.unit)
        if not any(figure_matches(value, s, fig.rel_tol) for s in stated):
            written = "、".join(f"{v:g}" for v, _ in stated) or "无"
            problems.append(f"应为 {value:g} {fig.unit}，回答中该单位的数值：{written}")
    return Check("figures", not problems, "；".join(problems))


def check_answer_words(case: Case, t: Transcript) -> Check:
    """Every word of ``expect.answer`` in the answer."""
    missing = [w for w in case.expect.answer if w not in t.answer]
    return Check("answer", not missing, f"回答中缺少：{'、'.join(missing)}" if missing else "")


def check_plan_mode(case: Case, t: Transcript) -> Check:
    """Plan mode: an ``interrupt`` ends the turn, and no tool but the planning ones ran before it; after
    an approval the expected tools run, after a rejection none."""
    problems: list[str] = []
    if not any(e.get("type") == "interrupt" for e in t.events):
        problems.append("计划模式下未在执行前请求审批（没有 interrupt 事件）")
    acted = [u.name for u in t.tool_calls(resumed=False) if u.name not in PLANNING_TOOLS]
    if acted:
        problems.append(f"审批前已执行：{'、'.join(acted)}")
    after = t.tool_calls(resumed=True)
    if case.resume == "reject" and [u for u in after if u.name not in PLANNING_TOOLS]:
        problems.append(f"拒绝后仍执行：{'、'.join(u.name for u in after)}")
    for want in case.expect.after_resume:
        if not any(matches(want, u) for u in after):
            problems.append(f"批准后缺少调用 {_fmt(want)}")
    return Check("plan_mode", not problems, "；".join(problems))


def check_degraded(case: Case, t: Transcript) -> Check:
    """A degraded model: the run ends with an ``error`` event saying so (``expect.error``) and ``done``,
    never a refused request, a traceback or a hang."""
    errors = [e.get("message", "") for e in t.of_type("error")]
    problems: list[str] = []
    if t.failure:
        problems.append(t.failure)
    if not any(case.expect.error and case.expect.error in m for m in errors):
        problems.append(f"应有含「{case.expect.error}」的 error 事件，实际：{'；'.join(errors) or '无'}")
    if any("Traceback" in m for m in errors):
        problems.append("error 事件含有 Traceback")
    if not t.events or t.events[-1].get("type") != "done":
        problems.append("流未以 done 结束")
    return Check("degraded", not problems, "；".join(problems))


def check_budget(budget: Budget, t: Transcript) -> Check:
    """First event, total time and tool calls within the case's budget."""
    problems: list[str] = []
    if t.first_event_s is None or t.first_event_s > budget.first_event_s:
        first = "无" if t.first_event_s is None else f"{t.first_event_s:.2f} s"
        problems.append(f"首个事件 {first} > {budget.first_event_s:g} s")
    if t.total_s > budget.total_s:
        problems.append(f"总耗时 {t.total_s:.2f} s > {budget.total_s:g} s")
    calls = len(t.tool_calls())
    if calls > budget.tool_calls:
        problems.append(f"工具调用 {calls} 次 > {budget.tool_calls} 次")
    return Check("budget", not problems, "；".join(problems))
