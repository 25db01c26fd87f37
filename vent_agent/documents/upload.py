"""Saving an uploaded plan: size cap, ``%PDF-`` sniffing and sha256, written atomically."""

from __future__ import annotations

import asyncio
import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from fastapi import UploadFile

from vent_agent.documents.file_names import safe_file_name

CHUNK = 1 << 16


class UploadRejected(ValueError):
    """An upload refused before any processing; ``status`` is the HTTP status to answer (400, 413, 507)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class SavedUpload:
    """An uploaded PDF stored as ``<uploads_dir>/<sha256>.pdf``."""

    path: Path
    sha256: str
    size: int
    file_name: str


async def save_pdf_upload(upload: UploadFile, uploads_dir: Path, max_bytes: int) -> SavedUpload:
    """Stream ``upload`` to disk, checking size and the ``%PDF-`` header.

    Raises :class:`UploadRejected` 400 (empty, not a PDF) or 413 (over ``max_bytes``); nothing is left on disk
    when it raises.
    """
    uploads_dir.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    size = 0
    fd, tmp_name = tempfile.mkstemp(dir=uploads_dir, suffix=".part")
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            while chunk := await upload.read(CHUNK):
                if size == 0 and not chunk.lstrip(b"\r\n\t ")[:5] == b"%PDF-":
                    raise UploadRejected(400, "上传的文件不是 PDF（缺少 %PDF- 文件头）")
                size += len(chunk)
                if size > max_bytes:
                    raise UploadRejected(413, f"文件过大：上限 {max_bytes // (1 << 20)} MB")
                digest.update(chunk)
                out.write(chunk)
        if size == 0:
            raise UploadRejected(400, "上传的文件为空")
        sha = digest.hexdigest()
        final = uploads_dir / f"{sha}.pdf"
        os.replace(tmp, final)
        return SavedUpload(final, sha, size, safe_file_name(upload.filename))
    finally:
        tmp.unlink(missing_ok=True)


def disk_usage(root: Path) -> int:
    """Bytes of the regular files under ``root`` (0 when it does not exist)."""
    total = 0
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            try:
                total += os.stat(os.path.join(dirpath, name), follow_symlinks=False).st_size
            except OSError:  # removed meanwhile
                continue
    return total


async def check_upload_room(root: Path, cap_bytes: int, incoming: int) -> int:
    """Raise :class:`UploadRejected` 507 when the uploads under ``root`` plus ``incoming`` bytes would
    exceed ``cap_bytes`` (``max_upload_disk_mb``; 0 = no cap); returns the bytes in use."""
    used = await asyncio.to_thread(disk_usage, root)
    if cap_bytes > 0 and used + incoming > cap_bytes:
        raise UploadRejected(
            507, f"上传文件的存储空间已满（上限 {cap_bytes >> 20} MB），请稍后再试或联系管理员清理"
        )
    return used


def sha256_file(path: Path) -> str:
    """The hex sha256 of a file."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
