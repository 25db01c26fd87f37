"""The skill registry as the agents use it (prompt index, load_skill and its LangChain tool), SKILL.md
parsing, the shipped packs, and seeding them without overwriting a user's change."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from langchain_core.messages import ToolMessage
from langchain_core.utils.function_calling import convert_to_openai_tool

from tests.test_skills_support import skill_md
from vent_agent.skills import (
    CLICK_INTERPRET,
    PLAN_REVIEW,
    VENT_CHAT,
    SkillError,
    SkillRegistry,
    parse_skill_md,
    render_prompt_index,
)
from vent_agent.skills.packs import MANIFEST, seed_packs, shipped_packs_dir
from vent_agent.skills.registry import STATE_PREFIX
from vent_agent.skills.tool import make_load_skill_tool
from vent_agent.store.db import Database
from vent_agent.store.service_state import set_state_value

SHIPPED = shipped_packs_dir()


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = Database(f"sqlite+aiosqlite:///{tmp_path / 'store.db'}")
    await database.create_all()
    yield database
    await database.close()


@pytest.fixture
async def registry(tmp_path: Path, db: Database) -> SkillRegistry:
    skills_dir = tmp_path / "skills"
    seed_packs(skills_dir)
    return SkillRegistry(skills_dir, db)


# -- SKILL.md ---------------------------------------------------------------------------------------


def test_frontmatter_accepts_the_usual_spellings() -> None:
    text = (
        "\ufeff---\r\nname: 技能\r\ndescription: |\r\n  两行\r\n  说明\r\nagents: 通风对话助手\r\n"
        "allowed-tools: calc_face_by_gas, query_knowledge_base\r\nversion: 2\r\n---\r\n\r\n# 正文\r\n"
    )
    meta, body = parse_skill_md(text)
    assert meta.name == "技能"
    assert meta.description == "两行\n说明"
    assert meta.agents == ["通风对话助手"]
    assert meta.allowed_tools == ["calc_face_by_gas", "query_knowledge_base"]
    assert body.startswith("# 正文")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("no frontmatter", "缺少 YAML frontmatter"),
        ("---\nname: a\n", "没有结束标记"),
        ("---\nname: a\ndescription: b\n---\n", "缺少字段 agents"),
        ("---\nname: ''\ndescription: b\nagents: [x]\n---\n", "name 无效：不能为空"),
        ("---\nname: a\ndescription: b\nagents: [[x]]\n---\n", "agents.0 无效：应为文本"),
        ("---\n" + "k: v\n" * 4000 + "---\n", "过长"),
    ],
)
def test_frontmatter_errors_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(SkillError) as err:
        parse_skill_md(text)
    assert err.value.status == 400
    assert message in err.value.message


def test_every_shipped_pack_is_valid_and_serves_its_agents() -> None:
    assert SHIPPED is not None
    packs = {
        p.name: parse_skill_md((p / "SKILL.md").read_text("utf-8")) for p in SHIPPED.iterdir() if p.is_dir()
    }
    assert set(packs) == {
        "click-interpret-tun",
        "click-interpret-device",
        "vent-chat",
        "air-volume-calc",
        "vent-plan-review",
    }
    for name, (meta, body) in packs.items():
        assert meta.allowed_tools, name
        assert len(body) > 1000, name  # a real procedure, not a stub
        assert "## " in body, name
    assert CLICK_INTERPRET.display_name in packs["click-interpret-tun"][0].agents
    assert CLICK_INTERPRET.display_name in packs["click-interpret-device"][0].agents
    assert PLAN_REVIEW.display_name in packs["vent-plan-review"][0].agents
    assert VENT_CHAT.display_name in packs["vent-chat"][0].agents


# -- what the agents see ----------------------------------------------------------------------------


async def test_prompt_index_lists_only_the_agents_enabled_skills(registry: SkillRegistry) -> None:
    click = {s.name for s in await registry.prompt_index("点选解读 Agent")}
    chat = {s.name for s in await registry.prompt_index("vent-chat")}  # the id works as well
    review = {s.name for s in await registry.prompt_index("calc-verifier")}
    assert click == {"click-interpret-tun", "click-interpret-device"}
    assert chat == {
        "click-interpret-tun",
        "click-interpret-device",
        "vent-chat",
        "air-volume-calc",
        "vent-plan-review",
    }
    assert review == {"air-volume-calc", "vent-plan-review"}

    await registry.set_enabled("click-interpret-device", False)
    assert {s.name for s in await registry.prompt_index(CLICK_INTERPRET.display_name)} == {
        "click-interpret-tun"
    }

    block = render_prompt_index(await registry.prompt_index(CLICK_INTERPRET.agent_id))
    assert block.startswith("## 可用技能")
    assert "load_skill" in block
    assert "- click-interpret-tun（巷道点选解读）：" in block
    assert "click-interpret-device" not in block
    assert "# 巷道点选解读" not in block  # bodies stay out of the prompt
    assert render_prompt_index([]) == ""


async def test_prompt_index_skips_broken_packs_and_honours_all_agents(registry: SkillRegistry) -> None:
    (registry.skills_dir / "broken").mkdir()
    (registry.skills_dir / "broken" / "SKILL.md").write_text("---\nname: x\n---\n", encoding="utf-8")
    (registry.skills_dir / "for-all").mkdir()
    (registry.skills_dir / "for-all" / "SKILL.md").write_text(skill_md(agents="'*'"), encoding="utf-8")
    (registry.skills_dir / "Bad Name").mkdir()
    listed = {s.name: s for s in await registry.list_skills()}
    assert listed["broken"].meta is None and "缺少字段 description" in (listed["broken"].error or "")
    assert "Bad Name" not in listed
    for agent in (CLICK_INTERPRET, VENT_CHAT, PLAN_REVIEW):
        names = {s.name for s in await registry.prompt_index(agent.display_name)}
        assert "for-all" in names and "broken" not in names


async def test_load_skill_gives_the_body_and_refuses_clearly(registry: SkillRegistry) -> None:
    body = await registry.load_skill("click-interpret-tun", agent="点选解读 Agent")
    assert body.startswith("# 技能：巷道点选解读（click-interpret-tun）")
    assert "---\nname:" not in body  # no frontmatter
    assert "本技能使用的工具：" in body and "query_tun_data_by_id" in body

    with pytest.raises(SkillError, match="未找到技能「nope」（可用技能：") as unknown:
        await registry.load_skill("nope", agent="点选解读 Agent")
    assert unknown.value.status == 404
    with pytest.raises(SkillError, match="不适用于「点选解读 Agent」"):
        await registry.load_skill("air-volume-calc", agent="click-interpret")
    await registry.set_enabled("air-volume-calc", False)
    with pytest.raises(SkillError, match="已被禁用"):
        await registry.load_skill("air-volume-calc", agent="通风对话助手")


async def test_load_skill_reads_other_files_of_the_pack_but_nothing_outside(
    registry: SkillRegistry, tmp_path: Path
) -> None:
    pack = registry.skills_dir / "with-refs"
    (pack / "references").mkdir(parents=True)
    (pack / "SKILL.md").write_text(skill_md(), encoding="utf-8")
    (pack / "references" / "表6.md").write_text("风速表", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("secret", encoding="utf-8")
    body = await registry.load_skill("with-refs", agent=VENT_CHAT.display_name)
    assert "- references/表6.md" in body
    assert await registry.load_skill("with-refs", file="references/表6.md") == "风速表"
    for outside in ("../../secret.txt", "/etc/passwd", "references/../../../secret.txt", ".", "missing.md"):
        with pytest.raises(SkillError, match="中没有文件"):
            await registry.load_skill("with-refs", file=outside)


async def test_load_skill_tool_has_a_schema_and_returns_errors_as_tool_results(
    registry: SkillRegistry,
) -> None:
    tool = make_load_skill_tool(registry, agent=VENT_CHAT.display_name)
    schema = convert_to_openai_tool(tool)["function"]
    assert schema["name"] == "load_skill"
    assert set(schema["parameters"]["properties"]) == {"name", "file"}
    assert schema["parameters"]["required"] == ["name"]

    ok = await tool.ainvoke(
        {"type": "tool_call", "id": "c1", "name": "load_skill", "args": {"name": "vent-chat"}}
    )
    assert isinstance(ok, ToolMessage) and ok.status == "success"
    assert "# 技能：通风对话助手（vent-chat）" in ok.content

    await registry.set_enabled("vent-plan-review", False)
    for args, text in (
        ({"name": "vent-plan-review"}, "已被禁用"),
        ({"name": "no-such"}, "未找到技能「no-such」"),
        ({"name": "../etc"}, "未找到技能"),
        ({"nam": "typo"}, "name"),
    ):
        msg = await tool.ainvoke({"type": "tool_call", "id": "c2", "name": "load_skill", "args": args})
        assert isinstance(msg, ToolMessage) and msg.status == "error", args
        assert text in msg.content, (args, msg.content)


async def test_enabled_flags_survive_a_new_registry_and_store_connection(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'store.db'}"
    skills_dir = tmp_path / "skills"
    seed_packs(skills_dir)
    first = Database(url)
    await first.create_all()
    assert await SkillRegistry(skills_dir, first).set_enabled("vent-chat") is False
    await first.close()
    second = Database(url)
    try:
        listed = {s.name: s.enabled for s in await SkillRegistry(skills_dir, second).list_skills()}
    finally:
        await second.close()
    assert listed["vent-chat"] is False and listed["air-volume-calc"] is True


async def test_two_workers_switching_different_skills_keep_both_changes(tmp_path: Path, db: Database) -> None:
    skills_dir = tmp_path / "skills"
    seed_packs(skills_dir)
    worker_a, worker_b = SkillRegistry(skills_dir, db), SkillRegistry(skills_dir, db)
    await asyncio.gather(
        worker_a.set_enabled("vent-chat", False), worker_b.set_enabled("air-volume-calc", False)
    )
    assert await worker_a.enabled_flags() == {"vent-chat": False, "air-volume-calc": False}
    await set_state_value(db, STATE_PREFIX + "vent-plan-review", "yes")  # malformed: ignored, stays enabled
    assert {s.name: s.enabled for s in await worker_b.list_skills()}["vent-plan-review"] is True


# -- seeding ----------------------------------------------------------------------------------------


def _source(tmp_path: Path) -> Path:
    assert SHIPPED is not None
    source = tmp_path / "shipped"
    shutil.copytree(SHIPPED, source, ignore=shutil.ignore_patterns("README.md"))
    return source


def test_seeding_copies_once_and_never_overwrites_a_users_change(tmp_path: Path) -> None:
    source, target = _source(tmp_path), tmp_path / "skills"
    first = seed_packs(target, source)
    assert sorted(first.added) == sorted(p.name for p in source.iterdir())
    assert (target / MANIFEST).is_file()

    edited = target / "vent-chat" / "SKILL.md"
    edited.write_text(edited.read_text("utf-8") + "\n本矿补充规定。\n", encoding="utf-8")
    (source / "vent-chat" / "SKILL.md").write_text(skill_md(name="新版"), encoding="utf-8")
    (source / "air-volume-calc" / "SKILL.md").write_text(skill_md(name="新版计算"), encoding="utf-8")
    shutil.rmtree(target / "vent-plan-review")

    second = seed_packs(target, source)
    assert "本矿补充规定" in edited.read_text("utf-8")  # the user's change is kept
    assert second.updated == ["air-volume-calc"]  # unchanged since seeding: follows the new version
    assert "新版计算" in (target / "air-volume-calc" / "SKILL.md").read_text("utf-8")
    assert not (target / "vent-plan-review").exists()  # removed by the user: not brought back
    assert not second.added
    assert not [p for p in target.iterdir() if p.name.startswith(".upload-")]


def test_seeding_leaves_a_users_own_pack_of_the_same_name(tmp_path: Path) -> None:
    source, target = _source(tmp_path), tmp_path / "skills"
    (target / "vent-chat").mkdir(parents=True)
    (target / "vent-chat" / "SKILL.md").write_text(skill_md(name="我的"), encoding="utf-8")
    report = seed_packs(target, source)
    assert "vent-chat" in report.kept and "vent-chat" not in report.added
    assert "我的" in (target / "vent-chat" / "SKILL.md").read_text("utf-8")
    seed_packs(target, source)
    assert "我的" in (target / "vent-chat" / "SKILL.md").read_text("utf-8")
