"""Tables of the regulation text, rebuilt from a flattened export (one cell a line, an empty cell a blank
line), e.g. 表6 of 第157条 (井巷中的允许风流速度: 井巷名称 | 最低 | 最高, m/s).

How a flattened table is read back:

- a row starts at each text cell; the numeric or empty cells after it are its values;
- the header is the text cells before the first row with a number; with more header labels than
  columns, the first label names the row column, the last ones the value columns and the labels in
  between a group spanning them (``允许风速/（m.s-1）`` over ``最低`` and ``最高``);
- a unit written after a slash in a header (``/%``, ``/（m·s-1）``) applies to the columns below it;
  the superscript −1 of ``m·s⁻¹`` often comes out of a Word export as ``-1``, ``-9`` or ``¹``: all read m/s;
- a row label ending in ``*`` refers to the table's footnote (a line starting with ``*``).
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

NUMBER = re.compile(r"^[-+]?\d+(?:\.\d+)?$")
TITLE = re.compile(r"^表\s*(?P<no>\d+[A-Za-z]?)\s+(?P<title>\S.{0,40})$")
_UNIT_IN_LABEL = re.compile(r"\s*[/／]\s*[（(]?\s*(?P<unit>[^（()）/／]+?)\s*[)）]?\s*$")
_UNIT_SPELLINGS = [
    (re.compile(r"^m\s*[.·⋅•]\s*s\s*[-−⁻]?\s*[19¹]$"), "m/s"),
    (re.compile(r"^m\s*/\s*s$"), "m/s"),
    (re.compile(r"^m\s*[³3]\s*/\s*min$"), "m³/min"),
    (re.compile(r"^[%％]$"), "%"),
    (re.compile(r"^(?:℃|°C|°c)$"), "°C"),
]
EMPTY = "—"


def normalise_unit(unit: str) -> str:
    """A unit as written in a header to its usual form: ``m.s-9``/``m·s-1``/``m/s`` → ``m/s``, ``％`` → ``%``,
    ``m3/min`` → ``m³/min``, ``℃`` → ``°C``; anything else unchanged (stripped)."""
    u = unit.strip()
    for rx, norm in _UNIT_SPELLINGS:
        if rx.match(u):
            return norm
    return u


def split_unit(label: str) -> tuple[str, str | None]:
    """``最高允许浓度/%`` → (``最高允许浓度``, ``%``); ``允许风速/（m.s-9）`` → (``允许风速``, ``m/s``);
    a label without a unit → (label, None)."""
    m = _UNIT_IN_LABEL.search(label)
    if not m:
        return label.strip(), None
    return label[: m.start()].strip(), normalise_unit(m.group("unit"))


def parse_number(cell: str) -> float | None:
    """A numeric cell as a float; None for an empty or non-numeric cell."""
    c = cell.strip()
    return float(c) if NUMBER.match(c) else None


class RegTable(BaseModel):
    """One table of an article.

    ``label`` (``表6``), ``title`` (``井巷中的允许风流速度``); ``columns``: the leaf column names
    (``["井巷名称", "最低", "最高"]``); ``group``: the header spanning the value columns (``允许风速``)
    or None; ``units``: unit of each column (None where none; ``m/s`` for 最低/最高 of 表6);
    ``rows``: the cells as printed (``""`` for an empty cell), the row label first, footnote marks removed;
    ``row_notes``: row index → footnote text; ``footnotes``: every footnote line.
    """

    label: str
    title: str
    columns: list[str]
    group: str | None = None
    units: list[str | None] = Field(default_factory=list)
    rows: list[list[str]] = Field(default_factory=list)
    row_notes: dict[int, str] = Field(default_factory=dict)
    footnotes: list[str] = Field(default_factory=list)

    def column_title(self, i: int) -> str:
        """A value column as a phrase: ``最低`` under ``允许风速`` → ``最低允许风速``; else the column name."""
        name = self.columns[i]
        return f"{name}{self.group}" if self.group and i > 0 else name

    def value(self, row: int, col: int) -> float | None:
        """The number in ``rows[row][col]``; None for an empty or text cell."""
        return parse_number(self.rows[row][col])

    def row_text(self, row: int) -> str:
        """One row as a sentence: ``表6 井巷中的允许风流速度：采煤工作面、掘进中的煤巷和半煤岩巷，最低允许风速
        0.25 m/s，最高允许风速 4 m/s。`` (an empty cell as ``—``); the row's footnote appended."""
        cells = self.rows[row]
        parts = []
        for i in range(1, len(self.columns)):
            cell = cells[i] if i < len(cells) else ""
            unit = self.units[i] if i < len(self.units) else None
            value = f"{cell} {unit}" if cell and unit else (cell or EMPTY)
            parts.append(f"{self.column_title(i)} {value}")
        text = f"{self.label} {self.title}：{cells[0]}，{'，'.join(parts)}。"
        if row in self.row_notes:
            text += f"（注：{self.row_notes[row]}）"
        return text

    def render(self) -> str:
        """The table as text lines: title, header, one line per row (``|`` between cells), footnotes."""
        head = f"{self.label} {self.title}"
        if self.group:
            unit = next((u for u in self.units[1:] if u), None)
            head += f"（{self.group}{'，' + unit if unit else ''}）"
        lines = [head, " | ".join(self.columns)]
        lines += [" | ".join(c or EMPTY for c in row) for row in self.rows]
        lines += [f"注：{f}" for f in self.footnotes]
        return "\n".join(lines)


def is_table_end(line: str) -> bool:
    """True when a line cannot be a table cell: a sentence (``。``), a long line or a footnote."""
    s = line.strip()
    return bool(s) and ("。" in s or len(s) > 40 or s.startswith(("*", "＊", "注")))


def build_table(label: str, title: str, cells: list[str], footnotes: list[str]) -> RegTable | None:
    """A table from its flattened cells (blank string = empty cell); None when no row has a number."""
    while cells and not cells[0].strip():
        cells = cells[1:]
    groups: list[list[str]] = []
    for cell in cells:
        c = cell.strip()
        if c and parse_number(c) is None:
            groups.append([c])
        elif groups:
            groups[-1].append(c)
    first_data = next(
        (i for i, g in enumerate(groups) if any(parse_number(c) is not None for c in g[1:])), None
    )
    if first_data is None:
        return None
    header = [g[0] for g in groups[:first_data]]
    data = groups[first_data:]
    ncols = max(len(g) for g in data)
    if len(header) >= ncols:
        leaves = [header[0], *header[len(header) - (ncols - 1) :]] if ncols > 1 else header[:1]
        middle = header[1 : len(header) - (ncols - 1)]
        group_label = "".join(middle) if middle else None
    else:
        leaves = header + [f"列{i + 1}" for i in range(len(header), ncols)]
        group_label = None
    columns: list[str] = []
    units: list[str | None] = []
    for leaf in leaves:
        name, unit = split_unit(leaf)
        columns.append(name)
        units.append(unit)
    group, group_unit = split_unit(group_label) if group_label else (None, None)
    if group_unit:
        units = [units[0], *(u or group_unit for u in units[1:])]
    rows: list[list[str]] = []
    row_notes: dict[int, str] = {}
    for g in data:
        row = (g + [""] * ncols)[:ncols]
        if row[0].endswith(("*", "＊")):
            row[0] = row[0].rstrip("*＊").strip()
            if footnotes:
                row_notes[len(rows)] = footnotes[0].lstrip("*＊ ").strip()
        rows.append(row)
    return RegTable(
        label=label,
        title=title,
        columns=columns,
        group=group,
        units=units,
        rows=rows,
        row_notes=row_notes,
        footnotes=[f.lstrip("*＊ ").strip() for f in footnotes],
    )
