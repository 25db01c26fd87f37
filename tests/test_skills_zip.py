"""Hostile and malformed skill zips: each is refused with a clear 4xx and leaves nothing written (the
skills directory, the files around it, the enabled flags); a name clash is 409."""

from __future__ import annotations

import stat
import zipfile
from pathlib import Path

import pytest

from tests.test_skills_support import (
    GOOD_SKILL_MD,
    lying_bomb,
    make_zip,
    skill_md,
    skills_client,
    skills_settings,
    snapshot,
    special_member,
    symlink_member,
    upload,
)
from vent_agent.skills.zip_install import ZipLimits, member_name

LIMITS = ZipLimits()
MD = ("evil/SKILL.md", GOOD_SKILL_MD)

HOSTILE: dict[str, tuple[bytes, str, int, str]] = {
    # case: (zip bytes, upload file name, status, a piece of the message)
    "traversal": (make_zip([("SKILL.md", GOOD_SKILL_MD), ("../x", "pwned")]), "evil.zip", 400, "路径穿越"),
    "traversal-inside-folder": (make_zip([MD, ("evil/../../x", "pwned")]), "evil.zip", 400, "路径穿越"),
    "traversal-backslash": (make_zip([MD, ("evil\\..\\..\\x", "pwned")]), "evil.zip", 400, "路径穿越"),
    "absolute": (make_zip([MD, ("/etc/x", "pwned")]), "evil.zip", 400, "绝对路径"),
    "drive-letter": (make_zip([MD, ("C:/x", "pwned")]), "evil.zip", 400, "绝对路径"),
    "symlink": (make_zip([MD, (symlink_member("evil/link"), "/etc/passwd")]), "evil.zip", 400, "符号链接"),
    "device": (
        make_zip([MD, (special_member("evil/dev", stat.S_IFCHR | 0o666), b"")]),
        "evil.zip",
        400,
        "特殊文件",
    ),
    "too-many-files": (
        make_zip([MD, *((f"evil/f{i}.md", "x") for i in range(LIMITS.max_files))]),
        "evil.zip",
        400,
        "文件过多",
    ),
    "zip-bomb": (
        make_zip([MD, ("evil/zeros.bin", b"\0" * (LIMITS.max_uncompressed_bytes + 1))]),
        "evil.zip",
        400,
        "解压后过大",
    ),
    "lying-sizes-skill-md": (lying_bomb("evil/SKILL.md", 3 << 20, 100), "evil.zip", 400, "无法读取 SKILL.md"),
    "lying-sizes": (
        lying_bomb("evil/zeros.bin", LIMITS.max_uncompressed_bytes + 1, 100, others=(MD,)),
        "evil.zip",
        400,
        "解压时数据校验失败",
    ),
    "not-a-zip": (b"%PDF-1.7\n" + b"x" * 2000, "evil.zip", 400, "不是有效的 .zip"),
    "empty-file": (b"", "evil.zip", 400, "不是有效的 .zip"),
    "wrong-extension": (make_zip([MD]), "evil.tar.gz", 400, "仅支持 .zip"),
    "no-skill-md": (make_zip([("evil/README.md", "说明")]), "evil.zip", 400, "缺少 SKILL.md"),
    "skill-md-not-at-root": (
        make_zip([("evil/docs/SKILL.md", GOOD_SKILL_MD)]),
        "evil.zip",
        400,
        "缺少 SKILL.md",
    ),
    "no-frontmatter": (make_zip([("evil/SKILL.md", "# 没有 frontmatter\n")]), "evil.zip", 400, "frontmatter"),
    "frontmatter-not-closed": (make_zip([("evil/SKILL.md", "---\nname: x\n")]), "evil.zip", 400, "结束标记"),
    "frontmatter-bad-yaml": (
        make_zip([("evil/SKILL.md", "---\nname: [unclosed\ndescription: x\n---\n")]),
        "evil.zip",
        400,
        "不是合法的 YAML",
    ),
    "frontmatter-missing-description": (
        make_zip([("evil/SKILL.md", "---\nname: 技能\nagents: [通风对话助手]\n---\n正文\n")]),
        "evil.zip",
        400,
        "缺少字段 description",
    ),
    "frontmatter-no-agents": (
        make_zip([("evil/SKILL.md", "---\nname: 技能\ndescription: 说明\nagents: []\n---\n")]),
        "evil.zip",
        400,
        "agents",
    ),
    "frontmatter-a-list": (make_zip([("evil/SKILL.md", "---\n- a\n- b\n---\n")]), "evil.zip", 400, "键值对"),
    "skill-md-not-utf8": (make_zip([("evil/SKILL.md", skill_md().encode("gbk"))]), "evil.zip", 400, "UTF-8"),
    "invalid-folder-name": (make_zip([("Evil Skill/SKILL.md", GOOD_SKILL_MD)]), "evil.zip", 400, "技能名"),
    "duplicate-member": (make_zip([MD, ("evil/a.md", "1"), ("evil/A.md", "2")]), "evil.zip", 400, "重复"),
    "file-and-folder-clash": (make_zip([MD, ("evil/a", "1"), ("evil/a/b.md", "2")]), "evil.zip", 400, "冲突"),
    "name-clash": (make_zip([("vent-chat/SKILL.md", GOOD_SKILL_MD)]), "vent-chat.zip", 409, "已存在"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
async def test_hostile_zip_is_refused_and_writes_nothing(tmp_path: Path, case: str) -> None:
    data, filename, status, message = HOSTILE[case]
    settings = skills_settings(tmp_path)
    async with skills_client(settings) as client:
        skills_dir = settings.resolved_skills_dir
        before = snapshot(skills_dir)
        registry = client.app.state.vent.skills
        await registry.set_enabled("vent-chat", False)
        flags_before = await registry.enabled_flags()
        listed_before = (await client.get("/api/skills")).json()
        r = await upload(client, data, filename)
        assert r.status_code == status, r.text
        assert message in r.json()["error"]
        assert snapshot(skills_dir) == before
        assert await registry.enabled_flags() == flags_before
        assert (await client.get("/api/skills")).json() == listed_before
    for escaped in (tmp_path / "x", tmp_path / "data" / "x", settings.resolved_skills_dir.parent / "x"):
        assert not escaped.exists()
    assert not (tmp_path / "data" / "evil").exists()


async def test_zip_over_the_upload_cap_is_413(tmp_path: Path) -> None:
    settings = skills_settings(tmp_path, max_upload_mb=1)
    big = make_zip([MD, ("evil/noise.bin", bytes(range(256)) * 5000)], compression=zipfile.ZIP_STORED)
    assert len(big) > 1 << 20
    async with skills_client(settings) as client:
        before = snapshot(settings.resolved_skills_dir)
        r = await upload(client, big, "evil.zip")
        assert snapshot(settings.resolved_skills_dir) == before
    assert r.status_code == 413 and "1 MB" in r.json()["error"]


async def test_a_second_upload_of_the_same_pack_is_409_and_keeps_the_first(tmp_path: Path) -> None:
    settings = skills_settings(tmp_path)
    first = make_zip([("twice/SKILL.md", GOOD_SKILL_MD)])
    second = make_zip([("twice/SKILL.md", skill_md(name="另一个"))])
    async with skills_client(settings) as client:
        assert (await upload(client, first)).status_code == 200
        r = await upload(client, second)
    assert r.status_code == 409 and r.json() == {"error": "技能「twice」已存在"}
    assert (settings.resolved_skills_dir / "twice" / "SKILL.md").read_text("utf-8") == GOOD_SKILL_MD


async def test_the_token_is_checked_before_the_zip(tmp_path: Path) -> None:
    data, filename, _, _ = HOSTILE["traversal"]
    async with skills_client(skills_settings(tmp_path)) as client:
        r = await upload(client, data, filename, headers={})
    assert r.status_code == 401


def test_member_names_written_in_gbk_without_the_utf8_flag_are_read_back() -> None:
    info = zipfile.ZipInfo("参考资料.md".encode("gbk").decode("cp437"))
    assert member_name(info) == "参考资料.md"
    utf8 = zipfile.ZipInfo("规程.md".encode().decode("cp437"))
    assert member_name(utf8) == "规程.md"
    flagged = zipfile.ZipInfo("已标记.md")
    flagged.flag_bits |= 0x800
    assert member_name(flagged) == "已标记.md"


def test_the_upload_helpers_build_what_they_claim() -> None:
    """The hostile zips really hold what their names say (a guard on the tests themselves)."""
    import io

    with zipfile.ZipFile(io.BytesIO(HOSTILE["absolute"][0])) as zf:
        assert "/etc/x" in zf.namelist()
    with zipfile.ZipFile(io.BytesIO(HOSTILE["symlink"][0])) as zf:
        assert stat.S_ISLNK(zf.getinfo("evil/link").external_attr >> 16)
    with zipfile.ZipFile(io.BytesIO(HOSTILE["lying-sizes"][0])) as zf:
        assert zf.getinfo("evil/zeros.bin").file_size == 100
        assert zf.getinfo("evil/SKILL.md").file_size == len(GOOD_SKILL_MD.encode())
    bomb = HOSTILE["zip-bomb"][0]
    assert len(bomb) < 100_000 < LIMITS.max_uncompressed_bytes
