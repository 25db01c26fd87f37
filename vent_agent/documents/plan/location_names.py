"""The grammar of a location name (docs/DOMAIN.md §5): a designation and a kind word, item numbers stripped.

``15216综采工作面``, ``二采区轨道下山掘进工作面``, ``-650水平中央变电所`` are names; method labels (``按人数``),
formula pieces (``01/(1.2×1.0006×60×``), numbers and sentence fragments are not. Used by the reader to pick
names out of running text and by the review to establish locations (:mod:`vent_agent.review.judgement.read_scope`).
"""

from __future__ import annotations

import re

from vent_agent.documents.plan.text_primitives import name_key

_ENUMERATOR = re.compile(
    r"^\s*(?:第[一二三四五六七八九十\d]+[章节条项]|[(（]\s*(?:\d{1,2}|[一二三四五六七八九十]+)\s*[)）]"
    r"|\d{1,2}(?:\.\d{1,2}(?!\d))+\s*[．.、)）]?|\d{1,2}\s*[．.、)）](?!\d)|\d{1,2}\s*[．、.](?=\d{3,}[^\d.])|[一二三四五六七八九十]+\s*[、．.]|[①-⑳])\s*"
)
"""Item numbers before a name: ``1．`` ``1、`` ``1)`` ``(1)`` ``（一）`` ``①`` ``第一节``; ``1．15216…``
(a full-width point or 、 before a digit) is an item number too, never the decimal 1.15216."""
_KIND_WORD = re.compile(
    r"(?:工作面|切眼|顺槽|大巷|巷道|巷|上山|下山|石门|车场|煤仓|绕道|起坡段|迎头|变电所|变电站|配电室|配电点|"
    r"泵房|水泵房|硐室|材料库|炸药库|火药库|爆炸材料库|充电室|机房|井底|风井|斜井|立井|暗井|风硐|联巷|区段|溜煤眼|"
    r"通道|水仓|库)$"
)
_NOT_A_NAME = re.compile(
    r"[=＝×÷/+*≤≥<>:：;；,，。%℃°³²~～…“”\"'|]|m3|m/s|\s|^按|^取|^计算|^需风量|^合计|^小计|^总计|^共|"
    r"安排|个\(|月份|最大值|系数|计算|公式|单位|说明|其中|以上|如下|根据|应为|不小于|大于|小于"
)
_DESIGNATION = re.compile(r"[\dA-Za-z一二三四五六七八九十东西南北中上下主副辅总轨运回进-]")


def strip_enumerator(name: str) -> str:
    """``name`` without a leading item number (``1．15216综采工作面`` → ``15216综采工作面``,
    ``（二）中央变电所`` → ``中央变电所``) and a trailing remark in parentheses (``…（岩巷）``)."""
    text = name_key(name)
    text = _ENUMERATOR.sub("", text, count=1)
    return re.sub(r"[(（][^()（）]{0,12}[)）]$", "", text)


def is_location_name(name: str) -> bool:
    """True when ``name`` reads as a place by the field's grammar: 3–30 characters of a designation
    (digits, letters, numerals, directions, district words) followed by a kind word (工作面, 顺槽, 大巷,
    变电所, 泵房, 硐室, 爆炸材料库 …), with no formula sign, unit, punctuation or sentence word in it.
    Method labels (``按人数``), formula pieces (``01/(1.2×1.0006×60×``), numbers and sentence fragments
    are not names."""
    core = strip_enumerator(name)
    if not 3 <= len(core) <= 30 or _NOT_A_NAME.search(core):
        return False
    if re.fullmatch(r"[\d.\-]+", core) or not _KIND_WORD.search(core):
        return False
    return bool(_DESIGNATION.search(core)) or len(core) >= 4
