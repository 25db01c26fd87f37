"""Render review reports (.docx) to PDF and PNG pages with LibreOffice and poppler, to look at them as a
reader would, and count their pages and tables. Not part of CI.

    python tools/render_report.py OUT_DIR REPORT.docx [REPORT.docx ...]

Needs ``soffice`` (libreoffice-writer-nogui), ``pdftoppm`` (poppler-utils) and a CJK font (fonts-noto-cjk).
Prints one line per report: name, pages, tables; the PNGs are OUT_DIR/<name>-<page>.png (60 dpi).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from docx import Document
from pypdfium2 import PdfDocument


def render(docx: Path, out: Path) -> tuple[int, int]:
    """(pages, tables) of ``docx``; writes ``out/<stem>.pdf`` and ``out/<stem>-<n>.png``."""
    out.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["soffice", "--headless", "--convert-to", "pdf", "--outdir", str(out), str(docx)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    pdf = out / f"{docx.stem}.pdf"
    subprocess.run(["pdftoppm", "-png", "-r", "60", str(pdf), str(out / docx.stem)], check=True, timeout=300)
    return len(PdfDocument(str(pdf))), len(Document(str(docx)).tables)


def main(argv: list[str]) -> int:
    out = Path(argv[1])
    for name in argv[2:]:
        pages, tables = render(Path(name), out)
        print(f"{Path(name).name}\tpages={pages}\ttables={tables}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
