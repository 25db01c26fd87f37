"""The agents' tools and the per-user parts of their prompts, assembled per run."""

from __future__ import annotations

from dataclasses import dataclass

from langchain_core.tools import BaseTool

from vent_agent.skills import CLICK_INTERPRET, VENT_CHAT, render_prompt_index
from vent_agent.skills.tool import make_load_skill_tool
from vent_agent.state import AppState
from vent_agent.tools.calc_tools import calc_tools
from vent_agent.tools.data_tools import data_tools
from vent_agent.tools.preference_store import render_preferences
from vent_agent.tools.preference_tools import preference_tools
from vent_agent.tools.system_tools import system_tools


@dataclass(frozen=True)
class PromptExtras:
    """The enabled skills' index (names and descriptions only) and the user's preferences, rendered."""

    skills_index: str
    preferences: str


def _skill_tools(state: AppState, agent: str) -> list[BaseTool]:
    return [make_load_skill_tool(state.skills, agent)] if state.skills is not None else []


def chat_tools(state: AppState) -> list[BaseTool]:
    """The dialogue agent's tools: the 11 data tools (over the mine's ventilation system), the
    calculators, user preferences, the current time and ``load_skill``; ``write_todos`` comes with the
    todo middleware."""
    return [*data_tools(), *calc_tools(), *preference_tools(), *system_tools(), *_skill_tools(state, VENT_CHAT.agent_id)]


def click_tools(state: AppState) -> list[BaseTool]:
    """The click-interpret agent's tools: the data tools and ``load_skill``."""
    return [*data_tools(), *_skill_tools(state, CLICK_INTERPRET.agent_id)]


async def skills_index(state: AppState, agent: str) -> str:
    """The prompt block listing the enabled skills of ``agent`` ('' when none)."""
    if state.skills is None:
        return ""
    return render_prompt_index(await state.skills.prompt_index(agent))


async def prompt_extras(state: AppState, user_name: str) -> PromptExtras:
    """The parts of the dialogue agent's system prompt that depend on the service state and the user."""
    return PromptExtras(
        skills_index=await skills_index(state, VENT_CHAT.agent_id),
        preferences=await render_preferences(state.db, user_name),
    )
