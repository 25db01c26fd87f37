"""A run's events → its part of the provenance graph (:class:`~vent_agent.graph.model.RunGraph`).

The task chain comes from the events alone: the request, then every step in ``seq`` order (an agent
starting, a model call, a tool call, a reviewer's tool) linked by ``next``, the last step producing
the run's artifact (the Word report a ``download_url`` names, the answer of a chat). The claims come
from what the events point at: a review's findings from the provenance record written beside the
report the log names (:mod:`vent_agent.review.outputs.provenance`), an answer's statements from its text and
its checked ``references`` (:mod:`vent_agent.graph.claims`). A pure function of its inputs: projecting a
run again (or rebuilding the graph from the log) gives the same graph.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from vent_agent.event_parts import merge_parts
from vent_agent.graph.builder import GraphBuilder
from vent_agent.graph.claims import answer_claims, review_claims
from vent_agent.graph.model import ARTIFACT_PREFIX, Node, RunGraph, RunOwner
from vent_agent.graphs.stream import tool_label
from vent_agent.mcp.schemas import TOOL_LABELS as REFERENCE_TOOL_LABELS
from vent_agent.review.outputs.provenance import ProvenanceRecord

RecordLoader = Callable[[str], ProvenanceRecord | None]
"""report id → the report's provenance record (None when it is gone)."""
_REPORT_URL = re.compile(r"/static/reports/(vent_review_[0-9a-f]{32}_\d{8})\.docx$")
_REQUEST_LABELS = {"review": "配风计划审查", "chat": "对话", "resume": "继续执行（审批后）"}


def report_ids(events: list[dict[str, Any]]) -> list[str]:
    """The report ids of the Word reports a run's events announce (``download_url``), in order."""
    out: list[str] = []
    for ev in events:
        m = _REPORT_URL.search(str(ev.get("download_url") or ""))
        if m and m.group(1) not in out:
            out.append(m.group(1))
    return out


def _step(g: GraphBuilder, ev: dict[str, Any]) -> list[Node]:
    """The task-chain steps of one event (none for most)."""
    seq, kind = ev.get("seq"), ev.get("type")
    if kind == "agent_start":
        agent = str(ev.get("agent") or "")
        label = str(ev.get("cn_agent") or agent)
        return [
            Node(id=f"task:{g.run_id}:{seq}", kind="Task", label=label, props={"agent": agent, "seq": seq})
        ]
    if kind == "thinking":
        label = str(ev.get("message") or "模型调用")
        return [
            Node(
                id=f"task:{g.run_id}:{seq}",
                kind="Task",
                label=label,
                props={"node": ev.get("node"), "seq": seq},
            )
        ]
    if kind == "tool_call":
        tool = str(ev.get("tool") or "")
        props = {"tool": tool, "seq": seq, "args": ev.get("args") or {}, "agent": ev.get("source")}
        return [Node(id=f"call:{g.run_id}:{seq}", kind="ToolCall", label=tool_label(tool), props=props)]
    if kind == "agent_executing":
        reviewer = ev.get("agent")
        return [
            Node(
                id=f"call:{g.run_id}:{seq}:{i}",
                kind="ToolCall",
                label=REFERENCE_TOOL_LABELS.get(str(tool)) or tool_label(str(tool)),
                props={"tool": tool, "seq": seq, "agent": reviewer},
            )
            for i, tool in enumerate(ev.get("tools") or [])
        ]
    return []


def _task_chain(g: GraphBuilder, request: Node, events: list[dict[str, Any]]) -> Node:
    """Add the steps of ``events`` after ``request``, linked by ``next``; returns the last step."""
    last = request
    for ev in events:
        if ev.get("type") == "tool_result" and last.kind == "ToolCall":
            last.props["status"] = ev.get("status", "success")
        if ev.get("type") in ("agent_done", "agent_error"):
            task = g.find("Task", agent=ev.get("agent"))
            if task is not None:
                task.props["outcome"] = ev.get("message")
                task.props["duration_ms"] = ev.get("duration_ms")
        for step in _step(g, ev):
            step = g.node(step)
            g.edge(last, step, "next")
            last = step
    return last


def _producer(g: GraphBuilder, last: Node) -> Node:
    """What produced the run's artifact: its last Task (agent or model step), else its last step."""
    return next((n for n in reversed(list(g.nodes.values())) if n.kind == "Task"), last)


def project_run(
    owner: RunOwner,
    events: list[dict[str, Any]],
    load_record: RecordLoader,
    *,
    request_text: str | None = None,
    edition: str = "2025",
) -> RunGraph:
    """The graph of one run from its logged events (payloads, ``seq`` order; parts are joined here).

    ``load_record``: the provenance record of a report the events announce; ``request_text``: what the
    user asked (a chat's message), else a label of the run's kind; ``edition``: of 《煤矿安全规程》 for
    articles cited without one."""
    g = GraphBuilder(owner.run_id)
    events = merge_parts(events)
    file_name = next((str(e["file_name"]) for e in events if e.get("file_name")), None)
    label = request_text or (
        f"审查《{file_name}》" if file_name else _REQUEST_LABELS.get(owner.kind, owner.kind)
    )
    request = g.node(
        Node(id=f"req:{owner.run_id}", kind="Request", label=label, props={"run_kind": owner.kind})
    )
    last = _task_chain(g, request, events)
    for report_id in report_ids(events):
        record = load_record(report_id)
        report = g.node(
            Node(
                id=f"{ARTIFACT_PREFIX}report:{report_id}",
                kind="Artifact",
                label=f"审查报告《{record.file_name if record else report_id}》",
                props={
                    "artifact": "docx",
                    "report_id": report_id,
                    "download": f"/static/reports/{report_id}.docx",
                },
            )
        )
        g.edge(_producer(g, last), report, "produces")
        if record is not None:
            review_claims(g, record, report)
    answer_claims(g, events, _producer(g, last), edition=edition)
    return RunGraph(owner=owner, nodes=list(g.nodes.values()), edges=list(g.edges.values()))
