"""Build small text-layer PDFs for tests, with no dependency: Chinese text in the non-embedded Adobe
font STSong-Light (CMap UniGB-UCS2-H, which PDFium and pdfminer both map back to Unicode), ruled
tables drawn with line operators (found by pdfplumber), several pages; plus hostile files (encrypted,
truncated, blank pages).

Coordinates are PDF points from the top-left of the page: A4 portrait (595 × 842) unless a
:class:`Page` is given another ``width``/``height`` (a landscape page swaps them).
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from PIL import Image

PAGE_W, PAGE_H = 595, 842
_TOKENS = re.compile(r"[A-Za-z0-9.,/³²₄()%+\-]+ ?|.", re.S)


def _width(text: str, size: float) -> float:
    return sum(0.5 if ord(c) < 128 else 1.0 for c in text) * size


def _hex(text: str) -> str:
    return text.encode("utf-16-be").hex().upper()


@dataclass
class Page:
    """One page being drawn: text runs and lines, top-left coordinates."""

    ops: list[str] = field(default_factory=list)
    y: float = 60.0  # the flowing-text cursor
    width: float = PAGE_W
    height: float = PAGE_H  # a landscape page swaps the two
    image: bytes | None = None  # a JPEG drawn over the whole page, under the text (a scan)
    image_px: tuple[int, int] = (0, 0)

    def text(self, x: float, y: float, s: str, size: float = 10.5, *, invisible: bool = False) -> None:
        """A text run; ``invisible`` draws it in render mode 3 (neither filled nor stroked: the hidden
        text layer of a scan)."""
        if s:
            mode = "3 Tr " if invisible else ""
            self.ops.append(
                f"BT {mode}/F1 {size} Tf 1 0 0 1 {x:.2f} {self.height - y - size:.2f} Tm <{_hex(s)}> Tj ET"
            )

    def scan(self, jpeg: bytes, width_px: int, height_px: int) -> None:
        """Put a scanned page image (JPEG bytes) under everything on the page."""
        self.image, self.image_px = jpeg, (width_px, height_px)

    def line(self, x0: float, y0: float, x1: float, y1: float) -> None:
        self.ops.append(f"{x0:.2f} {self.height - y0:.2f} m {x1:.2f} {self.height - y1:.2f} l S")

    def para(self, s: str, size: float = 10.5, x: float = 57, width: float = 480) -> None:
        """Flowing text wrapped at ``width``, like a word processor (figures and Latin words are kept
        whole on a line)."""
        for line in _wrap(s, width, size):
            self.text(x, self.y, line, size)
            self.y += size * 1.6

    def table(self, rows: list[list[str]], widths: Sequence[float], size: float = 9.0, x: float = 57) -> None:
        """A ruled table at the cursor; cell text wraps inside its column."""
        lead = size * 1.35
        top = self.y
        ys = [top]
        for row in rows:
            wrapped = [_wrap(cell, w - 6, size) for cell, w in zip(row, widths, strict=True)]
            height = row_height(row, widths, size)
            cx = x
            for lines, w in zip(wrapped, widths, strict=True):
                off = (height - len(lines) * lead) / 2
                for k, ln in enumerate(lines):
                    self.text(cx + 3, ys[-1] + off + k * lead, ln, size)
                cx += w
            ys.append(ys[-1] + height)
        right = x + sum(widths)
        for y in ys:
            self.line(x, y, right, y)
        cx = x
        for w in [0, *widths]:
            cx += w
            self.line(cx, top, cx, ys[-1])
        self.y = ys[-1] + 12


def row_height(row: list[str], widths: Sequence[float], size: float = 9.0) -> float:
    """The height (pt) :meth:`Page.table` gives ``row``: its most wrapped cell's lines, plus padding."""
    return max(len(_wrap(cell, w - 6, size)) for cell, w in zip(row, widths, strict=True)) * size * 1.35 + 6


def _wrap(text: str, width: float, size: float) -> list[str]:
    """``text`` in lines of at most ``width`` pt: breaks between CJK characters and before or after a run
    of Latin letters, digits and their punctuation (a run longer than a line is broken anyway)."""
    lines, cur = [], ""
    for token in _TOKENS.findall(text):
        if cur and _width(cur + token, size) > width:
            lines.append(cur)
            cur = ""
        while _width(token, size) > width:
            cut = max(1, int(width / size))
            lines.append(token[:cut])
            token = token[cut:]
        cur += token
    return [*lines, cur] if cur or not lines else lines


def build_pdf(pages: list[Page], *, encrypt: bool = False) -> bytes:
    """The PDF of ``pages``. ``encrypt`` adds a standard security handler whose user password is not
    empty (the file cannot be opened without it)."""
    n = len(pages)
    font, desc, cid = 3 + 2 * n, 4 + 2 * n, 5 + 2 * n
    image_obj: dict[int, int] = {}
    for i, page in enumerate(pages):
        if page.image is not None:
            image_obj[i] = 6 + 2 * n + len(image_obj) + (1 if encrypt else 0)
    objs: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{' '.join(f'{3 + 2 * i} 0 R' for i in range(n))}] /Count {n} >>".encode(),
    ]
    for i, page in enumerate(pages):
        ops = (
            [f"q {page.width:g} 0 0 {page.height:g} 0 0 cm /Im0 Do Q"] if i in image_obj else []
        ) + page.ops
        content = "\n".join(ops).encode()
        xobj = f" /XObject << /Im0 {image_obj[i]} 0 R >>" if i in image_obj else ""
        objs.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {page.width:g} {page.height:g}] "
            f"/Resources << /Font << /F1 {font} 0 R >>{xobj} >> /Contents {4 + 2 * i} 0 R >>".encode()
        )
        objs.append(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
    objs.append(
        f"<< /Type /Font /Subtype /Type0 /BaseFont /STSong-Light /Encoding /UniGB-UCS2-H "
        f"/DescendantFonts [{cid} 0 R] >>".encode()
    )
    objs.append(
        b"<< /Type /FontDescriptor /FontName /STSong-Light /Flags 6 /FontBBox [0 -200 1000 900] "
        b"/ItalicAngle 0 /Ascent 880 /Descent -120 /CapHeight 700 /StemV 80 >>"
    )
    objs.append(
        f"<< /Type /Font /Subtype /CIDFontType0 /BaseFont /STSong-Light /CIDSystemInfo << /Registry (Adobe) "
        f"/Ordering (GB1) /Supplement 4 >> /FontDescriptor {desc} 0 R /DW 1000 /W [1 95 500] >>".encode()
    )
    if encrypt:
        objs.append(
            b"<< /Filter /Standard /V 1 /R 2 /O <" + b"11" * 32 + b"> /U <" + b"22" * 32 + b"> /P -44 >>"
        )
    for i in image_obj:
        page = pages[i]
        w, h = page.image_px
        objs.append(
            f"<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceRGB "
            f"/BitsPerComponent 8 /Filter /DCTDecode /Length {len(page.image or b'')} >>\nstream\n".encode()
            + (page.image or b"")
            + b"\nendstream"
        )
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objs, 1):
        offsets.append(out.tell())
        out.write(f"{i} 0 obj\n".encode() + body + b"\nendobj\n")
    xref = out.tell()
    out.write(f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode())
    for off in offsets:
        out.write(f"{off:010d} 00000 n \n".encode())
    trailer = f"<< /Size {len(objs) + 1} /Root 1 0 R"
    if encrypt:
        trailer += f" /Encrypt {len(objs)} 0 R /ID [<{'33' * 16}> <{'33' * 16}>]"
    out.write(f"trailer\n{trailer} >>\nstartxref\n{xref}\n%%EOF\n".encode())
    return out.getvalue()


def blank_pdf(n_pages: int) -> bytes:
    """``n_pages`` empty pages (no text layer)."""
    return build_pdf([Page() for _ in range(n_pages)])


def zero_page_pdf() -> bytes:
    """A well-formed PDF whose page tree is empty."""
    return build_pdf([])


def huge_page_pdf(side_pt: float = 20000.0) -> bytes:
    """One text page whose MediaBox is ``side_pt`` × ``side_pt`` points (PDF allows at most 14 400)."""
    page = Page()
    page.text(57, 60, "超大页面")
    return build_pdf([page]).replace(
        f"/MediaBox [0 0 {PAGE_W} {PAGE_H}]".encode(), f"/MediaBox [0 0 {side_pt:g} {side_pt:g}]".encode()
    )


def image_pdf(images: list[Image.Image], dpi: float = 200.0) -> bytes:
    """A scanned document: one page per image, no text layer (Pillow's PDF writer)."""
    out = io.BytesIO()
    first, *rest = [im.convert("RGB") for im in images]
    first.save(out, "PDF", save_all=True, append_images=rest, resolution=dpi)
    return out.getvalue()
