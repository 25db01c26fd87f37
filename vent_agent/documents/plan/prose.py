"""Parts of a plan written as running text instead of tables: the sign-offs told in a sentence
(``经通风区区长王建国于8月28日审核，总工程师陈卫东于8月29日批准执行``) and the allocation told item by item
(``15216综采工作面需风量1153.2，计划配风1,250（断面11.65，计划风速1.79）；…``).

Part of :mod:`vent_agent.documents.plan.parser`. Only what the sentence states is read: a person needs a
title word, a name and a verb of the role; an allocation item needs a name, its required and its planned
air. Anything else is left unread (never guessed).
"""

from __future__ import annotations

import re

from vent_agent.documents.plan.location_names import is_location_name, strip_enumerator
from vent_agent.documents.plan.model import AllocationRow, Figure, SignOff, SourceRef
from vent_agent.documents.plan.text_primitives import NUM, TextDoc, parse_date, squeeze
from vent_agent.documents.plan.units import read_figure

_TITLE = r"(?:技术员|工程师|副总工程师|总工程师|通风副总|区长|科长|队长|主任|副区长|副科长|矿长|副矿长|负责人|技术负责人)"
_ROLE_VERBS = {"编制": "编制", "审核": "审核", "审查": "审核", "会审": "审核", "批准": "批准", "审批": "批准"}
_PROSE_SIGNOFF = re.compile(
    rf"(?:(?<=[由经,，、;；。:：\s])|^)(?P<title>[\u4e00-\u9fff]{{0,8}}?{_TITLE})\s*(?P<name>[\u4e00-\u9fff]{{2,3}}?)\s*于\s*"
    r"(?P<date>(?:\d{4}\s*年\s*)?\d{1,2}\s*月\s*\d{1,2}\s*日)\s*(?:进行|完成)?\s*"
    r"(?P<verb>编制|审核|审查|会审|批准|审批)"
)


def prose_signoffs(doc: TextDoc, plan_month: str | None) -> list[SignOff]:
    """Sign-offs stated in sentences: ``[title][name]于[date][编制|审核|批准]`` (``7月25日`` takes its
    year from ``plan_month``, ``YYYY-MM``). Each carries the sentence as its reference (confidence
    ``inferred``). Empty when the text states none."""
    text = re.sub(r"\s*\n\s*", "", doc.text)  # sentences wrap over lines
    out: list[SignOff] = []
    for m in _PROSE_SIGNOFF.finditer(text):
        title = re.sub(r"^(?:由|经|并由|后由|最后由|再由|并经)", "", m.group("title"))
        offset = _doc_offset(doc, m.start())
        ref = SourceRef(page=doc.page_at(offset), text=squeeze(m.group(0)), confidence="inferred")
        out.append(
            SignOff(
                role=_ROLE_VERBS[m.group("verb")],
                title=title,
                name=m.group("name"),
                date=parse_date(m.group("date"), plan_month),
                ref=ref,
            )
        )
    return out


def _doc_offset(doc: TextDoc, squeezed_pos: int) -> int:
    """The offset in ``doc.text`` of position ``squeezed_pos`` of the text with its line breaks (and
    the blanks around them) removed."""
    seen = 0
    for i, piece in enumerate(re.split(r"(\s*\n\s*)", doc.text)):
        if i % 2 == 1:
            continue
        if seen + len(piece) > squeezed_pos:
            before = sum(len(p) for p in re.split(r"(\s*\n\s*)", doc.text)[:i])
            return before + (squeezed_pos - seen)
        seen += len(piece)
    return len(doc.text) - 1 if doc.text else 0


_ITEM = re.compile(
    rf"(?P<name>[^；;。，,：:]{{3,30}}?)\s*需风量\s*(?:为|是)?\s*(?P<required>{NUM})\s*(?P<ru>m³/min|m³/s)?\s*[，,]\s*"
    rf"计划配风(?:量)?\s*(?:为|是)?\s*(?P<allocated>{NUM})\s*(?P<au>m³/min|m³/s)?"
    rf"(?:\s*[（(](?P<extra>[^()（）]{{0,40}})[)）])?"
)


def prose_allocation(doc: TextDoc, start: int, end: int, default_unit: str | None) -> list[AllocationRow]:
    """Allocation items stated in the running text ``doc.text[start:end]``: ``<location>需风量<Q>，计划配风
    <Q>（断面<S>，计划风速<v>）`` separated by ``；``. Flows without a unit take ``default_unit`` (the
    plan's stated default, e.g. ``m³/min``; None: left as written). Rows carry the sentence as their
    reference (confidence ``inferred``)."""
    text = re.sub(r"\s*\n\s*", "", doc.text[start:end])
    rows: list[AllocationRow] = []
    for m in _ITEM.finditer(text):
        name = re.sub(r"^(?:如下|分配如下|其中|本月风量分配如下)[:：]?", "", squeeze(m.group("name")))
        name = re.sub(r"^.*?[:：]", "", name)
        offset = _doc_offset(doc, _doc_offset_in(doc, start) + m.start())
        ref = SourceRef(page=doc.page_at(offset), text=squeeze(m.group(0)), confidence="inferred")
        extra = m.group("extra") or ""
        area = re.search(rf"断面\s*(?:为)?\s*({NUM})", extra)
        speed = re.search(rf"(?:计划)?风速\s*(?:为)?\s*({NUM})", extra)
        rows.append(
            AllocationRow(
                location=name,
                required_q=_flow(m.group("required"), m.group("ru") or default_unit, ref),
                allocated_q=_flow(m.group("allocated"), m.group("au") or default_unit, ref),
                area=Figure(value=float(area.group(1)), unit="m²", ref=ref) if area else None,
                planned_speed=Figure(value=float(speed.group(1)), unit="m/s", ref=ref) if speed else None,
                ref=ref,
            )
        )
    return rows


def _doc_offset_in(doc: TextDoc, start: int) -> int:
    """Position of ``doc.text[start]`` in the text with line breaks removed (inverse of
    :func:`_doc_offset`)."""
    return len(re.sub(r"\s*\n\s*", "", doc.text[:start]))


def _flow(value: str, unit: str | None, ref: SourceRef) -> Figure:
    return read_figure(float(value.replace(",", "")), unit, ref)


DEFAULT_FLOW_UNIT = re.compile(
    r"未注明单位的风量[^。；;]{0,20}?(?:单位)?(?:均)?(?:为|是)[^。；;]{0,16}?(m³/min|m³/s|立方米每分钟|立方米每秒)"
)


def stated_default_unit(doc: TextDoc) -> str | None:
    """The flow unit the plan says applies where none is written (``凡未注明单位的风量数字，单位均为立方米每分钟``)."""
    m = DEFAULT_FLOW_UNIT.search(re.sub(r"\s*\n\s*", "", doc.text))
    if not m:
        return None
    return {"立方米每分钟": "m³/min", "立方米每秒": "m³/s"}.get(m.group(1), m.group(1))


_LIST_SEPARATORS = re.compile(r"[、,，;；()（）:：。]")
_LEAD_IN = re.compile(r"^(?:分别为|分别是|依次为|包括|包含|其中|即|有|为|是)(?=[\dA-Za-z\u4e00-\u9fff])")
"""Words that lead into a list (``分别为15216综采工作面，…``), not part of the first name."""
_METHOD_NOTE = re.compile(r"(?:综采|综放|炮采|普采|高档普采|水采)(?:工作面)?")
"""A mining method noted after a face's name in the list (``3102 工作面，综采``): the face's label."""


def prose_location_list(doc: TextDoc, start: int, end: int) -> list[tuple[str, str, SourceRef]]:
    """The locations a list written as a sentence names (``掘进工作面 2 个(15220 回风顺槽、二采区轨道
    下山),硐室 4 处(中央变电所、主排水泵房…)``): every piece between separators that reads as a location
    name (:func:`is_location_name`), in order, once each, as ``(name, label, ref)``: the label is a
    mining method noted right after a face's name (``3102 工作面，综采``), else empty."""
    text = re.sub(r"\s*\n\s*", "", doc.text[start:end])
    out: list[tuple[str, str, SourceRef]] = []
    pos = 0
    for piece in _LIST_SEPARATORS.split(text):
        name = _LEAD_IN.sub("", strip_enumerator(squeeze(piece)))
        at = text.find(piece, pos)
        pos = max(pos, at)
        if out and _METHOD_NOTE.fullmatch(name) and not out[-1][1]:  # (3102 工作面，综采)
            out[-1] = (out[-1][0], name, out[-1][2])
            continue
        if is_location_name(name) and name not in [n for n, _, _ in out]:
            page = doc.page_at(_doc_offset(doc, _doc_offset_in(doc, start) + max(at, 0)))
            out.append((name, "", SourceRef(page=page, text=squeeze(piece), confidence="inferred")))
    return out
