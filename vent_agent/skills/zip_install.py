"""Installing a skill pack from an uploaded ``.zip``, safely.

Every member is checked from the zip's central directory *before* anything is written: no absolute
paths or drive letters, no ``..``, no symlinks or device files (Unix mode in ``external_attr``, the DOS
reparse-point flag), no encrypted members or unknown compression, no duplicate or clashing paths, at most
:attr:`ZipLimits.max_files` files and :attr:`ZipLimits.max_uncompressed_bytes` declared bytes. The layout
is one top-level folder (its name is the skill's name) or files at the root (the zip's file name, without
``.zip``, is the skill's name); ``SKILL.md`` must sit at the pack's root and its frontmatter must validate
(:func:`~vent_agent.skills.frontmatter.parse_skill_md`). macOS/Windows junk (``__MACOSX/``,
``.DS_Store``, ``Thumbs.db``) is skipped.

Only then are the files extracted, into a hidden temporary folder inside the skills directory, counting
the bytes really decompressed (a member that inflates beyond its declared size, or a CRC error, aborts
the install), and the folder is renamed into place in one step. Any failure removes the temporary folder:
a rejected zip leaves nothing behind.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import stat
import tempfile
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from vent_agent.skills.errors import SkillError
from vent_agent.skills.frontmatter import SkillMeta, parse_skill_md

SKILL_MD = "SKILL.md"
NAME_PATTERN = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
"""A skill name, matched whole (``fullmatch``: ``$`` would let a trailing newline through)."""
"""A skill's name (its directory name): lowercase letters, digits and ``-``, at most 64 characters, not
starting with ``-``."""

TEMP_PREFIX = ".upload-"
_JUNK_DIRS = {"__MACOSX"}
_JUNK_FILES = {".DS_Store", "Thumbs.db", "desktop.ini"}
_SUPPORTED_COMPRESSION = {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA}
_DOS_REPARSE_POINT = 0x400
_CHUNK = 1 << 16


@dataclass(frozen=True)
class ZipLimits:
    """Caps on an uploaded skill pack (the zip's own size is capped by ``settings.max_upload_mb``).

    ``max_files``: regular files in the pack; ``max_entries``: all entries of the zip, folders and junk
    included; ``max_uncompressed_bytes``: the pack's files, decompressed (bytes); ``max_skill_md_bytes``:
    SKILL.md itself; ``max_depth``: folder levels below the pack's root; ``max_path_chars``: a member's
    path inside the pack.
    """

    max_files: int = 100
    max_entries: int = 500
    max_uncompressed_bytes: int = 10 * 1024 * 1024
    max_skill_md_bytes: int = 256 * 1024
    max_depth: int = 8
    max_path_chars: int = 240


@dataclass(frozen=True)
class PackMember:
    """A file or folder of the pack: its zip entry and its path inside the pack (top folder removed)."""

    info: zipfile.ZipInfo
    path: PurePosixPath
    is_dir: bool


@dataclass(frozen=True)
class CheckedPack:
    """A zip that passed every check: the skill's ``name``, its members, its frontmatter."""

    name: str
    members: tuple[PackMember, ...]
    meta: SkillMeta
    total_bytes: int


def check_name(name: str) -> str:
    """``name`` when it is a valid skill name; :class:`SkillError` 400 otherwise."""
    if not NAME_PATTERN.fullmatch(name):
        raise SkillError(
            400,
            f"技能名「{name[:80]}」无效：只能包含小写字母、数字和连字符（-），以字母或数字开头，最长 64 个字符",
        )
    return name


def member_name(info: zipfile.ZipInfo) -> str:
    """The member's name as its author wrote it: names without the zip's UTF-8 flag were decoded as
    CP437 by :mod:`zipfile`; Chinese tools write UTF-8 or GBK there, so those are tried first."""
    name = info.filename
    if info.flag_bits & 0x800:
        return name
    try:
        raw = name.encode("cp437")
    except UnicodeEncodeError:
        return name
    for encoding in ("utf-8", "gbk"):
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError:
            continue
    return name


def _member_path(name: str, limits: ZipLimits) -> PurePosixPath:
    """The member's relative path; :class:`SkillError` 400 for anything that could leave the pack."""
    shown = name[:120]
    if any(ord(c) < 32 or c == "\x7f" for c in name):
        raise SkillError(400, f"技能包含非法文件名（控制字符）：{shown!r}")
    unified = name.replace("\\", "/")
    if unified.startswith("/") or re.match(r"^[A-Za-z]:", unified):
        raise SkillError(400, f"技能包含绝对路径：{shown}")
    parts = [p for p in unified.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise SkillError(400, f"技能包含路径穿越（..）：{shown}")
    if not parts:
        raise SkillError(400, f"技能包含空文件名：{shown!r}")
    if len(unified) > limits.max_path_chars or any(len(p.encode()) > 255 for p in parts):
        raise SkillError(400, f"技能包中的路径过长：{shown}")
    return PurePosixPath(*parts)


def _check_kind(info: zipfile.ZipInfo, shown: str) -> None:
    mode = info.external_attr >> 16
    kind = stat.S_IFMT(mode)
    if stat.S_ISLNK(mode) or info.external_attr & _DOS_REPARSE_POINT:
        raise SkillError(400, f"技能包含符号链接：{shown}")
    if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
        raise SkillError(400, f"技能包含特殊文件（设备、管道或套接字）：{shown}")
    if info.flag_bits & 0x1:
        raise SkillError(400, f"技能包含加密文件：{shown}")
    if info.compress_type not in _SUPPORTED_COMPRESSION:
        raise SkillError(400, f"技能包使用了不支持的压缩方式：{shown}")


def _is_junk(path: PurePosixPath) -> bool:
    return path.parts[0] in _JUNK_DIRS or path.name in _JUNK_FILES


def _pack_root(paths: list[tuple[PurePosixPath, bool]], upload_name: str | None) -> tuple[str, int]:
    """``(skill name, components to strip)``: one top-level folder, or files at the root."""
    tops = {p.parts[0] for p, _ in paths}
    single = len(tops) == 1 and all(len(p.parts) > 1 or is_dir for p, is_dir in paths)
    if single:
        return check_name(tops.pop()), 1
    stem = Path((upload_name or "").replace("\\", "/")).name
    if stem.lower().endswith(".zip"):
        stem = stem[:-4]
    if not stem:
        raise SkillError(400, "无法确定技能名：请把文件放在以技能名命名的文件夹中再压缩")
    try:
        return check_name(stem), 0
    except SkillError as exc:
        raise SkillError(
            400,
            exc.message + "（文件在压缩包根目录时以 zip 文件名为技能名；也可把文件放进以技能名命名的文件夹）",
        ) from exc


def check_zip(zf: zipfile.ZipFile, upload_name: str | None, limits: ZipLimits) -> CheckedPack:
    """Check every member of ``zf`` and the pack's SKILL.md without writing anything.

    Returns the :class:`CheckedPack`; raises :class:`SkillError` 400 (hostile or malformed member,
    caps exceeded, bad layout or name, no SKILL.md, SKILL.md not UTF-8, invalid frontmatter).
    """
    infos = zf.infolist()
    if len(infos) > limits.max_entries:
        raise SkillError(400, f"技能包条目过多：{len(infos)} 个，上限 {limits.max_entries}")
    entries: list[tuple[zipfile.ZipInfo, PurePosixPath, bool]] = []
    for info in infos:
        name = member_name(info)
        path = _member_path(name, limits)
        _check_kind(info, name[:120])
        is_dir = info.is_dir() or stat.S_ISDIR(info.external_attr >> 16)
        if not _is_junk(path):
            entries.append((info, path, is_dir))
    files = [e for e in entries if not e[2]]
    if not files:
        raise SkillError(400, "技能包是空的：缺少 SKILL.md")
    if len(files) > limits.max_files:
        raise SkillError(400, f"技能包文件过多：{len(files)} 个，上限 {limits.max_files}")
    total = sum(info.file_size for info, _, _ in files)
    if total > limits.max_uncompressed_bytes:
        raise SkillError(
            400, f"技能包解压后过大：{total} 字节，上限 {limits.max_uncompressed_bytes // (1 << 20)} MB"
        )
    name, strip = _pack_root([(p, d) for _, p, d in entries], upload_name)
    members: list[PackMember] = []
    seen: dict[str, bool] = {}
    for info, path, is_dir in entries:
        rel = PurePosixPath(*path.parts[strip:]) if len(path.parts) > strip else None
        if rel is None:
            continue  # the top-level folder's own entry
        key = str(rel).casefold()
        if key in seen and not (is_dir and seen[key]):
            raise SkillError(400, f"技能包含重复的文件：{rel}")
        seen[key] = is_dir
        members.append(PackMember(info, rel, is_dir))
    for m in members:
        for parent in m.path.parents:
            if seen.get(str(parent).casefold()) is False:
                raise SkillError(400, f"技能包中的路径与文件冲突：{m.path}")
        if len(m.path.parts) - 1 > limits.max_depth:
            raise SkillError(400, f"技能包目录层级过深：{m.path}")
    skill_md = next((m for m in members if not m.is_dir and str(m.path) == SKILL_MD), None)
    if skill_md is None:
        raise SkillError(400, "技能包根目录缺少 SKILL.md")
    meta = parse_skill_md(_read_skill_md(zf, skill_md.info, limits))[0]
    return CheckedPack(name, tuple(members), meta, total)


def _read_skill_md(zf: zipfile.ZipFile, info: zipfile.ZipInfo, limits: ZipLimits) -> str:
    if info.file_size > limits.max_skill_md_bytes:
        raise SkillError(400, f"SKILL.md 过大：上限 {limits.max_skill_md_bytes // 1024} KB")
    try:
        with zf.open(info) as f:
            data = f.read(limits.max_skill_md_bytes + 1)
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError) as exc:
        raise SkillError(400, "技能包损坏：无法读取 SKILL.md") from exc
    if len(data) > limits.max_skill_md_bytes:
        raise SkillError(400, f"SKILL.md 过大：上限 {limits.max_skill_md_bytes // 1024} KB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SkillError(400, "SKILL.md 须为 UTF-8 编码") from exc


def _extract(zf: zipfile.ZipFile, pack: CheckedPack, dest: Path, limits: ZipLimits) -> None:
    root = dest.resolve()
    written = 0
    for m in pack.members:
        target = dest.joinpath(*m.path.parts)
        if not target.resolve().is_relative_to(root):  # checked above; kept as a second guard
            raise SkillError(400, f"技能包含路径穿越：{m.path}")
        if m.is_dir:
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        size = 0
        with zf.open(m.info) as src, open(target, "xb") as out:
            while chunk := src.read(_CHUNK):
                size += len(chunk)
                written += len(chunk)
                if size > m.info.file_size or written > limits.max_uncompressed_bytes:
                    raise SkillError(400, f"技能包解压后超过声明大小或上限（疑似压缩炸弹）：{m.path}")
                out.write(chunk)


def install_zip(
    source: BinaryIO, upload_name: str | None, skills_dir: Path, limits: ZipLimits | None = None
) -> CheckedPack:
    """Check the zip in ``source`` (a seekable binary file) and install it as ``skills_dir/<name>``.

    Returns the installed :class:`CheckedPack`. Raises :class:`SkillError` 400 (not a zip, a hostile or
    malformed pack, see :func:`check_zip`), 409 (a skill of that name exists). Nothing is left in
    ``skills_dir`` when it raises.
    """
    limits = limits or ZipLimits()
    if upload_name and "." in Path(upload_name).name and not upload_name.lower().endswith(".zip"):
        raise SkillError(400, "仅支持 .zip 格式的技能包")
    try:
        zf = zipfile.ZipFile(source)
    except (zipfile.BadZipFile, zlib.error, EOFError, ValueError) as exc:
        raise SkillError(400, "上传的文件不是有效的 .zip 技能包") from exc
    with zf:
        pack = check_zip(zf, upload_name, limits)
        final = skills_dir / pack.name
        if final.exists() or final.is_symlink():
            raise SkillError(409, f"技能「{pack.name}」已存在")
        skills_dir.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=TEMP_PREFIX, dir=skills_dir))
        try:
            try:
                _extract(zf, pack, tmp, limits)
            except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError) as exc:
                raise SkillError(400, "技能包损坏：解压时数据校验失败") from exc
            os.chmod(tmp, 0o755)
            try:
                os.rename(tmp, final)
            except OSError as exc:
                if exc.errno in (errno.EEXIST, errno.ENOTEMPTY) or final.exists():
                    raise SkillError(409, f"技能「{pack.name}」已存在") from exc
                raise
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    return pack
