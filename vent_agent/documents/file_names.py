"""The client's name of an uploaded file, as the user wrote it: decoded, then made safe to show.

Clients send a part's file name in several ways (RFC 7578 §4.2, RFC 5987/6266):

- ``filename*=UTF-8''%E9%85%8D%E9%A3%8E.pdf`` (RFC 5987 extended value): preferred when present;
- ``filename="配风.pdf"`` as raw UTF-8 bytes (browsers, curl, httpx);
- ``filename="…"`` as GBK/GB18030 bytes (older Windows clients): decoded as GB18030 when the bytes are
  not UTF-8 but are valid GB18030;
- ``filename="%E9%85%8D%E9%A3%8E.pdf"`` (percent-encoded by the client): decoded.

Anything else (bytes valid in neither encoding) gives the neutral ``plan.pdf``. The result keeps every
printable character, full-width punctuation included ("配风计划（8月）.pdf" stays); only directories
(``/``, ``\\``) and control characters are removed.
"""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import unquote_to_bytes

DEFAULT_NAME = "plan.pdf"
MAX_NAME_CHARS = 120
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")


def _decode_bytes(raw: bytes) -> str | None:
    """``raw`` as UTF-8, else as GB18030; None when it is neither."""
    for codec in ("utf-8", "gb18030"):
        try:
            return raw.decode(codec)
        except UnicodeDecodeError:
            continue
    return None


def decode_extended(value: str) -> str | None:
    """An RFC 5987 ``ext-value`` (``charset'lang'pct-encoded``) decoded; None when malformed.

    >>> decode_extended("UTF-8''%E9%85%8D%E9%A3%8E.pdf")
    '配风.pdf'
    """
    value = value.strip().strip('"')
    parts = value.split("'", 2)
    if len(parts) != 3:
        return None
    charset, _lang, encoded = parts
    raw = unquote_to_bytes(encoded)
    try:
        return raw.decode(charset.strip() or "utf-8")
    except (LookupError, UnicodeDecodeError):
        return _decode_bytes(raw)


def decode_percent(name: str) -> str:
    """``name`` with its percent-escapes decoded when they spell UTF-8 (or GB18030) text; unchanged
    otherwise (so "100%.pdf" stays)."""
    if not _PERCENT.search(name):
        return name
    decoded = _decode_bytes(unquote_to_bytes(name))
    return decoded if decoded is not None else name


def header_file_name(raw: bytes | None, extended: str | None) -> str | None:
    """The file name a part's Content-Disposition carries: ``extended`` (the ``filename*`` value) when
    it decodes, else the raw ``filename`` bytes decoded (see the module docstring). None when the part
    names no file; :data:`DEFAULT_NAME` when the bytes are not text."""
    if extended is not None and (name := decode_extended(extended)) is not None:
        return name
    if raw is None:
        return DEFAULT_NAME if extended is not None else None
    name = _decode_bytes(raw)
    return name if name is not None else DEFAULT_NAME


def file_name_unreadable(raw: bytes | None, extended: str | None) -> bool:
    """Whether a part names a file whose name decodes in none of the ways :func:`header_file_name`
    tries (``filename*=UTF-8''%ED%A0%80.zip``, ``filename`` bytes neither UTF-8 nor GB18030), so that it
    gave :data:`DEFAULT_NAME` in place of the client's name."""
    if extended is not None and decode_extended(extended) is not None:
        return False
    if raw is None:
        return extended is not None
    return _decode_bytes(raw) is None


def safe_file_name(name: str | None) -> str:
    """The client's file name made safe to show and store: percent-escapes decoded, directories and
    control characters removed, at most :data:`MAX_NAME_CHARS` characters (the extension kept);
    :data:`DEFAULT_NAME` when nothing is left.

    >>> safe_file_name("C:\\\\计划\\\\配风计划（8月）.pdf")
    '配风计划（8月）.pdf'
    """
    name = decode_percent(name or "")
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    base = "".join(ch for ch in base if unicodedata.category(ch) not in ("Cc", "Cf", "Zl", "Zp"))
    base = base.strip()
    if base in ("", ".", ".."):
        return DEFAULT_NAME
    if len(base) > MAX_NAME_CHARS:
        stem, dot, ext = base.rpartition(".")
        if dot and stem and len(ext) <= 10:
            base = stem[: MAX_NAME_CHARS - len(ext) - 1].rstrip() + "." + ext
        else:
            base = base[:MAX_NAME_CHARS]
    return base
