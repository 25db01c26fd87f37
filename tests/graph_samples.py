"""Runs made of hand-written events for the provenance-graph tests: a review with one finding resting on
a PDF cell, a reference record and a clause; a chat answer citing an article it retrieved."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from vent_agent.graph.model import RunGraph, RunOwner
from vent_agent.graph.project import project_run
from vent_agent.review.findings import Evidence, Finding
from vent_agent.review.outputs.provenance import ProvenanceRecord

REPORT = "vent_review_" + "a" * 32 + "_20260801"
GAS_TOOL = "query_gas_identification_report"


def review_events(run_id: str) -> list[dict[str, Any]]:
    """The logged events of a review that produced report :data:`REPORT`."""
    events: list[dict[str, Any]] = [
        {"type": "progress", "message": "正在保存", "file_name": "计划.pdf"},
        {"type": "agent_start", "agent": "data-checker", "cn_agent": "数据一致性审查", "message": "开始"},
        {"type": "agent_executing", "agent": "data-checker", "tools": [GAS_TOOL], "message": "查询"},
        {
            "type": "agent_done",
            "agent": "data-checker",
            "cn_agent": "数据一致性审查",
            "message": "完成",
            "duration_ms": 5,
        },
        {"type": "done", "message": "审查完成", "download_url": f"http://t/static/reports/{REPORT}.docx"},
    ]
    return [{**e, "seq": i, "run_id": run_id} for i, e in enumerate(events, start=1)]


def review_record(run_id: str, month: str = "2026-08") -> ProvenanceRecord:
    """The provenance record of :func:`review_events`' report: one finding on 15220's gas emission."""
    finding = Finding(
        location="15220掘进工作面",
        category="data",
        severity="major",
        message="15220掘进工作面瓦斯涌出量与鉴定报告不符",
        rule="瓦斯涌出量与瓦斯等级鉴定报告一致",
        source="瓦斯等级鉴定报告；《煤矿安全规程》（2025版）第192条（2016版第173条）",
        reviewer="data-checker",
        evidence=[
            Evidence(kind="pdf", page=4, table=1, row=4, column="CH₄(%)", text="1.10"),
            Evidence(kind="reference", text="1.6", detail={"tool": GAS_TOOL, "key": "15220掘进工作面"}),
            Evidence(
                kind="clause",
                text="甲烷浓度达到1.0%…",
                detail={"article": 192, "edition": "2025", "key": "ch4"},
            ),
        ],
    )
    return ProvenanceRecord(
        report_id=REPORT,
        run_id=run_id,
        created_at="2026-08-01T08:00:00+08:00",
        file_name="计划.pdf",
        sha256="0" * 64,
        mine="示范煤矿",
        month=month,
        reference_calls=[
            {"tool": GAS_TOOL, "arguments": {"mine": "示范煤矿", "month": month}, "output": {}, "error": None}
        ],
        findings=[finding],
    )


def chat_events(run_id: str) -> list[dict[str, Any]]:
    """A chat turn that looked up the knowledge base and answered citing article 192 as [[R1]]."""
    answer = "回风流中甲烷浓度达到1.0%时必须停止工作[[R1]]。请及时处理。"
    events: list[dict[str, Any]] = [
        {"type": "agent_start", "agent": "vent-chat", "cn_agent": "通风对话助手", "message": "开始"},
        {
            "type": "tool_call",
            "source": "main",
            "tool": "query_knowledge_base",
            "message": "检索",
            "args": {"query": "甲烷"},
        },
        {"type": "tool_result", "source": "main", "tool": "query_knowledge_base", "message": "完成"},
        {"type": "token", "source": "main", "content": answer[:10]},
        {"type": "token", "source": "main", "content": answer[10:]},
        {
            "type": "references",
            "message": "引用的规程条款",
            "warnings": [],
            "references": [
                {
                    "marker": "R1",
                    "article": 192,
                    "edition": "2025",
                    "label": "第192条",
                    "excerpt": "甲烷浓度达到1.0%",
                    "in_kb": True,
                }
            ],
        },
        {"type": "done", "message": "对话完成", "thread_id": "t", "session_id": "s"},
    ]
    return [{**e, "seq": i, "run_id": run_id} for i, e in enumerate(events, start=1)]


def owner(run_id: str, kind: str, user: str | None = None) -> RunOwner:
    """A run's owner (a session of ``user``, or none)."""
    return RunOwner(
        run_id=run_id,
        kind=kind,
        session_id=f"s-{run_id}" if user else None,
        user_name=user,
        created_at=datetime(2026, 8, 1, tzinfo=UTC),
    )


def review_graph(run_id: str, user: str | None = None) -> RunGraph:
    """The projected graph of a review run."""
    record = review_record(run_id)
    return project_run(
        owner(run_id, "review", user), review_events(run_id), lambda rid: record if rid == REPORT else None
    )


def chat_graph(run_id: str, user: str = "zhangsan") -> RunGraph:
    """The projected graph of a chat turn of ``user``'s session."""
    return project_run(
        owner(run_id, "chat", user), chat_events(run_id), lambda _rid: None, request_text="甲烷超限怎么办？"
    )
