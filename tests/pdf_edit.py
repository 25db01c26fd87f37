"""Edit existing PDFs for tests: bind several documents into one (pypdfium2), and rewrite the fonts'
ToUnicode maps (what a text layer says each glyph is) the way office suites and broken exporters get them
wrong: a CJK radical for the ideograph (⼯ for 工), a control or private-use character after a glyph.

The ToUnicode edit is an incremental update (PDF 1.7, 7.5.6): the changed CMap streams and a new
cross-reference section are appended; the pages and glyphs stay as they are, so the page looks the same.
"""

from __future__ import annotations

import io
import re
import zlib
from pathlib import Path

import pypdfium2 as pdfium

from tests.helpers import present

_TO_UNICODE = re.compile(rb"/ToUnicode\s+(\d+)\s+0\s+R")
_BFCHAR_DST = re.compile(rb"(<[0-9A-Fa-f]{2,4}>\s*)<([0-9A-Fa-f]{4,})>")


def bind(parts: list[bytes | Path]) -> bytes:
    """One PDF with the pages of ``parts`` in order (each a PDF file or its bytes)."""
    out = pdfium.PdfDocument.new()
    for part in parts:
        src = pdfium.PdfDocument(part.read_bytes() if isinstance(part, Path) else part)
        out.import_pages(src)
        src.close()
    buffer = io.BytesIO()  # in memory: no file name that two test processes could share
    try:
        out.save(buffer)
        return buffer.getvalue()
    finally:
        out.close()


def _hex(text: str) -> bytes:
    return text.encode("utf-16-be").hex().upper().encode()


def remap_to_unicode(data: bytes, mapping: dict[str, str]) -> bytes:
    """``data`` with every ToUnicode ``bfchar`` entry whose text is a key of ``mapping`` changed to the
    value (one or more characters). Only Flate-compressed or plain CMap streams are handled."""
    startxref = int(re.findall(rb"startxref\s+(\d+)", data)[-1])
    trailer = re.findall(rb"trailer\s*<<(.*?)>>\s*startxref", data, re.S)[-1]
    size = int(present(re.search(rb"/Size\s+(\d+)", trailer)).group(1))
    root = present(re.search(rb"/Root\s+\d+\s+\d+\s+R", trailer)).group(0)
    wanted = {_hex(k): _hex(v) for k, v in mapping.items()}
    out = bytearray(data if data.endswith(b"\n") else data + b"\n")
    offsets: dict[int, int] = {}
    for num in sorted({int(n) for n in _TO_UNICODE.findall(data)}):
        head = re.search(rb"\n%d 0 obj\s*<<(.*?)>>\s*stream\r?\n" % num, data, re.S)
        if head is None:
            continue
        raw = data[head.end() :]
        flate = b"FlateDecode" in head.group(1)
        cmap = zlib.decompressobj().decompress(raw) if flate else raw[: raw.index(b"endstream")]

        def swap(m: re.Match[bytes]) -> bytes:
            dst = m.group(2).upper()
            return m.group(1) + b"<" + wanted.get(dst, dst) + b">"

        new = _BFCHAR_DST.sub(swap, cmap)
        body = zlib.compress(new) if flate else new
        offsets[num] = len(out)
        filt = b"/Filter/FlateDecode" if flate else b""
        out += (
            b"%d 0 obj\n<</Length %d%s>>\nstream\n" % (num, len(body), filt) + body + b"\nendstream\nendobj\n"
        )
    xref = len(out)
    out += b"xref\n"
    for num, off in offsets.items():
        out += b"%d 1\n%010d 00000 n \n" % (num, off)
    out += b"trailer\n<</Size %d %s /Prev %d>>\nstartxref\n%d\n%%%%EOF\n" % (size, root, startxref, xref)
    return bytes(out)
