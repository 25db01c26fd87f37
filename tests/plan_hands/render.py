"""The plan writer: :func:`render_plan` writes a :class:`~tests.plan_hands.model.PlanDoc` in a
:class:`~tests.plan_hands.hands.Hand` as PDF bytes (text layer, with :mod:`tests.pdf_factory`), or for a
scanned hand as page images without a text layer (:func:`scan_pdf`).
"""

from __future__ import annotations

import datetime as dt
import io
import random

from tests.pdf_factory import PAGE_H, PAGE_W, Page, build_pdf, image_pdf, row_height
from tests.plan_hands.hands import UNIT_DECIMALS, UNIT_FACTOR, UNIT_TEXT, Hand, Unit
from tests.plan_hands.model import Location, Method, PlanDoc, SignOff

CN_NUM = "一二三四五六七八九十"
CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮"
RADICALS = str.maketrans({"工": "\u2f2f", "风": "\u2edb", "面": "\u2faf", "长": "\u2ed3"})
FULLWIDTH = str.maketrans("0123456789.,", "０１２３４５６７８９．，")
BOTTOM = 70.0  # pt kept free at the foot of a page
TABLE_GLYPHS = str.maketrans({"³": "3", "²": "2", "₄": "4"})
"""The test font (STSong-Light, Adobe-GB1) has no ³ ² ₄: pdfplumber would drop them from table cells
(PDFium keeps them), so tables spell units as many plans do: m3/min, m2, CH4."""


class Writer:
    """Pages being written in one hand: flowing paragraphs and ruled tables that break over pages."""

    def __init__(self, hand: Hand) -> None:
        self.hand = hand
        self.pages: list[Page] = []
        self.new_page()

    @property
    def page(self) -> Page:
        return self.pages[-1]

    def new_page(self, landscape: bool = False) -> None:
        w, h = (PAGE_H, PAGE_W) if landscape else (PAGE_W, PAGE_H)
        self.pages.append(Page(width=w, height=h))

    def quirk(self, s: str) -> str:
        """The text as the hand's text layer carries it (radicals, control characters)."""
        if self.hand.radicals:
            s = s.translate(RADICALS)
        if self.hand.controls:
            s = s.replace("：", "：\x03").replace("m³", "\x1bm³").replace("。", "。\x07")
        return s

    def para(self, s: str, size: float = 10.5) -> None:
        if self.page.y > self.page.height - BOTTOM:
            self.new_page()
        self.page.para(self.quirk(s), size, width=self.page.width - 115)

    def table(
        self, rows: list[list[str]], weights: list[float], header: int = 1, split: int | None = None
    ) -> None:
        """A ruled table spanning the page width in proportion to ``weights``; it breaks where the page
        ends (or after ``split`` body rows), repeating its ``header`` rows on the next page."""
        rows = [[self.quirk(c.translate(TABLE_GLYPHS)) for c in r] for r in rows]
        head, body = rows[:header], rows[header:]
        while body:
            widths = [(self.page.width - 114) * w / sum(weights) for w in weights]
            room = self.page.height - BOTTOM - self.page.y - sum(row_height(r, widths) for r in head)
            n = 0
            while n < len(body) and room >= row_height(body[n], widths) and (split is None or n < split):
                room -= row_height(body[n], widths)
                n += 1
            if n == 0:
                self.new_page(self.page.width > self.page.height)
                continue
            self.page.table(head + body[:n], widths)
            body = body[n:]
            split = None
            if body:
                self.new_page(self.page.width > self.page.height)


def num(hand: Hand, x: float, decimals: int) -> str:
    """A figure as the hand writes it (thousands separators, full-width digits)."""
    s = f"{x:,.{decimals}f}" if hand.thousands and abs(x) >= 1000 else f"{x:.{decimals}f}"
    return s.translate(FULLWIDTH) if hand.fullwidth else s


def volume(hand: Hand, q_min: float, unit: Unit, *, with_unit: bool = True) -> str:
    """An air volume given in m³/min, written in ``unit``."""
    text = num(hand, q_min * UNIT_FACTOR[unit], UNIT_DECIMALS[unit])
    return f"{text} {UNIT_TEXT[unit]}" if with_unit else text


def date_text(hand: Hand, d: dt.date | None) -> str:
    if d is None:
        return ""
    return {
        "cn": f"{d.year}年{d.month}月{d.day}日",
        "dot": f"{d.year}.{d.month}.{d.day}",
        "iso": d.isoformat(),
        "md": f"{d.month}月{d.day}日",
    }[hand.date_form]


def section_title(hand: Hand, i: int, key: str) -> str:
    title = hand.title(key)
    return {
        "cn": f"{CN_NUM[i]}、{title}",
        "arabic": f"{i + 1}. {title}",
        "chapter": f"第{CN_NUM[i]}章 {title}",
        "paren": f"（{CN_NUM[i]}）{title}",
        "none": title,
    }[hand.numbering]


def location_title(hand: Hand, sec: int, i: int, name: str) -> str:
    return {
        "paren": f"（{i + 1}）{name}",
        "dotted": f"{sec + 1}.{i + 1} {name}",
        "cn_paren": f"（{CN_NUM[i] if i < 10 else '十' + CN_NUM[i - 10]}）{name}",
        "circled": f"{CIRCLED[i]}{name}",
    }[hand.loc_numbering]


def _params_line(loc: Location) -> str:
    return "基础参数：" + "，".join(f"{label}{value}{unit}" for _, label, value, unit in loc.params) + "。"


def _method_prose(hand: Hand, m: Method) -> str:
    if not m.operands:  # a floor: 不小于 60 m³/min
        return f"{m.label}：{m.formula} = {volume(hand, m.result, 'm3min')}"
    line = f"{m.label}：{m.formula} = {m.expression} = {volume(hand, m.result, 'm3min')}"
    if hand.calc_unit != "m3min":
        line += f" = {volume(hand, m.result, hand.calc_unit)}"
    return line


def _calc_table(w: Writer, loc: Location) -> None:
    hand = w.hand
    unit = UNIT_TEXT[hand.calc_unit]
    rows = [["计算方法", "计算公式", "参数取值", f"计算结果({unit})"]]
    for m in loc.methods:
        inputs = "；".join(f"{s} = {v} {u}".rstrip() for s, v, u in m.inputs) or "—"
        rows.append(
            [
                m.label.removesuffix("计算"),
                m.formula,
                inputs,
                volume(hand, m.result, hand.calc_unit, with_unit=False),
            ]
        )
    rows.append(
        ["需风量取值", "取各方法最大值", "—", volume(hand, loc.required, hand.calc_unit, with_unit=False)]
    )
    w.table(rows, [1.3, 2.2, 2.2, 1.1])


def _location(w: Writer, sec: int, i: int, loc: Location) -> None:
    hand = w.hand
    w.para(location_title(hand, sec, i, loc.name))
    if loc.params:
        w.para(_params_line(loc))
    for line in loc.area_lines:
        w.para(line)
    if hand.calc == "table":
        _calc_table(w, loc)
    else:
        for m in loc.methods:
            w.para(_method_prose(hand, m))
        w.para(f"取最大值：Q需 = {volume(hand, loc.required, hand.calc_unit)}")
    if loc.speed_check is not None:
        lo, hi = (volume(hand, v, hand.calc_unit, with_unit=False) for v in loc.speed_check)
        w.para(f"风速验算：{lo} ≤ Q需 ≤ {hi}，符合《煤矿安全规程》要求。")


def _dash(x: float | None, hand: Hand, decimals: int, unit: str = "") -> str:
    if x is None:
        return "—"
    return num(hand, x, decimals) + (f" {unit}" if unit and hand.unit_in_cells else "")


def _allocation_rows(plan: PlanDoc, hand: Hand) -> tuple[list[list[str]], list[float], int]:
    """The allocation table's rows (header rows first), column weights and the number of header rows."""
    units = {"area": "m²", "planned_speed": "m/s", "measured_speed": "m/s", "ch4": "%", "temp": "℃"}
    units |= {k: UNIT_TEXT[u] for k, u in hand.units.items()}
    if hand.unit_row:  # words over a row of units
        rows = [[hand.header(c) for c in hand.columns], [units.get(c, "") for c in hand.columns]]
    else:
        rows = [
            [
                hand.header(c) + (f"({units[c]})" if c in units and not hand.unit_in_cells else "")
                for c in hand.columns
            ]
        ]
    n_header = len(rows)
    weights = {"no": 0.5, "name": 1.8}
    for i, loc in enumerate(plan.locations):
        cells = {
            "no": str(i + 1),
            "name": loc.name,
            "area": _dash(loc.area, hand, 1, "m²"),
            "planned_speed": _dash(loc.planned_speed, hand, 2, "m/s"),
            "measured_speed": _dash(loc.measured_speed, hand, 2, "m/s"),
            "ch4": _dash(loc.ch4, hand, 2, "%"),
            "temp": _dash(loc.temp, hand, 1, "℃"),
        }
        for key, value in (("required", loc.required), ("allocated", loc.allocated)):
            unit = hand.units[key]
            if key == "required" and loc.required_unit_slip:  # the figure in another unit than its column's
                written = "m3min" if unit == "m3s" else "m3s"
                cells[key] = num(hand, value * UNIT_FACTOR[written], UNIT_DECIMALS[written])
                if hand.unit_in_cells:
                    cells[key] += f" {UNIT_TEXT[unit]}"
            elif unit == "m3min" and value == int(value) and key == "allocated":  # allocations are round
                cells[key] = num(hand, value, 0) + (f" {UNIT_TEXT[unit]}" if hand.unit_in_cells else "")
            else:
                cells[key] = volume(hand, value, unit, with_unit=hand.unit_in_cells)
        rows.append([cells[c] for c in hand.columns])
    return rows, [weights.get(c, 1.0) for c in hand.columns], n_header


def _signoff(w: Writer, signoffs: list[SignOff]) -> None:
    hand = w.hand
    if hand.signoff == "table":
        w.table(
            [
                ["", *(s.role for s in signoffs)],
                ["职务", *(s.title for s in signoffs)],
                ["签字", *(s.name or "" for s in signoffs)],
                ["日期", *(date_text(hand, s.date) for s in signoffs)],
            ],
            [0.8] + [1.2] * len(signoffs),
        )
    elif hand.signoff == "transposed":
        rows = [["审批环节", "职务", "姓名", "日期"]]
        rows += [[s.role, s.title, s.name or "", date_text(hand, s.date)] for s in signoffs]
        w.table(rows, [1, 1.5, 1.2, 1.3])
    elif hand.signoff == "lines":
        for s in signoffs:
            w.para(f"{s.role}：{s.title} {s.name or ''} {date_text(hand, s.date)}".rstrip())
    else:  # stamp-like boxed blocks, two lines each
        for s in signoffs:
            top = w.page.y
            w.para(f"【{s.role}】{s.title}  {s.name or ''}")
            w.para(f"日期：{date_text(hand, s.date)}")
            x0, y0, x1, y1 = 52, top - 4, 300, w.page.y
            for a, b, c, d in ((x0, y0, x1, y0), (x0, y1, x1, y1), (x0, y0, x0, y1), (x1, y0, x1, y1)):
                w.page.line(a, b, c, d)
            w.page.y += 10


def render_pages(plan: PlanDoc, hand: Hand) -> list[Page]:
    """The plan's pages in ``hand`` (text layer)."""
    w = Writer(hand)
    title = f"{plan.mine} {plan.year} 年 {plan.month} 月份配风计划"
    w.page.y = 50
    w.para(title, 15)
    w.para(f"版本：{plan.version} 编制日期：{date_text(hand, plan.drawn_up)}")
    sec = 0

    def section(key: str) -> int:
        nonlocal sec
        w.para(section_title(hand, sec, key), 12)
        sec += 1
        return sec - 1

    section("basis")
    for i, b in enumerate(plan.basis):
        w.para(f"{i + 1}. {b}；")
    section("overview")
    w.para(plan.overview)
    if hand.location_list:
        section("list")
        w.table(
            [["序号", "用风地点", "类别"]]
            + [[str(i + 1), x.name, x.kind_label] for i, x in enumerate(plan.locations)],
            [0.6, 3, 2],
        )
    calc_sec = section("calc")
    for i, loc in enumerate(plan.locations):
        _location(w, calc_sec, i, loc)
    if hand.landscape:
        w.new_page(landscape=True)
        w.page.y = 50
    section("allocation")
    rows, weights, n_header = _allocation_rows(plan, hand)
    w.table(rows, weights, header=n_header, split=hand.split_rows)
    if hand.landscape:
        w.new_page()
    section("total")
    u = hand.calc_unit
    w.para(
        f"各用风地点需风量之和 ΣQ = {volume(hand, plan.stated_sum, u)}；矿井需风系数取 k = {plan.k_mine:g}（{plan.fan_mode}）；"
        f"矿井总需风量 Q矿 = ΣQ × k = {volume(hand, plan.stated_sum, u, with_unit=False)} × {plan.k_mine:g} = "
        f"{volume(hand, plan.mine_total, u)}。"
    )
    w.para(
        f"按井下同时工作最多人数验算：4 × {plan.people} = {num(hand, 4 * plan.people, 0)} m³/min，小于Q矿。"
        f"矿井通风能力{num(hand, plan.capacity, 0)} m³/min，满足要求。"
    )
    section("measures")
    for i, m in enumerate(plan.measures):
        w.para(f"{i + 1}. {m}；")
    section("signoff")
    _signoff(w, plan.signoffs)
    return w.pages


def render_plan(plan: PlanDoc, hand: Hand) -> bytes:
    """The PDF of ``plan`` written in ``hand`` (a scan without text layer for a scanned hand)."""
    data = build_pdf(render_pages(plan, hand))
    return scan_pdf(data) if hand.scanned else data


def scan_pdf(data: bytes, dpi: float = 150.0, seed: int = 11) -> bytes:
    """``data`` printed and scanned: each page rendered (pypdfium2) in grey, skewed by a fraction of a
    degree, speckled; a PDF of the images only (no text layer)."""
    import pypdfium2 as pdfium
    from PIL import Image

    _require_cjk_font()
    rnd = random.Random(seed)
    images = []
    doc = pdfium.PdfDocument(io.BytesIO(data))
    try:
        for i in range(len(doc)):
            img = doc[i].render(scale=dpi / 72).to_pil().convert("L")
            img = img.rotate(
                rnd.uniform(-0.6, 0.6), resample=Image.Resampling.BICUBIC, fillcolor=255, expand=False
            )
            px = img.load()
            for _ in range(img.width * img.height // 400):
                px[rnd.randrange(img.width), rnd.randrange(img.height)] = rnd.choice((0, 96, 160))
            images.append(img)
    finally:
        doc.close()
    return image_pdf(images, dpi=dpi)


def _require_cjk_font() -> None:
    """Raise RuntimeError when PDFium finds no CJK font to draw the pages' Chinese (a scan of blank
    glyphs would test nothing): install one, e.g. ``apt-get install fonts-noto-cjk`` (as ``.ci/run`` does)."""
    import pypdfium2 as pdfium

    page = Page(width=120, height=60)
    page.text(10, 10, "工作面", 30)
    doc = pdfium.PdfDocument(build_pdf([page]))
    try:
        ink = doc[0].render(scale=1).to_pil().convert("L").getextrema()[0]
    finally:
        doc.close()
    if ink > 128:
        raise RuntimeError("PDFium has no CJK font to render the scanned hand: install fonts-noto-cjk")
