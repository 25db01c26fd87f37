"""The deterministic interpretation text: Chinese Markdown from :class:`InterpretationFacts` only.

Layout: title (name and id); type, data time in the mine time zone, edition; the request's warnings
(a device type that is not the device's); a stale-data warning; a
table of each value against its allowed range with its status in words (``**正常**``, ``**预警**``,
``**超限**``: no glyph that needs an emoji font) and the article; how derived values and
limits were obtained; the anomalies of the last 24 h; for a clicked fan, door or regulator what
changing it would do to the air (the network solve, :mod:`vent_agent.network.device_effect`); a conclusion with the actions required; the
provisions the knowledge base lacks (the others are quoted once, by the ``references`` event). :func:`chunk_text` cuts any text into pieces for ``token`` events.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from zoneinfo import ZoneInfo

from vent_agent.interpret.assess import STATUS_CN, Assessment
from vent_agent.interpret.cite import NOT_IN_KB
from vent_agent.interpret.facts import Anomaly, InterpretationFacts
from vent_agent.kb.thresholds import breach_text
from vent_agent.network.device_effect import effect_lines
from vent_agent.upstream.models import reading_text


def _local(t: datetime, tz: str, fmt: str = "%Y-%m-%d %H:%M") -> str:
    return t.astimezone(ZoneInfo(tz)).strftime(fmt)


def _status(status: str) -> str:
    """A status as a bold word (``**超限**``); the console colours it, any Markdown renderer shows it."""
    return f"**{STATUS_CN[status]}**"


def _cell(text: str | None) -> str:
    return (text or "—").replace("|", "／").replace("\n", " ")


def _of(point: str | None, name: str) -> str:
    """``（局部通风机（主机））`` for a device point inside a tunnel's table, empty for the target itself."""
    short = (point or "").removeprefix(name).strip()
    return f"（{short}）" if short and short != name else ""


def _header(f: InterpretationFacts) -> list[str]:
    lines = [f"## {f.name}（{f.target_id}）数据解读", ""]
    lines.append(f"- 类型：{f.kind_label}")
    if f.device and f.device.state:
        lines.append(f"- 状态：{f.device.state}")
    if f.data_time is not None:
        lines.append(f"- 数据时间：{_local(f.data_time, f.timezone)}（{f.timezone}）")
    else:
        lines.append("- 数据时间：无监测数据" + ("" if f.monitored else "（没有测点）"))
    lines.append(f"- 规程版本：{f.edition_label}")
    lines.append("")
    for warning in f.warnings:
        lines += [f"> **注意**：{warning}", ""]
    if not f.monitored:
        lines += [
            f"> **注意：无可用监测数据**：该{f.kind_label}在监测系统中没有测点，以下不反映现场监测状态。",
            "",
        ]
    if f.stale:
        if f.age_minutes is None:
            lines.append("> **注意：无可用监测数据**。以下结论不能反映现场状态，请核实监测系统。")
        else:
            lines.append(
                f"> **注意：数据已过时**。最新数据距今约 {f.age_minutes:.0f} 分钟，超过 {f.stale_after_minutes} 分钟，"
                "以下结论仅供参考，请核实监测系统数据传输。"
            )
        lines.append("")
    return lines


def _table(f: InterpretationFacts) -> list[str]:
    lines = ["### 监测值与限值", ""]
    if not f.assessments:
        return [*lines, "无可判断的监测项。", "", *(f"- {n}" for n in f.notes), *([""] if f.notes else [])]
    with_point = f.target == "tunnel"
    head = ["项目", *(["测点"] if with_point else []), "当前值", "允许范围", "状态", "依据"]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for a in f.assessments:
        row = [a.label, *([_cell(_of(a.point, f.name)[1:-1] or "计算值")] if with_point else [])]
        row += [
            a.value_text,
            _cell(a.limit_text),
            _status(a.status),
            _cell(a.source),
        ]
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    bases = [f"- {a.label}{_of(a.point, f.name)}：{a.basis}" for a in f.assessments if a.basis]
    notes = [f"- {n}" for n in f.notes]
    if bases or notes:
        lines += ["说明：", *bases, *notes, ""]
    return lines


def _anomaly_line(a: Anomaly, tz: str) -> str:
    span = _local(a.start, tz, "%m-%d %H:%M")
    if a.end != a.start:
        span += f"–{_local(a.end, tz, '%H:%M')}"
    if a.warn_at is None:
        cond = f"超限条件 {breach_text(a.breach_op, a.limit, a.unit)}"
    else:
        cond = f"预警条件 {breach_text(a.breach_op, a.warn_at, a.unit)}（限值 {breach_text(a.breach_op, a.limit, a.unit)}）"
    tail = "，仍在持续" if a.ongoing else "，已恢复"
    ref = a.article or a.source or ""
    return (
        f"- {_status(a.status)} {span} {a.label}（{a.device_name}）峰值 {reading_text(a.value, a.quantity, a.unit)}"
        f"（{_local(a.time, tz, '%H:%M')}），{cond}{tail}" + (f"；依据：{ref}" if ref else "")
    )


def _anomalies(f: InterpretationFacts) -> list[str]:
    lines = ["### 近24小时异常", ""]
    if not f.monitored:
        lines.append(f"该{f.kind_label}没有监测数据（无测点），不作超限或预警判断。")
    elif not f.anomalies:
        lines.append("近24小时无超限或预警记录。")
    lines += [_anomaly_line(a, f.timezone) for a in f.anomalies]
    lines += [f"- **报警** 监测系统报警（仍在持续）：{a.message}" for a in f.alarms if a.active]
    return [*lines, ""]


def _network(f: InterpretationFacts) -> list[str]:
    """What changing the clicked fan, door or regulator would do (the network solve), when it applies."""
    if f.network is None:
        return []
    return ["### 调整影响（通风网络模拟）", "", *effect_lines(f.network), ""]


def _action_line(a: Assessment) -> str:
    where = f"（{a.point}）" if a.point else ""
    ref = f"（{a.article}）" if a.article else (f"（{a.source}）" if a.source else "")
    return f"{a.label} {a.value_text}{where}：{a.action}{ref}"


def _conclusion(f: InterpretationFacts) -> list[str]:
    lines = ["### 结论", ""]
    breaches = [a for a in f.assessments if a.status == "breach"]
    warnings = [a for a in f.assessments if a.status == "warning"]
    past = [a for a in f.anomalies if not a.ongoing]
    if breaches:
        extra = f"、{len(warnings)} 项预警" if warnings else ""
        lines.append(f"{_status('breach')}：当前有 {len(breaches)} 项超限{extra}，须立即处理：")
    elif warnings:
        lines.append(f"{_status('warning')}：当前无超限，{len(warnings)} 项接近限值或需核查：")
    elif f.assessments:
        lines.append(f"{_status('ok')}：当前各项监测值均在限值以内。")
    elif f.monitored:
        lines.append("无监测值可作判断。")
    else:
        lines.append(
            f"该{f.kind_label}没有监测数据（无测点），以上只有通风网络模型的模拟结果，不反映现场状态。"
        )
    actions = [_action_line(a) for a in [*breaches, *warnings]]
    lines += [f"{i}. {text}" for i, text in enumerate(dict.fromkeys(actions), 1)]
    if past:
        lines.append(f"- 近24小时另有 {len(past)} 次已恢复的异常，应查明原因并记录。")
    if f.stale:
        lines.append("- 数据已过时，须先核实监测数据再据此作出判断。")
    lines.append("")
    return lines


def _references(f: InterpretationFacts) -> list[str]:
    """The provisions the ``references`` event cannot list (their text is not in the knowledge base,
    :data:`~vent_agent.interpret.cite.NOT_IN_KB`); the others are quoted once, by that event."""
    missing = [r for r in f.references if NOT_IN_KB in r.article]
    if not missing:
        return []
    lines = ["### 其他相关规定", ""]
    lines += [f"- {r.article}：{r.clause or r.requirement}" for r in missing]
    return [*lines, ""]


def render_interpretation(facts: InterpretationFacts) -> str:
    """The interpretation of ``facts`` as Chinese Markdown (see the module docstring)."""
    parts = [
        *_header(facts),
        *_table(facts),
        *_anomalies(facts),
        *_network(facts),
        *_conclusion(facts),
        *_references(facts),
        f"*依据 {facts.edition_label}；数值均来自监测数据或按所示公式计算。*",
    ]
    return "\n".join(parts) + "\n"


def chunk_text(text: str, size: int = 64) -> Iterator[str]:
    """``text`` in consecutive pieces of at most ``size`` characters (for streaming as ``token``
    events); joining the pieces gives ``text`` back. Raises ``ValueError`` when ``size`` < 1."""
    if size < 1:
        raise ValueError("chunk size must be at least 1")
    for i in range(0, len(text), size):
        yield text[i : i + size]
