"""SKILL.md: a YAML frontmatter between ``---`` lines, then a Markdown body.

Frontmatter fields (validated by :class:`SkillMeta`):

- ``name``: the display name (Chinese, e.g. ``巷道点选解读``); the skill's id is its directory name;
- ``description``: what the skill is for and when to use it; goes into the agents' prompts;
- ``agents``: the agents it serves (display names or ids, see :mod:`vent_agent.skills.agents`; ``"*"``
  for all), a list or one string;
- ``allowed_tools`` (or ``allowed-tools``): the tools its procedure uses, a list or a comma/space
  separated string; optional.

Other keys (``version``, ``license`` …) are allowed and ignored.
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError, field_validator

from vent_agent.skills.errors import SkillError

MAX_FRONTMATTER_CHARS = 16_000
"""A frontmatter longer than this is refused (it is meant for a name, a description and two lists)."""

_FENCE = re.compile(r"^(?:---|\.\.\.)[ \t]*$")


class SkillMeta(BaseModel):
    """The validated frontmatter of a SKILL.md."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    name: str = Field(min_length=1, max_length=100, description="display name")
    description: str = Field(min_length=1, max_length=2000)
    agents: list[str] = Field(min_length=1, max_length=20)
    allowed_tools: list[str] = Field(
        default_factory=list, max_length=100, validation_alias=AliasChoices("allowed_tools", "allowed-tools")
    )

    @field_validator("agents", "allowed_tools", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        """A single string is one agent; for tools, a comma or space separated list."""
        if value is None:
            return []
        if isinstance(value, str):
            return [p for p in re.split(r"[,，\s]+", value) if p]
        return value

    @field_validator("agents", "allowed_tools")
    @classmethod
    def _no_blank(cls, value: list[str]) -> list[str]:
        items = [v.strip() for v in value]
        if any(not v or len(v) > 100 for v in items):
            raise ValueError("每一项须为 1–100 个字符的文本")
        return list(dict.fromkeys(items))


def split_frontmatter(text: str) -> tuple[str, str]:
    """``(frontmatter YAML, body)`` of a SKILL.md text. Raises :class:`SkillError` 400 when the text
    does not start with a ``---`` line or the closing ``---`` is missing."""
    text = text.removeprefix("\ufeff")
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        raise SkillError(400, "SKILL.md 缺少 YAML frontmatter（文件须以 --- 行开头）")
    for i in range(1, len(lines)):
        if _FENCE.match(lines[i].rstrip("\r\n")):
            return "".join(lines[1:i]), "".join(lines[i + 1 :]).lstrip("\r\n")
    raise SkillError(400, "SKILL.md 的 frontmatter 没有结束标记（---）")


_MESSAGES = {
    "too_short": "至少需要 1 项",
    "too_long": "项数过多",
    "string_too_short": "不能为空",
    "string_too_long": "过长",
    "string_type": "应为文本",
    "list_type": "应为列表",
}


def _describe(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        field = ".".join(str(x) for x in err.get("loc", ())) or "frontmatter"
        kind = err.get("type", "")
        if kind == "missing":
            parts.append(f"缺少字段 {field}")
        else:
            parts.append(f"字段 {field} 无效：{_MESSAGES.get(kind) or err.get('msg')}")
    return "；".join(parts)


def parse_skill_md(text: str) -> tuple[SkillMeta, str]:
    """Parse a SKILL.md text into its validated frontmatter and its body (Markdown).

    Raises :class:`SkillError` 400 with a Chinese message: no frontmatter, frontmatter too long, not
    YAML, not a mapping, or a field missing or invalid.
    """
    raw, body = split_frontmatter(text)
    if len(raw) > MAX_FRONTMATTER_CHARS:
        raise SkillError(400, f"SKILL.md 的 frontmatter 过长（上限 {MAX_FRONTMATTER_CHARS} 字符）")
    try:
        data = yaml.safe_load(raw)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"（第 {mark.line + 2} 行）" if mark is not None else ""
        raise SkillError(400, f"SKILL.md 的 frontmatter 不是合法的 YAML{where}") from exc
    if not isinstance(data, dict):
        raise SkillError(400, "SKILL.md 的 frontmatter 应为键值对（name、description、agents…）")
    try:
        return SkillMeta.model_validate(data), body
    except ValidationError as exc:
        raise SkillError(400, f"SKILL.md 的 frontmatter 无效：{_describe(exc)}") from exc
