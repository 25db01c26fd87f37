"""System tools of the spec (反算 / 系统工具): ``get_current_time``."""

from __future__ import annotations

from typing import Any

from langchain_core.tools import BaseTool

from vent_agent.tools.common import ToolArgs, context_tool
from vent_agent.tools.context import AgentContext

WEEKDAYS_CN = ("星期一", "星期二", "星期三", "星期四", "星期五", "星期六", "星期日")


class NoArgs(ToolArgs):
    """No arguments."""


async def _current_time(ctx: AgentContext) -> dict[str, Any]:
    now = ctx.now()
    weekday = WEEKDAYS_CN[now.weekday()]
    return {
        "now": now.isoformat(timespec="seconds"),
        "timezone": ctx.settings.timezone,
        "date": now.date().isoformat(),
        "time": now.strftime("%H:%M:%S"),
        "weekday": weekday,
        "text": f"{now.year}年{now.month}月{now.day}日 {weekday} {now:%H:%M:%S}（{ctx.settings.timezone}）",
    }


def system_tools() -> list[BaseTool]:
    """get_current_time: the current time in the mine time zone (``settings.timezone``)."""
    return [
        context_tool(
            "get_current_time",
            "获取当前系统时间（矿井所在时区）：ISO 时间、日期、时刻、星期。判断数据是否过时、计算时间范围前调用。",
            NoArgs,
            _current_time,
        )
    ]
