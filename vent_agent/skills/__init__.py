"""Skills: SKILL.md packs the agents load on demand (issue [D]) and their management (issue [C]).

- :mod:`.frontmatter` — SKILL.md parsing and validation;
- :mod:`.zip_install` — installing an uploaded zip safely;
- :mod:`.packs` — the shipped packs and seeding them into the skills directory;
- :mod:`.registry` — listing, enabling, and what the agents see (:class:`SkillRegistry`);
- :mod:`.agents` — the agents a skill can serve;
- :mod:`.tool` — the ``load_skill`` LangChain tool.
"""

from __future__ import annotations

import asyncio

from vent_agent.settings import Settings
from vent_agent.skills.agents import CLICK_INTERPRET, PLAN_REVIEW, VENT_CHAT
from vent_agent.skills.errors import SkillError
from vent_agent.skills.frontmatter import SkillMeta, parse_skill_md
from vent_agent.skills.packs import seed_packs
from vent_agent.skills.registry import Skill, SkillRegistry, SkillSummary, render_prompt_index
from vent_agent.skills.zip_install import ZipLimits
from vent_agent.store.db import Database

__all__ = [
    "CLICK_INTERPRET",
    "PLAN_REVIEW",
    "VENT_CHAT",
    "Skill",
    "SkillError",
    "SkillMeta",
    "SkillRegistry",
    "SkillSummary",
    "ZipLimits",
    "open_skill_registry",
    "parse_skill_md",
    "render_prompt_index",
]


async def open_skill_registry(settings: Settings, db: Database) -> SkillRegistry:
    """The app's skill registry on ``settings.resolved_skills_dir``, after seeding the shipped packs
    there (never overwriting a user's change, see :func:`~vent_agent.skills.packs.seed_packs`)."""
    skills_dir = settings.resolved_skills_dir
    await asyncio.to_thread(seed_packs, skills_dir)
    return SkillRegistry(skills_dir, db)
