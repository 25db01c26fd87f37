"""Text the service echoes back (an id, a file name, a model name in an error) made visible and safe.

An echoed input may hold characters that change how the message reads or cannot be sent: a right-to-left
override (U+202E) that turns ``152‮16`` around on screen, a zero-width space (U+200B) that makes two
different ids look the same, a NUL or another control character, a lone surrogate (UTF-8 cannot encode it:
the response would fail). :func:`visible_text` writes each of them as its escape (``\\u202e``,
``\\u200b``, ``\\u0000``, ``\\ud800``), so the user sees exactly what was sent; line feeds and tabs stay.
"""

from __future__ import annotations

import re
import unicodedata

_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Zl", "Zp"})
_KEPT = frozenset("\n\t")
_SUSPECT = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u180e\u2000-\u206f\ud800-\udfff\ue000-\uf8ff\ufeff\ufff9-\ufffb]|[\U000e0000-\U000e007f]"
)


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _KEPT or unicodedata.category(char) not in _HIDDEN_CATEGORIES:
        return char
    code = ord(char)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def visible_text(text: str) -> str:
    """``text`` with each control, format (bidi, zero-width), separator, private-use or lone surrogate
    character written as its escape; line feeds and tabs kept, everything else unchanged.

    >>> visible_text("未找到巷道：152\\u202e16\\u200b\\x00")
    '未找到巷道：152\\\\u202e16\\\\u200b\\\\u0000'
    """
    return _SUSPECT.sub(_escape, text)
