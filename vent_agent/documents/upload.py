"""Saving an uploaded plan: size cap, ``%PDF-`` sniffing and sha256, written atomically."""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from fastapi import UploadFile

CHUNK = 1 << 16
_SAFE_NAME = re.compile(r"[^\w.\-\u4e00-\u9fff]+")


class UploadRejected(ValueError):
    """An upload refused before any processing; ``status`` is the HTTP status to answer (400, 413)."""

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


def safe_file_name(name: str | None) -> str:
    """The client's file name reduced to a safe base name (no directories, no control characters)."""
    base = os.path.basename((name or "").replace("\\", "/")) or "plan.pdf"
    return _SAFE_NAME.sub("_", base)[:120] or "plan.pdf"


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


def sha256_file(path: Path) -> str:
    """The hex sha256 of a file."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
