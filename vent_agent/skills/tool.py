"""The ``load_skill`` LangChain tool: an agent reads the body of a skill listed in its prompt.

Refusals (unknown, disabled, not for this agent, invalid pack, file missing) come back as the tool's
error result (``ToolMessage`` with ``status="error"``, a Chinese message), never as an exception that
would end the run.
"""

from __future__ import annotations

from langchain_core.tools import StructuredTool, ToolException
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from vent_agent.skills.errors import SkillError
from vent_agent.skills.registry import SkillRegistry

TOOL_NAME = "load_skill"


class LoadSkillArgs(BaseModel):
    """Arguments of ``load_skill``."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(
        description="技能名称（目录名），取自系统提示「可用技能」列表，如 air-volume-calc", max_length=64
    )
    file: str | None = Field(
        default=None,
        max_length=240,
        description="可选：技能包中其他文件的相对路径（读取技能全文后列出的文件），不填则返回技能全文",
    )


def _bad_arguments(err: ValidationError) -> str:
    """The tool result for arguments that fail the schema (LangChain wants a string)."""
    problems = "；".join(f"{'.'.join(str(p) for p in e['loc']) or '参数'}：{e['msg']}" for e in err.errors())
    return f"load_skill 参数错误：{problems}。用法：load_skill(name=技能名称, file=可选的文件路径)"


def make_load_skill_tool(registry: SkillRegistry, agent: str | None = None) -> StructuredTool:
    """The ``load_skill`` tool over ``registry`` for the agent named ``agent`` (display name or id; None:
    any agent). It returns the skill's body (Markdown) or the requested file's text."""

    async def load_skill(name: str, file: str | None = None) -> str:
        try:
            return await registry.load_skill(name, agent=agent, file=file)
        except SkillError as exc:
            raise ToolException(exc.message) from exc

    return StructuredTool.from_function(
        coroutine=load_skill,
        name=TOOL_NAME,
        description=(
            "读取一项技能的完整工作说明（流程、需查询的数据、比对的限值与条款、计算方法、报告结构）。"
            "在按系统提示中列出的某项技能工作之前调用；只能读取列表中的技能。"
        ),
        args_schema=LoadSkillArgs,
        handle_tool_error=True,
        handle_validation_error=_bad_arguments,
    )
