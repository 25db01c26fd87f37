"""Map a LangGraph stream (``stream_mode=["messages", "updates", "tasks"]``, ``subgraphs=True``) onto the
spec's chat events: ``thinking``, ``reasoning``, ``token``, ``executing``, ``tool_call``, ``tool_result``,
``updated_todo_list`` and ``interrupt`` (spec §对话式解读接口 流式响应详解). ``source`` is ``main`` for
the dialogue agent."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, AIMessageChunk, ToolMessage
from langchain_core.messages.ai import UsageMetadata

from calc import CATALOG
from vent_agent.events import (
    ChatProgress,
    Executing,
    Reasoning,
    Send,
    Source,
    Thinking,
    Todo,
    Token,
    ToolCall,
    ToolResult,
    UpdatedTodoList,
)
from vent_agent.llm.chunks import content_text, reasoning_text
from vent_agent.llm.finish import LastResponse
from vent_agent.observability import metrics

TOOL_LABELS = {
    "write_todos": "更新任务清单",
    "query_knowledge_base": "检索《煤矿安全规程》",
    "request_plan_approval": "提交执行计划审批",
    "load_skill": "加载技能说明",
    "get_current_time": "获取当前时间",
    "network_solve": "通风网络解算",
    "network_what_if": "模拟通风网络调整",
    "regulator_size": "计算调节风窗",
    "diagonal_branches": "查找角联分支",
    "query_tun_data_by_id": "查询巷道监测数据",
    "query_device_data_by_id": "查询设备实时数据",
    "query_devices_by_tunnel": "按巷道名称查询设备",
    "query_devices_by_tunnel_id": "查询巷道绑定设备",
    "get_tun_list_by_modelid": "按模型查询巷道列表",
    "query_tunnels_by_model": "查询模型巷道",
    "query_tunnel_list": "搜索巷道",
    "get_device_kind_dict": "查询设备类型字典",
    "get_device_list_by_kind": "按类型查询设备",
    "query_device_realtime_data": "查询设备实时快照",
    "list_ventanaly_monitor_data_days": "查询监测历史数据",
    "save_user_preference": "保存用户偏好",
    "list_user_preferences": "查看用户偏好",
    "delete_user_preference": "删除用户偏好",
    "query_graph": "查询溯源图",
}


def tool_label(name: str | None) -> str:
    """The Chinese label of a tool for ``message`` fields (a calculator's title; the name otherwise)."""
    if not name:
        return "工具"
    if name in TOOL_LABELS:
        return TOOL_LABELS[name]
    info = CATALOG.get(name)
    return info.title_cn if info is not None else name


@dataclass
class StreamMapper:
    """Turns stream items into events through ``send``; remembers what the history and the caller need:
    the answer text, the last todo list, the tools called, the pending interrupt, the last usage."""

    send: Send
    source: Source = "main"
    text: list[str] = field(default_factory=list)
    todos: list[dict[str, Any]] | None = None
    tools_called: list[str] = field(default_factory=list)
    interrupt: dict[str, Any] | None = None
    usage: UsageMetadata | None = None
    model_calls: int = 0
    last_answer: str = ""
    citations: Any = None
    failure: str | None = None
    failure_incomplete: bool = False
    """The failure was a model response cut short (a closed stream or a cut tool call)."""
    failure_finish: str | None = None
    model_name: str = "unknown"
    review_summary: str = ""
    last_response: LastResponse | None = None
    """The dialogue agent's last model response (its finish reason, text, reasoning, tool calls)."""
    _started: dict[str, float] = field(default_factory=dict)
    _first_token: float | None = None
    done_tool_calls: set[str] = field(default_factory=set)
    """Tool calls answered before this stream (an approved plan's steps before its interrupt): their
    replayed results are not announced again."""

    async def feed(self, item: tuple[Any, ...]) -> None:
        """One ``(namespace, mode, data)`` item of the stream."""
        _ns, mode, data = item
        if mode == "tasks":
            self._time_task(data)
            if data.get("name") == "model" and "input" in data:
                self.model_calls += 1
                self._first_token = None
                await self.send(Thinking(source=self.source, node="model", message="正在思考..."))
        elif mode == "messages":
            chunk, meta = data
            if isinstance(chunk, AIMessageChunk) and meta.get("langgraph_node") == "model":
                reasoning = reasoning_text(chunk)
                if reasoning:
                    await self.send(Reasoning(source=self.source, content=reasoning))
                text = content_text(chunk)
                if (text or reasoning) and self._first_token is None:
                    self._first_token = time.monotonic()
                if text:
                    self.text.append(text)
                    await self.send(Token(source=self.source, content=text))
                if chunk.usage_metadata:
                    self.usage = chunk.usage_metadata.copy()
        elif mode == "updates":
            for node, update in data.items():
                await self._update(node, update)
        elif mode == "custom" and isinstance(data, dict) and data.get("notice"):
            await self.send(ChatProgress(source=self.source, message=data["message"], notice=data["notice"]))

    def review_failed(self, marker: str) -> bool:
        """True when the turn's review node answered with a failure (its summary starts with ``marker``)."""
        return self.review_summary.startswith(marker)

    def _time_task(self, data: dict[str, Any]) -> None:
        """Model and tool latency for ``/metrics``, from the ``tasks`` stream's start and end."""
        task_id, name = data.get("id"), data.get("name")
        if name not in ("model", "tools") or task_id is None:
            return
        if "input" in data:
            self._started[task_id] = time.monotonic()
            return
        started = self._started.pop(task_id, None)
        if started is None:
            return
        seconds, ok = time.monotonic() - started, not data.get("error")
        if name == "model":
            first = (
                self._first_token - started if self._first_token and self._first_token >= started else None
            )
            metrics.observe_model_call(self.model_name, seconds, ok, first)
            return
        result = data.get("result")
        messages = result.get("messages", []) if isinstance(result, dict) else []
        for msg in messages:
            if isinstance(msg, ToolMessage):
                metrics.observe_tool_call(msg.name or "unknown", seconds, ok and msg.status != "error")

    async def _update(self, node: str, update: Any) -> None:
        if node == "__interrupt__":
            values = [getattr(i, "value", i) for i in update]
            plan = next((v.get("plan") for v in values if isinstance(v, dict) and v.get("plan")), None)
            self.interrupt = {"values": values, "ids": [getattr(i, "id", None) for i in update], "plan": plan}
            return
        if not isinstance(update, dict):
            return
        messages = update.get("messages") or []
        if node == "review":
            self.review_summary = "".join(str(getattr(m, "content", "")) for m in messages)
        if node == "model":
            for msg in messages:
                if isinstance(msg, AIMessage):
                    self.last_response = LastResponse.of(msg)
                    if msg.content and not msg.tool_calls:
                        self.last_answer = content_text(msg)
                    if msg.tool_calls:
                        names = [tc["name"] for tc in msg.tool_calls]
                        await self.send(
                            Executing(
                                source=self.source,
                                tools=names,
                                message="正在执行：" + "、".join(tool_label(n) for n in names),
                            )
                        )
                        for tc in msg.tool_calls:
                            self.tools_called.append(tc["name"])
                            await self.send(
                                ToolCall(
                                    source=self.source,
                                    tool=tc["name"],
                                    args=tc.get("args", {}),
                                    message=f"调用工具：{tool_label(tc['name'])}",
                                )
                            )
        elif node == "tools":
            fresh = [
                m
                for m in messages
                if isinstance(m, ToolMessage) and m.tool_call_id not in self.done_tool_calls
            ]
            if messages and not fresh:
                return  # a result already sent before the interrupt, replayed on resume
            for msg in fresh:
                if isinstance(msg, ToolMessage):
                    await self.send(
                        ToolResult(
                            source=self.source,
                            tool=msg.name or "",
                            status=msg.status,
                            message=f"{tool_label(msg.name)}{'完成' if msg.status != 'error' else '失败'}",
                        )
                    )
            if "todos" in update:
                self.todos = list(update["todos"] or [])
                await self.send(
                    UpdatedTodoList(
                        source=self.source,
                        todos=[Todo.model_validate(t) for t in self.todos],
                        message="任务清单已更新",
                    )
                )
