"""The skill-management routes (spec §技能管理接口): list, detail, toggle persisted across a restart,
upload, and the token rule of toggle and upload (admin_needs_token)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_skills_support import (
    GOOD_SKILL_MD,
    TOKEN,
    make_zip,
    skills_client,
    skills_settings,
    upload,
)
from vent_agent.skills.registry import STATE_PREFIX
from vent_agent.store.service_state import get_state_value, set_state_value

SHIPPED = {
    "click-interpret-tun",
    "click-interpret-device",
    "vent-chat",
    "air-volume-calc",
    "vent-plan-review",
}
SPEC_FIELDS = {"name", "display_name", "path", "description", "enabled", "agents", "has_skill_md"}


async def test_list_has_every_shipped_pack_with_the_spec_fields(tmp_path: Path) -> None:
    async with skills_client(skills_settings(tmp_path)) as client:
        r = await client.get("/api/skills")
    assert r.status_code == 200
    skills = {s["name"]: s for s in r.json()["skills"]}
    assert set(skills) == SHIPPED
    tun = skills["click-interpret-tun"]
    assert set(tun) >= SPEC_FIELDS
    assert tun["display_name"] == "巷道点选解读"
    assert tun["path"] == "skills/click-interpret-tun"
    assert tun["enabled"] is True and tun["has_skill_md"] is True and tun["error"] is None
    assert tun["agents"] == ["点选解读 Agent", "通风对话助手"]
    for s in skills.values():
        assert 0 < len(s["description"]) <= 120
        assert "\n" not in s["description"]


async def test_detail_is_the_whole_skill_md(tmp_path: Path) -> None:
    settings = skills_settings(tmp_path)
    async with skills_client(settings) as client:
        r = await client.get("/api/skills/air-volume-calc")
        missing = await client.get("/api/skills/no-such-skill")
        bad = await client.get("/api/skills/Bad_Name")
    assert r.status_code == 200
    body = r.json()
    assert body["name"] == "air-volume-calc"
    assert body["content"] == (settings.resolved_skills_dir / "air-volume-calc" / "SKILL.md").read_text(
        "utf-8"
    )
    assert body["content"].startswith("---\nname: 需风量计算\n")
    assert missing.status_code == 404 and "no-such-skill" in missing.json()["error"]
    assert bad.status_code == 400 and "技能名" in bad.json()["error"]


async def test_a_folder_without_skill_md_is_listed_but_has_no_detail(tmp_path: Path) -> None:
    settings = skills_settings(tmp_path)
    async with skills_client(settings) as client:
        (settings.resolved_skills_dir / "empty-pack").mkdir()
        listed = {s["name"]: s for s in (await client.get("/api/skills")).json()["skills"]}
        detail = await client.get("/api/skills/empty-pack")
    assert listed["empty-pack"]["has_skill_md"] is False
    assert listed["empty-pack"]["display_name"] == "empty-pack"
    assert detail.status_code == 404 and "SKILL.md" in detail.json()["error"]


async def test_toggle_flips_and_survives_a_restart(tmp_path: Path) -> None:
    settings = skills_settings(tmp_path)
    async with skills_client(settings) as client:
        r = await client.post("/api/skills/click-interpret-tun/toggle", headers=TOKEN)
        assert r.status_code == 200
        assert r.json() == {
            "name": "click-interpret-tun",
            "enabled": False,
            "message": "技能「click-interpret-tun」已禁用",
        }
        state = client.app.state.vent
        assert await get_state_value(state.db, STATE_PREFIX + "click-interpret-tun") is False
        assert await state.skills.enabled_flags() == {"click-interpret-tun": False}
    async with skills_client(settings) as client:  # a restart: new store connection, new registry
        skills = {s["name"]: s for s in (await client.get("/api/skills")).json()["skills"]}
        assert skills["click-interpret-tun"]["enabled"] is False
        assert skills["vent-chat"]["enabled"] is True
        again = await client.post("/api/skills/click-interpret-tun/toggle", headers=TOKEN)
        assert (
            again.json()["enabled"] is True and again.json()["message"] == "技能「click-interpret-tun」已启用"
        )


async def test_toggle_with_an_explicit_state_is_idempotent(tmp_path: Path) -> None:
    async with skills_client(skills_settings(tmp_path)) as client:
        for _ in range(2):
            r = await client.post("/api/skills/vent-chat/toggle", json={"enabled": False}, headers=TOKEN)
            assert r.json()["enabled"] is False
        wrong = await client.post("/api/skills/vent-chat/toggle", json={"enabled": "maybe"}, headers=TOKEN)
    assert wrong.status_code == 400 and "error" in wrong.json()


async def test_toggle_of_an_unknown_skill_is_404(tmp_path: Path) -> None:
    async with skills_client(skills_settings(tmp_path)) as client:
        r = await client.post("/api/skills/nope/toggle", headers=TOKEN)
    assert r.status_code == 404 and r.json() == {"error": "技能「nope」不存在"}


async def test_upload_a_good_pack(tmp_path: Path) -> None:
    settings = skills_settings(tmp_path)
    data = make_zip(
        [
            ("my-skill/", b""),
            ("my-skill/SKILL.md", GOOD_SKILL_MD),
            ("my-skill/references/限值表.md", "| 项目 | 限值 |\n"),
        ]
    )
    async with skills_client(settings) as client:
        r = await upload(client, data, "anything.zip")
        assert r.status_code == 200, r.text
        assert r.json() == {"name": "my-skill", "message": "技能「my-skill」上传成功"}
        listed = {s["name"]: s for s in (await client.get("/api/skills")).json()["skills"]}
        detail = await client.get("/api/skills/my-skill")
    pack = settings.resolved_skills_dir / "my-skill"
    assert (pack / "SKILL.md").read_text("utf-8") == GOOD_SKILL_MD
    assert (pack / "references" / "限值表.md").is_file()
    assert listed["my-skill"]["enabled"] is True
    assert listed["my-skill"]["display_name"] == "测试技能"
    assert listed["my-skill"]["allowed_tools"] == ["query_tun_data_by_id", "query_knowledge_base"]
    assert detail.json()["content"] == GOOD_SKILL_MD
    assert not [p for p in settings.resolved_skills_dir.iterdir() if p.name.startswith(".upload-")]


async def test_upload_with_files_at_the_root_takes_the_zip_name(tmp_path: Path) -> None:
    settings = skills_settings(tmp_path)
    data = make_zip([("SKILL.md", GOOD_SKILL_MD), ("notes.md", "笔记")])
    async with skills_client(settings) as client:
        r = await upload(client, data, "flat-skill.zip")
        bad_name = await upload(client, data, "Flat Skill (1).zip")
    assert r.status_code == 200 and r.json()["name"] == "flat-skill"
    assert (settings.resolved_skills_dir / "flat-skill" / "notes.md").read_text("utf-8") == "笔记"
    assert bad_name.status_code == 400 and "技能名" in bad_name.json()["error"]


async def test_upload_skips_macos_junk(tmp_path: Path) -> None:
    settings = skills_settings(tmp_path)
    data = make_zip(
        [
            ("mac-skill/SKILL.md", GOOD_SKILL_MD),
            ("mac-skill/.DS_Store", b"\0\0\0\1Bud1"),
            ("__MACOSX/mac-skill/._SKILL.md", b"\0\5\26\7"),
        ]
    )
    async with skills_client(settings) as client:
        r = await upload(client, data, "mac-skill.zip")
    assert r.status_code == 200 and r.json()["name"] == "mac-skill"
    assert sorted(p.name for p in (settings.resolved_skills_dir / "mac-skill").iterdir()) == ["SKILL.md"]


async def test_upload_re_enables_a_name_that_was_disabled_before(tmp_path: Path) -> None:
    settings = skills_settings(tmp_path)
    async with skills_client(settings) as client:
        state = client.app.state.vent
        await set_state_value(state.db, STATE_PREFIX + "old-skill", False)
        r = await upload(client, make_zip([("old-skill/SKILL.md", GOOD_SKILL_MD)]))
        listed = {s["name"]: s for s in (await client.get("/api/skills")).json()["skills"]}
    assert r.status_code == 200
    assert listed["old-skill"]["enabled"] is True


@pytest.mark.parametrize(
    ("method", "path", "kind"),
    [("post", "/api/skills/vent-chat/toggle", "toggle"), ("post", "/api/skills/upload", "upload")],
)
async def test_toggle_and_upload_need_a_token(tmp_path: Path, method: str, path: str, kind: str) -> None:
    settings = skills_settings(tmp_path)
    data = make_zip([("tok-skill/SKILL.md", GOOD_SKILL_MD)])
    async with skills_client(settings) as client:
        before = (await client.get("/api/skills")).json()
        if kind == "toggle":
            none = await client.post(path)
            wrong = await client.post(path, headers={"x-access-token": "not-a-token"})
        else:
            none = await upload(client, data, headers={})
            wrong = await upload(client, data, headers={"x-access-token": "not-a-token"})
        after = (await client.get("/api/skills")).json()
    assert none.status_code == 401 and "令牌" in none.json()["error"]
    assert wrong.status_code == 401
    assert before == after
    assert not (settings.resolved_skills_dir / "tok-skill").exists()


async def test_admin_routes_are_open_when_admin_needs_token_is_off(tmp_path: Path) -> None:
    settings = skills_settings(tmp_path, admin_needs_token=False)
    async with skills_client(settings) as client:
        toggled = await client.post("/api/skills/vent-chat/toggle")
        uploaded = await upload(client, make_zip([("open-skill/SKILL.md", GOOD_SKILL_MD)]), headers={})
        wrong = await client.post("/api/skills/vent-chat/toggle", headers={"x-access-token": "not-a-token"})
    assert toggled.status_code == 200 and toggled.json()["enabled"] is False
    assert uploaded.status_code == 200 and uploaded.json()["name"] == "open-skill"
    assert wrong.status_code == 401  # a token that is sent is still checked


async def test_upload_without_a_file_is_400(tmp_path: Path) -> None:
    async with skills_client(skills_settings(tmp_path)) as client:
        r = await client.post("/api/skills/upload", files={"x": (None, "y")}, headers=TOKEN)
        urlencoded = await client.post("/api/skills/upload", data={"x": "y"}, headers=TOKEN)
    assert r.status_code == 400 and r.json()["error"] == "请求参数错误：缺少必填字段 file"
    # a urlencoded body cannot carry the file: the Content-Type is named
    assert (
        urlencoded.status_code == 400
        and "Content-Type 应为 multipart/form-data" in urlencoded.json()["error"]
    )
