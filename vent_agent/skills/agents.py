"""The agents a skill can serve, and how the ``agents`` of a SKILL.md frontmatter name them.

A pack may name an agent by its Chinese display name (as the spec's ``GET /api/skills`` shows it, e.g.
``点选解读 Agent``) or by its id (``click-interpret``); both map to one canonical agent. ``"*"`` (or
``all`` / ``全部``) means every agent. Names this module does not know are kept as written, so that a
pack can target an agent added later.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AgentInfo:
    """An agent that reads skills: ``agent_id`` (ASCII id), ``display_name`` (Chinese, as in the API)
    and the other spellings a SKILL.md may use."""

    agent_id: str
    display_name: str
    aliases: tuple[str, ...] = ()


CLICK_INTERPRET = AgentInfo(
    "click-interpret", "点选解读 Agent", ("点选解读", "点选解读智能体", "click_interpret")
)
"""The plan-mode click interpretation of a tunnel or a device (spec: 点选巷道/设备解读, mode plan)."""

VENT_CHAT = AgentInfo("vent-chat", "通风对话助手", ("对话助手", "通风对话", "dialogue", "chat", "vent_chat"))
"""The dialogue agent behind ``POST /api/chat`` (spec: agent_start ``通风对话助手``)."""

PLAN_REVIEW = AgentInfo(
    "plan-review",
    "配风计划审查 Agent",
    (
        "配风计划审查",
        "配风计划审查智能体",
        "review",
        "plan_review",
        "form-reviewer",
        "data-checker",
        "calc-verifier",
    ),
)
"""The monthly air-distribution plan review and its reviewers (form-reviewer, data-checker,
calc-verifier)."""

KNOWN_AGENTS: tuple[AgentInfo, ...] = (CLICK_INTERPRET, VENT_CHAT, PLAN_REVIEW)
ALL_AGENTS = "*"
_ALL_SPELLINGS = {"*", "all", "全部", "所有"}


def _key(text: str) -> str:
    return "".join(text.split()).casefold()


_BY_KEY: dict[str, AgentInfo] = {
    _key(spelling): agent
    for agent in KNOWN_AGENTS
    for spelling in (agent.agent_id, agent.display_name, *agent.aliases)
}


def canonical_agent(name: str) -> str:
    """The canonical display name of the agent ``name`` names (id, display name or alias; case and
    whitespace ignored); ``"*"`` for every agent; an unknown name stripped but otherwise as written."""
    key = _key(name)
    if key in _ALL_SPELLINGS:
        return ALL_AGENTS
    agent = _BY_KEY.get(key)
    return agent.display_name if agent else " ".join(name.split())


def serves(agents: list[str], agent: str) -> bool:
    """True when a skill whose frontmatter lists ``agents`` serves the agent named ``agent``."""
    wanted = canonical_agent(agent)
    return any(a in (ALL_AGENTS, wanted) for a in (canonical_agent(x) for x in agents))
